/**
 * Counterfactual regret minimization on a compiled game tree: vanilla CFR, CFR+, Linear CFR, Discounted CFR, the
 * predictive variants PCFR+ and PDCFR+, CFR-BR and the LLM-discovered VAD-CFR.
 *
 * **When to use**: to approximate a Nash equilibrium of a 2-player zero-sum game (or a coarse correlated
 * equilibrium of a general one) whose tree fits in memory (Kuhn, Leduc, small custom games). For trees too big to
 * traverse every iteration use `Mccfr`.
 *
 * **Details** — one iteration `t` (OpenSpiel's `cfr.py` / `discounted_cfr.py` semantics, so curves match):
 * 1. For each player `p` in turn (alternating updates, the default, as OpenSpiel's `CFRSolver`; or all at once with
 *    `alternatingUpdates: false`, as in Zinkevich et al.), walk the tree under the current policy σᵗ and, at each
 *    of `p`'s histories `h`, add the counterfactual regret `π₋ₚ(h) · (v(h·a) − v(h))` to `R(I, a)` and the
 *    reach-weighted policy `wₜ · πₚ(h) · σᵗ(I, a)` to the cumulative policy `C(I, a)`.
 * 2. Then transform `p`'s regrets and recompute σ by regret matching, `σ(I, a) ∝ max(R(I, a), 0)` (uniform when no
 *    regret is positive), before the next player's walk.
 *
 * | variant | regret transform after the walk | average weight `wₜ` |
 * |---|---|---|
 * | `cfr` (Zinkevich et al. 2007) | none | 1 |
 * | `cfr+` (Tammelin 2014) | `R ← max(R, 0)` (regret matching+) | `max(t − delay, 0)` (delay 0 as OpenSpiel) |
 * | `lcfr` (Brown & Sandholm 2019) | `R ← R · t/(t+1)` | `t` |
 * | `dcfr` α, β, γ (Brown & Sandholm 2019; 1.5, 0, 2) | `R ≥ 0: R · tᵅ/(tᵅ+1)`, `R < 0: R · tᵝ/(tᵝ+1)` | `tᵞ` |
 * | `pcfr+` γ (Farina, Kroer & Sandholm 2021; γ 2) | `R ← [R + rᵗ]⁺`; σ from `[R + rᵗ]⁺` | `tᵞ` |
 * | `pdcfr+` α, γ (Xu et al. 2024; 2.3, 5) | `R ← [R · d(t) + rᵗ]⁺`; σ from `[R · d(t+1) + rᵗ]⁺`, `d(t) = (t−1)ᵅ/((t−1)ᵅ+1)` | `tᵞ` |
 * | `cfr-br` (Johanson et al. 2012) | none (`regretMatchingPlus`: `R ← max(R, 0)`) | 1 (`linearAveraging`: `t`) |
 * | `vad-cfr` (Li et al. 2026) | `R ← max(R · d±(t, v) + r̃, −20)`; σ ∝ `max(R · d± + o(t, v) · r̃, 0)^1.5` | 0 for `t ≤ 500`, then `t^γ(m) · s(m) · g(m)` |
 *
 * VAD-CFR (Volatility-Adaptive Discounted CFR; Li, Schultz, Hennes, Lanctot, "Discovering Multiagent Learning
 * Algorithms with Large Language Models", arXiv:2602.16928, §4.2.1 and the discovered source, Appendix 7.1 Listing 5,
 * constants in {@link VAD}) at info state `I` after the walk of iteration `t`: `r` = `rᵗ(I, ·)` (eq. 4), its magnitude
 * `m = maxₐ |r(a)|`, the boosted `r̃ = 1.1 · r` where `r > 0` (else `r`); the EWMA `e ← m` at `t = 1`, else
 * `0.1 · m + 0.9 · e`; volatility `v = min(1, e / 2)`; `α = max(0.1, 1.5 − 0.5v)`, `β = min(α, −0.1 − 0.5v)`,
 * `d± = t^α/(t^α + 1)` for `R ≥ 0` and `t^β/(t^β + 1)` for `R < 0`; optimism `o = (1 / (1 + (t−1)/100)) ·
 * max(0, 1 − 0.5v)`; average weight (from `t = 501`) `t^min(4, 2 + 1.5 · min(1, m/2)) · 1/(1 + m^1.5) ·
 * max(0.1, √(1 + m/2))` times the player's reach, of the policy σᵗ the walk played. Choices the paper leaves open,
 * made here (Listing 5 gives the three classes, not the CFR driver that calls them):
 * - `cfr_regrets` is the information-state instantaneous regret `rᵗ(I, a)` of eq. (4) (the sum over `h ∈ I` of this
 *   walk's counterfactual regrets), the same for all three classes; the policy accumulator's `reach_prob` is summed
 *   over `h ∈ I` (`Σ πₚ(h)` times the per-info-state weight: OpenSpiel's per-history accumulation, reordered).
 * - Driver: OpenSpiel's CFR loop (the paper's framework, §4.1; seed CFR+): alternating updates; after player `p`'s
 *   walk, each of `p`'s info states, reached or not (then `r = 0`), in depth-first discovery order (OpenSpiel's
 *   `_info_state_nodes` order), gets `PolicyAccumulator` (σᵗ), then `RegretAccumulator`, then
 *   `PolicyFromRegretAccumulator`. `iteration_number` (0-based) is `t − 1`.
 * - The EWMA is one number per class instance in Listing 5, shared by every info state and player, updated at each
 *   call in the order above; the two classes' copies see the same inputs, so they are one stream here
 *   (`CfrState.ewma`). `PolicyAccumulator` uses the instantaneous `m`, not the EWMA, as in Listing 5.
 * - Listing 5 is followed where the high-level Listing 3 differs (Listing 3 writes `(t/(t+1))^α` discounts, an
 *   additive optimism and no EWMA in the policy step).
 * - Through iteration 500 the cumulative policy is zero, so the average policy is uniform (read `strategy`, the
 *   current policy, there). `alternatingUpdates: false` updates every info state in index order after one walk;
 *   the rules were found with alternating updates, and simultaneous ones can cycle (the tiny matching game of the
 *   tests: NashConv 0.28 after 2,000 iterations, uniform play 0.375; Kuhn: 1.6e-2 after 600).
 * - The state keeps `r` (`predictions`), each info state's last `v` (`volatility`) and the EWMA, so σ is recomputed
 *   exactly on resume.
 * CFR-BR (two players, OpenSpiel's `CFRBRSolver`): each iteration first computes every player's exact best response
 * to the current policy σᵗ (defined at every information state as OpenSpiel's `best_response`, see
 * `BestResponse.valueOnTree`'s `complete`), then walks the tree once per player with the *other* players playing their best
 * responses (deterministic), updating that player's regrets and average; σ is recomputed for everyone after the last
 * walk (σ does not change between the walks of one iteration).
 *
 * The predictive variants (predictive regret matching+, "optimistic" RM+) keep `rᵗ`, the instantaneous
 * counterfactual regrets of the last walk, as the prediction of the next ones, and play regret matching on the
 * cumulative regrets plus that prediction; their state holds it (`CfrState.predictions`) so a resumed run continues
 * exactly. Their schedules follow the reference implementation of Xu et al. (github.com/rpSebastian/PDCFRPlus,
 * `pcfr_plus.py`, `pdcfr_plus.py`): alternating updates, the average weighted `tᵞ` (their `C ← C·((t−1)/t)ᵞ + ...`,
 * the same average), quadratic averaging for PCFR+ as Farina et al. found best.
 *
 * The average policy `C(I, ·) / Σ C(I, ·)` (uniform where `Σ C = 0`) converges to an equilibrium; the current
 * policy σ need not.
 *
 * - Subtrees that no player reaches are skipped (their contribution is exactly zero), as OpenSpiel does.
 * - Iterations allocate nothing: regrets, cumulative policy and σ are `Float64Array`s over the tree's slots.
 *
 * **Gotchas**
 * - OpenSpiel's `CFRSolver` uses alternating updates; pass `alternatingUpdates: false` for the paper's simultaneous
 *   updates (slower convergence, about 2× fewer tree walks per iteration).
 * - OpenSpiel's CFR+ has no averaging delay; Tammelin et al. (2015) use `delay` > 0 for speed. Default 0.
 *
 * @example
 * ```ts
 * import { Cfr, GameTree } from "@autodidact/solvers"
 * import { KuhnPoker } from "@autodidact/envs"
 * const solver = Cfr.make(GameTree.compile(KuhnPoker.make()), { variant: "cfr+" })
 * solver.run(200)
 * solver.averagePolicy().actionProbabilities("0") // Jack: mostly pass
 * ```
 * @see Zinkevich, Johanson, Bowling, Piccione, "Regret Minimization in Games with Incomplete Information", NIPS 2007
 * @see Tammelin, "Solving Large Imperfect Information Games Using CFR+", arXiv:1407.5042 (2014)
 * @see Brown, Sandholm, "Solving Imperfect-Information Games via Discounted Regret Minimization", AAAI 2019,
 *   arXiv:1809.04040
 * @see Farina, Kroer, Sandholm, "Faster Game Solving via Predictive Blackwell Approachability: Connecting Regret
 *   Matching and Mirror Descent", AAAI 2021, arXiv:2007.14358
 * @see Xu, Li, Fu, Fu, Xing, Cheng, "Minimizing Weighted Counterfactual Regret with Optimistic Online Mirror Descent",
 *   IJCAI 2024, arXiv:2404.13891
 * @see Johanson, Bard, Burch, Bowling, "Finding Optimal Abstract Strategies in Extensive-Form Games", AAAI 2012
 * @see Li, Schultz, Hennes, Lanctot, "Discovering Multiagent Learning Algorithms with Large Language Models",
 *   arXiv:2602.16928 (2026)
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/cfr_br.py
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/cfr.py
 * @category solvers
 * @since 0.1.0
 */
