/**
 * Terminal output of the CLI: summary tables (cli-table3), a progress bar (cli-progress, on stderr, only on a
 * TTY), and `--json` mode, where each result is one JSON line on stdout and nothing else is printed there.
 * @since 0.1.0
 */
import cliProgress from "cli-progress"
import Table from "cli-table3"

/** Print rows as a table with a title, or as JSON lines when `json` is set. */
export const printTable = (
  json: boolean,
  title: string,
  rows: ReadonlyArray<Record<string, string | number | boolean | null | undefined>>
): void => {
  if (json) {
    for (const row of rows) process.stdout.write(JSON.stringify(row) + "\n")
    return
  }
  if (rows.length === 0) {
    process.stdout.write(`${title}: (no rows)\n`)
    return
  }
  const head = Object.keys(rows[0]!)
  const table = new Table({ head, style: tableStyle() })
  for (const row of rows) table.push(head.map((k) => formatCell(row[k])))
  process.stdout.write(`${title}\n${table.toString()}\n`)
}

/** Print a key/value summary as a two-column table, or one JSON object when `json` is set. */
export const printSummary = (json: boolean, title: string, summary: Record<string, unknown>): void => {
  if (json) {
    process.stdout.write(JSON.stringify(summary) + "\n")
    return
  }
  const table = new Table({ style: tableStyle() })
  for (const [k, v] of Object.entries(summary)) table.push({ [k]: formatCell(v) })
  process.stdout.write(`${title}\n${table.toString()}\n`)
}

/** Colours only on a terminal; plain borders in logs and pipes. */
const tableStyle = () => (process.stdout.isTTY ? { head: ["cyan"] } : { head: [], border: [] })

const formatCell = (v: unknown): string => {
  if (typeof v === "number") {
    if (Number.isInteger(v)) return v.toLocaleString("en-US")
    return Math.abs(v) >= 1000 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : String(Number(v.toPrecision(3)))
  }
  if (v === undefined || v === null) return ""
  return typeof v === "object" ? JSON.stringify(v) : String(v)
}

/** A progress bar that does nothing when disabled (JSON mode, not a TTY). */
export interface Progress {
  readonly update: (value: number, payload?: Record<string, string | number>) => void
  /** End the bar at 100% of `value` (the total becomes `value`): a run that stopped early, its goal reached. */
  readonly complete: (value: number, payload?: Record<string, string | number>) => void
  readonly stop: () => void
}

// the tokens cli-progress fills in itself; every other `{name}` of a format is a payload field
const builtinTokens = new Set(["bar", "percentage", "value", "total", "eta", "eta_formatted", "duration", "duration_formatted"])

/**
 * The payload a bar starts with: `"-"` for every payload token of `format` (e.g. `{meanReturn}`), so that the first
 * frames, drawn before any update, never show a literal `{meanReturn}`.
 */
export const initialPayload = (format: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const m of format.matchAll(/\{(\w+)\}/g)) if (!builtinTokens.has(m[1]!)) out[m[1]!] = "-"
  return out
}

/**
 * Start a progress bar of `total` units on `stream` (default stderr). On a TTY it is a live bar (its payload tokens
 * start as `-`, see {@link initialPayload}); elsewhere (CI logs, pipes) it prints one plain line at most every 5
 * seconds; with `json` it prints nothing.
 */
export const progress = (json: boolean, total: number, format: string, stream: NodeJS.WriteStream = process.stderr): Progress => {
  if (json) return { update: () => {}, complete: () => {}, stop: () => {} }
  if (!stream.isTTY) {
    let last = 0
    const started = Date.now()
    return {
      update: (v, payload) => {
        const now = Date.now()
        if (now - last < 5000) return
        last = now
        const extra = payload ? Object.entries(payload).map(([k, x]) => `${k} ${x}`).join(", ") : ""
        stream.write(`  ${v}/${total} (${((100 * v) / total).toFixed(0)}%) after ${((now - started) / 1000).toFixed(0)} s${extra ? `, ${extra}` : ""}\n`)
      },
      complete: (v) => {
        stream.write(`  ${v}/${v} (100%) after ${((Date.now() - started) / 1000).toFixed(0)} s\n`)
      },
      stop: () => {}
    }
  }
  const bar = new cliProgress.SingleBar(
    { format, stream, hideCursor: true, clearOnComplete: false, etaBuffer: 50 },
    cliProgress.Presets.shades_classic
  )
  bar.start(total, 0, initialPayload(format))
  return {
    update: (v, payload) => bar.update(v, payload),
    complete: (v, payload) => {
      bar.setTotal(v)
      bar.update(v, payload)
    },
    stop: () => bar.stop()
  }
}

/** Print a line of prose to stderr (never to stdout, which belongs to results). */
export const note = (json: boolean, line: string): void => {
  if (!json) process.stderr.write(line + "\n")
}
