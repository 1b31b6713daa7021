/**
 * Where the gateway records what passes through it: every chat-completions exchange (request messages, tools,
 * sampling parameters, response content and tool calls, log-probabilities and token ids when the upstream returned
 * them, usage, latency, status, error) and every reward attached later, grouped into trajectories by session and
 * episode. Two layers: a directory of JSONL files ({@link layerJsonl}) and the experience store of
 * `@autodidact/memory` ({@link layerStore}).
 *
 * **Details**
 * - Rows ({@link Row}): `{ type: "exchange", ... }` ({@link Exchange}) and `{ type: "reward", ... }`
 *   ({@link Reward}), schema-described ({@link RowSchema}) so other tools can read them.
 * - JSONL layout: `<dir>/sessions/<session>.jsonl`, one file per session (the session id made file-safe: characters
 *   outside `[A-Za-z0-9._-]` become `_`, plus an 8-hex hash of the id when anything was replaced). Rows are written
 *   by group commit, off the event loop (asynchronous file I/O): the rows that arrive while a batch is being written
 *   form the next batch; each file's rows of a batch are one `write(2)` on the file opened with `O_APPEND`, then one
 *   `fsync`, and each row's `exchange` / `reward` effect completes only after its `fsync`. So rows are never
 *   interleaved, a crash loses at most the rows not yet acknowledged (a reader skips a torn last line), and a gateway
 *   serving many streams neither blocks on nor queues behind one `fsync` per row.
 * - Store layout: an exchange is a record of kind `"trajectory"` with `env: "gateway"`, `task: <session>`, tags
 *   `["gateway", "gateway:exchange", "session:<id>", "episode:<id>"]`, `text` the last user message (for retrieval),
 *   `payload` the exchange; a reward is a record of kind `"tip"` with tags `["gateway", "gateway:reward", ...]`
 *   and the reward as payload. {@link RecorderShape.read} returns at most `Retrieval.maxK` (1000) rows from a store;
 *   use the JSONL layer (or both) for bigger sessions. Payloads over `Records.MaxPayloadBytes` (1 MiB) are refused
 *   by the store (`RecordError`): the gateway logs it and still answers the client.
 *
 * @since 0.1.0
 */
import type { MissingPeerError } from "@autodidact/core"
import { Embedder, ExperienceStore, Records, Store, type StoreErrors } from "@autodidact/memory/store"
import { Context, Effect, Layer, Schema } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { LlmConfigError, RecordError } from "./LlmErrors.js"

/** Sampling parameters of a request, as sent (OpenAI names). @category schemas @since 0.1.0 */
export const SamplingParams = Schema.Record(Schema.String, Schema.Unknown)

/** A tool call (OpenAI wire form). @category schemas @since 0.1.0 */
export const ToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})
/** @category models @since 0.1.0 */
export type ToolCall = typeof ToolCall.Type

/** Token usage, OpenAI names. @category schemas @since 0.1.0 */
export const Usage = Schema.Struct({
  prompt_tokens: Schema.optional(Schema.Number),
  completion_tokens: Schema.optional(Schema.Number),
  total_tokens: Schema.optional(Schema.Number)
})
/** @category models @since 0.1.0 */
export type Usage = typeof Usage.Type

