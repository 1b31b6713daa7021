/**
 * `autodidact selfplay --game kuhn_poker --algo spiral --policy tabular|drrn --seed 1 --total-steps 2000000 --out runs/x`:
 * self-play RL (`SelfPlay` of `@autodidact/optim`; `--policy drrn` plays the games' text views with the DRRN text
 * policy, analysed exactly by querying it at every information state) writing a run directory: `config.json`, `metrics.jsonl` (an
 * `update` row per update; `evaluation` rows every `--eval-every` updates: `nashConv` / `exploitability` by exact
 * best response (`Exploitability` of `@autodidact/solvers`) for games whose tree fits, win/draw/loss against uniform
 * random and alpha-beta minimax for perfect-information games), `checkpoints/selfplay.json` (the whole run, atomic;
 * saved every 50 updates, at the end, and on Ctrl-C, so `--resume` continues it) and, for a single game whose tree
 * fits, `policy.json` (the evaluated policy as a `TabularPolicy`, as `games solve` writes).
 *
 * `autodidact eval --run runs/x --against random|cfr|minimax --episodes N`: the run's evaluated policy against a fixed
 * opponent (seats alternate: half the games as first player), win/draw/loss with Wilson 95% intervals, and
 * exploitability where computable; appends an `evaluation` row.
 * @since 0.3.0
 */
import { AtomicFile } from "@autodidact/core/node"
import { type Game, GameRegistry } from "@autodidact/envs"
import { SelfPlay } from "@autodidact/optim"
import { SelfPlayFiles } from "@autodidact/optim/node"
import { Exploitability, GameTree, Minimax, Solver, TabularPolicy } from "@autodidact/solvers"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Output from "../Output.js"
import * as RunDirectory from "../RunDirectory.js"
import { versions } from "../Versions.js"
import type { Configs } from "../Commands.js"

/** A selfplay / eval request that cannot be carried out (a game not registered yet, an opponent that does not fit). */
export class SelfPlayRequestError extends Schema.TaggedError<SelfPlayRequestError>()("SelfPlayRequestError", {
  option: Schema.String,
  value: Schema.Unknown,
  reason: Schema.String
}) {
  override get message() {
    return `--${this.option} ${JSON.stringify(this.value)}: ${this.reason}`
  }
}

/** The run's checkpoint file. */
export const checkpointFile = (runDir: string): string => path.join(runDir, "checkpoints", "selfplay.json")

/** `--algo` → the registered estimator (`spiral` is SPIRAL's RAE). */
export const estimatorOf = (algo: string): string => (algo === "spiral" ? "rae" : algo)

/** Split `a,b(x=1,y=2)` at the commas outside parentheses. */
export const splitGames = (spec: string): Array<string> => {
  const out: Array<string> = []
  let depth = 0
  let cur = ""
  for (const c of spec) {
    if (c === "(") depth++
    if (c === ")") depth--
    if (c === "," && depth === 0) {
      out.push(cur.trim())
      cur = ""
    } else cur += c
  }
  if (cur.trim() !== "") out.push(cur.trim())
  return out
}

/** Load the games of `--game`, failing with a typed error naming a game the registry does not have (yet). */
export const loadGames = (spec: string): Effect.Effect<Array<Game.Game>, SelfPlayRequestError | GameRegistry.UnknownGameError> =>
  Effect.suspend((): Effect.Effect<Array<Game.Game>, SelfPlayRequestError | GameRegistry.UnknownGameError> => {
    const names = splitGames(spec)
    if (names.length === 0) return Effect.fail(new SelfPlayRequestError({ option: "game", value: spec, reason: "names no game" }))
    const games: Array<Game.Game> = []
    for (const name of names) {
      try {
        games.push(GameRegistry.loadGame(name))
      } catch (e) {
        if (!(e instanceof GameRegistry.UnknownGameError)) throw e
        return Effect.fail(e)
      }
    }
    return Effect.succeed(games)
  })

