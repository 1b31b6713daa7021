/**
 * `autodidact bench cli [--runs 5] [--json]`: the CLI's own start-up and end-to-end figures, measured in one run
 * against bare Node (`node -e 0`) on the same machine: `autodidact --help` and `autodidact games solve --game
 * leduc_poker --algo cfr+ --target-nashconv 1e-3`, each run `--runs` times in a fresh process (the median is
 * reported, with the difference to and the ratio over bare Node's median). It runs the same `bin/autodidact.js` as
 * `npx autodidact` (the compiled CLI when `dist/` is built and current, otherwise the TypeScript sources through tsx;
 * the `mode` column says which). A benchmark, not a test: the figures depend on the machine and its load.
 * @since 0.1.0
 */
import { Statistics } from "@autodidact/core"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import type { Configs } from "../Commands.js"
import * as Output from "../Output.js"

const bin = fileURLToPath(new URL("../../bin/autodidact.js", import.meta.url))

/** One row of `bench cli`: wall-clock seconds (median of `runs`) of a command and its distance to bare Node. */
export type BenchCliRow = {
  readonly command: string
  readonly runs: number
  readonly medianSeconds: number
  readonly minSeconds: number
  readonly maxSeconds: number
  readonly aboveNodeSeconds: number
  readonly ratioToNode: number
  readonly mode: string
}

const time = (args: ReadonlyArray<string>): number => {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" })
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited with ${r.status}: ${r.stderr.slice(-500)}`)
  return seconds
}

/** Which CLI `bin/autodidact.js` runs (it says so in AUTODIDACT_CLI_MODE; the timed runs make the same choice). */
const mode = (): string =>
  process.env["AUTODIDACT_CLI_MODE"] === "compiled" ? "compiled (dist/)" : process.env["AUTODIDACT_CLI_MODE"] === "sources" ? "sources (tsx)" : "unknown"

/** `autodidact bench cli` */
export const handleBenchCli = (config: Configs["bench cli"]): Effect.Effect<void, unknown> =>
  Effect.sync(() => {
    const runs = Math.max(1, config.runs)
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["node -e 0", ["-e", "0"]],
      ["autodidact --help", [bin, "--help"]],
      ["autodidact games solve --game leduc_poker --algo cfr+ --target-nashconv 1e-3", [bin, "games", "solve", "--game", "leduc_poker", "--algo", "cfr+", "--target-nashconv", "1e-3", "--json"]]
    ]
    const samples = cases.map(() => [] as Array<number>)
    // interleaved, so that a busy spell of the machine affects every command alike
    for (let r = 0; r < runs; r++) {
      for (let c = 0; c < cases.length; c++) {
        Output.note(config.json, `  run ${r + 1}/${runs}: ${cases[c]![0]}`)
        samples[c]!.push(time(cases[c]![1]))
      }
    }
    const node = Statistics.median(samples[0]!)
    const how = mode()
    const rows: Array<BenchCliRow> = cases.map(([command], c) => {
      const m = Statistics.median(samples[c]!)
      return {
        command,
        runs,
        medianSeconds: Number(m.toFixed(3)),
        minSeconds: Number(Math.min(...samples[c]!).toFixed(3)),
        maxSeconds: Number(Math.max(...samples[c]!).toFixed(3)),
        aboveNodeSeconds: Number((m - node).toFixed(3)),
        ratioToNode: Number((m / node).toFixed(2)),
        mode: c === 0 ? "-" : how
      }
    })
    if (config.json) for (const row of rows) process.stdout.write(JSON.stringify({ kind: "bench-cli", ...row }) + "\n")
    else Output.printTable(false, `CLI start-up and end to end (wall seconds, median of ${runs}; node ${process.version})`, rows)
  })
