/**
 * `@autodidact/solvers/node`: the Node-only parts of the package (file system). The main entry stays free of Node
 * built-ins so that it bundles for browsers.
 * @since 0.1.0
 */
export * as SolverFiles from "./regret/SolverFiles.js"