import * as BestResponse from "../evaluation/BestResponse.js"
import { CHANCE_NODE, type GameTree, TERMINAL_NODE } from "../tree/GameTree.js"
import * as TabularPolicy from "../tree/TabularPolicy.js"

/** The CFR variants. */
export type Variant = "cfr" | "cfr+" | "lcfr" | "dcfr" | "pcfr+" | "pdcfr+" | "cfr-br" | "vad-cfr"
/** Every {@link Variant}, in the order of the module docs' table. */
export const variants: ReadonlyArray<Variant> = ["cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "pdcfr+", "cfr-br", "vad-cfr"]

/**
 * VAD-CFR's constants, the defaults of the discovered program (Li et al. 2026, arXiv:2602.16928, Appendix 7.1,
 * Listing 5): `RegretAccumulator`, `PolicyFromRegretAccumulator` and `PolicyAccumulator` constructor defaults.
 */
export const VAD = {
  /** `base_alpha`, `base_beta`: discount exponents of positive / negative cumulative regrets at zero volatility. */
  baseAlpha: 1.5,
  baseBeta: -0.1,
  /** Floor of the adaptive α (`max(0.1, …)`). */
  alphaMin: 0.1,
  /** `volatility_sensitivity`: how much the volatility lowers α, β and the optimism. */
  volatilitySensitivity: 0.5,
  /** `max_expected_instantaneous_regret`: volatility `= min(1, EWMA / 2)`. */
  maxExpectedRegret: 2,
  /** `instantaneous_regret_boost_factor`: positive instantaneous regrets are multiplied by this. */
  boost: 1.1,
  /** `ewma_decay_factor`: EWMA ← 0.1 · magnitude + 0.9 · EWMA. */
  ewmaDecay: 0.1,
  /** `negative_regret_cap`: cumulative regrets are floored here. */
  negativeRegretCap: -20,
  /** `initial_optimism_factor`, `optimism_decay_factor`: optimism `1 / (1 + t₀ / 100)` (t₀ the 0-based iteration). */
  initialOptimism: 1,
  optimismDecay: 100,
  /** `positive_policy_exponent`: σ ∝ `max(projected, 0)^1.5`. */
  policyExponent: 1.5,
  /** `warmup_iterations`: no average-policy accumulation for the first 500 iterations. */
  warmupIterations: 500,
  /** `base_gamma`, `gamma_max`, `gamma_volatility_sensitivity`: average weight `t^min(4, 2 + 1.5 · v)`. */
  baseGamma: 2,
  gammaMax: 4,
  gammaVolatilitySensitivity: 1.5,
  /** `stability_exponent`: stability factor `1 / (1 + m^1.5)`. */
  stabilityExponent: 1.5,
  /** `regret_magnitude_weighting_exponent`: magnitude factor `max(0.1, (1 + m / 2)^0.5)`. */
  magnitudeExponent: 0.5
} as const

/** Options of {@link make}; defaults are OpenSpiel's. */
export interface Options {
  /** Default `"cfr"`. */
  readonly variant?: Variant | undefined
  /** Update players one after another within an iteration (default `true`, as OpenSpiel). */
  readonly alternatingUpdates?: boolean | undefined
  /** DCFR / PDCFR+ discount of positive regrets (default 1.5; 1 for `lcfr`, 2.3 for `pdcfr+`). */
  readonly alpha?: number | undefined
  /** DCFR discount of negative regrets (default 0; 1 for `lcfr`). */
  readonly beta?: number | undefined
  /** Average-policy weight exponent of DCFR and the predictive variants (default 2; 1 for `lcfr`, 5 for `pdcfr+`). */
  readonly gamma?: number | undefined
  /** CFR+ averaging delay `d`: iteration `t` is weighted `max(t − d, 0)` (default 0). */
  readonly averagingDelay?: number | undefined
  /** CFR-BR: weight iteration `t` of the average by `t` (default false, as OpenSpiel's `CFRBRSolver`). */
  readonly linearAveraging?: boolean | undefined
  /** CFR-BR: regret matching+ (floor the regrets at 0 after each player's walk; default false, as OpenSpiel). */
  readonly regretMatchingPlus?: boolean | undefined
}

/**
 * The mutable state of a regret-minimizing solver on a compiled tree (the CFR family here, MCCFR in `Mccfr`):
 * everything a checkpoint needs (σ is recomputed from the regrets). `regrets[s]` is the cumulative (transformed)
 * regret `R(I, a)` and `cumulativePolicy[s]` the weighted policy sum `C(I, a)` of slot `s` of `tree` (one slot per
 * information state and legal action, `tree.numSlots` in all); `iteration` counts completed iterations.
 */
export interface CfrState {
  iteration: number
  readonly regrets: Float64Array
  readonly cumulativePolicy: Float64Array
  /**
   * The predictive variants' prediction, and VAD-CFR's last instantaneous regrets: the instantaneous regrets `rᵗ` of
   * each slot's last update (else absent).
   */
  readonly predictions?: Float64Array | undefined
  /** VAD-CFR: the normalized volatility `v ∈ [0, 1]` of each information state's last update (else absent). */
  readonly volatility?: Float64Array | undefined
  /** VAD-CFR: one entry, the EWMA of the instantaneous regret magnitude, shared by all info states (else absent). */
  readonly ewma?: Float64Array | undefined
}

/**
 * What every regret-minimizing solver on a compiled tree offers (`CfrSolver`, `Mccfr.MccfrSolver`): advance it with
 * {@link RegretSolver.step} / {@link RegretSolver.run}, read its average policy, checkpoint its `state`.
 */
export interface RegretSolver<S extends CfrState = CfrState> {
  readonly tree: GameTree
  /** The state, updated in place by every iteration. */
  readonly state: S
  /** Run one iteration. */
  step(): void
  /** Run `n` iterations (`n` ≥ 0). */
  run(n: number): void
  /** The average policy per slot, {@link averageProbabilities} of `state.cumulativePolicy` (into `out` when given). */
  averageProbabilities(out?: Float64Array): Float64Array
  /** The average policy as a `TabularPolicy`: the solver's approximate equilibrium. */
  averagePolicy(): TabularPolicy.TabularPolicy
}

/** A CFR-family solver on one compiled tree. */
export interface CfrSolver extends RegretSolver<CfrState> {
  readonly variant: Variant
  readonly options: Required<{ [K in keyof Options]: NonNullable<Options[K]> }>
  /** The current policy σ (per slot; recomputed after every player's update). */
  readonly strategy: Float64Array
  currentPolicy(): TabularPolicy.TabularPolicy
}

/**
 * The average policy of cumulative policy sums: at every information state `I`, `C(I, a) / Σ_b C(I, b)`, uniform
 * where the sum is not positive (a state never reached with positive weight). Writes every slot of `out`
 * (length `tree.numSlots`) and returns it.
 */
export const averageProbabilities = (
  tree: GameTree,
  cumulativePolicy: Float64Array,
  out: Float64Array = new Float64Array(tree.numSlots)
): Float64Array => {
  const { infoOffset } = tree
  for (let i = 0; i < tree.numInfoStates; i++) {
    const s0 = infoOffset[i]!
    const s1 = infoOffset[i + 1]!
    let sum = 0
    for (let s = s0; s < s1; s++) sum += cumulativePolicy[s]!
    if (sum > 0) for (let s = s0; s < s1; s++) out[s] = cumulativePolicy[s]! / sum
    else for (let s = s0; s < s1; s++) out[s] = 1 / (s1 - s0)
  }
  return out
}

/**
 * The {@link RegretSolver} face of a solver whose iteration is `step` and whose state is `state` (shared by `Cfr.make`
 * and `Mccfr.make`).
 */
export const regretSolver = <S extends CfrState>(tree: GameTree, state: S, step: () => void): RegretSolver<S> => {
  const average = (out: Float64Array = new Float64Array(tree.numSlots)) => averageProbabilities(tree, state.cumulativePolicy, out)
  return {
    tree,
    state,
    step,
    run: (n) => {
      for (let k = 0; k < n; k++) step()
    },
    averageProbabilities: average,
    averagePolicy: () => TabularPolicy.fromTree(tree, average())
  }
}

/**
 * Make a CFR-family solver on a compiled tree: CFR (Zinkevich et al. 2007), CFR+ (Tammelin 2014, arXiv:1407.5042),
 * LCFR or DCFR (Brown & Sandholm 2019, arXiv:1809.04040), PCFR+, PDCFR+, CFR-BR or VAD-CFR (Li et al. 2026,
 * arXiv:2602.16928), per `options.variant` (default `"cfr"`; see the module docs for one iteration and each variant's
 * regret transform and averaging weight; VAD-CFR's constants are {@link VAD}, not options).
 *
 * **Shapes**: the solver's arrays (`state.regrets`, `state.cumulativePolicy`, `strategy`, `averageProbabilities()`)
 * have one entry per slot of `tree` (`tree.numSlots`: one per information state and legal action, in
 * `tree.infoOffset` order). `state` (to resume, e.g. from `Solver.loadState`) is used in place, not copied: its arrays
 * must have `tree.numSlots` entries. `step()` runs one iteration (allocation-free), `run(n)` runs `n`.
 *
 * **When to use**: directly for tight loops on one tree; `Solver.solve` wraps it with NashConv reports, slicing and
 * checkpoints.
 *
 * **Errors**: none checked here (options and state are trusted; `Solver.make` validates them for you).
 */
export const make = (tree: GameTree, options: Options = {}, state?: CfrState): CfrSolver => {
  const variant = options.variant ?? "cfr"
  const lin = variant === "lcfr"
  const pd = variant === "pdcfr+"
  const predictive = variant === "pcfr+" || pd
  const opts = {
    variant,
    alternatingUpdates: options.alternatingUpdates ?? true,
    alpha: options.alpha ?? (lin ? 1 : pd ? 2.3 : 1.5),
    beta: options.beta ?? (lin ? 1 : 0),
    gamma: options.gamma ?? (lin ? 1 : pd ? 5 : 2),
    averagingDelay: options.averagingDelay ?? 0,
    linearAveraging: options.linearAveraging ?? false,
    regretMatchingPlus: options.regretMatchingPlus ?? false
  }
  const br = variant === "cfr-br"
  const given: CfrState = state ?? {
    iteration: 0,
    regrets: new Float64Array(tree.numSlots),
    cumulativePolicy: new Float64Array(tree.numSlots)
  }
  const vad = variant === "vad-cfr"
  if ((predictive || vad) && given.predictions === undefined) Object.assign(given, { predictions: new Float64Array(tree.numSlots) })
  if (vad && given.volatility === undefined) Object.assign(given, { volatility: new Float64Array(tree.numInfoStates) })
  if (vad && given.ewma === undefined) Object.assign(given, { ewma: new Float64Array(1) })
  const st: CfrState = given
  const { nodeKind, nodePlayer, nodeInfo, edgeStart, edgeChild, edgeProb, infoOffset, utilities } = tree
  const np = tree.numPlayers
  const regrets = st.regrets
  const cum = st.cumulativePolicy
  const strategy = new Float64Array(tree.numSlots)
  const childValue = new Float64Array(edgeChild.length)
  const reachBuf = new Float64Array((tree.maxDepth + 2) * np)
  const valueBuf = new Float64Array(tree.numNodes * np)
  const discounted = variant === "lcfr" || variant === "dcfr" || predictive
  const plus = variant === "cfr+"

  // The walks add counterfactual regrets into `acc`: the cumulative regrets, or (predictive variants) this walk's
  // instantaneous regrets, which then become the prediction.
  const predictions = st.predictions ?? new Float64Array(0)
  const acc = predictive || vad ? predictions : regrets
  // VAD-CFR: per info state, the volatility of its last update, this walk's reach `Σ_{h∈I} πₚ(h)`, and the EWMA.
  const volatility = st.volatility ?? new Float64Array(0)
  const ewma = st.ewma ?? new Float64Array(1)
  const reachSum = vad ? new Float64Array(tree.numInfoStates) : new Float64Array(0)
  // The policy the walks read at the other players' nodes: σ, or (CFR-BR) their best responses to σ.
  const brPolicy = br ? new Float64Array(tree.numSlots) : strategy
  const brWorkspace = br ? BestResponse.workspace(tree) : undefined

  // Per-iteration values read by the walks.
  let p = 0
  let weight = 1

  /** PDCFR+'s discount `d(t) = (t−1)ᵅ / ((t−1)ᵅ + 1)` (0 at t = 1); 1 for PCFR+. */
  const discountAt = (t: number) => {
    if (!pd) return 1
    const x = Math.pow(Math.max(t - 1, 0), opts.alpha)
    return x / (x + 1)
  }

  /** Zero the instantaneous regrets (and VAD-CFR's reaches) of the info states in `infos` (all when undefined). */
  const clearInstant = (infos: Int32Array | undefined) => {
    if (infos === undefined) {
      predictions.fill(0)
      reachSum.fill(0)
    } else {
      for (let j = 0; j < infos.length; j++) {
        const i = infos[j]!
        predictions.fill(0, infoOffset[i]!, infoOffset[i + 1]!)
        if (vad) reachSum[i] = 0
      }
    }
  }

  /** VAD-CFR's discounts of positive and negative cumulative regrets at 1-based iteration `t`, volatility `vol`. */
  let dPos = 1
  let dNeg = 1
  const vadDiscounts = (t: number, vol: number) => {
    const a = Math.max(VAD.alphaMin, VAD.baseAlpha - VAD.volatilitySensitivity * vol)
    const b = Math.min(a, VAD.baseBeta - VAD.volatilitySensitivity * vol)
    const xa = Math.pow(t, a)
    const xb = Math.pow(t, b)
    dPos = xa / (xa + 1)
    dNeg = xb / (xb + 1)
  }

  /**
   * VAD-CFR's current policy of info state `i` after its update at 1-based iteration `t` (`PolicyFromRegretAccumulator`
   * of Listing 5): σ ∝ `max(R·d + o·r̃, 0)^1.5` (uniform when all are 0).
   */
  const vadPolicy = (i: number, t: number, discountsReady: boolean) => {
    const vol = volatility[i]!
    if (!discountsReady) vadDiscounts(t, vol)
    const optimism = VAD.initialOptimism / (1 + (t - 1) / VAD.optimismDecay) * Math.max(0, 1 - VAD.volatilitySensitivity * vol)
    const s0 = infoOffset[i]!
    const s1 = infoOffset[i + 1]!
    let sum = 0
    for (let s = s0; s < s1; s++) {
      const r = predictions[s]!
      const boosted = r > 0 ? r * VAD.boost : r
      const R = regrets[s]!
      const projected = (R >= 0 ? dPos : dNeg) * R + optimism * boosted
      const w = Math.pow(Math.max(0, projected), VAD.policyExponent)
      strategy[s] = w
      sum += w
    }
    if (sum > 0) for (let s = s0; s < s1; s++) strategy[s] = strategy[s]! / sum
    else for (let s = s0; s < s1; s++) strategy[s] = 1 / (s1 - s0)
  }

  /**
   * VAD-CFR's update of the info states in `infos` (all when undefined), in that order, after iteration `t`'s walk:
   * for each, the EWMA and volatility, the average-policy accumulation (from iteration 501 on), the regret update
   * and the new current policy (Listing 5's three classes, one call each per info state).
   */
  const vadUpdate = (infos: Int32Array | undefined, t: number) => {
    const count = infos === undefined ? tree.numInfoStates : infos.length
    for (let j = 0; j < count; j++) {
      const i = infos === undefined ? j : infos[j]!
      const s0 = infoOffset[i]!
      const s1 = infoOffset[i + 1]!
      let mag = 0
      for (let s = s0; s < s1; s++) {
        const a = Math.abs(predictions[s]!)
        if (a > mag) mag = a
      }
      const e = t === 1 ? mag : VAD.ewmaDecay * mag + (1 - VAD.ewmaDecay) * ewma[0]!
      ewma[0] = e
      const vol = Math.min(1, e / VAD.maxExpectedRegret)
      volatility[i] = vol
      // PolicyAccumulator: hard warm start, then time × stability × magnitude weights of the policy played (σᵗ)
      if (t > VAD.warmupIterations) {
        const instVol = Math.min(1, mag / VAD.maxExpectedRegret)
        const g = Math.min(VAD.gammaMax, VAD.baseGamma + VAD.gammaVolatilitySensitivity * instVol)
        const temporal = Math.pow(t, g)
        const stability = 1 / (1 + Math.pow(mag, VAD.stabilityExponent))
        const magnitude = Math.max(0.1, Math.pow(1 + mag / VAD.maxExpectedRegret, VAD.magnitudeExponent))
        const w = temporal * stability * magnitude
        const reach = reachSum[i]!
        for (let s = s0; s < s1; s++) cum[s] += w * reach * strategy[s]!
      }
      // RegretAccumulator: sign-dependent adaptive discount, boosted positive instantaneous regrets, floor −20
      vadDiscounts(t, vol)
      for (let s = s0; s < s1; s++) {
        const r = predictions[s]!
        const boosted = r > 0 ? r * VAD.boost : r
        const R = regrets[s]!
        const next = (R >= 0 ? dPos : dNeg) * R + boosted
        regrets[s] = next > VAD.negativeRegretCap ? next : VAD.negativeRegretCap
      }
      vadPolicy(i, t, true)
    }
  }

  /**
   * Predictive regret matching+ of the info states in `infos` (all when undefined) after iteration `t`'s walk:
   * `R ← [R · d(t) + r]⁺` when `update`, then σ ∝ `[R · d(t+1) + r]⁺` (uniform when all are 0).
   */
  const predictiveMatching = (infos: Int32Array | undefined, t: number, update: boolean) => {
    const dNow = discountAt(t)
    const dNext = discountAt(t + 1)
    const count = infos === undefined ? tree.numInfoStates : infos.length
    for (let j = 0; j < count; j++) {
      const i = infos === undefined ? j : infos[j]!
      const s0 = infoOffset[i]!
      const s1 = infoOffset[i + 1]!
      let sum = 0
      for (let s = s0; s < s1; s++) {
        if (update) {
          const r = regrets[s]! * dNow + predictions[s]!
          regrets[s] = r > 0 ? r : 0
        }
        const q = regrets[s]! * dNext + predictions[s]!
        const pos = q > 0 ? q : 0
        strategy[s] = pos
        sum += pos
      }
      if (sum > 0) for (let s = s0; s < s1; s++) strategy[s] = strategy[s]! / sum
      else for (let s = s0; s < s1; s++) strategy[s] = 1 / (s1 - s0)
    }
  }

  /** Regret matching of the info states in `infos` (all when undefined). */
  const regretMatching = (infos: Int32Array | undefined) => {
    const count = infos === undefined ? tree.numInfoStates : infos.length
    for (let j = 0; j < count; j++) {
      const i = infos === undefined ? j : infos[j]!
      const s0 = infoOffset[i]!
      const s1 = infoOffset[i + 1]!
      let sumPos = 0
      for (let s = s0; s < s1; s++) {
        const r = regrets[s]!
        if (r > 0) sumPos += r
      }
      if (sumPos > 0) {
        for (let s = s0; s < s1; s++) {
          const r = regrets[s]!
          strategy[s] = (r > 0 ? r : 0) / sumPos
        }
      } else {
        const u = 1 / (s1 - s0)
        for (let s = s0; s < s1; s++) strategy[s] = u
      }
    }
  }

  /** Accumulate the average policy at a slot (operation order as OpenSpiel's per variant). */
  const addAverage = (s: number, reach: number, prob: number) => {
    if (plus || br) cum[s] += weight * reach * prob
    else if (discounted) cum[s] += reach * prob * weight
    else cum[s] += reach * prob
  }

  /** Alternating-update walk for player `p`; returns `p`'s value. */
  const walk = (n: number, reachP: number, reachOpp: number, reachChance: number): number => {
    const k = nodeKind[n]!
    if (k === TERMINAL_NODE) return utilities[n * np + p]!
    const e0 = edgeStart[n]!
    const e1 = edgeStart[n + 1]!
    let v = 0
    if (k === CHANCE_NODE) {
      for (let e = e0; e < e1; e++) {
        const pr = edgeProb[e]!
        v += pr * walk(edgeChild[e]!, reachP, reachOpp, reachChance * pr)
      }
      return v
    }
    if (reachP === 0 && reachOpp === 0) return 0
    const off = infoOffset[nodeInfo[n]!]! - e0
    if (nodePlayer[n] !== p) {
      for (let e = e0; e < e1; e++) {
        const s = brPolicy[off + e]!
        v += s * walk(edgeChild[e]!, reachP, reachOpp * s, reachChance)
      }
      return v
    }
    for (let e = e0; e < e1; e++) {
      const s = strategy[off + e]!
      const cv = walk(edgeChild[e]!, reachP * s, reachOpp, reachChance)
      childValue[e] = cv
      v += s * cv
    }
    const cf = reachOpp * reachChance
    if (vad) {
      for (let e = e0; e < e1; e++) acc[off + e] += cf * (childValue[e]! - v)
      reachSum[nodeInfo[n]!] += reachP
      return v
    }
    for (let e = e0; e < e1; e++) {
      acc[off + e] += cf * (childValue[e]! - v)
      addAverage(off + e, reachP, strategy[off + e]!)
    }
    return v
  }

  /** Simultaneous-update walk: values of all players into `valueBuf[n * np ..]`, reaches at `reachBuf[d * np ..]`. */
  const walkAll = (n: number, d: number, reachChance: number): void => {
    const k = nodeKind[n]!
    const base = n * np
    if (k === TERMINAL_NODE) {
      for (let i = 0; i < np; i++) valueBuf[base + i] = utilities[base + i]!
      return
    }
    for (let i = 0; i < np; i++) valueBuf[base + i] = 0
    const e0 = edgeStart[n]!
    const e1 = edgeStart[n + 1]!
    const r0 = d * np
    const r1 = r0 + np
    if (k === CHANCE_NODE) {
      for (let e = e0; e < e1; e++) {
        const pr = edgeProb[e]!
        const c = edgeChild[e]!
        for (let i = 0; i < np; i++) reachBuf[r1 + i] = reachBuf[r0 + i]!
        walkAll(c, d + 1, reachChance * pr)
        for (let i = 0; i < np; i++) valueBuf[base + i] += pr * valueBuf[c * np + i]!
      }
      return
    }
    let anyReach = false
    for (let i = 0; i < np; i++) if (reachBuf[r0 + i] !== 0) anyReach = true
    if (!anyReach) return
    const q = nodePlayer[n]!
    const off = infoOffset[nodeInfo[n]!]! - e0
    for (let e = e0; e < e1; e++) {
      const s = strategy[off + e]!
      const c = edgeChild[e]!
      for (let i = 0; i < np; i++) reachBuf[r1 + i] = reachBuf[r0 + i]!
      reachBuf[r1 + q] *= s
      walkAll(c, d + 1, reachChance)
      for (let i = 0; i < np; i++) valueBuf[base + i] += s * valueBuf[c * np + i]!
    }
    let cf = 1
    for (let i = 0; i < np; i++) if (i !== q) cf *= reachBuf[r0 + i]!
    cf *= reachChance
    const vq = valueBuf[base + q]!
    const reachQ = reachBuf[r0 + q]!
    for (let e = e0; e < e1; e++) {
      acc[off + e] += cf * (valueBuf[edgeChild[e]! * np + q]! - vq)
      if (!vad) addAverage(off + e, reachQ, strategy[off + e]!)
    }
    if (vad) reachSum[nodeInfo[n]!] += reachQ
  }

  /** Regret transform of the info states in `infos` (all when undefined) after a walk. */
  const transform = (infos: Int32Array | undefined, t: number) => {
    if (plus) {
      // OpenSpiel's `_apply_regret_matching_plus_reset` floors every info state's regrets.
      for (let s = 0; s < tree.numSlots; s++) if (regrets[s]! < 0) regrets[s] = 0
      return
    }
    if (!discounted) return
    const ta = Math.pow(t, opts.alpha)
    const tb = Math.pow(t, opts.beta)
    const fa = ta / (ta + 1)
    const fb = tb / (tb + 1)
    const count = infos === undefined ? tree.numInfoStates : infos.length
    for (let j = 0; j < count; j++) {
      const i = infos === undefined ? j : infos[j]!
      for (let s = infoOffset[i]!; s < infoOffset[i + 1]!; s++) regrets[s] *= regrets[s]! >= 0 ? fa : fb
    }
  }

  const step = () => {
    st.iteration += 1
    const t = st.iteration
    weight = plus ? Math.max(t - opts.averagingDelay, 0) : discounted ? Math.pow(t, opts.gamma) : br && opts.linearAveraging ? t : 1
    if (br) {
      // every player's best response to σᵗ, then one walk per player against the others' best responses
      for (let q = 0; q < np; q++) {
        BestResponse.valueOnTree(tree, strategy, q, brWorkspace, true)
        BestResponse.policyOnTree(tree, q, brWorkspace!, brPolicy)
      }
      for (p = 0; p < np; p++) {
        walk(0, 1, 1, 1)
        if (opts.regretMatchingPlus) for (let s = 0; s < tree.numSlots; s++) if (regrets[s]! < 0) regrets[s] = 0
      }
      regretMatching(undefined)
    } else if (opts.alternatingUpdates) {
      for (p = 0; p < np; p++) {
        const mine = tree.playerInfoStates[p]!
        if (predictive || vad) clearInstant(mine)
        walk(0, 1, 1, 1)
        if (predictive) predictiveMatching(mine, t, true)
        else if (vad) vadUpdate(mine, t)
        else {
          transform(mine, t)
          regretMatching(mine)
        }
      }
    } else {
      for (let i = 0; i < np; i++) reachBuf[i] = 1
      if (predictive || vad) clearInstant(undefined)
      walkAll(0, 0, 1)
      if (predictive) predictiveMatching(undefined, t, true)
      else if (vad) vadUpdate(undefined, t)
      else {
        transform(undefined, t)
        regretMatching(undefined)
      }
    }
  }

  // σ of the state given: regret matching of its regrets (with its prediction, for the predictive variants)
  if (predictive) predictiveMatching(undefined, st.iteration, false)
  else if (vad) for (let i = 0; i < tree.numInfoStates; i++) vadPolicy(i, Math.max(st.iteration, 1), false)
  else regretMatching(undefined)
  return {
    ...regretSolver(tree, st, step),
    variant,
    options: opts,
    strategy,
    currentPolicy: () => TabularPolicy.fromTree(tree, strategy)
  }
}
