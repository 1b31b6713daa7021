/**
 * A conformance check for normal-form meta-solvers ({@link MetaSolvers.MetaSolver}: one mixed strategy per player,
 * PSRO; {@link MetaSolvers.JointMetaSolver}: a joint distribution, JPSRO), in the spirit of Gymnasium's `check_env`:
 * the solver is run on {@link knownGames} (matching pennies, rock-paper-scissors, the prisoner's dilemma, a zero-sum
 * game with a dominant strategy, chicken, a 3x4 zero-sum game, a three-player game) and checked against what it
 * claims ({@link Claim}; the built-ins' claims are {@link MetaSolvers.claims} / {@link MetaSolvers.jointClaims}).
 *
 * **Checks** (each finding is `<property>: <game>: <what was wrong, with the value>`)
 * - `distribution`: a profile has one strategy per player of length `shape[p]`, a joint distribution length
 *   `prod(shape)`; entries finite and ≥ 0, summing to 1 within 1e-9.
 * - `determinism`: the same game twice gives the same output.
 * - `invalidInput`: a malformed tensor (payoff array of the wrong length, a NaN payoff, a player without actions)
 *   fails with `InvalidPayoffTensorError` — not another error, a defect or a result.
 * - `scope` (`scope: "two-player-zero-sum"`): a general-sum game fails with `InvalidPayoffTensorError` (games
 *   outside the scope are not used for the other checks).
 * - `uniform` (claim `"uniform"`): exactly uniform (`1/k`, or `1/prod(shape)` for a joint distribution).
 * - `nashConv` (claim `"nash"`): `Equilibrium.nashConv` (Lanctot et al. 2017, arXiv:1711.00832) at most
 *   `tolerance × max(1, max |payoff|)`.
 * - `ceGap` / `cceGap` (claims `"correlated"` / `"coarse-correlated"`): `Equilibrium.ceGap` (Aumann 1974) /
 *   `Equilibrium.cceGap` (Hannan 1957) within the same tolerance.
 * - `knownEquilibria` (claims `"nash"`, `"correlated"`, `"coarse-correlated"`): where a game's Nash equilibrium is
 *   unique it is the answer — uniform in matching pennies and rock-paper-scissors, the dominant pure strategies in
 *   the prisoner's dilemma and the dominant zero-sum game; for (coarse) correlated solvers, the joint distribution's
 *   marginals (in two-player zero-sum games every CCE's marginals are maximin strategies; a strictly dominated action
 *   gets no mass in any CCE).
 *
 * @example
 * ```ts
 * import { CheckMetaSolver, MetaSolvers } from "@autodidact/solvers"
 * import { Highs } from "@autodidact/solvers/lp"
 * await CheckMetaSolver.checkMetaSolver(MetaSolvers.named("nash"), { name: "nash", ...MetaSolvers.claims.nash, highs: Highs.layer })
 * // resolves with a report; rejects with MetaSolverCheckError listing every finding
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/utils/env_checker.py
 * @since 0.2.0
 */
import { Cause, Effect, Exit, Layer, Option, Schema } from "effect"
import * as Equilibrium from "./Equilibrium.js"
import { Highs } from "./Highs.js"
import type * as MetaSolvers from "./MetaSolvers.js"
import type { JointMetaSolver, MetaSolver } from "./MetaSolvers.js"
import * as PayoffTensor from "./PayoffTensor.js"

/** What a meta-solver claims of its output (declared by the built-ins in `MetaSolvers.claims` / `jointClaims`). */
export type Claim = MetaSolvers.Claim

/** A property {@link checkMetaSolver} asserts (see the module docs). */
export type Property = "distribution" | "determinism" | "invalidInput" | "scope" | "uniform" | "nashConv" | "ceGap" | "cceGap" | "knownEquilibria"

/** What a meta-solver declares: its output, its claim and the games it accepts. */
export type Declaration = MetaSolvers.Declaration

/**
 * The meta-solver breaks its contract or claim; `findings` lists every problem (`<property>: <game>: <what>`).
 * @category errors
 */
