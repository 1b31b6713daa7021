/**
 * SHOR-PSRO's meta-solvers (Smoothed Hybrid Optimistic Regret PSRO; Li, Schultz, Hennes, Lanctot, "Discovering
 * Multiagent Learning Algorithms with Large Language Models", arXiv:2602.16928, §4.3.1, eq. (8), and the discovered
 * source, Appendix 7.1 Listing 6): a hybrid of optimistic regret matching+ (ORM+) and a softmax over the pure
 * strategies' payoffs, with a training-time solver whose blend, temperature and diversity bonus anneal over the PSRO
 * iterations and a fixed evaluation-time solver.
 *
 * **When to use**: as a PSRO meta-solver (`MetaSolvers.named("shor")`, `metaSolver: "shor"` in `Psro.run` /
 * `PsroExtensive.run`), for n-player general-sum meta-games; it claims no equilibrium property (a distribution per
 * player).
 *
 * **Details** — {@link hybridOrm} (Listing 6's `_hybrid_orm_solver`), from uniform strategies σ, for `iterations`
 * rounds, each player `p` in turn (players after `p` see `p`'s new strategy, as the listing's loop):
 * 1. `u = u_p(·, σ₋ₚ)` (each pure strategy's payoff against the others), centered `c = u − mean(u)`;
 * 2. gains `g = (1 + β) c − β c_prev + δ (1 − σₚ)` (optimism by momentum β on the centered payoffs, diversity bonus δ),
 *    divided by `max |g|` when `gainNormalization` and that is above 1e-8;
 * 3. `R ← max(R + g, 0)`; `σ_ORM = R / ΣR` (uniform when `ΣR ≤ 1e-12`);
 * 4. `σ_softmax = softmax(u / τ)` (max-shifted); `σₚ ← (1 − λ) σ_ORM + λ σ_softmax` (eq. 8);
 * and returns the average of the iterates (`average: true`) or the last iterate.
 * Note: Listing 6's "regret" accumulates payoffs centered on their plain mean, not on `u_p(σ)`; kept as written.
 *
 * | solver | λ (blend) | τ | δ | β | rounds | returns |
 * |---|---|---|---|---|---|---|
 * | {@link trainMetaSolver} | 0.3 → 0.05 | 0.5 → 0.01 | 0.05 → 0.001 | 0.5 | `clip(1000 + 20 (n₀ − 1), 1000, 5000)` | average |
 * | {@link evalMetaSolver} | 0.01 | 0.001 | 0 | 0.2 | `clip(8000 + 50 (n₀ − 1), 8000, 15000)` | last iterate |
 *
 * The training schedule interpolates linearly in `min(1, k / 75)` with `k` the 1-based count of the solver's calls
 * (Listing 6's `_current_psro_iteration`, incremented at each `get_meta_strategy`), then clips to the interval; `n₀`
 * is player 0's population size (`len(meta_games[0])`).
 *
 * **Choices the paper leaves open, made here**
 * - The training solver is stateful, as Listing 6's class: {@link trainMetaSolver} returns a fresh solver whose
 *   schedule starts at 1; `MetaSolvers.named("shor")` / `choose` make one per call, i.e. one per PSRO run. Calling it
 *   on anything else (e.g. twice per iteration) advances the schedule.
 * - Best responses answer the *training* meta-strategy; the paper's exploitability is that of the evaluation-time
 *   solver's meta-strategy on the same meta-game: `PsroExtensive.run(game, { metaSolver: "shor", evalMetaSolver:
 *   "shor-eval" })` reports it (mixture, NashConv) and keeps the training one's as `trainingNashConv`; with
 *   `metaSolver: "shor"` alone the training meta-strategy is reported. Being stateful, `"shor"` goes on through a PSRO
 *   iteration without a new best response (the next call's annealed answer may differ).
 * - `u_p(·, σ₋ₚ)` is `Equilibrium.actionValues` (the listing's successive `tensordot`s: the same sum, another order).
 *
 * @example
 * ```ts
 * import { PayoffTensor, ShorPsro } from "@autodidact/solvers"
 * import { Effect } from "effect"
 * const rps = PayoffTensor.zeroSum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
 * const [x] = await Effect.runPromise(ShorPsro.evalMetaSolver()(rps)) // ≈ [1/3, 1/3, 1/3]
 * ```
 * @see https://arxiv.org/abs/2602.16928
 * @category PSRO
 * @since 0.2.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Effect } from "effect"
import * as Equilibrium from "./Equilibrium.js"
import { check, type InvalidPayoffTensorError, type PayoffTensor } from "./PayoffTensor.js"

/** A SHOR meta-solver: a `MetaSolvers.MetaSolver` that needs no HiGHS (one distribution per player). */
export type ShorMetaSolver = (metaGame: PayoffTensor) => Effect.Effect<ReadonlyArray<Float64Array>, InvalidPayoffTensorError | InvalidOptionError>

