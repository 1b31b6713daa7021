/**
 * Monte Carlo CFR on a compiled game tree: external sampling and outcome sampling, seeded and reproducible.
 *
 * **When to use**: when a full CFR iteration is too expensive (large chance branching); each MCCFR iteration walks
 * one sampled part of the tree. Needs more iterations than CFR for the same NashConv, each far cheaper.
 *
 * **Details** (OpenSpiel's `external_sampling_mccfr.py` and `outcome_sampling_mccfr.py`)
 * - Regrets and average-policy sums of every information state start at `1e-6` (OpenSpiel's initialization);
 *   σ is regret matching of the regrets, recomputed where a state is visited.
 * - One iteration runs one walk per player `p` (the "update player").
 * - **External sampling** (`"es"`): chance and the other players' actions are sampled (the others from σ); every
 *   action of `p` is explored, and `R(I, a) += v(I·a) − v(I)` at `p`'s states. Average policy: "simple" averaging
 *   (OpenSpiel's default): at the states of player `(p + 1) mod n`, `C(I, a) += σ(I, a)`.
 * - **Outcome sampling** (`"os"`): one terminal history is sampled; at `p`'s states the sampling policy is
 *   `ε · uniform + (1 − ε) · σ` (ε = 0.6), elsewhere σ. With sampled action `a*`, sample reach `q`, opponents'
 *   reach `π₋ₚ` and own reach `πₚ`, the child-value estimates are `û(a*) = u / σ_s(a*)` and 0 elsewhere (no baseline),
 *   `R(I, a) += (û(a) − Σ_b σ(b) û(b)) · π₋ₚ / q` and `C(I, a) += πₚ σ(I, a) / q`.
 * - Random draws come from one `Rng` (`@autodidact/core`, PCG64): a seed reproduces the run bit for bit, and the
 *   generator state is part of the solver state (checkpoints resume exactly). A draw picks the first outcome whose
 *   cumulative probability exceeds `rng.random()`.
 *
 * **Gotchas**: "simple" averaging is exact only for 2 players; with more it is OpenSpiel's approximation.
 *
 * @see Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo Sampling for Regret Minimization in Extensive Games",
 *   NIPS 2009
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/external_sampling_mccfr.py
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/outcome_sampling_mccfr.py
 * @category solvers
 * @since 0.1.0
 */
import { Rng } from "@autodidact/core"
import * as Cfr from "./Cfr.js"
import { CHANCE_NODE, type GameTree, TERMINAL_NODE } from "../tree/GameTree.js"

/** External (`"es"`) or outcome (`"os"`) sampling. */
export type Sampling = "es" | "os"

/** Options of {@link make}. */
export interface Options {
  /** Default `"es"`. */
  readonly sampling?: Sampling | undefined
  /** Seed of the generator (default 0). */
  readonly seed?: number | undefined
  /** Outcome sampling's exploration ε at the update player's states (default 0.6, as OpenSpiel). */
  readonly explorationEpsilon?: number | undefined
}

/** The solver's mutable state (a checkpoint holds all of it): `Cfr.CfrState` plus the generator. */
export interface MccfrState extends Cfr.CfrState {
  /** The generator of every sampled draw; its state is part of a checkpoint. */
  rng: Rng
}

/** An MCCFR solver on one compiled tree (the `Cfr.RegretSolver` face plus its sampling settings). */
export interface MccfrSolver extends Cfr.RegretSolver<MccfrState> {
  readonly sampling: Sampling
  readonly explorationEpsilon: number
}

/** OpenSpiel's initial regret and average-policy value. */
export const INITIAL_VALUE = 1e-6

/** A fresh state: all regrets and sums at {@link INITIAL_VALUE}, generator seeded with `seed`. */
export const initialState = (tree: GameTree, seed: number): MccfrState => ({
  iteration: 0,
  regrets: new Float64Array(tree.numSlots).fill(INITIAL_VALUE),
  cumulativePolicy: new Float64Array(tree.numSlots).fill(INITIAL_VALUE),
  rng: Rng.make(seed)
})

/**
 * Make a Monte Carlo CFR solver on a compiled tree (Lanctot, Waugh, Zinkevich, Bowling, "Monte Carlo Sampling for
 * Regret Minimization in Extensive Games", NIPS 2009): external sampling (`"es"`, default) or outcome sampling
 * (`"os"`, exploration `explorationEpsilon`, default 0.6), seeded with `seed` (default 0) through one `Rng` (PCG64).
 *
 * **Shapes**: `state.regrets` and `state.cumulativePolicy` have one entry per slot of `tree` (`tree.numSlots`);
 * `state.rng` is the generator. A fresh state is {@link initialState} (every entry {@link INITIAL_VALUE}, OpenSpiel's
 * initialization); a given `state` (to resume) is used in place, not copied. `step()` runs one iteration (one sampled
 * walk per player); the same seed and state reproduce a run bit for bit.
 *
 * **Errors**: none checked here (`Solver.make` validates options and resumed states).
 */