/**
 * One recorded chat-completions exchange.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Exchange = Schema.Struct({
  type: Schema.Literal("exchange"),
  /** `xch_<uuid>`, also returned to the client in the `x-autodidact-exchange-id` header. */
  id: Schema.String,
  session: Schema.String,
  episode: Schema.optional(Schema.String),
  /** Epoch milliseconds when the request arrived. */
  startedAt: Schema.Number,
  /** Milliseconds from the request to the end of the answer (the last streamed byte). */
  latencyMs: Schema.Number,
  /** Milliseconds to the upstream's response headers. */
  firstByteMs: Schema.optional(Schema.Number),
  /** Upstream attempts when the gateway retried a `429`/`503` (`Gateway.RetryOptions`); absent for one attempt. */
  upstreamAttempts: Schema.optional(Schema.Number),
  stream: Schema.Boolean,
  request: Schema.Struct({
    model: Schema.optional(Schema.String),
    messages: Schema.Array(Schema.Unknown),
    tools: Schema.optional(Schema.Array(Schema.Unknown)),
    toolChoice: Schema.optional(Schema.Unknown),
    sampling: SamplingParams
  }),
  /** The HTTP status the client got (499, nginx's "client closed request", when it went away before the answer). */
  status: Schema.Number,
  response: Schema.optional(Schema.Struct({
    id: Schema.optional(Schema.String),
    model: Schema.optional(Schema.String),
    content: Schema.NullOr(Schema.String),
    reasoning: Schema.optional(Schema.String),
    toolCalls: Schema.Array(ToolCall),
    finishReason: Schema.optional(Schema.NullOr(Schema.String)),
    /** `choices[0].logprobs.content` (concatenated over the chunks of a stream). */
    logprobs: Schema.optional(Schema.Array(Schema.Unknown)),
    /** Token ids of the answer (vLLM `token_ids`). */
    tokenIds: Schema.optional(Schema.Array(Schema.Number)),
    promptTokenIds: Schema.optional(Schema.Array(Schema.Number))
  })),
  usage: Schema.optional(Usage),
  error: Schema.optional(Schema.Struct({
    kind: Schema.Literals(["bad-request", "upstream-status", "upstream-unreachable", "upstream-timeout", "stream-broken", "client-closed", "malformed-response"]),
    message: Schema.String,
    status: Schema.optional(Schema.Number)
  }))
})
/** @category models @since 0.1.0 */
export type Exchange = typeof Exchange.Type

/**
 * A reward attached to an episode, a session (no episode) or one exchange (`exchangeId`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Reward = Schema.Struct({
  type: Schema.Literal("reward"),
  id: Schema.String,
  session: Schema.String,
  episode: Schema.optional(Schema.String),
  exchangeId: Schema.optional(Schema.String),
  reward: Schema.optional(Schema.Number),
  terminated: Schema.optional(Schema.Boolean),
  success: Schema.optional(Schema.Boolean),
  info: Schema.optional(Schema.Unknown),
  at: Schema.Number
})
/** @category models @since 0.1.0 */
export type Reward = typeof Reward.Type

/** A recorded row. @category schemas @since 0.1.0 */
export const RowSchema = Schema.Union([Exchange, Reward])
/** @category models @since 0.1.0 */
export type Row = Exchange | Reward

/** The recorder. @category models @since 0.1.0 */
export interface RecorderShape {
  /** Where rows go (a directory or a store location), for messages. */
  readonly location: string
  readonly exchange: (x: Exchange) => Effect.Effect<void, RecordError>
  readonly reward: (r: Reward) => Effect.Effect<void, RecordError>
  /** Every recorded row, exchanges in the order they were recorded. */
  readonly read: () => Effect.Effect<ReadonlyArray<Row>, RecordError>
}

/**
 * The recorder service.
 *
 * @category services
 * @since 0.1.0
 */
export class Recorder extends Context.Service<Recorder, RecorderShape>()("@autodidact/llm/Recorder") {}

/**
 * The JSONL file name of a session (see the module docs).
 *
 * @category jsonl
 * @since 0.1.0
 */
export const sessionFileName = (session: string): string => {
  const safe = session.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100)
  const changed = safe !== session || safe === "" || safe.startsWith(".")
  return changed ? `${safe}-${createHash("sha256").update(session).digest("hex").slice(0, 8)}.jsonl` : `${safe}.jsonl`
}

