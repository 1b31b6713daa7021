/**
 * Policy-Space Response Oracles (PSRO) on extensive-form games, with an exact best-response oracle.
 *
 * Lanctot, Zambaldi, Gruslys, Lazaridou, Tuyls, Pérolat, Silver, Graepel, "A Unified Game-Theoretic Approach to
 * Multiagent Reinforcement Learning", NeurIPS 2017 (arXiv:1711.00832); OpenSpiel's `psro_v2` with the exact
 * best-response oracle. With the Nash meta-solver on a two-player zero-sum game it is the extensive-form double
 * oracle (McMahan, Gordon and Blum, ICML 2003, over the game's pure strategies).
 *
 * **The loop** (one iteration of `PsroLoop.run`, the outer loop shared with `Psro` and `Jpsro`, with the pieces
 * {@link run} gives it); each player keeps a population of tabular policies
 * (default start: the uniform policy):
 * 1. empirical meta-game: a {@link PayoffTensor} with the expected returns of every joint choice of population
 *    members (one backward pass of the compiled tree each, `BestResponse.expectedReturnsOnTree`; entries are cached,
 *    so an iteration only evaluates the profiles that involve new members);
 * 2. meta-strategy: a meta-solver's mixture over each population (`"uniform"`, `"nash"`: the maximin LP for
 *    two-player zero-sum games, `"prd"`: projected replicator dynamics, or any `MetaSolvers.MetaSolver`);
 * 3. mixture policy: each player's population mixed by its meta-strategy into one behaviour strategy
 *    ({@link mixtureOnTree}, reach-weighted per Kuhn's theorem), and its NashConv in the full game;
 * 4. oracle: each player's exact best response to the others' mixture policies joins its population.
 * PSRO stops when no best response is new (with the Nash meta-solver the mixture is then a Nash equilibrium of the
 * full game), when NashConv falls to `tolerance`, or after `iterations`.
 *
 * **Mixing behaviour strategies** (Kuhn 1953): the mixture that plays policy `π_k` with probability `w_k` for the
 * whole game is realization-equivalent to the behaviour strategy
 * `π(a | I) = Σ_k w_k x_k(I) π_k(a | I) / Σ_k w_k x_k(I)`, where `x_k(I)` is the product of the player's *own*
 * action probabilities under `π_k` on the path to `I` (its own reach; the same at every history of `I` under perfect
 * recall). Averaging action probabilities without these weights is not equivalent (OpenSpiel's `PolicyAggregator`
 * does the same weighting). Where `Σ_k w_k x_k(I) = 0` the state is unreachable under the mixture and the plain
 * `w`-weighted average is used.
 *
 * **Details**
 * - A best response joins the population only when its value beats every population member's value against the
 *   others' mixtures by more than `1e-10 × max(1, max |utility|)` (member values are the meta-game action values:
 *   the mixtures are realization-equivalent to the meta-strategies), so convergence is detected exactly.
 * - Best responses are deterministic (the first maximal action, as `BestResponse`), uniform at the player's states
 *   below its own zero-probability choices.
 * - Perfect recall is assumed (Kuhn's theorem needs it); the games of `@autodidact/envs` have it.
 * - Between iterations the loop yields to the Effect runtime (interruptible); `onIteration` receives each report
 *   (return an Effect to do effectful work in the loop).
 *
 * @example
 * ```ts
 * import { PsroExtensive } from "@autodidact/solvers"
 * import { Highs } from "@autodidact/solvers/lp"
 * import { KuhnPoker } from "@autodidact/envs"
 * import { Effect } from "effect"
 * const result = await Effect.runPromise(
 *   PsroExtensive.run(KuhnPoker.make(), { metaSolver: "nash", iterations: 20, onIteration: (r) => console.log(r.iteration, r.nashConv) })
 *     .pipe(Effect.provide(Highs.layer))
 * )
 * result.stopReason // "converged" after 7 iterations on Kuhn poker; result.final.nashConv ~ 0
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/psro_v2/psro_v2.py
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/policy_aggregator.py
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Effect } from "effect"
import * as BestResponse from "../evaluation/BestResponse.js"
import * as Equilibrium from "../normalform/Equilibrium.js"
import type { PolicyMissingInfoStateError } from "../Errors.js"
import * as Exploitability from "../evaluation/Exploitability.js"
import type { Game } from "../internal/GameLike.js"
import { compile, DECISION_NODE, type GameTree } from "../tree/GameTree.js"
import type { Highs, LpSolveError } from "../normalform/Highs.js"
import * as MetaSolvers from "../normalform/MetaSolvers.js"
import { type InvalidPayoffTensorError, size, unsafeMake } from "../normalform/PayoffTensor.js"
import type { PayoffTensor } from "../normalform/PayoffTensor.js"
import * as PsroLoop from "./PsroLoop.js"
import * as TabularPolicy from "../tree/TabularPolicy.js"

/** One PSRO iteration, as reported to `onIteration` and kept in the history. */
export interface IterationReport extends PsroLoop.BaseReport {
  /** The (training) meta-solver's mixture over each population: the best responses answer it. */
  readonly metaStrategies: ReadonlyArray<Float64Array>
  /**
   * The evaluation meta-solver's mixture over each population (only with `evalMetaSolver`): `mixture`, `values`,
   * `bestResponseValues` and `nashConv` are then this meta-strategy's.
   */
  readonly evalMetaStrategies?: ReadonlyArray<Float64Array> | undefined
  /** NashConv of the training meta-strategy's mixture (equal to `nashConv` without `evalMetaSolver`). */
  readonly trainingNashConv: number
  /**
   * Every player's population mixed by its meta-strategy (reach-weighted behaviour-strategy mixture): the
   * evaluation meta-strategy's with `evalMetaSolver`, otherwise the training one's.
   */
  readonly mixture: TabularPolicy.TabularPolicy
  /** Expected return of each player under `mixture`. */
  readonly values: ReadonlyArray<number>
  /** Each player's best-response value against the others' mixtures. */
  readonly bestResponseValues: ReadonlyArray<number>
  /** NashConv of `mixture` in the full game: `Σ_p (bestResponseValues[p] − values[p])`. */
  readonly nashConv: number
  /** Whether each player's best response was new (added to its population after this iteration). */
  readonly added: ReadonlyArray<boolean>
}