/** A compiled tree with its NashConv workspace, or undefined when the game is too large or perfect-information. */
interface Exact {
  readonly tree: GameTree.GameTree
  readonly ws: Exploitability.Workspace
}

const MAX_TREE_GAME_LENGTH = 40
/** Largest tree compiled for exact NashConv (Leduc has ~56k nodes; a randomly dealt negotiation has far more). */
const MAX_TREE_NODES = 2_000_000

/** Compile `game` for exact evaluation when it is an imperfect-information game whose tree fits. */
const exactOf = (game: Game.Game): Exact | undefined => {
  if (game.info.perfectInformation || game.info.maxGameLength > MAX_TREE_GAME_LENGTH) return undefined
  if (!GameTree.sizeAtMost(game, MAX_TREE_NODES)) return undefined
  try {
    const tree = GameTree.compile(game)
    return { tree, ws: Exploitability.workspace(tree) }
  } catch {
    return undefined
  }
}

/** The evaluated policy laid out on the tree's slots. */
const treeProbabilities = (exact: Exact, view: SelfPlay.PolicyView): Float64Array => {
  const { tree } = exact
  const probs = new Float64Array(tree.numSlots)
  for (let i = 0; i < tree.numInfoStates; i++) {
    const legal = Array.from(tree.actions.subarray(tree.infoOffset[i]!, tree.infoOffset[i + 1]!))
    probs.set(view.actionProbabilities(tree.gameName, tree.infoPlayer[i]!, tree.infoKeys[i]!, legal), tree.infoOffset[i]!)
  }
  return probs
}

const round = (x: number, digits = 6) => Number(x.toPrecision(digits))

/** The default minimax depth: the whole game for tic-tac-toe, 4 plies otherwise. */
const minimaxDepth = (game: Game.Game, depth: number | undefined) => depth ?? (game.info.maxGameLength <= 9 ? game.info.maxGameLength : 4)

