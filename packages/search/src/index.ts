/**
 * `@autodidact/search`: Search over environment states: MCTS (UCT, PUCT), best-first and beam search with one node store, transpositions and shared budgets, and a SearchPolicy.
 *
 * Modules are exported as namespaces (`import { Search } from "@autodidact/search"`); what this file does
 * not export is private.
 * @since 0.1.0
 */
export * as Search from "./Search.js"
