/**
 * `autodidact games solve --algo deep-cfr --game G [--iterations N] [--traversals K] [--train-steps S]
 * [--batch-size B] [--hidden H] [--learning-rate LR] [--lr-schedule constant|linear] [--dedup] [--warm-start]
 * [--engine simd|tfjs] [--target-nashconv X]
 * [--save FILE] [--out DIR] [--json]`: Deep CFR (SD-CFR, `DeepCfr` of `@autodidact/solvers`) on a game with an
 * information-state tensor (Kuhn, Leduc, Liar's dice). When the game's tree is small enough to compile (at most
 * 2,000,000 nodes), the exact NashConv of the average policy is computed after every iteration (a report row per
 * `--report-every` iterations, and every iteration with `--target-nashconv`, which stops at the first iteration at or
 * below it) and `--out` writes the average policy as `policy.json` (`TabularPolicy` JSON, as the tabular solvers);
 * otherwise rows carry the losses only. `--out` also writes `sd-cfr-policy.json` (every stored network) and `--save`
 * writes that document elsewhere; `--resume` is refused (the solver's state is its advantage memories). `--engine tfjs`
 * trains the advantage networks on TensorFlow.js (`@autodidact/solvers/tfjs`, imported only then; the config records
 * the backend, e.g. `tfjs (wasm)`).
 * @since 0.2.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { AtomicFile } from "@autodidact/core/node"
import { GameRegistry } from "@autodidact/envs"
import { DeepCfr, Exploitability, GameTree, TabularPolicy } from "@autodidact/solvers"
import { Effect } from "effect"
import * as path from "node:path"
import * as Output from "../Output.js"
import * as RunDirectory from "../RunDirectory.js"
import { versions } from "../Versions.js"
import type { Configs } from "../Commands.js"

/** Largest tree (nodes) compiled for exact NashConv. */
export const MAX_EXACT_NODES = 2_000_000

const write = (file: string, text: string) =>
  Effect.try({
    try: () => AtomicFile.writeSync(file, text),
    catch: (e) => new RunDirectory.RunDirectoryError({ path: file, reason: `cannot write: ${String(e)}` })
  })

