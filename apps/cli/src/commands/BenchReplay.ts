/**
 * `autodidact bench replay [--quick] [--no-numpy] [--json]`: proportional prioritized replay at capacities 100k and 1M
 * (`--quick`: 100k only) against a vectorised NumPy sum-tree transcription measured in the same run: `sample 256`,
 * `updatePriorities 256`, and the two parts of `sample` alone (`tree descent 256`, `gather 256`), median and p99 µs
 * per call, the ratio ours / NumPy and the issue-23 targets at 1M. The load average before and after heads the table
 * (the machine's load moves these figures). The measuring code is `ReplayBenchmark` in `@autodidact/memory/bench`.
 * @since 0.2.0
 */
import { ReplayBenchmark } from "@autodidact/memory/bench"
import { Effect } from "effect"
import type { Configs } from "../Commands.js"
import * as Output from "../Output.js"

/** `autodidact bench replay` */
export const handleBenchReplay = (config: Configs["bench replay"]): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    const result = yield* Effect.promise(() =>
      ReplayBenchmark.run({
        ...(config.quick ? { capacities: [100_000], iters: 300, rounds: 1 } : {}),
        ...(config.noNumpy ? { python: null } : {}),
        onProgress: (line) => Output.note(config.json, `  ${line}`)
      })
    )
    if (config.json) for (const row of result.rows) process.stdout.write(JSON.stringify({ ...row, loadBefore: result.loadBefore, loadAfter: result.loadAfter }) + "\n")
    else process.stdout.write(ReplayBenchmark.formatTable(result) + "\n")
  })
