/**
 * Run any solver of this package as an interruptible Effect program that reports NashConv as it goes, and save or
 * resume its state.
 *
 * **When to use**: {@link run} solves synchronously with plain callbacks (no Effect needed); from the CLI or any
 * long-running job, `solve` returns the average policy and the reports as an interruptible Effect and `stream` emits
 * the reports as a `Stream`. `SolverFiles.save` / `SolverFiles.load` (`@autodidact/solvers/node`) checkpoint a run;
 * {@link toJson} / {@link fromJson} are the browser-safe document codec they use.
 *
 * **Details**
 * - Algorithms: `cfr`, `cfr+`, `lcfr`, `dcfr`, `pcfr+`, `pdcfr+`, `cfr-br`, `vad-cfr` (`Cfr`), `es-mccfr`, `os-mccfr`
 *   (`Mccfr`).
 * - `iterations` is the number of iterations this call runs (on top of a resumed state's). A {@link Progress} report
 *   (`iteration`, `nashConv` and `exploitability` of the average policy, `elapsedSeconds` of this call) is made
 *   every `reportEvery` iterations and after the last one.
 * - Iterations run in slices of about 20 ms with `Effect.yieldNow` between them, so fibers interleave and an
 *   interrupt takes effect within a slice. Slicing never changes the numbers.
 * - A {@link SolverState} holds the iteration, regrets, cumulative policy and (MCCFR) generator state; resuming from
 *   it continues bit for bit: `N` iterations equal `k` iterations, save, load, `N − k` more.
 * - `targetNashConv`: NashConv of the average policy is then evaluated after EVERY iteration (one best-response
 *   pass per player, ~0.5 ms on Leduc), and the run stops at the first iteration whose NashConv is at or below the
 *   target, with a final report at that iteration.
 * - State documents are JSON (`format: "autodidact.solver-state"`, `version: 1`) with the arrays as base64 of
 *   little-endian float64 (exact, `-0` included), validated with `Schema`; a state for another game or tree shape is
 *   rejected by `resume`.
 *
 * @example
 * ```ts
 * import { Solver } from "@autodidact/solvers"
 * import { loadGame } from "@autodidact/envs"
 * const plain = Solver.run(loadGame("kuhn_poker"), { algo: "cfr+", iterations: 10_000, targetNashConv: 1e-3 })
 * plain.nashConv // <= 1e-3, plain.iteration: the first iteration that reached it
 *
 * import { Effect } from "effect"
 * const result = await Effect.runPromise(
 *   Solver.solve(loadGame("kuhn_poker"), { algo: "cfr+", iterations: 200, reportEvery: 50 }, {
 *     onReport: (p) => Effect.log(`${p.iteration}: NashConv ${p.nashConv}`)
 *   })
 * )
 * result.nashConv // < 1e-3
 * ```
 * @category solvers
 * @since 0.1.0
 */
import { InvalidOptionError, Rng, RngState } from "@autodidact/core"
import { Effect, Schema, Stream } from "effect"
import * as Cfr from "./Cfr.js"
import { CorruptedSolverStateError, UnknownAlgorithmError } from "../Errors.js"
import * as Exploitability from "../evaluation/Exploitability.js"
import type { Game } from "../internal/GameLike.js"
import { compile, type GameTree } from "../tree/GameTree.js"
import * as Mccfr from "./Mccfr.js"
import type * as TabularPolicy from "../tree/TabularPolicy.js"

