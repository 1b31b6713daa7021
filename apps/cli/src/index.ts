/**
 * The CLI's commands as values, for tests and for embedding: `Command.runWith(app, { version })(argv)` runs a
 * command in the caller's runtime (each command's module is loaded when it runs).
 * @since 0.1.0
 */
import { makeApp } from "./Commands.js"
import { handle } from "./Exec.js"

export { type CommandPath, type Configs, makeApp, type Run, version } from "./Commands.js"
export { handle } from "./Exec.js"

/** The `autodidact` command tree, running each command in the caller's Effect runtime. */
export const app = makeApp(handle)
