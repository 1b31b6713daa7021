/**
 * An incremental parser of server-sent events (the `text/event-stream` format OpenAI-compatible servers stream chat
 * completion chunks in): feed it text as it arrives, in pieces split anywhere, and take the complete events out.
 *
 * **Details**
 * - Events end at a blank line; `data:` lines of one event are joined with `\n`; `event:` names the event; lines
 *   starting with `:` are comments (keep-alives); `\r\n`, `\r` and `\n` all end a line (WHATWG HTML, "Server-sent
 *   events", 9.2.6). `id:` and `retry:` are ignored.
 * - {@link Parser.end} flushes an event left without its blank line when the stream closes.
 * - OpenAI-compatible streams end with the event `data: [DONE]`; {@link isDone} names it.
 *
 * @example
 * ```ts
 * import { Sse } from "@autodidact/llm"
 * const p = new Sse.Parser()
 * p.push("data: {\"a\"") // []
 * p.push(":1}\n\ndata: [DONE]\n\n") // [{ data: "{\"a\":1}" }, { data: "[DONE]" }]
 * ```
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html
 * @since 0.1.0
 */

/** One event. @category models @since 0.1.0 */
export interface Event {
  readonly event?: string | undefined
  readonly data: string
}

/** The incremental parser. @category parsing @since 0.1.0 */
export class Parser {
  private buffer = ""
  private data: Array<string> = []
  private event: string | undefined = undefined

  /** Feed text; returns the events completed by it. */
  push(text: string): Array<Event> {
    this.buffer += text
    const out: Array<Event> = []
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer)
      if (m === null) break
      // a lone "\r" at the very end may be the first half of "\r\n": wait for more
      if (m[0] === "\r" && m.index === this.buffer.length - 1) break
      const line = this.buffer.slice(0, m.index)
      this.buffer = this.buffer.slice(m.index + m[0].length)
      this.line(line, out)
    }
    return out
  }

  /** The stream closed: the event in progress, if any. */
  end(): Array<Event> {
    const out: Array<Event> = []
    if (this.buffer.length > 0) {
      const line = this.buffer.replace(/\r$/, "")
      this.buffer = ""
      this.line(line, out)
    }
    this.line("", out)
    return out
  }

  private line(line: string, out: Array<Event>): void {
    if (line === "") {
      if (this.data.length > 0) out.push(this.event === undefined ? { data: this.data.join("\n") } : { event: this.event, data: this.data.join("\n") })
      this.data = []
      this.event = undefined
      return
    }
    if (line.startsWith(":")) return
    const colon = line.indexOf(":")
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? "" : line.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    if (field === "data") this.data.push(value)
    else if (field === "event") this.event = value
  }
}

/** Whether an event is the `[DONE]` terminator of OpenAI-compatible streams. @category parsing @since 0.1.0 */
export const isDone = (e: Event): boolean => e.data.trim() === "[DONE]"

/** Encode one event (`data: ...\n\n`). @category encoding @since 0.1.0 */
export const encode = (data: string, event?: string): string =>
  `${event === undefined ? "" : `event: ${event}\n`}${data.split(/\r\n|\r|\n/).map((l) => `data: ${l}`).join("\n")}\n\n`
