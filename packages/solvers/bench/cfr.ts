/**
 * CFR benchmark: iterations per second of CFR and CFR+ on Kuhn and Leduc poker, seconds for CFR+ to reach
 * NashConv 1e-3 on Leduc, and memory per information state of the compiled tree and the solver state.
 *
 * Run: `npx tsx --conditions=@autodidact/source bench/cfr.ts` (from packages/solvers).
 */
import { KuhnPoker, LeducPoker } from "@autodidact/envs"
import * as Cfr from "../src/regret/Cfr.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as GameTree from "../src/tree/GameTree.js"
import * as Mccfr from "../src/regret/Mccfr.js"

const now = () => performance.now() / 1000

const itersPerSecond = (run: (n: number) => void, minSeconds = 1): number => {
  run(10) // warm-up
  let n = 0
  const t0 = now()
  let batch = 10
  while (now() - t0 < minSeconds) {
    run(batch)
    n += batch
    batch = Math.min(batch * 2, 10_000)
  }
  return n / (now() - t0)
}

const games = [["kuhn_poker", KuhnPoker.make()], ["leduc_poker", LeducPoker.make()]] as const
const rows: Array<Record<string, string | number>> = []
for (const [name, game] of games) {
  const t0 = now()
  const tree = GameTree.compile(game)
  const compileSeconds = now() - t0
  const mem = GameTree.memoryStats(tree)
  const solverBytes = 3 * 8 * tree.numSlots // regrets, cumulative policy, current policy
  console.log(
    `${name}: ${tree.numNodes} nodes, ${tree.numInfoStates} info states, ${tree.numSlots} (state, action) slots; ` +
      `compile ${(compileSeconds * 1000).toFixed(1)} ms; tree ${(mem.treeBytes / 1024).toFixed(1)} KiB + keys ` +
      `${(mem.keyBytes / 1024).toFixed(1)} KiB = ${mem.bytesPerInfoState.toFixed(0)} B/info state; solver state ` +
      `${(solverBytes / tree.numInfoStates).toFixed(0)} B/info state`
  )
  for (const variant of ["cfr", "cfr+"] as const) {
    const solver = Cfr.make(tree, { variant })
    rows.push({ game: name, algo: variant, "iterations/s": Math.round(itersPerSecond(solver.run)) })
  }
  for (const sampling of ["es", "os"] as const) {
    const solver = Mccfr.make(tree, { sampling, seed: 0 })
    rows.push({ game: name, algo: `${sampling}-mccfr`, "iterations/s": Math.round(itersPerSecond(solver.run)) })
  }
  const ws = Exploitability.workspace(tree)
  const avg = new Float64Array(tree.numSlots)
  const t1 = now()
  let evals = 0
  while (now() - t1 < 0.5) {
    Exploitability.nashConvOnTree(tree, avg.fill(1 / 2), ws)
    evals++
  }
  console.log(`${name}: NashConv evaluation ${((now() - t1) / evals * 1000).toFixed(2)} ms`)
}
console.table(rows)

// Seconds for CFR+ to reach NashConv 1e-3 on Leduc, checking NashConv every 10 iterations (checks included).
{
  const t0 = now()
  const tree = GameTree.compile(LeducPoker.make())
  const solver = Cfr.make(tree, { variant: "cfr+" })
  const ws = Exploitability.workspace(tree)
  const avg = new Float64Array(tree.numSlots)
  let nc = Infinity
  while (nc > 1e-3) {
    solver.run(10)
    nc = Exploitability.nashConvOnTree(tree, solver.averageProbabilities(avg), ws)
  }
  console.log(
    `leduc_poker CFR+: NashConv ${nc.toExponential(3)} <= 1e-3 after ${solver.state.iteration} iterations in ` +
      `${(now() - t0).toFixed(2)} s (compile and NashConv checks every 10 iterations included)`
  )
}
