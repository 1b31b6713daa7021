/**
 * MCTS nodes per second on TextHousehold-v0 and text Sokoban, and snapshot()/restore() cost per call, each beside a
 * baseline measured in the same run (raw random-policy env steps/s; one env step), medians over repeats, with the
 * load average. Prints markdown tables, or one JSON row per line with --json.
 *
 *   npx tsx --conditions=@autodidact/source packages/search/bench/search.ts [--quick] [--json] [--repeats N]
 */
import * as Os from "node:os"
import { Benchmark } from "@autodidact/search"

const args = process.argv.slice(2)
const quick = args.includes("--quick")
const json = args.includes("--json")
const at = args.indexOf("--repeats")
const repeats = at >= 0 ? Number(args[at + 1]) : quick ? 1 : 3
const load = `load average ${Os.loadavg().map((x) => x.toFixed(2)).join(" ")} (${Os.cpus().length} cpus, node ${process.version})`
const result = Benchmark.run({
  envSteps: quick ? 3000 : 20000,
  calls: quick ? 5000 : 20000,
  repeats,
  onRow: (line) => json || console.error(`  ${line}`)
})
if (json) {
  for (const row of result.mcts) console.log(JSON.stringify({ table: "mcts", ...row, load }))
  for (const row of result.snapshot) console.log(JSON.stringify({ table: "snapshot", ...row, load }))
} else console.log(Benchmark.formatMarkdown(result, load))