/** Why a run ended (see `PsroLoop.StopReason`). */
export type StopReason = PsroLoop.StopReason

/** Options of {@link run}. */
export interface Options extends PsroLoop.RunOptions<IterationReport>, MetaSolvers.ChoiceOptions {
  /**
   * Initial population of each player (one list per player; player `p`'s members are the player-`p` parts of the
   * given policies). Default: the uniform policy for everyone.
   */
  readonly initialPopulations?: ReadonlyArray<ReadonlyArray<TabularPolicy.TabularPolicy>> | undefined
  /**
   * A second meta-solver whose meta-strategy is the one *reported* (mixture, values, NashConv), while the best
   * responses still answer `metaSolver`'s: SHOR-PSRO's split of a training-time and an evaluation-time solver
   * (Li et al. 2026, arXiv:2602.16928, §4.3.1; `"shor-eval"`). Default: none (the training meta-strategy is reported).
   */
  readonly evalMetaSolver?: MetaSolvers.MetaSolverName | MetaSolvers.MetaSolver | undefined
  /**
   * Go on through an iteration without a new best response instead of stopping with `"converged"` (PsroLoop's
   * `continueWhenStalled`). Default: true for a stateful named meta-solver (`"shor"`: its annealing may change the
   * answer to the same meta-game), false otherwise.
   */
  readonly continueWhenStalled?: boolean | undefined
}

/** The outcome of {@link run}: why it stopped, the last iteration's report, every iteration's report, and: */
export interface Result extends PsroLoop.Result<IterationReport> {
  /**
   * Each player's population at the end, in order of addition (player `p`'s member is meaningful on `p`'s
   * information states; the others' states hold the uniform policy). The last iteration's best responses are
   * included when the run stopped on `"iterations"`.
   */
  readonly populations: ReadonlyArray<ReadonlyArray<TabularPolicy.TabularPolicy>>
}

/** Errors of {@link run}. */
export type RunError = InvalidPayoffTensorError | InvalidOptionError | LpSolveError | PolicyMissingInfoStateError

const invalid = (option: string, value: unknown, reason: string) => new InvalidOptionError({ option, value, reason })