/** `autodidact selfplay` */
export const handleSelfplay = (config: Configs["selfplay"]): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    const games = yield* loadGames(config.game)
    const estimator = estimatorOf(config.algo)
    const trainer = {
      seed: config.seed,
      totalSteps: config.totalSteps,
      episodesPerUpdate: config.episodesPerUpdate,
      learningRate: config.learningRate,
      magnet: config.magnet,
      magnetEvery: config.magnetEvery,
      unsampled: config.unsampled,
      critic: config.critic,
      fullStepVisits: config.fullStepVisits,
      update: config.update,
      opponents: config.opponents,
      sharing: config.sharing,
      evalPolicy: config.evalPolicy,
      evalEvery: config.evalEvery,
      policy: config.policy
    }
    const options: Partial<SelfPlay.Options> = { algo: estimator, ...trainer }
    const runConfig = {
      command: "selfplay",
      game: config.game,
      algo: config.algo,
      estimator,
      ...trainer,
      versions: versions(),
      startedAt: new Date().toISOString()
    }
    const ckptPath = checkpointFile(config.out)
    const loaded = config.resume ? yield* SelfPlayFiles.load(ckptPath) : undefined
    const run = yield* RunDirectory.open(config.out, runConfig, {
      overwrite: config.overwrite,
      resume: loaded === undefined ? undefined : { step: loaded.globalStep, mayDiffer: ["totalSteps", "evalEvery"] }
    })
    const resume = loaded === undefined
      ? undefined
      : yield* Effect.try({ try: () => SelfPlay.fromCheckpoint(games, loaded, { totalSteps: config.totalSteps, evalEvery: config.evalEvery }), catch: (e) => e })
    Output.note(config.json, resume === undefined
      ? `Self-play on ${config.game} (${config.algo}, ${config.policy}) -> ${run.dir}`
      : `Resuming ${run.dir} at step ${resume.globalStep} (update ${resume.update})`)
    const exacts = new Map(games.map((g) => [g.info.name, exactOf(g)] as const))
    const minimax = new Map(games.filter((g) => g.info.perfectInformation && g.info.numPlayers === 2).map((g) => [g.info.name, Minimax.player({ maxDepth: minimaxDepth(g, undefined) })] as const))
    let lastNashConv: number | undefined
    let lastExploitability: number | undefined
    const evaluate = (view: SelfPlay.PolicyView): Array<Record<string, unknown>> => {
      const rows: Array<Record<string, unknown>> = []
      const head = { kind: "evaluation", globalStep: view.globalStep, wallSeconds: round(view.wallSeconds, 4), update: view.update }
      for (const game of games) {
        const exact = exacts.get(game.info.name)
        if (exact !== undefined) {
          const report = Exploitability.reportOnTree(exact.tree, treeProbabilities(exact, view), exact.ws)
          lastNashConv = report.nashConv
          lastExploitability = report.exploitability
          rows.push({ ...head, game: game.info.name, policy: config.evalPolicy, nashConv: report.nashConv, exploitability: report.exploitability })
        }
        const mm = minimax.get(game.info.name)
        if (mm !== undefined) {
          const learner = SelfPlay.policyPlayer(view, true)
          for (const [opponent, player, n] of [["random", SelfPlay.randomPlayer, 100], ["minimax", mm, 20]] as const) {
            const r = SelfPlay.playMatch(game, learner, player, n, view.update)
            rows.push({ ...head, game: game.info.name, opponent, episodes: n, winRate: r.winRate, drawRate: r.drawRate, lossRate: r.lossRate })
          }
        }
      }
      return rows
    }
    const bar = Output.progress(config.json, config.totalSteps, "{bar} {percentage}% | {value}/{total} decisions | NashConv {nashConv} | {eta_formatted} left")
    const result = yield* SelfPlay.train(games, options, {
      onUpdate: (row) => {
        run.append(row)
        bar.update(row.globalStep, { nashConv: lastNashConv === undefined ? "-" : lastNashConv.toFixed(4) })
      },
      evaluate,
      onEvaluation: (row) => {
        run.append(row)
        if (config.json) process.stdout.write(JSON.stringify(row) + "\n")
      },
      saveCheckpoint: (ckpt) => SelfPlayFiles.saveSync(ckptPath, ckpt)
    }, resume).pipe(Effect.ensuring(Effect.sync(() => bar.stop())))
    const s = result.session
    // the evaluated policy of a single tree game as a TabularPolicy (what `games solve --out` writes)
    let policyFile: string | undefined
    const only = games.length === 1 ? exacts.get(games[0]!.info.name) : undefined
    if (only !== undefined) {
      policyFile = path.join(run.dir, "policy.json")
      const policy = TabularPolicy.fromTree(only.tree, treeProbabilities(only, s.policyView()))
      yield* Effect.try({
        try: () => AtomicFile.writeSync(policyFile!, JSON.stringify(TabularPolicy.toJson(policy)) + "\n"),
        catch: (e) => new RunDirectory.RunDirectoryError({ path: policyFile!, reason: `cannot write the policy: ${String(e)}` })
      })
    }
    const summary = {
      kind: "summary",
      run: run.dir,
      game: config.game,
      algo: config.algo,
      seed: config.seed,
      stopReason: result.stopReason,
      globalStep: s.globalStep,
      updates: s.update,
      episodes: s.episodes,
      wallSeconds: round(s.wallSeconds(), 4),
      ...(lastNashConv === undefined ? {} : { nashConv: lastNashConv, exploitability: lastExploitability }),
      evaluatedPolicy: config.evalPolicy,
      checkpoint: ckptPath,
      ...(policyFile === undefined ? {} : { policy: policyFile })
    }
    run.append(summary)
    Output.printSummary(config.json, "Self-play", summary)
  })

/** What `eval --against` reports: optim's `SelfPlay.MatchReport` with the intervals printed as text. */
export type SelfPlayEvalSummary = Omit<SelfPlay.MatchReport, "winCi" | "drawCi" | "lossCi"> & {
  readonly run: string
  readonly game: string
  readonly against: string
  readonly winCi: string
  readonly drawCi: string
  readonly lossCi: string
  readonly nashConv?: number
  readonly exploitability?: number
}

