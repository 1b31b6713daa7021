/**
 * The CLI's commands as values, for tests and for embedding (`Command.runWith(app, { version })(argv)`).
 * @since 0.1.0
 */
export { app, version } from "./App.js"
export { benchCommand } from "./commands/Bench.js"
export { evalCommand, evaluate } from "./commands/Eval.js"
export { gamesCommand } from "./commands/Games.js"
export { sokobanCommand, solveAndReport } from "./commands/Sokoban.js"
export { startCommand } from "./commands/Start.js"
export { train, trainCommand } from "./commands/Train.js"