/** Options of {@link hybridOrm} (Listing 6's `_hybrid_orm_solver` arguments). */
export interface HybridOptions {
  /** Rounds, a positive integer (`iterations`). */
  readonly iterations: number
  /** λ ∈ [0, 1]: weight of the softmax part (`blending_factor`; 0 is pure ORM+). */
  readonly blend: number
  /** τ > 0: softmax temperature (`temperature`). */
  readonly temperature: number
  /** β: momentum of the optimistic gains (`momentum_beta`). */
  readonly momentum: number
  /** Divide the gains by their largest magnitude (`gain_normalization`). */
  readonly gainNormalization: boolean
  /** δ ≥ 0: diversity bonus `δ (1 − σₚ)` added to the gains (`diversity_bonus_coeff`). */
  readonly diversity: number
  /** Return the average of the iterates (true) or the last iterate (`return_average_strategy`). */
  readonly average: boolean
}

const fail = (option: string, value: unknown, reason: string) => new InvalidOptionError({ option, value, reason })

const checkHybrid = (o: HybridOptions): InvalidOptionError | undefined => {
  if (!(Number.isSafeInteger(o.iterations) && o.iterations > 0)) return fail("iterations", o.iterations, "expected a positive integer")
  if (!(o.blend >= 0 && o.blend <= 1)) return fail("blend", o.blend, "expected a number in [0, 1]")
  if (!(o.temperature > 0 && Number.isFinite(o.temperature))) return fail("temperature", o.temperature, "expected a positive finite number")
  if (!Number.isFinite(o.momentum)) return fail("momentum", o.momentum, "expected a finite number")
  if (!(o.diversity >= 0 && Number.isFinite(o.diversity))) return fail("diversity", o.diversity, "expected a non-negative finite number")
  return undefined
}

/**
 * Listing 6's hybrid ORM+ / softmax solver on `tensor` (see the module docs for one round): one distribution per
 * player (`out[p].length === tensor.shape[p]`). Deterministic. Cost: `iterations × players` action-value passes over
 * the tensor.
 *
 * Fails with `InvalidPayoffTensorError` for a malformed tensor and `InvalidOptionError` naming a bad option.
 */
export const hybridOrm = (tensor: PayoffTensor, options: HybridOptions): Effect.Effect<ReadonlyArray<Float64Array>, InvalidPayoffTensorError | InvalidOptionError> =>
  Effect.suspend(() => {
    const bad = check(tensor.shape, tensor.payoffs) ?? checkHybrid(options)
    return bad === undefined ? Effect.succeed(hybridOrmUnsafe(tensor, options)) : Effect.fail(bad)
  })

/** {@link hybridOrm} without validation (the tensor and options are trusted). */
export const hybridOrmUnsafe = (tensor: PayoffTensor, options: HybridOptions): ReadonlyArray<Float64Array> => {
  const { blend, diversity, gainNormalization, momentum, temperature } = options
  const shape = tensor.shape
  const np = shape.length
  const strategies = shape.map((k) => new Float64Array(k).fill(1 / k))
  const regrets = shape.map((k) => new Float64Array(k))
  const sums = shape.map((k) => new Float64Array(k))
  const prev = shape.map((k) => new Float64Array(k))
  const gains = shape.map((k) => new Float64Array(k))
  for (let t = 0; t < options.iterations; t++) {
    for (let p = 0; p < np; p++) {
      const k = shape[p]!
      const u = Equilibrium.actionValues(tensor, p, strategies)
      const sigma = strategies[p]!
      const R = regrets[p]!
      const c0 = prev[p]!
      const g = gains[p]!
      let mean = 0
      for (let a = 0; a < k; a++) mean += u[a]!
      mean /= k
      let maxAbs = 0
      for (let a = 0; a < k; a++) {
        const c = u[a]! - mean
        g[a] = (1 + momentum) * c - momentum * c0[a]! + diversity * (1 - sigma[a]!)
        c0[a] = c // the previous centered payoffs of the next round
        if (Math.abs(g[a]!) > maxAbs) maxAbs = Math.abs(g[a]!)
      }
      let sumR = 0
      for (let a = 0; a < k; a++) {
        const x = R[a]! + (gainNormalization && maxAbs > 1e-8 ? g[a]! / maxAbs : g[a]!)
        R[a] = x > 0 ? x : 0
        sumR += R[a]!
      }
      let top = -Infinity
      for (let a = 0; a < k; a++) if (u[a]! > top) top = u[a]!
      let sumExp = 0
      for (let a = 0; a < k; a++) sumExp += Math.exp((u[a]! - top) / temperature)
      for (let a = 0; a < k; a++) {
        const orm = sumR > 1e-12 ? R[a]! / sumR : 1 / k
        const soft = sumExp > 1e-12 ? Math.exp((u[a]! - top) / temperature) / sumExp : 1 / k
        sigma[a] = (1 - blend) * orm + blend * soft
      }
      if (options.average) {
        const s = sums[p]!
        for (let a = 0; a < k; a++) s[a] += sigma[a]!
      }
    }
  }
  if (!options.average) return strategies
  return sums.map((s) => {
    let total = 0
    for (let a = 0; a < s.length; a++) total += s[a]!
    return total > 0 ? s.map((x) => x / total) : s.fill(1 / s.length)
  })
}

