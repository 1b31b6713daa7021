/**
 * Direct Preference Optimization for the DRRN text policy ({@link DrrnPolicy}) on step-level preference pairs: in a
 * state (task, observation, admissible commands), command `chosen` is preferred to command `rejected` — e.g. sibling
 * actions of a search tree ranked by their Q-values, as Agent Q does (Putta et al., "Agent Q: Advanced Reasoning and
 * Learning for Autonomous AI Agents", arXiv:2408.07199; the pairs come from `@autodidact/search`'s
 * `Preferences.fromTree`).
 *
 * **The loss** (Rafailov et al., "Direct Preference Optimization: Your Language Model is Secretly a Reward Model",
 * arXiv:2305.18290, eq. 7), per pair, with π_ref the frozen policy at the start of {@link fit} (or the one given):
 * ```text
 * z = β · [(log π(w|s) − log π_ref(w|s)) − (log π(l|s) − log π_ref(l|s))]
 * L = −log σ(z)                      (weighted by the pair's `weight`, averaged over the minibatch)
 * ```
 * Both commands are scored by the same softmax over the state's admissible commands, so the log-partition cancels and
 * z depends on the two logits only: `z = β · [(x_w − x_l) − (x_w^ref − x_l^ref)]`, and `∂L/∂x_w = −∂L/∂x_l = β(σ(z) − 1)`;
 * the rest is DRRN's backward pass, global-norm clipping and {@link Adam} (as the multi-turn trainer).
 *
 * **With an NLL term** (`nllWeight` α > 0; RPO, Pang et al., "Iterative Reasoning Preference Optimization",
 * arXiv:2404.19733, eq. 1): each pair also adds `α · weight · (−log π(w|s))`, the chosen command's negative
 * log-likelihood under the full softmax over the admissible commands (gradient `α·(π(j|s) − 1[j = w])` on every
 * logit j): DPO alone can lower both commands' probabilities while widening their gap; the NLL keeps the chosen one
 * likely. α = 0 (the default) is plain DPO.
 *
 * **Reports**: per epoch the mean loss, the preference accuracy (share of pairs with `x_w > x_l` under the current
 * policy, before the epoch's updates) and the mean implicit reward margin `z / β`.
 *
 * **Errors**: `InvalidOptionError` for a non-positive or non-finite `beta` / `learningRate`, non-positive-integer
 * `epochs` / `batchSize`, a negative `maxGradNorm` or `nllWeight`, no pairs, a pair whose chosen or rejected command is not in its
 * admissible list or whose two commands are equal (naming the pair's index and the command), a negative or non-finite
 * weight; `NonFiniteValueError` when the loss or the gradient norm becomes NaN/∞.
 * @since 0.3.0
 */
import { InvalidOptionError, NonFiniteValueError, Rng } from "@autodidact/core"
import * as Adam from "../Adam.js"
import * as DrrnPolicy from "./DrrnPolicy.js"
import type { PolicyInput } from "./GroupRollout.js"

/** One step-level preference: in state `input`, `chosen` is preferred to `rejected` (both admissible there). */
export interface PreferencePair {
  readonly input: PolicyInput
  readonly chosen: string
  readonly rejected: string
  /** Weight of the pair in the loss (default 1), e.g. its Q-value gap. */
  readonly weight?: number | undefined
}

/** Options of {@link fit}. */
export interface Options {
  /** β > 0, the strength of the implicit KL constraint (DPO's β; default 0.1). */
  readonly beta: number
  /** Adam learning rate (default 1e-3). */
  readonly learningRate: number
  /** Passes over the pairs (default 4). */
  readonly epochs: number
  /** Pairs per Adam step (default 32). */
  readonly batchSize: number
  /** Global gradient-norm clip (default 1; 0 disables). */
  readonly maxGradNorm: number
  /** Shuffle seed (default 0). */
  readonly seed: number
  /** α ≥ 0, the weight of the chosen command's negative log-likelihood (RPO's NLL term; default 0: plain DPO). */
  readonly nllWeight: number
  /** The reference policy (default: a frozen copy of the policy at the start). */
  readonly reference?: DrrnPolicy.Drrn | undefined
}

