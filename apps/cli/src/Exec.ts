/**
 * The implementations of the leaf commands, each loaded only when its command runs: `handle("games solve", config)`
 * imports `commands/Games.ts` (and through it `@autodidact/solvers` and `@autodidact/envs`) and runs its handler.
 * This module and the command modules are compiled by `tsc` (not bundled), so that they share the one `effect` and
 * the packages installed beside the CLI.
 * @since 0.1.0
 */
import { Cause, Effect, Exit, Layer, Logger } from "effect"
import type { CommandPath, Configs } from "./Commands.js"

type Handler<K extends CommandPath> = (config: Configs[K]) => Effect.Effect<void, unknown>
type Loaders = { readonly [K in CommandPath]: () => Promise<Handler<K>> }

// The only place where the CLI names its command modules (and through them the Autodidact packages).
const loaders: Loaders = {
  "agent eval": () => import("./commands/Agent.js").then((m) => m.handleAgentEval),
  "agent train": () => import("./commands/Agent.js").then((m) => m.handleAgentTrain),
  "bench envs": () => import("./commands/Bench.js").then((m) => m.handleBenchEnvs),
  "bench kernels": () => import("./commands/Bench.js").then((m) => m.handleBenchKernels),
  "bench cli": () => import("./commands/BenchCli.js").then((m) => m.handleBenchCli),
  "bench ppo": () => import("./commands/BenchPpo.js").then((m) => m.handleBenchPpo),
  "bench solvers": () => import("./commands/BenchSolvers.js").then((m) => m.handleBenchSolvers),
  "bench selfplay": () => import("./commands/BenchSelfplay.js").then((m) => m.handleBenchSelfplay),
  "bench replay": () => import("./commands/BenchReplay.js").then((m) => m.handleBenchReplay),
  "bench multiturn": () => import("./commands/BenchMultiturn.js").then((m) => m.handleBenchMultiturn),
  "bench search": () => import("./commands/BenchSearch.js").then((m) => m.handleBenchSearch),
  "bench deep-cfr": () => import("./commands/BenchDeepCfr.js").then((m) => m.handleBenchDeepCfr),
  "bench archive": () => import("./commands/BenchArchive.js").then((m) => m.handleBenchArchive),
  compare: () => import("./commands/Compare.js").then((m) => m.handleCompare),
  dashboard: () => import("./commands/Dashboard.js").then((m) => m.handleDashboard),
  eval: () => import("./commands/Eval.js").then((m) => m.handleEval),
  export: () => import("./commands/Export.js").then((m) => m.handleExport),
  "games solve": () => import("./commands/Games.js").then((m) => m.handleGamesSolve),
  "games psro": () => import("./commands/GamesPsro.js").then((m) => m.handleGamesPsro),
  "games rank": () => import("./commands/GamesRank.js").then((m) => m.handleGamesRank),
  gateway: () => import("./commands/Gateway.js").then((m) => m.handleGateway),
  report: () => import("./commands/Report.js").then((m) => m.handleReport),
  runner: () => import("./commands/Runner.js").then((m) => m.handleRunner),
  selfplay: () => import("./commands/SelfPlay.js").then((m) => m.handleSelfplay),
  "serve-env": () => import("./commands/ServeEnv.js").then((m) => m.handleServeEnv),
  "skills list": () => import("./commands/Skills.js").then((m) => m.handleSkillsList),
  "skills show": () => import("./commands/Skills.js").then((m) => m.handleSkillsShow),
  "skills admit": () => import("./commands/Skills.js").then((m) => m.handleSkillsAdmit),
  "skills check": () => import("./commands/Skills.js").then((m) => m.handleSkillsCheck),
  "skills retrieve": () => import("./commands/Skills.js").then((m) => m.handleSkillsRetrieve),
  "skills call": () => import("./commands/Skills.js").then((m) => m.handleSkillsCall),
  "skills rollback": () => import("./commands/Skills.js").then((m) => m.handleSkillsRollback),
  "skills remove": () => import("./commands/Skills.js").then((m) => m.handleSkillsRemove),
  "skills discover": () => import("./commands/Skills.js").then((m) => m.handleSkillsDiscover),
  "sokoban solve": () => import("./commands/Sokoban.js").then((m) => m.handleSokobanSolve),
  start: () => import("./commands/Start.js").then((m) => m.handleStart),
  train: () => import("./commands/Train.js").then((m) => m.handleTrain)
}

/** The command `command` with `config`: loads its module, then runs its handler. */
export const handle = <K extends CommandPath>(command: K, config: Configs[K]): Effect.Effect<void, unknown> =>
  Effect.flatMap(Effect.promise(() => (loaders[command] as () => Promise<Handler<K>>)()), (handler) => handler(config))

/**
 * The advantage estimators a text run can use, from the registry of `@autodidact/optim` (`Estimators.ts`; loading
 * the package registers the estimators it contains, contributed ones included): `main.ts` builds `train --algo`'s
 * and `compare --algos`' choices from them.
 */
export const textEstimators = (): Promise<Array<string>> => import("./Estimators.js").then((m) => m.textEstimators())

/** Every log line to stderr, in Effect's simple format (stdout holds only results). */
export const StderrLogger = Logger.layer([Logger.withConsoleError(Logger.formatSimple)])

/** How a detached run ended: the error of a failure, or the defect (a bug) to print in full. */
export type Outcome =
  | { readonly _tag: "Success" }
  | { readonly _tag: "Failure"; readonly error: unknown }
  | { readonly _tag: "Defect"; readonly defect: unknown }
  | { readonly _tag: "Interrupted" }

/**
 * Run `command` in its own Effect runtime (this module's `effect`), for a caller that may hold another copy of
 * `effect` (the bundled front end): only plain values cross. Aborting `signal` interrupts the run, whose scopes
 * close before the promise settles.
 */
export const runDetached = async <K extends CommandPath>(command: K, config: Configs[K], signal: AbortSignal): Promise<Outcome> => {
  const exit = await Effect.runPromiseExit(handle(command, config).pipe(Effect.provide(Layer.mergeAll(StderrLogger))), { signal })
  if (Exit.isSuccess(exit)) return { _tag: "Success" }
  const cause = exit.cause
  if (Cause.hasInterruptsOnly(cause)) return { _tag: "Interrupted" }
  const error = Cause.squash(cause)
  return Cause.hasFails(cause) ? { _tag: "Failure", error } : { _tag: "Defect", defect: error }
}