/** Append `text` to `file` (created when absent) in one `O_APPEND` write, then `fsync`; asynchronous. */
const appendText = async (file: string, text: string): Promise<void> => {
  const handle = await fs.promises.open(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o644)
  try {
    const buf = Buffer.from(text, "utf8")
    let off = 0
    while (off < buf.length) off += (await handle.write(buf, off, buf.length - off)).bytesWritten
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/**
 * A group-commit appender: `append(file, line)` resolves once the line is on disk. Lines queued while a batch is
 * being written go into the next batch, one write and one fsync per file per batch (see the module docs).
 */
const groupCommit = () => {
  type Pending = { readonly file: string; readonly line: string; readonly done: (error: unknown) => void }
  let queue: Array<Pending> = []
  let running = false
  const drain = async () => {
    while (queue.length > 0) {
      const batch = queue
      queue = []
      const byFile = new Map<string, Array<Pending>>()
      for (const p of batch) {
        const list = byFile.get(p.file)
        if (list === undefined) byFile.set(p.file, [p])
        else list.push(p)
      }
      await Promise.all([...byFile].map(async ([file, rows]) => {
        let error: unknown = undefined
        try {
          await appendText(file, rows.map((r) => r.line).join(""))
        } catch (e) {
          error = e ?? new Error("write failed")
        }
        for (const r of rows) r.done(error)
      }))
    }
    running = false
  }
  return (file: string, line: string, done: (error: unknown) => void): void => {
    queue.push({ file, line, done })
    if (!running) {
      running = true
      void drain()
    }
  }
}

/**
 * Parse the rows of JSONL text: blank lines are skipped, a torn last line (no trailing newline, not JSON) is
 * skipped; any other bad line fails with its 1-based number.
 *
 * @category jsonl
 * @since 0.1.0
 */
export const parseRows = (text: string): { readonly rows: Array<Row> } | { readonly line: number; readonly reason: string } => {
  const lines = text.split("\n")
  const rows: Array<Row> = []
  const decode = Schema.decodeUnknownExit(RowSchema)
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim()
    if (l === "") continue
    let v: unknown
    try {
      v = JSON.parse(l)
    } catch {
      if (i === lines.length - 1) continue // torn last line
      return { line: i + 1, reason: "not JSON" }
    }
    const r = decode(v)
    if (r._tag === "Failure") return { line: i + 1, reason: `not a gateway row: ${String(r.cause).slice(0, 300)}` }
    rows.push(r.value as Row)
  }
  return { rows }
}

/**
 * Record into `<dir>/sessions/*.jsonl` (created when absent).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerJsonl = (dir: string): Layer.Layer<Recorder, RecordError> =>
  Layer.effect(Recorder, Effect.gen(function*() {
    const sessions = path.join(dir, "sessions")
    yield* Effect.try({
      try: () => fs.mkdirSync(sessions, { recursive: true }),
      catch: (e) => new RecordError({ location: sessions, reason: String((e as Error).message ?? e) })
    })
    const append = groupCommit()
    const write = (row: Row) =>
      Effect.callback<void, RecordError>((resume) => {
        let line: string
        try {
          line = JSON.stringify(row) + "\n"
        } catch (e) {
          resume(Effect.fail(new RecordError({ location: sessions, reason: `row ${row.id} cannot be serialized: ${String((e as Error).message ?? e)}` })))
          return
        }
        append(path.join(sessions, sessionFileName(row.session)), line, (error) => {
          resume(error === undefined ? Effect.void : Effect.fail(new RecordError({ location: sessions, reason: String((error as Error).message ?? error) })))
        })
      })
    return Recorder.of({
      location: dir,
      exchange: write,
      reward: write,
      read: () => readJsonlDir(dir)
    })
  }))

/**
 * Read every row of a JSONL recorder directory (`<dir>/sessions/*.jsonl`, files in name order).
 *
 * @category jsonl
 * @since 0.1.0
 */
export const readJsonlDir = (dir: string): Effect.Effect<Array<Row>, RecordError> =>
  Effect.try({
    try: () => {
      const sessions = path.join(dir, "sessions")
      const files = fs.readdirSync(sessions).filter((f) => f.endsWith(".jsonl")).sort()
      const rows: Array<Row> = []
      for (const f of files) {
        const r = parseRows(fs.readFileSync(path.join(sessions, f), "utf8"))
        if ("line" in r) throw new Error(`${path.join(sessions, f)}:${r.line}: ${r.reason}`)
        rows.push(...r.rows)
      }
      return rows
    },
    catch: (e) => new RecordError({ location: dir, reason: String((e as Error).message ?? e) })
  })

const lastUserText = (messages: ReadonlyArray<unknown>): string => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown } | null
    if (m?.role === "user") {
      if (typeof m.content === "string") return m.content
      if (Array.isArray(m.content)) return m.content.map((p) => (typeof p?.text === "string" ? p.text : "")).join(" ")
    }
  }
  return ""
}

const tagsOf = (row: Row, kind: string) => [
  "gateway",
  `gateway:${kind}`,
  `session:${row.session}`,
  ...(row.episode === undefined ? [] : [`episode:${row.episode}`])
]

const storeError = (location: string) => (e: StoreErrors.StoreError) => new RecordError({ location, reason: `${e._tag}: ${e.message}` })