/** Defaults of {@link Options}. */
export const defaults: Omit<Options, "reference"> = { beta: 0.1, learningRate: 1e-3, epochs: 4, batchSize: 32, maxGradNorm: 1, seed: 0, nllWeight: 0 }

/** One epoch's figures. */
export interface EpochReport {
  readonly epoch: number
  readonly loss: number
  /** Share of pairs whose chosen command scores above the rejected one (before the epoch's updates). */
  readonly accuracy: number
  /** Mean implicit reward margin `z / β` (before the epoch's updates). */
  readonly rewardMargin: number
}

/** What {@link fit} returns: the per-epoch reports and the accuracy after the last update. */
export interface Report {
  readonly epochs: ReadonlyArray<EpochReport>
  readonly finalAccuracy: number
  readonly pairs: number
}

interface Prepared {
  readonly encoded: DrrnPolicy.Encoded
  readonly w: number
  readonly l: number
  readonly weight: number
  /** x_w^ref − x_l^ref */
  readonly refGap: number
}

const bad = (option: string, value: unknown, reason: string) => new InvalidOptionError({ option, value, reason })

const logSigmoid = (z: number): number => (z >= 0 ? -Math.log1p(Math.exp(-z)) : z - Math.log1p(Math.exp(z)))
const sigmoid = (z: number): number => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)))

const gap = (p: DrrnPolicy.Drrn, pr: Prepared): number => {
  DrrnPolicy.forward(p, pr.encoded)
  const logits = DrrnPolicy.logitsOf(p)
  return logits[pr.w]! - logits[pr.l]!
}

const prepare = (policy: DrrnPolicy.Drrn, reference: DrrnPolicy.Drrn, pairs: ReadonlyArray<PreferencePair>): Array<Prepared> => {
  if (pairs.length === 0) throw bad("pairs", 0, "need at least one preference pair")
  return pairs.map((pair, i) => {
    const adm = pair.input.admissible
    const w = adm.indexOf(pair.chosen)
    const l = adm.indexOf(pair.rejected)
    if (w < 0) throw bad(`pairs[${i}].chosen`, pair.chosen, "is not one of the pair's admissible commands")
    if (l < 0) throw bad(`pairs[${i}].rejected`, pair.rejected, "is not one of the pair's admissible commands")
    if (w === l) throw bad(`pairs[${i}].rejected`, pair.rejected, "equals the chosen command")
    const weight = pair.weight ?? 1
    if (!(weight >= 0 && Number.isFinite(weight))) throw bad(`pairs[${i}].weight`, weight, "must be a non-negative finite number")
    const encoded = DrrnPolicy.encode(policy, pair.input)
    const pr: Prepared = { encoded, w, l, weight, refGap: 0 }
    return { ...pr, refGap: gap(reference, pr) }
  })
}

/** Add the gradient of the minibatch `order[start .. start + size)` into `grad` (zeroed first); returns Σ weight · loss. */
const accumulate = (
  policy: DrrnPolicy.Drrn,
  prepared: ReadonlyArray<Prepared>,
  order: ArrayLike<number>,
  start: number,
  size: number,
  beta: number,
  nllWeight: number,
  grad: Float64Array,
  dLogits: Float64Array
): number => {
  grad.fill(0)
  let lossSum = 0
  for (let b = 0; b < size; b++) {
    const pr = prepared[order[start + b]!]!
    const z = beta * (gap(policy, pr) - pr.refGap)
    lossSum -= pr.weight * logSigmoid(z)
    const d = (pr.weight * beta * (sigmoid(z) - 1)) / size
    const k = pr.encoded.actions.length
    dLogits.fill(0, 0, k)
    if (nllWeight > 0) {
      // −log softmax(x)_w and its gradient softmax(x)_j − 1[j = w], over every admissible command
      const logits = DrrnPolicy.logitsOf(policy)
      let max = -Infinity
      for (let j = 0; j < k; j++) if (logits[j]! > max) max = logits[j]!
      let sum = 0
      for (let j = 0; j < k; j++) sum += Math.exp(logits[j]! - max)
      const scale = (nllWeight * pr.weight) / size
      lossSum += nllWeight * pr.weight * (max + Math.log(sum) - logits[pr.w]!)
      for (let j = 0; j < k; j++) dLogits[j] = (scale * Math.exp(logits[j]! - max)) / sum
      dLogits[pr.w] = dLogits[pr.w]! - scale
    }
    dLogits[pr.w] = dLogits[pr.w]! + d
    dLogits[pr.l] = dLogits[pr.l]! - d
    // backward needs the forward state of this sample: `gap` just ran it
    DrrnPolicy.backward(policy, pr.encoded, dLogits, grad, true)
  }
  DrrnPolicy.flushActionGradient(policy, grad)
  return lossSum
}