/** Options of {@link trainMetaSolver} (Listing 6's `TrainMetaStrategySolver` constructor; defaults the listing's). */
export interface TrainOptions {
  /** Rounds `clip(base + perPolicy · (n₀ − 1), base, max)`: defaults 1000, 20, 5000. */
  readonly baseIterations?: number | undefined
  readonly iterationsPerPolicy?: number | undefined
  readonly maxIterations?: number | undefined
  /** λ from 0.3 to 0.05. */
  readonly initialBlend?: number | undefined
  readonly finalBlend?: number | undefined
  /** τ from 0.5 to 0.01. */
  readonly initialTemperature?: number | undefined
  readonly finalTemperature?: number | undefined
  /** δ from 0.05 to 0.001. */
  readonly initialDiversity?: number | undefined
  readonly finalDiversity?: number | undefined
  /** β (default 0.5). */
  readonly momentum?: number | undefined
  /** Default true. */
  readonly gainNormalization?: boolean | undefined
  /** PSRO iterations of the annealing (default 75). */
  readonly annealingIterations?: number | undefined
}

const clip = (x: number, lo: number, hi: number) => Math.min(Math.max(x, lo), hi)

/**
 * The training solver's {@link HybridOptions} at its `call`-th call (1-based: Listing 6's `_current_psro_iteration`
 * after the increment) on a meta-game whose player 0 has `populationSize` strategies.
 */
export const trainSchedule = (call: number, populationSize: number, options: TrainOptions = {}): HybridOptions => {
  const base = options.baseIterations ?? 1000
  const iterations = clip(Math.trunc(base + (options.iterationsPerPolicy ?? 20) * (populationSize - 1)), base, options.maxIterations ?? 5000)
  const progress = Math.min(1, call / (options.annealingIterations ?? 75))
  const anneal = (from: number, to: number) => clip(from * (1 - progress) + to * progress, to, from)
  return {
    iterations,
    blend: anneal(options.initialBlend ?? 0.3, options.finalBlend ?? 0.05),
    temperature: anneal(options.initialTemperature ?? 0.5, options.finalTemperature ?? 0.01),
    diversity: anneal(options.initialDiversity ?? 0.05, options.finalDiversity ?? 0.001),
    momentum: options.momentum ?? 0.5,
    gainNormalization: options.gainNormalization ?? true,
    average: true
  }
}

/**
 * A fresh SHOR-PSRO training-time meta-solver: each call is the next PSRO iteration of its schedule
 * ({@link trainSchedule}, starting at 1) and returns {@link hybridOrm}'s average strategies. Stateful by design (the
 * paper's annealing); make one per PSRO run.
 *
 * Fails with `InvalidPayoffTensorError` for a malformed tensor and `InvalidOptionError` naming a bad option.
 */
export const trainMetaSolver = (options: TrainOptions = {}): ShorMetaSolver => {
  let calls = 0
  return (metaGame) =>
    Effect.suspend(() => {
      const bad = check(metaGame.shape, metaGame.payoffs)
      if (bad !== undefined) return Effect.fail(bad)
      const annealing = options.annealingIterations ?? 75
      if (!(annealing > 0)) return Effect.fail(fail("annealingIterations", annealing, "expected a positive number"))
      calls += 1
      return hybridOrm(metaGame, trainSchedule(calls, metaGame.shape[0]!, options))
    })
}

/** Options of {@link evalMetaSolver} (Listing 6's `EvalMetaStrategySolver` constructor; defaults the listing's). */
export interface EvalOptions {
  /** Rounds `clip(base + perPolicy · (n₀ − 1), base, max)`: defaults 8000, 50, 15000. */
  readonly baseIterations?: number | undefined
  readonly iterationsPerPolicy?: number | undefined
  readonly maxIterations?: number | undefined
  /** λ (default 0.01), τ (0.001), β (0.2), δ (0), gain normalization (true). */
  readonly blend?: number | undefined
  readonly temperature?: number | undefined
  readonly momentum?: number | undefined
  readonly diversity?: number | undefined
  readonly gainNormalization?: boolean | undefined
}

/**
 * SHOR-PSRO's evaluation-time meta-solver: {@link hybridOrm} with fixed λ 0.01, τ 0.001, β 0.2, δ 0, returning the
 * last iterate. Stateless and deterministic.
 *
 * Fails with `InvalidPayoffTensorError` for a malformed tensor and `InvalidOptionError` naming a bad option.
 */
export const evalMetaSolver = (options: EvalOptions = {}): ShorMetaSolver => (metaGame) =>
  Effect.suspend(() => {
    const bad = check(metaGame.shape, metaGame.payoffs)
    if (bad !== undefined) return Effect.fail(bad)
    const base = options.baseIterations ?? 8000
    return hybridOrm(metaGame, {
      iterations: clip(Math.trunc(base + (options.iterationsPerPolicy ?? 50) * (metaGame.shape[0]! - 1)), base, options.maxIterations ?? 15000),
      blend: options.blend ?? 0.01,
      temperature: options.temperature ?? 0.001,
      momentum: options.momentum ?? 0.2,
      diversity: options.diversity ?? 0,
      gainNormalization: options.gainNormalization ?? true,
      average: false
    })
  })
