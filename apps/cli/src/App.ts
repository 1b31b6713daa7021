/**
 * The `autodidact` command tree: a thin composition of the packages (no algorithm of its own).
 * @since 0.1.0
 */
import { Command } from "effect/cli"
import { agentCommand } from "./commands/Agent.js"
import { benchCommand } from "./commands/Bench.js"
import { compareCommand } from "./commands/Compare.js"
import { dashboardCommand } from "./commands/Dashboard.js"
import { evalCommand } from "./commands/Eval.js"
import { exportCommand } from "./commands/Export.js"
import { gamesCommand } from "./commands/Games.js"
import { gatewayCommand } from "./commands/Gateway.js"
import { reportCommand } from "./commands/Report.js"
import { runnerCommand } from "./commands/Runner.js"
import { serveEnvCommand } from "./commands/ServeEnv.js"
import { skillsCommand } from "./commands/Skills.js"
import { sokobanCommand } from "./commands/Sokoban.js"
import { startCommand } from "./commands/Start.js"
import { trainCommand } from "./commands/Train.js"

/** The root command with every subcommand. */
export const app = Command.make("autodidact").pipe(
  Command.withDescription("Autodidact: agents that learn from experience"),
  Command.withSubcommands([startCommand, trainCommand, evalCommand, sokobanCommand, gamesCommand, benchCommand, compareCommand, dashboardCommand, reportCommand, runnerCommand, gatewayCommand, serveEnvCommand, exportCommand, agentCommand, skillsCommand])
)

/** The CLI's version (the app is private; this is what `--version` prints). */
export const version = "0.1.0"