const checkBeta = (beta: number) => {
  if (!(beta > 0 && Number.isFinite(beta))) throw bad("beta", beta, "must be a positive finite number")
}
const checkNll = (nllWeight: number) => {
  if (!(nllWeight >= 0 && Number.isFinite(nllWeight))) throw bad("nllWeight", nllWeight, "must be a non-negative finite number")
}

/**
 * The DPO loss of `pairs` under `policy` (mean over pairs of `weight · −log σ(z)`) and its gradient with respect to
 * `policy.params` (a new `Float64Array`), against `reference` (default: the policy itself, where every z is 0 and the
 * loss is log 2 · mean weight). For inspection and tests; {@link fit} trains.
 * @throws InvalidOptionError for bad pairs or β.
 */
export const lossAndGradient = (
  policy: DrrnPolicy.Drrn,
  pairs: ReadonlyArray<PreferencePair>,
  options: { readonly beta?: number; readonly reference?: DrrnPolicy.Drrn; readonly nllWeight?: number } = {}
): { readonly loss: number; readonly grad: Float64Array } => {
  const beta = options.beta ?? defaults.beta
  checkBeta(beta)
  const nllWeight = options.nllWeight ?? defaults.nllWeight
  checkNll(nllWeight)
  const prepared = prepare(policy, options.reference ?? policy, pairs)
  const grad = new Float64Array(policy.params.length)
  let maxActions = 0
  for (const pr of prepared) maxActions = Math.max(maxActions, pr.encoded.actions.length)
  const order = Int32Array.from({ length: prepared.length }, (_, k) => k)
  const lossSum = accumulate(policy, prepared, order, 0, prepared.length, beta, nllWeight, grad, new Float64Array(maxActions))
  return { loss: lossSum / prepared.length, grad }
}

/**
 * Train `policy` in place by DPO on `pairs` (see the module docs); returns the per-epoch figures.
 * @throws InvalidOptionError / NonFiniteValueError (see the module docs).
 */