/**
 * Record into the `ExperienceStore` in the context (see the module docs for the record layout).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerStore: Layer.Layer<Recorder, never, ExperienceStore> = Layer.effect(Recorder, Effect.gen(function*() {
  const store = yield* ExperienceStore
  const location = `${store.backend}:${store.location}`
  const toError = storeError(location)
  return Recorder.of({
    location,
    exchange: (x) =>
      store.put({
        kind: "trajectory",
        env: "gateway",
        task: x.session,
        text: `${x.id}: ${lastUserText(x.request.messages).slice(0, Records.MaxTextLength - 100)}`,
        tags: tagsOf(x, "exchange"),
        outcome: "unknown",
        createdAt: x.startedAt,
        payload: x
      }).pipe(Effect.asVoid, Effect.mapError(toError)),
    reward: (r) =>
      store.put({
        kind: "tip",
        env: "gateway",
        task: r.session,
        text: `reward ${r.id}`,
        tags: tagsOf(r, "reward"),
        ...(r.success === undefined ? {} : { outcome: r.success ? "success" as const : "failure" as const }),
        ...(r.reward === undefined ? {} : { return: r.reward }),
        createdAt: r.at,
        payload: r
      }).pipe(Effect.asVoid, Effect.mapError(toError)),
    read: () =>
      store.query({ filters: { tags: ["gateway"], env: "gateway" }, k: 1000, touch: false }).pipe(
        Effect.mapError(toError),
        Effect.flatMap((hits) =>
          Effect.forEach(hits, (h) =>
            Effect.mapError(Schema.decodeUnknownEffect(RowSchema)(h.record.payload), (e) => new RecordError({ location, reason: `record ${h.record.id}: ${e.message}` })))
        ),
        Effect.map((rows) => [...rows as Array<Row>].sort((a, b) => timeOf(a) - timeOf(b)))
      )
  })
}))

const timeOf = (r: Row) => (r.type === "exchange" ? r.startedAt : r.at)

/**
 * Record to both a JSONL directory and the store.
 *
 * @category layers
 * @since 0.1.0
 */
export const both = (first: RecorderShape, second: RecorderShape): RecorderShape => ({
  location: `${first.location} + ${second.location}`,
  exchange: (x) => Effect.andThen(first.exchange(x), second.exchange(x)),
  reward: (r) => Effect.andThen(first.reward(r), second.reward(r)),
  read: first.read
})

/**
 * An in-memory recorder (tests, embedding the gateway in a process that keeps the rows itself).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory: Layer.Layer<Recorder> = Layer.sync(Recorder, () => {
  const rows: Array<Row> = []
  return Recorder.of({
    location: "memory",
    exchange: (x) => Effect.sync(() => void rows.push(x)),
    reward: (r) => Effect.sync(() => void rows.push(r)),
    read: () => Effect.sync(() => [...rows])
  })
})

/**
 * The recorder named by a CLI `--store` target: `postgres://...` (or `postgresql://`) → the experience store on a
 * PostgreSQL server; `pglite:DIR` → the experience store on PGlite in `DIR`; anything else → a JSONL directory. The
 * store layers embed record texts with `Embedder.layerHashed()` (no model needed; retrieval over gateway records is
 * by tags and session first).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFromTarget = (
  target: string
): Layer.Layer<
  Recorder,
  RecordError | LlmConfigError | StoreErrors.StoreOpenError | StoreErrors.SchemaVersionError | MissingPeerError
> => {
  const t = target.trim()
  if (t === "") return Layer.effect(Recorder, Effect.fail(new LlmConfigError({ option: "store", value: target, reason: "empty: give a directory, pglite:DIR or postgres://..." })))
  if (/^postgres(ql)?:\/\//.test(t)) {
    return layerStore.pipe(Layer.provide(Store.layerPg({ url: t }).pipe(Layer.provide(Embedder.layerHashed()))))
  }
  if (t.startsWith("pglite:")) {
    const dir = t.slice("pglite:".length)
    if (dir === "") return Layer.effect(Recorder, Effect.fail(new LlmConfigError({ option: "store", value: target, reason: "pglite: needs a directory, e.g. pglite:./gateway-db" })))
    return layerStore.pipe(Layer.provide(Store.layerPglite({ dir }).pipe(Layer.provide(Embedder.layerHashed()))))
  }
  return layerJsonl(t)
}
