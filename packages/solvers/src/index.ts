/**
 * `@autodidact/solvers`: game-theoretic optimizers: the CFR family (CFR, CFR+, LCFR, DCFR) and MCCFR (external and
 * outcome sampling) on compiled game trees, best response, NashConv and exploitability; normal-form meta-solvers
 * (LP Nash, replicator dynamics, CE/CCE and Maximum Gini (C)CE via HiGHS), PSRO and JPSRO.
 * @since 0.1.0
 */
export * as TabularPolicy from "./TabularPolicy.js"
export * as GameTree from "./GameTree.js"
export * as Cfr from "./Cfr.js"
export * as Mccfr from "./Mccfr.js"
export * as BestResponse from "./BestResponse.js"
export * as Exploitability from "./Exploitability.js"
export * as Solver from "./Solver.js"
export * as PayoffTensor from "./PayoffTensor.js"
export * as Highs from "./Highs.js"
export * as Equilibrium from "./Equilibrium.js"
export * as MetaSolvers from "./MetaSolvers.js"
export * as PsroLoop from "./PsroLoop.js"
export * as Psro from "./Psro.js"
export * as Jpsro from "./Jpsro.js"
export * as PsroExtensive from "./PsroExtensive.js"
export { CorruptedSolverStateError, PolicyMissingInfoStateError, SolverStateWriteError, UnknownAlgorithmError } from "./Errors.js"
export { InvalidPayoffTensorError } from "./PayoffTensor.js"
export { LpSolveError } from "./Highs.js"