export const fit = (policy: DrrnPolicy.Drrn, pairs: ReadonlyArray<PreferencePair>, options: Partial<Options> = {}): Report => {
  const o = { ...defaults, ...options }
  checkBeta(o.beta)
  checkNll(o.nllWeight)
  if (!(o.learningRate > 0 && Number.isFinite(o.learningRate))) throw bad("learningRate", o.learningRate, "must be a positive finite number")
  for (const key of ["epochs", "batchSize"] as const) {
    if (!(Number.isSafeInteger(o[key]) && o[key] >= 1)) throw bad(key, o[key], "must be a positive integer")
  }
  if (!(o.maxGradNorm >= 0 && Number.isFinite(o.maxGradNorm))) throw bad("maxGradNorm", o.maxGradNorm, "must be a non-negative finite number")
  const reference = o.reference ?? DrrnPolicy.clone(policy)
  DrrnPolicy.setImplementation(reference, DrrnPolicy.implementationOf(policy))
  const prepared = prepare(policy, reference, pairs)
  const adam = Adam.make(policy.params.length, { eps: 1e-8 })
  const grad = new Float64Array(policy.params.length)
  let maxActions = 0
  for (const pr of prepared) maxActions = Math.max(maxActions, pr.encoded.actions.length)
  const dLogits = new Float64Array(maxActions)
  const order = Int32Array.from({ length: prepared.length }, (_, k) => k)
  const rng = Rng.make(o.seed)
  const measure = () => {
    let correct = 0
    let margin = 0
    for (const pr of prepared) {
      const g = gap(policy, pr)
      if (g > 0) correct++
      margin += g - pr.refGap
    }
    return { accuracy: correct / prepared.length, rewardMargin: margin / prepared.length }
  }
  const epochs: Array<EpochReport> = []
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    const before = measure()
    rng.shuffle(order)
    let lossSum = 0
    for (let start = 0; start < order.length; start += o.batchSize) {
      const size = Math.min(o.batchSize, order.length - start)
      lossSum += accumulate(policy, prepared, order, start, size, o.beta, o.nllWeight, grad, dLogits)
      const norm = Adam.clipGradNorm(grad, o.maxGradNorm > 0 ? o.maxGradNorm : Infinity)
      if (!Number.isFinite(norm)) throw new NonFiniteValueError({ where: "Dpo.gradNorm", value: norm })
      Adam.step(adam, policy.params, grad, o.learningRate)
      DrrnPolicy.paramsChanged(policy)
    }
    const loss = lossSum / prepared.length
    if (!Number.isFinite(loss)) throw new NonFiniteValueError({ where: "Dpo.loss", value: loss })
    epochs.push({ epoch, loss, accuracy: before.accuracy, rewardMargin: before.rewardMargin })
  }
  return { epochs, finalAccuracy: measure().accuracy, pairs: prepared.length }
}

// ---------------------------------------------------------------------------------------------------------------
// Trajectory-level DPO (OPRL's implicit process reward model)
// ---------------------------------------------------------------------------------------------------------------

/** One decision of a trajectory: its encoding, the index of the action taken, and that action's log-probability under the reference. */
export interface TrajectoryStep {
  readonly encoded: DrrnPolicy.Encoded
  readonly action: number
  readonly refLogProb: number
}

/**
 * Trajectories of one task (a rollout group) with their returns: every ordered pair with a higher return is a
 * preference (`τ⁺ ≻ τ⁻`), as OPRL builds its pairs from outcome rewards.
 */
export interface TrajectoryGroup {
  readonly trajectories: ReadonlyArray<ReadonlyArray<TrajectoryStep>>
  readonly returns: ReadonlyArray<number>
}

/** What one {@link trajectoryStep} measured (before its update). */
export interface TrajectoryStepReport {
  /** Mean `−log σ(z)` over the pairs (NaN without pairs). */
  readonly loss: number
  /** Share of pairs whose implicit reward `Σ_t (log π − log π_ref)` ranks them as the returns do. */
  readonly accuracy: number
  readonly pairs: number
}

/**
 * The trajectory-level DPO loss of OPRL's implicit PRM (Liu et al., arXiv:2509.19199, eq. 3), averaged over every
 * pair (`τ⁺`, `τ⁻`) of each group with `R⁺ > R⁻`:
 * ```text
 * z = β · [Σ_t (log π(a_t|s_t) − log π_ref(a_t|s_t)) over τ⁺ − the same over τ⁻]      L = −log σ(z)
 * ```
 * and its gradient (written to `grad`, zeroed first). Each trajectory's sum is computed once and each of its steps is
 * back-propagated once with the summed pair weights, so a group of n trajectories costs 2n passes, not one per pair.
 * Steps with a negative `action` (not in the admissible list) are skipped. `dLogits` must hold the largest action
 * count (a `RangeError` otherwise).
 * @throws InvalidOptionError for a non-positive or non-finite β or a group whose returns do not match its trajectories.
 */
