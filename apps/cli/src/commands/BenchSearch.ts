/**
 * `autodidact bench search [--quick] [--repeats N] [--json]`: MCTS nodes and env steps per second on TextHousehold-v0
 * and text Sokoban beside the raw random-policy env step rate measured in the same run (ratio), and the cost of
 * `snapshot()`/`restore()` beside one env step; medians over repeats, headed by the load average. The measuring code
 * is `Benchmark` in `@autodidact/search`.
 * @since 0.2.0
 */
import { Benchmark } from "@autodidact/search"
import { Effect } from "effect"
import * as Os from "node:os"
import type { Configs } from "../Commands.js"
import * as Output from "../Output.js"

/** `autodidact bench search` */
export const handleBenchSearch = (config: Configs["bench search"]): Effect.Effect<void, unknown> =>
  Effect.sync(() => {
    const load = `load average ${Os.loadavg().map((x) => x.toFixed(2)).join(" ")} (${Os.cpus().length} cpus, node ${process.version})`
    const result = Benchmark.run({
      envSteps: config.quick ? 3000 : 20000,
      calls: config.quick ? 5000 : 20000,
      repeats: config.quick ? 1 : config.repeats,
      onRow: (line) => Output.note(config.json, `  ${line}`)
    })
    if (config.json) {
      for (const row of result.mcts) process.stdout.write(JSON.stringify({ table: "mcts", ...row, load }) + "\n")
      for (const row of result.snapshot) process.stdout.write(JSON.stringify({ table: "snapshot", ...row, load }) + "\n")
    } else process.stdout.write(`Search (MCTS nodes per second; snapshot/restore cost)\n\n${Benchmark.formatMarkdown(result, load)}\n`)
  })