/** `autodidact games solve --algo deep-cfr` */
export const handleGamesDeepCfr = (config: Configs["games solve"]): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    const game = yield* Effect.try({ try: () => GameRegistry.loadGame(config.game), catch: (e) => e as GameRegistry.UnknownGameError })
    if (config.resume._tag === "Some") {
      return yield* Effect.fail(
        new InvalidOptionError({ option: "resume", value: config.resume.value, reason: "deep-cfr cannot resume (its state is the advantage memories); --save writes its policy" })
      )
    }
    const engine = config.engine === "tfjs"
      ? yield* Effect.tryPromise({ try: () => import("@autodidact/solvers/tfjs").then((m) => m.DeepCfrTf.loadEngine("tfjs")), catch: (e) => e })
      : DeepCfr.simdEngine
    const options: DeepCfr.Options = {
      traversals: config.traversals,
      trainSteps: config.trainSteps,
      batchSize: config.batchSize,
      hidden: config.hidden,
      learningRate: config.learningRate,
      schedule: config.lrSchedule,
      dedup: config.dedup,
      reinitialize: !config.warmStart,
      seed: config.seed,
      engine
    }
    const solver = yield* Effect.try({ try: () => DeepCfr.make(game, options), catch: (e) => e })
    const tree = GameTree.sizeAtMost(game, MAX_EXACT_NODES) ? GameTree.compile(game) : undefined
    const avg = tree === undefined ? undefined : DeepCfr.treeAverage(game, tree)
    const run = config.out._tag === "None" ? undefined : yield* RunDirectory.open(config.out.value, {
      command: "games solve",
      game: config.game,
      algo: config.algo,
      iterations: config.iterations,
      ...solver.config,
      reportEvery: config.reportEvery._tag === "Some" ? config.reportEvery.value : null,
      targetNashConv: config.targetNashConv._tag === "Some" ? config.targetNashConv.value : null,
      versions: versions(),
      startedAt: new Date().toISOString()
    })
    if (run !== undefined) Output.note(config.json, `Solving ${config.game} with deep-cfr -> ${run.dir}`)
    const target = config.targetNashConv._tag === "Some" ? config.targetNashConv.value : undefined
    const every = config.reportEvery._tag === "Some" ? config.reportEvery.value : Math.max(1, Math.floor(config.iterations / 10))
    const rows: Array<Record<string, number>> = []
    let solverSeconds = 0
    let nashConv = Number.NaN
    let probs: Float64Array | undefined
    let reached = false
    for (let i = 1; i <= config.iterations; i++) {
      const t0 = performance.now()
      const st = solver.step()
      solverSeconds += (performance.now() - t0) / 1000
      yield* Effect.yieldNow
      const report = i % every === 0 || i === config.iterations
      if (tree !== undefined && avg !== undefined && (report || target !== undefined)) {
        probs = DeepCfr.averagePolicyOnTree(avg, solver.policy)
        nashConv = Exploitability.nashConvOnTree(tree, probs)
        reached = target !== undefined && nashConv <= target
      }
      if (report || reached) {
        const row: Record<string, number> = {
          iteration: i,
          ...(Number.isNaN(nashConv) ? {} : { nashConv, exploitability: nashConv / game.info.numPlayers }),
          loss: Number(st.loss.reduce((a, b) => a + b, 0).toPrecision(6)),
          memoryRows: st.memorySize.reduce((a, b) => a + b, 0),
          elapsedSeconds: Number(solverSeconds.toFixed(3))
        }
        if (config.json) process.stdout.write(JSON.stringify({ kind: "report", ...row }) + "\n")
        else process.stderr.write(`  iteration ${i}: ${Number.isNaN(nashConv) ? "" : `NashConv ${nashConv.toExponential(4)}, `}loss ${row.loss} (${solverSeconds.toFixed(2)} s)\n`)
        rows.push(row)
        run?.append({ kind: "solver", globalStep: i, wallSeconds: row.elapsedSeconds!, ...(Number.isNaN(nashConv) ? {} : { nashConv, exploitability: row.exploitability! }), loss: row.loss! })
      }
      if (reached) break
    }
    const policyDoc = JSON.stringify(DeepCfr.toJson(solver.policy)) + "\n"
    if (config.save._tag === "Some") yield* write(config.save.value, policyDoc)
    let gameValue: ReadonlyArray<number> | undefined
    if (run !== undefined) {
      yield* write(path.join(run.dir, "sd-cfr-policy.json"), policyDoc)
      if (tree !== undefined && probs !== undefined) {
        const tabular = TabularPolicy.fromTree(tree, probs)
        gameValue = yield* Exploitability.expectedReturns(game, tabular)
        yield* write(path.join(run.dir, "policy.json"), JSON.stringify(TabularPolicy.toJson(tabular)) + "\n")
      }
    } else if (tree !== undefined && probs !== undefined) gameValue = yield* Exploitability.expectedReturns(game, TabularPolicy.fromTree(tree, probs))
    const summary = {
      kind: "summary" as const,
      game: config.game,
      algo: "deep-cfr",
      iteration: solver.iteration,
      ...(Number.isNaN(nashConv) ? {} : { nashConv, exploitability: nashConv / game.info.numPlayers }),
      ...(gameValue === undefined ? {} : { gameValue: gameValue.map((v) => Number(v.toPrecision(12))) }),
      traversals: solver.iteration * solver.config.traversals * game.info.numPlayers,
      elapsedSeconds: Number(solverSeconds.toFixed(3)),
      ...(target === undefined ? {} : { reachedTarget: reached }),
      ...(run === undefined ? {} : { policy: tree === undefined ? "sd-cfr-policy.json" : "policy.json" })
    }
    run?.append({ ...summary, globalStep: summary.iteration, wallSeconds: summary.elapsedSeconds })
    if (config.json) process.stdout.write(JSON.stringify(summary) + "\n")
    else {
      Output.printTable(false, `Deep CFR (SD-CFR) on ${config.game}`, rows)
      Output.printSummary(false, "Result", { ...summary, ...(gameValue === undefined ? {} : { gameValue: gameValue.join(", ") }) })
    }
  })