/** Check that `weights` are finite, non-negative, `n` of them, with a positive sum; return them normalized. */
const normalizeWeights = (weights: ArrayLike<number>, n: number): Float64Array | InvalidOptionError => {
  if (weights.length !== n) return invalid("weights", Array.from(weights), `expected ${n} weights (one per policy), got ${weights.length}`)
  if (n === 0) return invalid("weights", [], "cannot mix an empty population")
  let sum = 0
  for (let k = 0; k < n; k++) {
    const w = weights[k]!
    if (!Number.isFinite(w) || w < 0) return invalid("weights", Array.from(weights), `weight ${k} is ${w}: must be finite and non-negative`)
    sum += w
  }
  if (!(sum > 0)) return invalid("weights", Array.from(weights), "weights must have a positive sum")
  const out = new Float64Array(n)
  for (let k = 0; k < n; k++) out[k] = weights[k]! / sum
  return out
}

/** Check that every row of `probs` (per-slot probabilities on `tree`) is a probability distribution. */
const checkDistribution = (tree: GameTree, probs: Float64Array, option: string): InvalidOptionError | undefined => {
  for (let i = 0; i < tree.numInfoStates; i++) {
    let sum = 0
    for (let s = tree.infoOffset[i]!; s < tree.infoOffset[i + 1]!; s++) {
      const p = probs[s]!
      if (!Number.isFinite(p) || p < 0) return invalid(option, p, `probability at information state ${JSON.stringify(tree.infoKeys[i])} must be finite and non-negative`)
      sum += p
    }
    if (Math.abs(sum - 1) > 1e-9) return invalid(option, sum, `probabilities at information state ${JSON.stringify(tree.infoKeys[i])} sum to ${sum}, not 1`)
  }
  return undefined
}

/**
 * Own reach of `player` at each of its information states under per-slot probabilities `probs`: the product of
 * `player`'s action probabilities on the path to the state's first history (the same at all of its histories under
 * perfect recall). Written to `out[info]` for `player`'s states.
 */
export const ownReachOnTree = (
  tree: GameTree,
  probs: ArrayLike<number>,
  player: number,
  out: Float64Array = new Float64Array(tree.numInfoStates),
  nodeReach: Float64Array = new Float64Array(tree.numNodes)
): Float64Array => {
  const { nodeKind, nodePlayer, nodeInfo, edgeStart, edgeChild, infoOffset, infoNodeStart, infoNodes } = tree
  nodeReach[0] = 1
  for (let n = 0; n < tree.numNodes; n++) {
    const e0 = edgeStart[n]!
    const e1 = edgeStart[n + 1]!
    const r = nodeReach[n]!
    if (nodeKind[n] === DECISION_NODE && nodePlayer[n] === player) {
      const off = infoOffset[nodeInfo[n]!]! - e0
      for (let e = e0; e < e1; e++) nodeReach[edgeChild[e]!] = r * probs[off + e]!
    } else {
      for (let e = e0; e < e1; e++) nodeReach[edgeChild[e]!] = r
    }
  }
  for (const i of tree.playerInfoStates[player] ?? []) out[i] = nodeReach[infoNodes[infoNodeStart[i]!]!]!
  return out
}

/**
 * The behaviour-strategy mixture of `player`'s policies `members` (per-slot probabilities on `tree`, only `player`'s
 * slots are read) with weights `weights` (non-negative, summing to 1), written to `player`'s slots of `out` (other
 * slots untouched): `π(a | I) = Σ_k w_k x_k(I) π_k(a | I) / Σ_k w_k x_k(I)` with `x_k(I)` the own reach of member
 * `k` (Kuhn's theorem); the plain weighted average where no member with positive weight reaches `I`.
 * No validation (see {@link mixture}).
 */