export const make = (tree: GameTree, options: Options = {}, state?: MccfrState): MccfrSolver => {
  const sampling = options.sampling ?? "es"
  const eps = options.explorationEpsilon ?? 0.6
  const st = state ?? initialState(tree, options.seed ?? 0)
  const { nodeKind, nodePlayer, nodeInfo, edgeStart, edgeChild, edgeProb, infoOffset, utilities } = tree
  const np = tree.numPlayers
  const A = Math.max(1, tree.maxActions)
  const regrets = st.regrets
  const cum = st.cumulativePolicy
  const pol = new Float64Array((tree.maxDepth + 1) * A)
  const spol = new Float64Array((tree.maxDepth + 1) * A)
  const childValue = new Float64Array((tree.maxDepth + 1) * A)
  let p = 0

  /** σ of info state `i` into `pol[base ..]`. */
  const regretMatching = (i: number, base: number) => {
    const s0 = infoOffset[i]!
    const n = infoOffset[i + 1]! - s0
    let sumPos = 0
    for (let k = 0; k < n; k++) {
      const r = regrets[s0 + k]!
      if (r > 0) sumPos += r
    }
    for (let k = 0; k < n; k++) {
      const r = regrets[s0 + k]!
      pol[base + k] = sumPos > 0 ? (r > 0 ? r : 0) / sumPos : 1 / n
    }
  }

  /** Index in `[0, n)` drawn from `probs[base .. base + n - 1]`. */
  const sample = (probs: Float64Array, base: number, n: number): number => {
    const u = st.rng.random()
    let c = 0
    for (let k = 0; k < n - 1; k++) {
      c += probs[base + k]!
      if (u < c) return k
    }
    return n - 1
  }

  const sampleChance = (e0: number, e1: number): number => {
    const u = st.rng.random()
    let c = 0
    for (let e = e0; e < e1 - 1; e++) {
      c += edgeProb[e]!
      if (u < c) return e
    }
    return e1 - 1
  }

  const external = (n: number, d: number): number => {
    const k = nodeKind[n]!
    if (k === TERMINAL_NODE) return utilities[n * np + p]!
    const e0 = edgeStart[n]!
    const e1 = edgeStart[n + 1]!
    if (k === CHANCE_NODE) return external(edgeChild[sampleChance(e0, e1)]!, d + 1)
    const q = nodePlayer[n]!
    const i = nodeInfo[n]!
    const s0 = infoOffset[i]!
    const na = e1 - e0
    const base = d * A
    regretMatching(i, base)
    let v = 0
    if (q !== p) {
      v = external(edgeChild[e0 + sample(pol, base, na)]!, d + 1)
    } else {
      for (let a = 0; a < na; a++) {
        const cv = external(edgeChild[e0 + a]!, d + 1)
        childValue[base + a] = cv
        v += pol[base + a]! * cv
      }
      for (let a = 0; a < na; a++) regrets[s0 + a] += childValue[base + a]! - v
    }
    if (q === (p + 1) % np) for (let a = 0; a < na; a++) cum[s0 + a] += pol[base + a]!
    return v
  }

  const outcome = (n: number, d: number, myReach: number, oppReach: number, sampleReach: number): number => {
    const k = nodeKind[n]!
    if (k === TERMINAL_NODE) return utilities[n * np + p]!
    const e0 = edgeStart[n]!
    const e1 = edgeStart[n + 1]!
    if (k === CHANCE_NODE) {
      const e = sampleChance(e0, e1)
      const pr = edgeProb[e]!
      return outcome(edgeChild[e]!, d + 1, myReach, pr * oppReach, pr * sampleReach)
    }
    const q = nodePlayer[n]!
    const i = nodeInfo[n]!
    const s0 = infoOffset[i]!
    const na = e1 - e0
    const base = d * A
    regretMatching(i, base)
    if (q === p) {
      for (let a = 0; a < na; a++) spol[base + a] = eps * (1 / na) + (1 - eps) * pol[base + a]!
    } else {
      for (let a = 0; a < na; a++) spol[base + a] = pol[base + a]!
    }
    const sa = sample(spol, base, na)
    const psa = pol[base + sa]!
    const childV = outcome(
      edgeChild[e0 + sa]!,
      d + 1,
      q === p ? myReach * psa : myReach,
      q === p ? oppReach : oppReach * psa,
      sampleReach * spol[base + sa]!
    )
    for (let a = 0; a < na; a++) childValue[base + a] = a === sa ? childV / spol[base + a]! : 0
    let v = 0
    for (let a = 0; a < na; a++) v += pol[base + a]! * childValue[base + a]!
    if (q === p) {
      const cfValue = v * oppReach / sampleReach
      for (let a = 0; a < na; a++) regrets[s0 + a] += childValue[base + a]! * oppReach / sampleReach - cfValue
      for (let a = 0; a < na; a++) cum[s0 + a] += myReach * pol[base + a]! / sampleReach
    }
    return v
  }

  const step = () => {
    st.iteration += 1
    for (p = 0; p < np; p++) {
      if (sampling === "es") external(0, 0)
      else outcome(0, 0, 1, 1, 1)
    }
  }

  return { ...Cfr.regretSolver(tree, st, step), sampling, explorationEpsilon: eps }
}
