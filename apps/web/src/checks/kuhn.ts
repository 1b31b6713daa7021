/**
 * Kuhn poker solved in the page with CFR+ from `@autodidact/solvers`: player 0's value of the average policy
 * (published game value −1/18, Kuhn 1950) and its NashConv (→ 0).
 * @since 0.0.0
 */
import { KuhnPoker } from "@autodidact/envs"
import { Cfr, Exploitability, GameTree } from "@autodidact/solvers"

/** Player 0's value and the NashConv of the CFR+ average policy after `iterations` iterations. */
export const kuhnCfr = (iterations: number): { readonly value0: number; readonly nashConv: number; readonly infoStates: number } => {
  const tree = GameTree.compile(KuhnPoker.make())
  const solver = Cfr.make(tree, { variant: "cfr+" })
  solver.run(iterations)
  const report = Exploitability.reportOnTree(tree, solver.averageProbabilities())
  return { value0: report.policyValues[0]!, nashConv: report.nashConv, infoStates: tree.numInfoStates }
}