export const trajectoryLossAndGradient = (
  policy: DrrnPolicy.Drrn,
  groups: ReadonlyArray<TrajectoryGroup>,
  beta: number,
  grad: Float64Array,
  dLogits: Float64Array
): TrajectoryStepReport => {
  checkBeta(beta)
  grad.fill(0)
  const sums = groups.map((g, gi) => {
    if (g.returns.length !== g.trajectories.length) {
      throw bad(`groups[${gi}].returns`, g.returns.length, `has ${g.returns.length} returns for ${g.trajectories.length} trajectories`)
    }
    return g.trajectories.map((tr) => {
      let s = 0
      for (const st of tr) {
        if (st.action < 0) continue
        DrrnPolicy.forward(policy, st.encoded)
        s += DrrnPolicy.logProbAt(policy, st.encoded.actions.length, st.action) - st.refLogProb
      }
      return s
    })
  })
  let pairs = 0
  for (const g of groups) for (const a of g.returns) for (const b of g.returns) if (a > b) pairs++
  if (pairs === 0) return { loss: NaN, accuracy: NaN, pairs: 0 }
  let loss = 0
  let correct = 0
  for (let gi = 0; gi < groups.length; gi++) {
    const g = groups[gi]!
    const s = sums[gi]!
    // dL/d(log π(a_t)) of every step of trajectory i: Σ over its pairs of ∓β(1 − σ(z)) / pairs
    const coef = new Float64Array(g.trajectories.length)
    for (let w = 0; w < s.length; w++) {
      for (let l = 0; l < s.length; l++) {
        if (!(g.returns[w]! > g.returns[l]!)) continue
        const z = beta * (s[w]! - s[l]!)
        loss -= logSigmoid(z)
        if (z > 0) correct++
        const d = (beta * (sigmoid(z) - 1)) / pairs
        coef[w] = coef[w]! + d
        coef[l] = coef[l]! - d
      }
    }
    for (let i = 0; i < coef.length; i++) {
      const c = coef[i]!
      if (c === 0) continue
      for (const st of g.trajectories[i]!) {
        if (st.action < 0) continue
        const k = st.encoded.actions.length
        if (dLogits.length < k) throw new RangeError(`trajectoryLossAndGradient: dLogits holds ${dLogits.length} < ${k} actions`)
        DrrnPolicy.forward(policy, st.encoded)
        const p = DrrnPolicy.probsOf(policy)
        // d log π(a)/d x_j = 1[j = a] − π(j)
        for (let j = 0; j < k; j++) dLogits[j] = -c * p[j]!
        dLogits[st.action] = dLogits[st.action]! + c
        DrrnPolicy.backward(policy, st.encoded, dLogits, grad, true)
      }
    }
  }
  DrrnPolicy.flushActionGradient(policy, grad)
  return { loss: loss / pairs, accuracy: correct / pairs, pairs }
}

/**
 * One full-batch Adam step of {@link trajectoryLossAndGradient} on `policy` (in place; `adam` is the caller's
 * optimizer state, so moments carry over between rounds as in OPRL's alternating updates). Nothing changes when the
 * groups hold no pair. Returns the figures measured before the step.
 * @throws InvalidOptionError for bad options; NonFiniteValueError when the loss or the gradient norm is NaN/∞.
 */
export const trajectoryStep = (
  policy: DrrnPolicy.Drrn,
  adam: Adam.AdamState,
  groups: ReadonlyArray<TrajectoryGroup>,
  options: { readonly beta: number; readonly learningRate: number; readonly maxGradNorm?: number | undefined },
  grad: Float64Array,
  dLogits: Float64Array
): TrajectoryStepReport => {
  if (!(options.learningRate > 0 && Number.isFinite(options.learningRate))) throw bad("learningRate", options.learningRate, "must be a positive finite number")
  const r = trajectoryLossAndGradient(policy, groups, options.beta, grad, dLogits)
  if (r.pairs === 0) return r
  if (!Number.isFinite(r.loss)) throw new NonFiniteValueError({ where: "Dpo.trajectoryLoss", value: r.loss })
  const maxGradNorm = options.maxGradNorm ?? defaults.maxGradNorm
  const norm = Adam.clipGradNorm(grad, maxGradNorm > 0 ? maxGradNorm : Infinity)
  if (!Number.isFinite(norm)) throw new NonFiniteValueError({ where: "Dpo.trajectoryGradNorm", value: norm })
  Adam.step(adam, policy.params, grad, options.learningRate)
  DrrnPolicy.paramsChanged(policy)
  return r
}