/** Algorithm names accepted by {@link solve}. */
export type Algorithm = "cfr" | "cfr+" | "lcfr" | "dcfr" | "pcfr+" | "pdcfr+" | "cfr-br" | "vad-cfr" | "es-mccfr" | "os-mccfr"
/** Every {@link Algorithm} (what the CLI's `games solve --algo` accepts). */
export const algorithms: ReadonlyArray<Algorithm> = ["cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "pdcfr+", "cfr-br", "vad-cfr", "es-mccfr", "os-mccfr"]

/** Options of {@link solve}. */
export interface Options {
  /** One of {@link algorithms}. */
  readonly algo: string
  /** Iterations to run in this call (a positive integer). */
  readonly iterations: number
  /** Report every this many iterations (default `max(1, floor(iterations / 10))`). */
  readonly reportEvery?: number | undefined
  /** MCCFR seed (default 0). */
  readonly seed?: number | undefined
  /** CFR family: alternating updates (default true, as OpenSpiel). */
  readonly alternatingUpdates?: boolean | undefined
  /** DCFR α, β, γ (defaults 1.5, 0, 2). */
  readonly alpha?: number | undefined
  readonly beta?: number | undefined
  readonly gamma?: number | undefined
  /** CFR+ averaging delay (default 0). */
  readonly averagingDelay?: number | undefined
  /** Outcome-sampling exploration (default 0.6). */
  readonly explorationEpsilon?: number | undefined
  /** Continue from this state (same game and algorithm). */
  readonly resume?: SolverState | undefined
  /**
   * Stop at the first iteration whose average policy's NashConv (utility units) is at or below this, a
   * non-negative number (default: never). Setting it evaluates NashConv after every iteration.
   */
  readonly targetNashConv?: number | undefined
}

/** One progress report. */
export interface Progress {
  readonly iteration: number
  readonly nashConv: number
  readonly exploitability: number
  readonly elapsedSeconds: number
}

/** A solver's complete state. */
export interface SolverState {
  readonly game: string
  readonly algo: Algorithm
  readonly numInfoStates: number
  readonly numSlots: number
  readonly iteration: number
  readonly regrets: Float64Array
  readonly cumulativePolicy: Float64Array
  /** MCCFR generator state. */
  readonly rng?: RngState | undefined
  /** PCFR+ / PDCFR+: the prediction (last instantaneous regrets, one per slot); VAD-CFR: its last instantaneous regrets. */
  readonly predictions?: Float64Array | undefined
  /** VAD-CFR: the volatility of each information state's last update (one per info state). */
  readonly volatility?: Float64Array | undefined
  /** VAD-CFR: the EWMA of the instantaneous regret magnitude (one entry). */
  readonly ewma?: Float64Array | undefined
}

/** What {@link solve} returns. */
export interface Result {
  readonly algo: Algorithm
  readonly iteration: number
  readonly nashConv: number
  readonly exploitability: number
  readonly elapsedSeconds: number
  /** The average policy. */
  readonly policy: TabularPolicy.TabularPolicy
  readonly reports: ReadonlyArray<Progress>
  readonly state: SolverState
  /** Whether the run stopped because NashConv reached `targetNashConv` (always false without a target). */
  readonly reachedTarget: boolean
}

/** A prepared run: compiled tree and solver, advanced by {@link advance}. */
export interface Session {
  readonly algo: Algorithm
  readonly tree: GameTree
  readonly iterations: number
  readonly reportEvery: number
  /** `options.targetNashConv`, or -1 for none. */
  readonly targetNashConv: number
  readonly startIteration: number
  readonly startTime: number
  iteration(): number
  step(): void
  averageProbabilities(out?: Float64Array): Float64Array
  averagePolicy(): TabularPolicy.TabularPolicy
  state(): SolverState
  readonly workspace: Exploitability.Workspace
  readonly average: Float64Array
}

const isAlgorithm = (s: string): s is Algorithm => (algorithms as ReadonlyArray<string>).includes(s)

const checkNumber = (option: string, value: unknown, ok: (x: number) => boolean, reason: string) =>
  value === undefined || (typeof value === "number" && ok(value))
    ? Effect.void
    : Effect.fail(new InvalidOptionError({ option, value, reason }))

/**
 * Validate `options`, compile `game` (`GameTree.compile`) and build the solver of `options.algo` (`Cfr.make` for
 * `cfr`, `cfr+`, `lcfr`, `dcfr`; `Mccfr.make` for `es-mccfr`, `os-mccfr`), resuming from `options.resume` when given
 * (its arrays are copied). Advance the {@link Session} with {@link advance}, or use {@link solve} / {@link stream}.
 *
 * **Errors**: `UnknownAlgorithmError` (naming the known ones) for an unknown `algo`; `InvalidOptionError` for
 * `iterations` or `reportEvery` that is not a positive integer, a `seed` that is not a non-negative safe integer,
 * `explorationEpsilon` outside (0, 1], a negative or non-integer `averagingDelay`, a non-finite `alpha`/`beta`/`gamma`,
 * a negative `targetNashConv`, or a `resume` state made by another algorithm or for another game or tree shape.
 * Throws `InvalidGameError` (from `GameTree.compile`) for a malformed game.
 */
export const make = (game: Game, options: Options): Effect.Effect<Session, UnknownAlgorithmError | InvalidOptionError> =>
  Effect.gen(function*() {
    const algo = options.algo
    if (!isAlgorithm(algo)) return yield* Effect.fail(new UnknownAlgorithmError({ algo, known: [...algorithms] }))
    const posInt = (x: number) => Number.isSafeInteger(x) && x > 0
    yield* checkNumber("iterations", options.iterations, posInt, "expected a positive integer")
    if (options.iterations === undefined) {
      return yield* Effect.fail(new InvalidOptionError({ option: "iterations", value: undefined, reason: "expected a positive integer" }))
    }
    yield* checkNumber("reportEvery", options.reportEvery, posInt, "expected a positive integer")
    yield* checkNumber("seed", options.seed, (x) => Number.isSafeInteger(x) && x >= 0, "expected a non-negative safe integer")
    yield* checkNumber("explorationEpsilon", options.explorationEpsilon, (x) => x > 0 && x <= 1, "expected a number in (0, 1]")
    yield* checkNumber("averagingDelay", options.averagingDelay, (x) => Number.isInteger(x) && x >= 0, "expected a non-negative integer")
    for (const k of ["alpha", "beta", "gamma"] as const) {
      yield* checkNumber(k, options[k], Number.isFinite, "expected a finite number")
    }
    yield* checkNumber("targetNashConv", options.targetNashConv, (x) => x >= 0, "expected a non-negative number")
    const tree = compile(game)
    if (algo === "cfr-br" && tree.numPlayers !== 2) {
      return yield* Effect.fail(new InvalidOptionError({ option: "algo", value: algo, reason: `CFR-BR is defined for two-player games; ${tree.gameName} has ${tree.numPlayers}` }))
    }
    const resume = options.resume
    if (resume !== undefined) {
      const reason = resume.algo !== algo
        ? `was made by ${resume.algo}, not ${algo}`
        : resume.game !== tree.gameName || resume.numInfoStates !== tree.numInfoStates || resume.numSlots !== tree.numSlots
        ? `was made for ${resume.game} (${resume.numInfoStates} info states), not ${tree.gameName} (${tree.numInfoStates})`
        : undefined
      if (reason !== undefined) return yield* Effect.fail(new InvalidOptionError({ option: "resume", value: resume.game, reason }))
    }
    const startIteration = resume?.iteration ?? 0
    const common = {
      algo,
      tree,
      iterations: options.iterations,
      reportEvery: options.reportEvery ?? Math.max(1, Math.floor(options.iterations / 10)),
      targetNashConv: options.targetNashConv ?? -1,
      startIteration,
      startTime: performance.now(),
      workspace: Exploitability.workspace(tree),
      average: new Float64Array(tree.numSlots)
    }
    const copy = (a: Float64Array) => Float64Array.from(a)
    // One session face for every algorithm: the CFR family and MCCFR share `Cfr.RegretSolver`; MCCFR's state also
    // holds the generator.
    const sessionOf = (solver: Cfr.RegretSolver<Cfr.CfrState & { readonly rng?: Rng }>): Session => ({
      ...common,
      iteration: () => solver.state.iteration,
      step: solver.step,
      averageProbabilities: solver.averageProbabilities,
      averagePolicy: solver.averagePolicy,
      state: () => ({
        game: tree.gameName,
        algo,
        numInfoStates: tree.numInfoStates,
        numSlots: tree.numSlots,
        iteration: solver.state.iteration,
        regrets: copy(solver.state.regrets),
        cumulativePolicy: copy(solver.state.cumulativePolicy),
        ...(solver.state.rng === undefined ? {} : { rng: solver.state.rng.getState() }),
        ...(solver.state.predictions === undefined ? {} : { predictions: copy(solver.state.predictions) }),
        ...(solver.state.volatility === undefined ? {} : { volatility: copy(solver.state.volatility) }),
        ...(solver.state.ewma === undefined ? {} : { ewma: copy(solver.state.ewma) })
      })
    })
    if (algo === "es-mccfr" || algo === "os-mccfr") {
      const sampling = algo === "es-mccfr" ? "es" : "os"
      const st: Mccfr.MccfrState | undefined = resume === undefined ? undefined : {
        iteration: resume.iteration,
        regrets: copy(resume.regrets),
        cumulativePolicy: copy(resume.cumulativePolicy),
        rng: resume.rng === undefined ? Rng.make(options.seed ?? 0) : Rng.fromState(resume.rng)
      }
      return sessionOf(Mccfr.make(tree, { sampling, seed: options.seed, explorationEpsilon: options.explorationEpsilon }, st))
    }
    const st: Cfr.CfrState | undefined = resume === undefined ? undefined : {
      iteration: resume.iteration,
      regrets: copy(resume.regrets),
      cumulativePolicy: copy(resume.cumulativePolicy),
      ...(resume.predictions === undefined ? {} : { predictions: copy(resume.predictions) }),
      ...(resume.volatility === undefined ? {} : { volatility: copy(resume.volatility) }),
      ...(resume.ewma === undefined ? {} : { ewma: copy(resume.ewma) })
    }
    return sessionOf(Cfr.make(tree, {
      variant: algo,
      alternatingUpdates: options.alternatingUpdates,
      alpha: options.alpha,
      beta: options.beta,
      gamma: options.gamma,
      averagingDelay: options.averagingDelay
    }, st))
  })

const SLICE_MS = 20

/**
 * Step `session` until iteration `until`, `budgetMs` of wall time, or (with a target) the first iteration whose
 * NashConv is at or below `targetNashConv`; returns true in the last case.
 */
const stepUntil = (session: Session, until: number, budgetMs: number): boolean => {
  const start = performance.now()
  const checkTarget = session.targetNashConv >= 0
  while (session.iteration() < until && performance.now() - start < budgetMs) {
    session.step()
    if (
      checkTarget &&
      Exploitability.nashConvOnTree(session.tree, session.averageProbabilities(session.average), session.workspace) <= session.targetNashConv
    ) return true
  }
  return false
}

/** The next report point of `session` (every `reportEvery` iterations, and the last one), or undefined when done. */
const nextReportPoint = (session: Session): number | undefined => {
  const end = session.startIteration + session.iterations
  const now = session.iteration()
  if (now >= end) return undefined
  return Math.min(end, session.startIteration + (Math.floor((now - session.startIteration) / session.reportEvery) + 1) * session.reportEvery)
}

const progressOf = (session: Session): Progress => {
  const r = Exploitability.reportOnTree(session.tree, session.averageProbabilities(session.average), session.workspace)
  return {
    iteration: session.iteration(),
    nashConv: r.nashConv,
    exploitability: r.exploitability,
    elapsedSeconds: (performance.now() - session.startTime) / 1000
  }
}

/**
 * Run `session` up to its next report point (every `reportEvery` iterations, and the last one), or up to the first
 * iteration whose NashConv is at or below `targetNashConv` (when set), yielding to the runtime every ~20 ms of work
 * (interruptible there), and return that point's {@link Progress}: the iteration, the average policy's NashConv and
 * exploitability (utility units, `Exploitability.reportOnTree`) and the seconds since the session started;
 * `undefined` once all iterations ran (stopping at `targetNashConv` is the caller's test, `nashConv <=
 * targetNashConv`, as in {@link solve} and {@link stream}). Never fails.
 */
export const advance = (session: Session): Effect.Effect<Progress | undefined> =>
  Effect.gen(function*() {
    const until = nextReportPoint(session)
    if (until === undefined) return undefined
    while (session.iteration() < until) {
      if (stepUntil(session, until, SLICE_MS)) break
      yield* Effect.yieldNow
    }
    return progressOf(session)
  })

/** {@link advance} without yielding: synchronous, for {@link run}. */
export const advanceSync = (session: Session): Progress | undefined => {
  const until = nextReportPoint(session)
  if (until === undefined) return undefined
  stepUntil(session, until, Infinity)
  return progressOf(session)
}

const done = (session: Session, p: Progress) => p.nashConv <= session.targetNashConv

/**
 * The progress reports of a run as a `Stream` ({@link make} then {@link advance} until `undefined`): one
 * {@link Progress} every `reportEvery` iterations and after the last; it ends after the last iteration or at the first
 * report with NashConv ≤ `targetNashConv`. Fails with {@link make}'s errors before the first report.
 */
export const stream = (game: Game, options: Options): Stream.Stream<Progress, UnknownAlgorithmError | InvalidOptionError> =>
  Stream.unwrap(
    Effect.map(make(game, options), (session) =>
      Stream.unfold(false, (stop: boolean) =>
        stop
          ? Effect.succeed(undefined)
          : Effect.map(advance(session), (p) => (p === undefined ? undefined : ([p, done(session, p)] as const)))
      ))
  )

/** Hooks of {@link solve}. */
export interface Hooks {
  /** Called with every report (an Effect to run, or a plain callback). */
  readonly onReport?: ((progress: Progress) => Effect.Effect<void> | void) | undefined
}

/**
 * Run `options.algo` on `game` for `options.iterations` iterations (on top of a resumed state's) and return the
 * average policy (the approximate equilibrium), its final NashConv and exploitability (utility units), every
 * {@link Progress} report, the elapsed seconds and the {@link SolverState} to save with {@link saveState}.
 * `hooks.onReport` sees each report as it is made (it may return an Effect). Interruptible between ~20 ms slices;
 * slicing never changes the numbers, and resuming continues bit for bit.
 *
 * Algorithms and papers: CFR (Zinkevich et al. 2007), CFR+ (Tammelin 2014, arXiv:1407.5042), LCFR and DCFR
 * (Brown & Sandholm 2019, arXiv:1809.04040), VAD-CFR (Li et al. 2026, arXiv:2602.16928; its average policy is uniform
 * through iteration 500, its hard warm start), external/outcome-sampling MCCFR (Lanctot et al. 2009); NashConv as
 * OpenSpiel (arXiv:1908.09453).
 *
 * **Errors**: those of {@link make} (`UnknownAlgorithmError`, `InvalidOptionError`).
 */
export const solve = (
  game: Game,
  options: Options,
  hooks: Hooks = {}
): Effect.Effect<Result, UnknownAlgorithmError | InvalidOptionError> =>
  Effect.gen(function*() {
    const session = yield* make(game, options)
    const reports: Array<Progress> = []
    while (true) {
      const p = yield* advance(session)
      if (p === undefined) break
      reports.push(p)
      if (hooks.onReport !== undefined) {
        const out = hooks.onReport(p)
        if (Effect.isEffect(out)) yield* out
      }
      if (done(session, p)) break
    }
    return resultOf(session, reports)
  })

const resultOf = (session: Session, reports: ReadonlyArray<Progress>): Result => {
  const last = reports[reports.length - 1]!
  return {
    algo: session.algo,
    iteration: session.iteration(),
    nashConv: last.nashConv,
    exploitability: last.exploitability,
    elapsedSeconds: last.elapsedSeconds,
    policy: session.averagePolicy(),
    reports,
    state: session.state(),
    reachedTarget: done(session, last)
  }
}

/**
 * The plain, synchronous face of {@link solve}: the same run (same numbers, bit for bit), without Effect.
 * `onReport` is a plain callback called with every report. Blocks the thread until the run ends (use {@link solve}
 * or {@link stream} to interleave or interrupt).
 *
 * **Errors**: throws the errors {@link make} fails with (`UnknownAlgorithmError`, `InvalidOptionError`: the same
 * tagged classes, so `instanceof` and `_tag` work), and `InvalidGameError` for a malformed game.
 *
 * @example
 * ```ts
 * const result = Solver.run(loadGame("leduc_poker"), { algo: "cfr+", iterations: 5000, targetNashConv: 1e-3 })
 * result.iteration // the first iteration with NashConv <= 1e-3 (about 700)
 * ```
 */
export const run = (game: Game, options: Options, hooks: { readonly onReport?: ((progress: Progress) => void) | undefined } = {}): Result => {
  const session = Effect.runSync(make(game, options))
  const reports: Array<Progress> = []
  while (true) {
    const p = advanceSync(session)
    if (p === undefined) break
    reports.push(p)
    hooks.onReport?.(p)
    if (done(session, p)) break
  }
  return resultOf(session, reports)
}

// ---------------------------------------------------------------------------------------------------------------
// Persistence

/** The `format` field of a state file. */
export const FORMAT = "autodidact.solver-state"
/** The `version` field of a state file this code writes and reads. */
export const VERSION = 1

/** The JSON document of a {@link SolverState}. */
export const SolverStateJson = Schema.Struct({
  format: Schema.Literal(FORMAT),
  version: Schema.Literal(VERSION),
  game: Schema.String,
  algo: Schema.Literals(["cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "pdcfr+", "cfr-br", "vad-cfr", "es-mccfr", "os-mccfr"]),
  numInfoStates: Schema.Number,
  numSlots: Schema.Number,
  iteration: Schema.Number,
  /** Base64 of little-endian float64 values. */
  regrets: Schema.String,
  cumulativePolicy: Schema.String,
  rng: Schema.optional(RngState),
  /** PCFR+ / PDCFR+ prediction, VAD-CFR's last instantaneous regrets, base64 like `regrets`. */
  predictions: Schema.optional(Schema.String),
  /** VAD-CFR: per info state volatility (`numInfoStates` values) and the EWMA (one value), base64 like `regrets`. */
  volatility: Schema.optional(Schema.String),
  ewma: Schema.optional(Schema.String)
})
/** The decoded JSON form of a state file. */
export type SolverStateJson = typeof SolverStateJson.Type

// Base64 through `btoa`/`atob` (globals in browsers and Node >= 16), so the codec needs no Node `Buffer`.
const encodeF64 = (a: Float64Array): string => {
  const view = new DataView(new ArrayBuffer(a.length * 8))
  for (let i = 0; i < a.length; i++) view.setFloat64(i * 8, a[i]!, true)
  const bytes = new Uint8Array(view.buffer)
  let binary = ""
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

const decodeF64 = (s: string, n: number): Float64Array | undefined => {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined
  let binary: string
  try {
    binary = atob(s)
  } catch {
    return undefined
  }
  if (binary.length !== n * 8) return undefined
  const view = new DataView(new ArrayBuffer(binary.length))
  for (let i = 0; i < binary.length; i++) view.setUint8(i, binary.charCodeAt(i))
  const out = new Float64Array(n)
  for (let i = 0; i < n; i++) out[i] = view.getFloat64(i * 8, true)
  return out
}

/** The JSON document of `state`. */
export const toJson = (state: SolverState): SolverStateJson => ({
  format: FORMAT,
  version: VERSION,
  game: state.game,
  algo: state.algo,
  numInfoStates: state.numInfoStates,
  numSlots: state.numSlots,
  iteration: state.iteration,
  regrets: encodeF64(state.regrets),
  cumulativePolicy: encodeF64(state.cumulativePolicy),
  ...(state.rng === undefined ? {} : { rng: state.rng }),
  ...(state.predictions === undefined ? {} : { predictions: encodeF64(state.predictions) }),
  ...(state.volatility === undefined ? {} : { volatility: encodeF64(state.volatility) }),
  ...(state.ewma === undefined ? {} : { ewma: encodeF64(state.ewma) })
})

/** Decode and check a state document (`path` names the source in errors). */
export const fromJson = (json: unknown, path = "<json>"): Effect.Effect<SolverState, CorruptedSolverStateError> =>
  Effect.gen(function*() {
    const doc = yield* Schema.decodeUnknownEffect(SolverStateJson)(json).pipe(
      Effect.mapError((e) => new CorruptedSolverStateError({ path, reason: e.message }))
    )
    const fail = (reason: string) => Effect.fail(new CorruptedSolverStateError({ path, reason }))
    if (!Number.isSafeInteger(doc.numSlots) || doc.numSlots < 0) return yield* fail(`bad numSlots ${doc.numSlots}`)
    if (!Number.isSafeInteger(doc.iteration) || doc.iteration < 0) return yield* fail(`bad iteration ${doc.iteration}`)
    const regrets = decodeF64(doc.regrets, doc.numSlots)
    const cumulativePolicy = decodeF64(doc.cumulativePolicy, doc.numSlots)
    if (regrets === undefined) return yield* fail(`regrets are not ${doc.numSlots} base64 float64 values`)
    if (cumulativePolicy === undefined) return yield* fail(`cumulativePolicy is not ${doc.numSlots} base64 float64 values`)
    if ((doc.algo === "es-mccfr" || doc.algo === "os-mccfr") && doc.rng === undefined) return yield* fail("MCCFR state without rng")
    const predictive = doc.algo === "pcfr+" || doc.algo === "pdcfr+" || doc.algo === "vad-cfr"
    if (predictive && doc.predictions === undefined) return yield* fail(`${doc.algo} state without predictions`)
    const predictions = doc.predictions === undefined ? undefined : decodeF64(doc.predictions, doc.numSlots)
    if (doc.predictions !== undefined && predictions === undefined) return yield* fail(`predictions are not ${doc.numSlots} base64 float64 values`)
    if (doc.algo === "vad-cfr" && (doc.volatility === undefined || doc.ewma === undefined)) return yield* fail("vad-cfr state without volatility and ewma")
    if (!Number.isSafeInteger(doc.numInfoStates) || doc.numInfoStates < 0) return yield* fail(`bad numInfoStates ${doc.numInfoStates}`)
    const volatility = doc.volatility === undefined ? undefined : decodeF64(doc.volatility, doc.numInfoStates)
    if (doc.volatility !== undefined && volatility === undefined) return yield* fail(`volatility is not ${doc.numInfoStates} base64 float64 values`)
    const ewma = doc.ewma === undefined ? undefined : decodeF64(doc.ewma, 1)
    if (doc.ewma !== undefined && ewma === undefined) return yield* fail("ewma is not 1 base64 float64 value")
    return {
      game: doc.game,
      algo: doc.algo,
      numInfoStates: doc.numInfoStates,
      numSlots: doc.numSlots,
      iteration: doc.iteration,
      regrets,
      cumulativePolicy,
      rng: doc.rng,
      ...(predictions === undefined ? {} : { predictions }),
      ...(volatility === undefined ? {} : { volatility }),
      ...(ewma === undefined ? {} : { ewma })
    }
  })