export const mixtureOnTree = (
  tree: GameTree,
  player: number,
  members: ReadonlyArray<ArrayLike<number>>,
  weights: ArrayLike<number>,
  out: Float64Array = new Float64Array(tree.numSlots)
): Float64Array => {
  const mine = tree.playerInfoStates[player] ?? new Int32Array(0)
  const { infoOffset } = tree
  const num = new Float64Array(tree.numSlots)
  const den = new Float64Array(tree.numInfoStates)
  const reach = new Float64Array(tree.numInfoStates)
  const nodeReach = new Float64Array(tree.numNodes)
  for (let k = 0; k < members.length; k++) {
    const w = weights[k]!
    if (w === 0) continue
    const probs = members[k]!
    ownReachOnTree(tree, probs, player, reach, nodeReach)
    for (const i of mine) {
      const wx = w * reach[i]!
      if (wx === 0) continue
      den[i] += wx
      for (let s = infoOffset[i]!; s < infoOffset[i + 1]!; s++) num[s] += wx * probs[s]!
    }
  }
  for (const i of mine) {
    const d = den[i]!
    if (d > 0) {
      for (let s = infoOffset[i]!; s < infoOffset[i + 1]!; s++) out[s] = num[s]! / d
    } else {
      // Unreachable under the mixture: the weighted average (any distribution is realization-equivalent here).
      let total = 0
      for (let s = infoOffset[i]!; s < infoOffset[i + 1]!; s++) {
        let v = 0
        for (let k = 0; k < members.length; k++) v += weights[k]! * members[k]![s]!
        out[s] = v
        total += v
      }
      for (let s = infoOffset[i]!; s < infoOffset[i + 1]!; s++) out[s] = total > 0 ? out[s]! / total : 1 / tree.infoNumActions[i]!
    }
  }
  return out
}

/**
 * The behaviour-strategy mixture of `policies` with weights `weights` (normalized): for every player, the
 * reach-weighted mixture of the policies' parts for that player ({@link mixtureOnTree}), a policy
 * realization-equivalent to picking policy `k` with probability `w_k` before the game and following it throughout.
 *
 * Fails with `InvalidOptionError` for bad weights or a policy whose rows are not distributions, and with
 * `PolicyMissingInfoStateError` when a policy lacks an information state of `game`.
 */
export const mixture = (
  game: Game,
  policies: ReadonlyArray<TabularPolicy.TabularPolicy>,
  weights: ArrayLike<number>
): Effect.Effect<TabularPolicy.TabularPolicy, InvalidOptionError | PolicyMissingInfoStateError> =>
  Effect.gen(function* () {
    const w = normalizeWeights(weights, policies.length)
    if (w instanceof InvalidOptionError) return yield* w
    const tree = compile(game)
    const members: Array<Float64Array> = []
    for (const policy of policies) {
      const probs = yield* TabularPolicy.toTreeProbabilities(tree, policy)
      const err = checkDistribution(tree, probs, "policies")
      if (err !== undefined) return yield* err
      members.push(probs)
    }
    const out = new Float64Array(tree.numSlots)
    for (let p = 0; p < tree.numPlayers; p++) mixtureOnTree(tree, p, members, w, out)
    return TabularPolicy.fromTree(tree, out)
  })

/**
 * Run PSRO (Lanctot et al. 2017, arXiv:1711.00832) on an extensive-form game with an exact best-response oracle:
 * populations of tabular policies, the empirical meta-game of their expected returns, and the PSRO outer loop
 * `PsroLoop.run` (the one `Psro` and `Jpsro` use).
 *
 * **When to use**: to approximate a Nash equilibrium of a small or medium extensive-form game (Kuhn, Leduc) through
 * a few policies, or to compare meta-solvers; for the game's average-strategy equilibrium with a convergence rate use
 * `Cfr` / `Solver`. Every iteration walks the compiled tree once per new meta-game entry, once for the mixture's
 * values and once per player for its best response.
 *
 * **Shapes and units**: returns and NashConv are in the game's utility units. Each {@link IterationReport} carries
 * the empirical meta-game (shape = the population sizes; entry = the expected return of each player when every
 * player follows the chosen member), the meta-strategies (one distribution per population), the reach-weighted
 * `mixture` (a `TabularPolicy` over every information state), each player's expected return under it (`values`) and
 * its best-response value against the others' parts (`bestResponseValues`), the full game's NashConv
 * `Σ_p (bestResponseValues[p] − values[p])` (≥ 0 up to rounding), and `added[p]`, whether player `p`'s best response
 * joins its population after the iteration. The result adds each player's final population.
 *
 * **Options**: `metaSolver` (required: `"nash"` for two-player zero-sum games, `"uniform"`, `"prd"`,
 * `"alpharank"`, `"shor"`, `"shor-eval"` or a `MetaSolvers.MetaSolver`), `prd`, `alphaRank`, `evalMetaSolver`
 * (the meta-strategy to report, e.g. `"shor-eval"` beside `"shor"`), `continueWhenStalled`, `iterations` (default
 * 20), `tolerance` (default 0, compared with the reported NashConv), `initialPopulations` (default: the uniform
 * policy for every player), `onIteration`.
 *
 * **Stops** with `"converged"` when no best response beats its population by more than `1e-10 × max(1, max |u|)`
 * (with `"nash"` the mixture is then a Nash equilibrium of the full game; with another stateless meta-solver the
 * populations can no longer change, though NashConv may be above 0; a stateful one — `"shor"` — goes on unless
 * `continueWhenStalled: false`), `"tolerance"` when the reported NashConv ≤ `tolerance`, or `"iterations"`.
 *
 * **Errors**: `InvalidOptionError` for an unknown `metaSolver`, `iterations` that is not a positive integer, a
 * negative `tolerance`, initial populations that are not one non-empty list per player, or a policy whose rows are
 * not distributions; `PolicyMissingInfoStateError` for an initial policy that lacks one of the game's information
 * states; `InvalidPayoffTensorError` from the `"nash"` meta-solver on a game that is not two-player; `LpSolveError`
 * when HiGHS fails. Requires the {@link Highs} service (`Highs.layer` of `@autodidact/solvers/lp`).
 *
 * @example
 * ```ts
 * import { KuhnPoker } from "@autodidact/envs"
 * import { PsroExtensive } from "@autodidact/solvers"
 * import { Highs } from "@autodidact/solvers/lp"
 * import { Effect } from "effect"
 * const result = await Effect.runPromise(PsroExtensive.run(KuhnPoker.make(), { metaSolver: "nash" }).pipe(Effect.provide(Highs.layer)))
 * result.history.map((r) => r.nashConv) // 0.91667, 0.83333, 0.33333, 0.27211, 0.16667, 0.10345, 0
 * result.final.values[0] // −1/18, the game's value
 * ```
 * @see Lanctot et al., "A Unified Game-Theoretic Approach to Multiagent Reinforcement Learning", arXiv:1711.00832
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/psro_v2/psro_v2.py
 * @category PSRO
 * @since 0.1.0
 */
