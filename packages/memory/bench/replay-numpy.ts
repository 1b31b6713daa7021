/**
 * `npx tsx --conditions=@autodidact/source bench/replay-numpy.ts [--json] [--quick]`: prioritized replay against the
 * NumPy sum-tree transcription (`bench/numpy_replay.py`) in the same run, what `autodidact bench replay` prints
 * (see `src/replay/ReplayBenchmark.ts`). `--quick`: 100k only, fewer calls.
 */
import { ReplayBenchmark } from "../src/bench.js"

const quick = process.argv.includes("--quick")
const result = await ReplayBenchmark.run({
  ...(quick ? { capacities: [100_000], iters: 300, rounds: 1 } : {}),
  onProgress: (line) => console.error(line)
})
if (process.argv.includes("--json")) for (const row of result.rows) console.log(JSON.stringify(row))
else console.log(ReplayBenchmark.formatTable(result))
