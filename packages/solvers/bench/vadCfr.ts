/**
 * VAD-CFR convergence table: NashConv of the average policy (and, for VAD-CFR, of the current policy, since its
 * average is uniform through iteration 500) after 10 / 100 / 1,000 iterations on Kuhn and Leduc poker, for VAD-CFR
 * (Li et al. 2026, arXiv:2602.16928) beside PDCFR+, PCFR+, DCFR and CFR+, with each run's wall time (medians of
 * `--repeats`, default 3; the numbers themselves are deterministic). Prints a markdown table, or JSON rows with
 * `--json`.
 *
 * Run: `npx tsx --conditions=@autodidact/source bench/vadCfr.ts [--json] [--repeats N]` (from packages/solvers).
 */
import { readFileSync } from "node:fs"
import { KuhnPoker, LeducPoker } from "@autodidact/envs"
import * as Cfr from "../src/regret/Cfr.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as GameTree from "../src/tree/GameTree.js"

const json = process.argv.includes("--json")
const ri = process.argv.indexOf("--repeats")
const repeats = ri > 0 ? Number(process.argv[ri + 1]) : 3
const checkpoints = [10, 100, 1000] as const
const variants: ReadonlyArray<Cfr.Variant> = ["vad-cfr", "pdcfr+", "pcfr+", "dcfr", "cfr+"]
const games = [["kuhn_poker", KuhnPoker.make()], ["leduc_poker", LeducPoker.make()]] as const
const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

interface Row { game: string; variant: string; nashConv: Record<number, number>; currentNashConv: Record<number, number>; seconds1000: number; ratioToPdcfr: number }
const rows: Array<Row> = []
for (const [name, game] of games) {
  const tree = GameTree.compile(game)
  let pdSeconds = NaN
  for (const variant of variants) Cfr.make(tree, { variant }).run(20) // JIT warm-up of every code path
  for (const variant of variants) {
    const nashConv: Record<number, number> = {}
    const currentNashConv: Record<number, number> = {}
    const times: Array<number> = []
    for (let r = 0; r < repeats; r++) {
      const solver = Cfr.make(tree, { variant })
      let done = 0
      let seconds = 0
      for (const n of checkpoints) {
        const t0 = performance.now()
        solver.run(n - done)
        seconds += (performance.now() - t0) / 1000
        done = n
        nashConv[n] = Exploitability.nashConvOnTree(tree, solver.averageProbabilities())
        currentNashConv[n] = Exploitability.nashConvOnTree(tree, solver.strategy)
      }
      times.push(seconds)
    }
    const seconds1000 = median(times)
    if (variant === "pdcfr+") pdSeconds = seconds1000
    rows.push({ game: name, variant, nashConv, currentNashConv, seconds1000, ratioToPdcfr: NaN })
  }
  for (const row of rows) if (row.game === name) row.ratioToPdcfr = row.seconds1000 / pdSeconds
}
const load = (() => {
  try {
    return readFileSync("/proc/loadavg", "utf8").trim()
  } catch {
    return "n/a"
  }
})()
if (json) {
  for (const row of rows) console.log(JSON.stringify({ ...row, load }))
} else {
  const e = (x: number) => x.toExponential(2)
  console.log(`loadavg: ${load}; wall time: median of ${repeats} runs of 1,000 iterations, ratio to PDCFR+ in the same run`)
  console.log("| game | algorithm | NashConv @10 | @100 | @1,000 | current policy @10 | @100 | @1,000 | s / 1,000 it | × PDCFR+ |")
  console.log("|---|---|---|---|---|---|---|---|---|---|")
  for (const r of rows) {
    console.log(
      `| ${r.game} | ${r.variant} | ${checkpoints.map((n) => e(r.nashConv[n]!)).join(" | ")} | ` +
        `${checkpoints.map((n) => e(r.currentNashConv[n]!)).join(" | ")} | ${r.seconds1000.toFixed(3)} | ${r.ratioToPdcfr.toFixed(2)} |`
    )
  }
}