export const run = (game: Game, options: Options): Effect.Effect<Result, RunError, Highs> =>
  Effect.gen(function*() {
    const solver = yield* MetaSolvers.choose(options.metaSolver, options.prd ?? {}, options.alphaRank)
    const evalSolver = options.evalMetaSolver === undefined
      ? undefined
      : yield* MetaSolvers.choose(options.evalMetaSolver, options.prd ?? {}, options.alphaRank).pipe(
        Effect.mapError((e) => new InvalidOptionError({ option: "evalMetaSolver", value: e.value, reason: e.reason }))
      )
    const continueWhenStalled = options.continueWhenStalled ??
      (typeof options.metaSolver === "string" && MetaSolvers.isStateful(options.metaSolver))
    const tree = compile(game)
    const np = tree.numPlayers
    // Populations: per player, per-slot probabilities on the tree (only the player's own slots matter).
    const uniformProbs = TabularPolicy.uniformFromTree(tree).probabilities
    const pops: Array<Array<Float64Array>> = []
    if (options.initialPopulations === undefined) {
      for (let p = 0; p < np; p++) pops.push([Float64Array.from(uniformProbs)])
    } else {
      const init = options.initialPopulations
      if (init.length !== np) return yield* invalid("initialPopulations", init.length, `expected ${np} populations (one per player), got ${init.length}`)
      for (let p = 0; p < np; p++) {
        if (init[p]!.length === 0) return yield* invalid("initialPopulations", p, `the population of player ${p} is empty`)
        const pop: Array<Float64Array> = []
        for (const policy of init[p]!) {
          const probs = yield* TabularPolicy.toTreeProbabilities(tree, policy)
          const err = checkDistribution(tree, probs, "initialPopulations")
          if (err !== undefined) return yield* err
          pop.push(ownPart(tree, p, probs, uniformProbs))
        }
        pops.push(pop)
      }
    }

    // Slot owner, for assembling joint profiles.
    const slotPlayer = new Int32Array(tree.numSlots)
    for (let i = 0; i < tree.numInfoStates; i++) slotPlayer.fill(tree.infoPlayer[i]!, tree.infoOffset[i]!, tree.infoOffset[i + 1]!)
    let maxAbs = 1
    for (let j = 0; j < tree.utilities.length; j++) maxAbs = Math.max(maxAbs, Math.abs(tree.utilities[j]!))
    const tieTol = 1e-10 * maxAbs

    const cache = new Map<string, Float64Array>()
    const joint = new Float64Array(tree.numSlots)
    const ws = Exploitability.workspace(tree)
    const profileReturns = (members: ReadonlyArray<number>): Float64Array => {
      const key = members.join(",")
      let r = cache.get(key)
      if (r === undefined) {
        for (let s = 0; s < tree.numSlots; s++) joint[s] = pops[slotPlayer[s]!]![members[slotPlayer[s]!]!]![s]!
        r = Float64Array.from(BestResponse.expectedReturnsOnTree(tree, joint, ws.values))
        cache.set(key, r)
      }
      return r
    }
    const metaGameOf = (): PayoffTensor => {
      const shape = pops.map((p) => p.length)
      const n = size(shape)
      const payoffs = shape.map(() => new Float64Array(n))
      const members = new Array<number>(np).fill(0)
      for (let j = 0; j < n; j++) {
        const r = profileReturns(members)
        for (let p = 0; p < np; p++) payoffs[p]![j] = r[p]!
        // Advance the row-major counter (last player fastest), so that `members` is the joint index j + 1.
        for (let p = np - 1; p >= 0; p--) {
          if (++members[p]! < shape[p]!) break
          members[p] = 0
        }
      }
      return unsafeMake(shape, payoffs)
    }

    const result = yield* PsroLoop.run({
      iterations: options.iterations ?? 20,
      tolerance: options.tolerance ?? 0,
      metaGame: metaGameOf,
      metaSolver: solver,
      continueWhenStalled,
      oracle: (metaGame, metaStrategies) =>
        Effect.gen(function*() {
          const mixOf = (strategies: ReadonlyArray<Float64Array>) => {
            const mix = new Float64Array(tree.numSlots)
            for (let p = 0; p < np; p++) mixtureOnTree(tree, p, pops[p]!, strategies[p]!, mix)
            return mix
          }
          const mix = mixOf(metaStrategies)
          const responses: Array<Array<Float64Array>> = []
          const training = Exploitability.reportOnTree(tree, mix, ws, (p, value, brWs) => {
            // New only if it beats every member's value against the others' mixtures (the meta-game's action
            // values: the mixtures are realization-equivalent to the meta-strategies).
            const isNew = PsroLoop.improves(value, Equilibrium.actionValues(metaGame, p, metaStrategies), tieTol)
            responses.push(isNew ? [BestResponse.policyOnTree(tree, p, brWs, Float64Array.from(uniformProbs))] : [])
          })
          const trainingNashConv = training.nashConv
          if (evalSolver === undefined) {
            return { gap: trainingNashConv, trainingNashConv, responses, mix, evalMeta: undefined, policyValues: training.policyValues, bestResponseValues: training.bestResponseValues }
          }
          const evalMeta = yield* evalSolver(metaGame)
          const evalMix = mixOf(evalMeta)
          const evaluated = Exploitability.reportOnTree(tree, evalMix, ws)
          return { gap: evaluated.nashConv, trainingNashConv, responses, mix: evalMix, evalMeta, policyValues: evaluated.policyValues, bestResponseValues: evaluated.bestResponseValues }
        }),
      add: (p, response) => pops[p]!.push(response),
      report: ({ elapsedSeconds, iteration, meta, metaGame, populationSizes }, oracle): IterationReport => ({
        iteration,
        populationSizes,
        metaGame,
        metaStrategies: meta,
        ...(oracle.evalMeta === undefined ? {} : { evalMetaStrategies: oracle.evalMeta }),
        trainingNashConv: oracle.trainingNashConv,
        mixture: TabularPolicy.fromTree(tree, oracle.mix),
        values: oracle.policyValues,
        bestResponseValues: oracle.bestResponseValues,
        nashConv: oracle.gap,
        added: oracle.responses.map((r) => r.length > 0),
        elapsedSeconds
      }),
      onIteration: options.onIteration
    })
    return { ...result, populations: pops.map((pop) => pop.map((probs) => TabularPolicy.fromTree(tree, probs))) }
  })

/** `player`'s slots of `probs`, the uniform policy elsewhere. */
const ownPart = (tree: GameTree, player: number, probs: Float64Array, uniformProbs: Float64Array): Float64Array => {
  const out = Float64Array.from(uniformProbs)
  for (const i of tree.playerInfoStates[player] ?? []) {
    for (let s = tree.infoOffset[i]!; s < tree.infoOffset[i + 1]!; s++) out[s] = probs[s]!
  }
  return out
}
