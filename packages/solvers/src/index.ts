/**
 * `@autodidact/solvers`: game-theoretic optimizers: the CFR family (CFR, CFR+, LCFR, DCFR) and MCCFR (external and
 * outcome sampling) on compiled game trees, best response, NashConv and exploitability; normal-form meta-solvers
 * (LP Nash, replicator dynamics, CE/CCE and Maximum Gini (C)CE via HiGHS, α-Rank) and their conformance check
 * (`CheckMetaSolver`), PSRO and JPSRO; Deep CFR (SD-CFR, `DeepCfr`) for games too large for tables.
 *
 * This main entry has no Node built-in in its import graph (it bundles for browsers). The HiGHS runtime (the
 * optional peer `highs`) is reached through `@autodidact/solvers/lp` (`Highs.layer`), the solver state files through
 * `@autodidact/solvers/node` (`SolverFiles`).
 * @since 0.1.0
 */
export * as TabularPolicy from "./tree/TabularPolicy.js"
export * as GameTree from "./tree/GameTree.js"
export * as Cfr from "./regret/Cfr.js"
export * as Mccfr from "./regret/Mccfr.js"
export * as BestResponse from "./evaluation/BestResponse.js"
export * as Exploitability from "./evaluation/Exploitability.js"
export * as Solver from "./regret/Solver.js"
export * as Convergence from "./regret/Convergence.js"
export * as PayoffTensor from "./normalform/PayoffTensor.js"
export * as Highs from "./normalform/Highs.js"
export * as Equilibrium from "./normalform/Equilibrium.js"
export * as MetaSolvers from "./normalform/MetaSolvers.js"
export * as AlphaRank from "./normalform/AlphaRank.js"
export * as ShorPsro from "./normalform/ShorPsro.js"
export * as CheckMetaSolver from "./normalform/CheckMetaSolver.js"
export * as PsroLoop from "./psro/PsroLoop.js"
export * as Psro from "./psro/Psro.js"
export * as Jpsro from "./psro/Jpsro.js"
export * as PsroExtensive from "./psro/PsroExtensive.js"
export * as Minimax from "./search/Minimax.js"
export * as DeepCfr from "./deep/DeepCfr.js"
export * as Reservoir from "./deep/Reservoir.js"
export * as DeepCfrBenchmark from "./deep/DeepCfrBenchmark.js"
export { CorruptedSolverStateError, PolicyMissingInfoStateError, SolverStateWriteError, UnknownAlgorithmError } from "./Errors.js"
export { InvalidPayoffTensorError } from "./normalform/PayoffTensor.js"
export { LpSolveError } from "./normalform/Highs.js"
export { AlphaRankError } from "./normalform/AlphaRank.js"