/** A player sampling from a solver's `TabularPolicy` by information-state string. */
const tabularPlayer = (policy: TabularPolicy.TabularPolicy): SelfPlay.Player => (_game, state, seat, rng) => {
  const pairs = policy.actionProbabilities(state.informationStateString(seat))
  if (pairs === undefined) return SelfPlay.randomPlayer(_game, state, seat, rng)
  return pairs[rng.categorical(pairs.map((p) => p[1]))]![0]
}

/** `autodidact eval --run <selfplay run> --against random|cfr|minimax` */
export const evaluateSelfplay = (
  runDir: string,
  runConfig: Record<string, unknown>,
  request: { readonly against: "random" | "cfr" | "minimax"; readonly episodes: number; readonly seed: number; readonly sample: boolean; readonly depth: number | undefined }
): Effect.Effect<Array<SelfPlayEvalSummary>, unknown> =>
  Effect.gen(function* () {
    if (!Number.isSafeInteger(request.episodes) || request.episodes <= 0) {
      return yield* new SelfPlayRequestError({ option: "episodes", value: request.episodes, reason: "must be a positive integer" })
    }
    const spec = runConfig["game"]
    if (typeof spec !== "string") return yield* new RunDirectory.RunDirectoryError({ path: runDir, reason: "config.json names no game" })
    const games = yield* loadGames(spec)
    const ckpt = yield* SelfPlayFiles.load(checkpointFile(runDir))
    const session = yield* Effect.try({ try: () => SelfPlay.fromCheckpoint(games, ckpt), catch: (e) => e })
    const view = session.policyView()
    const out: Array<SelfPlayEvalSummary> = []
    for (const game of games) {
      const name = game.info.name
      const exact = exactOf(game)
      let opponent: SelfPlay.Player
      if (request.against === "random") opponent = SelfPlay.randomPlayer
      else if (request.against === "minimax") {
        if (!game.info.perfectInformation || game.info.numPlayers !== 2) {
          return yield* new SelfPlayRequestError({ option: "against", value: "minimax", reason: `needs a two-player perfect-information game; ${name} is not (use cfr or random)` })
        }
        opponent = Minimax.player({ maxDepth: minimaxDepth(game, request.depth) })
      } else {
        if (exact === undefined) {
          return yield* new SelfPlayRequestError({ option: "against", value: "cfr", reason: `needs an imperfect-information game small enough to solve; ${name} is not (use minimax or random)` })
        }
        const solved = yield* Effect.try({ try: () => Solver.run(game, { algo: "cfr+", iterations: 1000, targetNashConv: 1e-3 }), catch: (e) => e })
        opponent = tabularPlayer(solved.policy)
      }
      const greedy = game.info.perfectInformation && !request.sample
      const r = SelfPlay.playMatch(game, SelfPlay.policyPlayer(view, greedy), opponent, request.episodes, request.seed)
      const ci = (c: readonly [number, number]) => `[${c[0].toFixed(4)}, ${c[1].toFixed(4)}]`
      const report = exact === undefined ? undefined : Exploitability.reportOnTree(exact.tree, treeProbabilities(exact, view), exact.ws)
      const summary: SelfPlayEvalSummary = {
        run: runDir,
        game: name,
        against: request.against,
        episodes: r.episodes,
        wins: r.wins,
        draws: r.draws,
        losses: r.losses,
        winRate: r.winRate,
        drawRate: r.drawRate,
        lossRate: r.lossRate,
        winCi: ci(r.winCi),
        drawCi: ci(r.drawCi),
        lossCi: ci(r.lossCi),
        meanReturn: round(r.meanReturn),
        ...(report === undefined ? {} : { nashConv: report.nashConv, exploitability: report.exploitability })
      }
      yield* Effect.sync(() =>
        fs.appendFileSync(path.join(runDir, "metrics.jsonl"), JSON.stringify(RunDirectory.relativeRow(runDir, { kind: "evaluation", globalStep: session.globalStep, ...summary })) + "\n")
      )
      out.push(summary)
    }
    return out
  })
