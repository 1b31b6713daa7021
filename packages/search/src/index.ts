/**
 * `@autodidact/search`: search over environment states: MCTS (UCT, PUCT, progressive widening, rollout or value
 * function leaves), best-first and beam search, all on one node store with transpositions by `stateKey()` and shared
 * budgets (env steps, nodes, wall time), a `SearchPolicy` that searches before every real step, and `Drrn`: a trained
 * DRRN policy as PUCT prior, rollout policy and value. Needs envs with
 * `snapshot()`/`restore()` (`@autodidact/envs`' text envs); never replays an episode to reach a state.
 *
 * Modules are exported as namespaces (`import { Mcts } from "@autodidact/search"`); what this file does not export
 * is private. `Search` is the Effect face.
 * @since 0.1.0
 */
export * as Budget from "./Budget.js"
export * as NodeStore from "./NodeStore.js"
export * as Value from "./Value.js"
export * as Mcts from "./Mcts.js"
export * as BestFirst from "./BestFirst.js"
export * as SearchPolicy from "./SearchPolicy.js"
export * as Drrn from "./Drrn.js"
export * as Archive from "./Archive.js"
export * as Preferences from "./Preferences.js"
export * as Search from "./Search.js"
export * as Benchmark from "./Benchmark.js"
export * as SokobanExperiment from "./SokobanExperiment.js"
export * as HouseholdArchiveExperiment from "./HouseholdArchiveExperiment.js"