export class MetaSolverCheckError extends Schema.TaggedError<MetaSolverCheckError>()("MetaSolverCheckError", {
  solver: Schema.String,
  findings: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.solver} failed the meta-solver check:\n${this.findings.map((f) => `  - ${f}`).join("\n")}`
  }
}

/** Options of {@link checkMetaSolver}. */
export interface CheckMetaSolverOptions extends Declaration {
  /** Name used in findings and errors. Default `"meta-solver"`. */
  readonly name?: string | undefined
  /** Equilibrium gaps accepted, relative to `max(1, max |payoff|)`. Default 1e-6. */
  readonly tolerance?: number | undefined
  /** Properties not to assert. */
  readonly skip?: ReadonlyArray<Property> | undefined
}

/** What {@link checkMetaSolver} checked. */
export interface MetaSolverCheckReport {
  readonly solver: string
  readonly output: "profile" | "joint"
  readonly claims: Claim
  /** The properties asserted, in order. */
  readonly properties: ReadonlyArray<Property>
  /** The games the solver was run on. */
  readonly games: ReadonlyArray<string>
}

/** A game of the suite; `equilibrium` is its unique Nash equilibrium when it has one. */
export interface KnownGame {
  readonly name: string
  readonly tensor: PayoffTensor.PayoffTensor
  readonly zeroSum: boolean
  readonly equilibrium?: ReadonlyArray<ReadonlyArray<number>> | undefined
}

const u2 = [1 / 2, 1 / 2]
const u3 = [1 / 3, 1 / 3, 1 / 3]

/** The games {@link checkMetaSolver} runs on. */
export const knownGames: ReadonlyArray<KnownGame> = [
  { name: "matching pennies", tensor: PayoffTensor.zeroSum([[1, -1], [-1, 1]]), zeroSum: true, equilibrium: [u2, u2] },
  { name: "rock-paper-scissors", tensor: PayoffTensor.zeroSum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]]), zeroSum: true, equilibrium: [u3, u3] },
  // row 0 strictly dominates; then column 0 is strictly better for the column player: unique NE (0, 0), value 2
  { name: "dominant zero-sum [[2, 3], [0, 1]]", tensor: PayoffTensor.zeroSum([[2, 3], [0, 1]]), zeroSum: true, equilibrium: [[1, 0], [1, 0]] },
  { name: "zero-sum 3x4", tensor: PayoffTensor.zeroSum([[3, -1, 0.5, 2], [-2, 4, 1, -1], [0, 1, -3, 2.5]]), zeroSum: true },
  // (Cooperate, Defect): Defect strictly dominates for both
  { name: "prisoner's dilemma", tensor: PayoffTensor.fromMatrices([[3, 0], [5, 1]], [[3, 5], [0, 1]]), zeroSum: false, equilibrium: [[0, 1], [0, 1]] },
  { name: "chicken", tensor: PayoffTensor.fromMatrices([[0, 7], [2, 6]], [[0, 2], [7, 6]]), zeroSum: false },
  {
    name: "three-player 2x2x2",
    tensor: PayoffTensor.fromFunction([2, 2, 2], ([a, b, c]) => [a === b ? 1 : -0.5 + c!, b === c ? 2 : 0, a! + b! - 2 * c! * a!]),
    zeroSum: false
  }
]

/** A `Highs` service that dies with a clear message: for solvers run without `options.highs`. */
const noHighs = Layer.succeed(Highs, {
  version: "none",
  solve: () => Effect.die(new Error("this meta-solver needs HiGHS: pass options.highs = Highs.layer from @autodidact/solvers/lp"))
})

const show = (x: unknown): string => {
  const s = x instanceof Error
    ? `${(x as { _tag?: string })._tag ?? x.name}: ${x.message.split("\n")[0]}`
    : ArrayBuffer.isView(x) ? `[${Array.from(x as unknown as ArrayLike<number>).join(", ")}]` : Array.isArray(x) ? `[${x.map(show).join(", ")}]` : String(x)
  return s.length > 160 ? `${s.slice(0, 157)}...` : s
}

/** Run `solver` on `game`: `["ok", value]`, `["error", typed failure]` or `["defect", what]`. */
const run = (solver: MetaSolver | JointMetaSolver, game: PayoffTensor.PayoffTensor) =>
  Effect.map(Effect.exit(Effect.suspend(() => (solver as MetaSolver)(game) as Effect.Effect<unknown, unknown, Highs>)), (exit) => {
    if (Exit.isSuccess(exit)) return ["ok", exit.value] as const
    const e = Cause.findErrorOption(exit.cause)
    return Option.isSome(e) ? (["error", e.value] as const) : (["defect", Cause.squash(exit.cause)] as const)
  })

/** The problem with `x` as a distribution of length `n`, or undefined. */
const distributionProblem = (x: unknown, n: number): string | undefined => {
  if (!(ArrayBuffer.isView(x) || Array.isArray(x))) return `not an array: ${show(x)}`
  const v = x as ArrayLike<unknown>
  if (v.length !== n) return `length ${v.length}, expected ${n}: ${show(x)}`
  let sum = 0
  for (let i = 0; i < n; i++) {
    const p = v[i]
    if (typeof p !== "number" || !Number.isFinite(p) || p < 0) return `entry ${i} is ${String(p)}, not a finite non-negative number: ${show(x)}`
    sum += p
  }
  return Math.abs(sum - 1) <= 1e-9 ? undefined : `sums to ${sum}, not 1: ${show(x)}`
}

/**
 * {@link checkMetaSolver} as an Effect (needs the `Highs` service: provide `Highs.layer` of
 * `@autodidact/solvers/lp`); fails with {@link MetaSolverCheckError}, succeeds with the report.
 */
export const check = (
  solver: MetaSolver | JointMetaSolver,
  options: CheckMetaSolverOptions = {}
): Effect.Effect<MetaSolverCheckReport, MetaSolverCheckError, Highs> =>
  Effect.gen(function* () {
    const name = options.name ?? "meta-solver"
    const output = options.output ?? "profile"
    const claims = options.claims ?? "none"
    const zeroSumOnly = options.scope === "two-player-zero-sum"
    const tolerance = options.tolerance ?? 1e-6
    const skip = new Set(options.skip ?? [])
    const claimed: Array<Property> = claims === "uniform"
      ? ["uniform"]
      : claims === "nash"
      ? ["nashConv", "knownEquilibria"]
      : claims === "correlated"
      ? ["ceGap", "knownEquilibria"]
      : claims === "coarse-correlated"
      ? ["cceGap", "knownEquilibria"]
      : []
    const properties = ([
      "distribution",
      "determinism",
      "invalidInput",
      ...(zeroSumOnly ? (["scope"] as const) : []),
      ...claimed
    ] as Array<Property>).filter((p) => !skip.has(p))
    const has = (p: Property) => properties.includes(p)
    const findings: Array<string> = []
    const fail = (p: Property, game: string, what: string) => findings.push(`${p}: ${game}: ${what}`)
    const games = knownGames.filter((g) => !zeroSumOnly || (g.zeroSum && g.tensor.shape.length === 2))

    for (const game of games) {
      const { shape } = game.tensor
      const tol = tolerance * PayoffTensor.scale(game.tensor)
      const tolText = tol.toExponential(2)
      const r = yield* run(solver, game.tensor)
      if (r[0] !== "ok") {
        fail("distribution", game.name, `the solver ${r[0] === "error" ? "failed with" : "died with"} ${show(r[1])}`)
        continue
      }
      const value = r[1]
      // the output as one distribution per player (profile) or one joint distribution
      const problems = output === "joint"
        ? [distributionProblem(value, PayoffTensor.size(shape))].flatMap((p) => (p === undefined ? [] : [`joint distribution ${p}`]))
        : !Array.isArray(value) || value.length !== shape.length
        ? [`expected ${shape.length} strategies, got ${show(value)}`]
        : shape.flatMap((k, p) => {
          const q = distributionProblem(value[p], k)
          return q === undefined ? [] : [`player ${p}'s strategy ${q}`]
        })
      if (problems.length > 0) {
        for (const p of problems) fail("distribution", game.name, p)
        continue
      }
      if (has("determinism")) {
        const again = yield* run(solver, game.tensor)
        const flatOf = (x: unknown): Array<number> => output === "joint" ? Array.from(x as ArrayLike<number>) : (x as Array<ArrayLike<number>>).flatMap((s) => Array.from(s))
        const a = flatOf(value)
        const b = again[0] === "ok" ? flatOf(again[1]) : []
        if (a.length !== b.length || a.some((x, i) => !Object.is(x, b[i]))) {
          fail("determinism", game.name, `first ${show(a)}, then ${again[0] === "ok" ? show(b) : show(again[1])}`)
        }
      }
      const strategies = output === "joint"
        ? shape.map((_, p) => Equilibrium.marginal(shape, value as ArrayLike<number>, p))
        : (value as ReadonlyArray<ArrayLike<number>>)
      if (has("uniform")) {
        const n = PayoffTensor.size(shape)
        const bad = output === "joint"
          ? Array.from(value as ArrayLike<number>).some((x) => Math.abs(x - 1 / n) > 1e-12)
          : strategies.some((s, p) => Array.from(s).some((x) => Math.abs(x - 1 / shape[p]!) > 1e-12))
        if (bad) fail("uniform", game.name, `not uniform: ${show(value)}`)
      }
      if (has("nashConv")) {
        const nc = Equilibrium.nashConv(game.tensor, strategies)
        if (!(nc <= tol)) fail("nashConv", game.name, `NashConv ${nc} > ${tolText} for ${show(strategies)}`)
      }
      if (has("ceGap")) {
        const gap = Equilibrium.ceGap(game.tensor, value as ArrayLike<number>)
        if (!(gap <= tol)) fail("ceGap", game.name, `CE gap ${gap} > ${tolText} for ${show(value)}`)
      }
      if (has("cceGap")) {
        const gap = Equilibrium.cceGap(game.tensor, value as ArrayLike<number>)
        if (!(gap <= tol)) fail("cceGap", game.name, `CCE gap ${gap} > ${tolText} for ${show(value)}`)
      }
      if (has("knownEquilibria") && game.equilibrium !== undefined) {
        const eq = game.equilibrium
        const off = strategies.some((s, p) => Array.from(s).some((x, a) => Math.abs(x - eq[p]![a]!) > Math.max(tol, 1e-9)))
        if (off) fail("knownEquilibria", game.name, `${output === "joint" ? "marginals " : ""}${show(strategies)}, expected the unique equilibrium ${show(eq)}`)
      }
    }

    const expectInvalid = function* (p: Property, label: string, tensor: PayoffTensor.PayoffTensor) {
      const r = yield* run(solver, tensor)
      if (r[0] === "ok") fail(p, label, `returned ${show(r[1])} instead of failing with InvalidPayoffTensorError`)
      else if (r[0] === "defect") fail(p, label, `died with ${show(r[1])} instead of failing with InvalidPayoffTensorError`)
      else if ((r[1] as { _tag?: unknown })._tag !== "InvalidPayoffTensorError") fail(p, label, `failed with ${show(r[1])} instead of InvalidPayoffTensorError`)
    }
    if (has("invalidInput")) {
      yield* expectInvalid("invalidInput", "payoff array of length 3 for shape [2, 2]", { shape: [2, 2], payoffs: [new Float64Array(3), new Float64Array(4)] })
      yield* expectInvalid("invalidInput", "a NaN payoff", { shape: [2, 2], payoffs: [Float64Array.of(1, NaN, 0, 1), Float64Array.of(-1, 0, 0, -1)] })
      yield* expectInvalid("invalidInput", "a player with no actions (shape [2, 0])", { shape: [2, 0], payoffs: [new Float64Array(0), new Float64Array(0)] })
    }
    if (has("scope")) {
      for (const g of knownGames.filter((g) => !games.includes(g))) yield* expectInvalid("scope", `${g.name} (outside two-player zero-sum)`, g.tensor)
    }

    if (findings.length > 0) return yield* new MetaSolverCheckError({ solver: name, findings })
    return { solver: name, output, claims, properties, games: games.map((g) => g.name) }
  })

/**
 * Run the checks on `solver` with what it declares (see {@link CheckMetaSolverOptions}); resolves with what was
 * checked, rejects with {@link MetaSolverCheckError} listing every failure. Solvers that solve LPs/QPs need
 * `options.highs` (`Highs.layer` of `@autodidact/solvers/lp`); without it their runs die with a message saying so.
 */
export const checkMetaSolver = (
  solver: MetaSolver | JointMetaSolver,
  options: CheckMetaSolverOptions & { readonly highs?: Layer.Layer<Highs, unknown> | undefined } = {}
): Promise<MetaSolverCheckReport> => Effect.runPromise(check(solver, options).pipe(Effect.provide(options.highs ?? noHighs)))
