/**
 * The CLI's commands as values, for tests and for embedding: `Command.runWith(app, { version })(argv)` runs a
 * command in the caller's runtime (each command's module is loaded when it runs).
 * @since 0.1.0
 */
import { makeApp } from "./Commands.js"
import { textEstimators } from "./Estimators.js"
import { handle } from "./Exec.js"

export { type AppOptions, type CommandPath, type Configs, makeApp, type Run, version } from "./Commands.js"
export { textEstimators } from "./Estimators.js"
export { handle } from "./Exec.js"

/**
 * The `autodidact` command tree, running each command in the caller's Effect runtime, with the advantage estimators
 * registered in `@autodidact/optim` now as the choices of `train --algo` and `compare --algos`.
 */
export const makeCliApp = () => makeApp(handle, { estimators: textEstimators() })

/**
 * The command tree as {@link makeCliApp} builds it when this module loads; after registering another estimator
 * (`Advantages.register`), build a new one to offer it.
 */
export const app = makeCliApp()
