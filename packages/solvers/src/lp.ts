/**
 * `@autodidact/solvers/lp`: linear and quadratic programs solved by HiGHS (WebAssembly, the optional peer
 * dependency `highs`). `Highs` here is the main entry's `Highs` namespace plus `layer` (which loads `highs` when it
 * is built), `make` and `loadRuntime`. The meta-solvers, PSRO and JPSRO of the main entry need this layer.
 * Without `highs` installed, building the layer fails with `MissingPeerError` naming `npm install highs@^1.15.3`.
 * @since 0.1.0
 */
export * as Highs from "./normalform/HighsRuntime.js"
export { LpSolveError } from "./normalform/Highs.js"
