/**
 * PSRO meta-solver comparison on Kuhn poker (`PsroExtensive.run`, exact best responses): NashConv of the meta-strategy
 * mixture per PSRO iteration for uniform, nash, prd, alpharank and shor (SHOR-PSRO's training solver, Li et al. 2026,
 * arXiv:2602.16928), plus "shor (eval)": the same SHOR run measured with SHOR-PSRO's evaluation-time solver
 * (`ShorPsro.evalMetaSolver` on each iteration's meta-game), as the paper reports it. Wall seconds per run beside.
 * Prints a markdown table, or JSON rows with `--json`.
 *
 * Run: `npx tsx --conditions=@autodidact/source bench/psroMetaSolvers.ts [--json] [--iterations N]` (from packages/solvers).
 */
import { readFileSync } from "node:fs"
import { KuhnPoker } from "@autodidact/envs"
import { Effect } from "effect"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as Highs from "../src/normalform/HighsRuntime.js"
import * as MetaSolvers from "../src/normalform/MetaSolvers.js"
import * as ShorPsro from "../src/normalform/ShorPsro.js"
import * as PsroExtensive from "../src/psro/PsroExtensive.js"
import { compile } from "../src/tree/GameTree.js"
import * as TabularPolicy from "../src/tree/TabularPolicy.js"

const json = process.argv.includes("--json")
const ii = process.argv.indexOf("--iterations")
const iterations = ii > 0 ? Number(process.argv[ii + 1]) : 20
const game = KuhnPoker.make()
const tree = compile(game)

const rows: Array<{ metaSolver: string; nashConv: ReadonlyArray<number>; stopReason: string; seconds: number }> = []
for (const name of MetaSolvers.metaSolverNames) {
  const t0 = performance.now()
  const result = await Effect.runPromise(PsroExtensive.run(game, { metaSolver: name, iterations }).pipe(Effect.provide(Highs.layer)))
  const seconds = (performance.now() - t0) / 1000
  rows.push({ metaSolver: name, nashConv: result.history.map((r) => r.nashConv), stopReason: result.stopReason, seconds })
  if (name === "shor") {
    // The evaluation-time solver on each iteration's meta-game; populations only grow, so iteration k's population is
    // the first populationSizes[p] members of the final one.
    const members = await Effect.runPromise(Effect.all(result.populations.map((pop) => Effect.all(pop.map((pol) => TabularPolicy.toTreeProbabilities(tree, pol))))))
    const evaluated: Array<number> = []
    const t1 = performance.now()
    for (const report of result.history) {
      const meta = await Effect.runPromise(ShorPsro.evalMetaSolver()(report.metaGame))
      const mix = new Float64Array(tree.numSlots)
      for (let p = 0; p < tree.numPlayers; p++) PsroExtensive.mixtureOnTree(tree, p, members[p]!.slice(0, report.populationSizes[p]!), meta[p]!, mix)
      evaluated.push(Exploitability.nashConvOnTree(tree, mix))
    }
    rows.push({ metaSolver: "shor (eval)", nashConv: evaluated, stopReason: result.stopReason, seconds: seconds + (performance.now() - t1) / 1000 })
  }
}
const load = (() => {
  try {
    return readFileSync("/proc/loadavg", "utf8").trim()
  } catch {
    return "n/a"
  }
})()
if (json) {
  for (const row of rows) console.log(JSON.stringify({ game: "kuhn_poker", ...row, load }))
} else {
  const longest = Math.max(...rows.map((r) => r.nashConv.length))
  const shown = Array.from({ length: longest }, (_, k) => k)
  console.log(`kuhn_poker, PSRO with exact best responses; NashConv of the meta-strategy mixture at PSRO iteration k (0-based); loadavg ${load}`)
  console.log(`| meta-solver | ${shown.map((k) => `k=${k}`).join(" | ")} | stop | s |`)
  console.log(`|---|${shown.map(() => "---").join("|")}|---|---|`)
  for (const r of rows) {
    const cell = (k: number) => (k < r.nashConv.length ? r.nashConv[k]!.toExponential(2) : "")
    console.log(`| ${r.metaSolver} | ${shown.map(cell).join(" | ")} | ${r.stopReason} | ${r.seconds.toFixed(1)} |`)
  }
}
