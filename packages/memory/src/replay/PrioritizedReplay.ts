/**
 * Proportional prioritized experience replay: transitions are sampled with probability proportional to their
 * priority, and the bias this introduces is corrected by importance-sampling weights.
 *
 * Schaul, Quan, Antonoglou, Silver, "Prioritized Experience Replay", ICLR 2016, arXiv:1511.05952 (Algorithm 1,
 * proportional variant, sections 3.3-3.4 and Appendix B.2.1); the data layout follows OpenAI baselines'
 * `PrioritizedReplayBuffer`.
 *
 * **Details**
 * - Priorities: `p_i = (|delta_i| + eps)^alpha` (`alpha` 0.6, `eps` 1e-6 by default); `P(i) = p_i / sum_k p_k`.
 *   New transitions get the largest priority seen so far (`maxPriority^alpha`, initially 1) so each is replayed
 *   at least once soon.
 * - Sampling is stratified: the total mass is split into `batchSize` equal segments and one `u` is drawn
 *   uniformly in each; `SumTree.sampleBatch` (from `@autodidact/kernels/trees`, the one sum tree) maps them to
 *   rows (O(log n) per sample, 16 targets descending the tree together so their cache misses overlap). The
 *   uniforms come from a xoshiro128** stream seeded per batch by the given core `Rng` (see `ReplayRandom`).
 * - Importance weights `w_i = (N * P(i))^-beta / max_j w_j` with `N = size` and `max_j w_j = (N * P_min)^-beta`
 *   from a `MinTree` over all stored priorities (the baselines normalization, so weights are <= 1). They are
 *   computed as `(p_min / p_i)^beta`, which is the same quantity with one power, evaluated as
 *   `exp(beta · ln(p_min / p_i))` (within a few float64 ulps of `Math.pow`; the weights are float32).
 * - `updatePriorities` / `setPriorities` write the whole batch into both trees in one upward pass
 *   (`SumTree.updateBatchWithMin`: level by level below, the top ~batch nodes densely); `p^alpha` is `exp(alpha · ln p)` too (exactly `p` for `alpha` 1).
 * - `beta` is annealed linearly from `beta0` (0.4) to 1 over `betaSteps` transitions added (env steps), as in
 *   the paper; pass `beta` to `sample` to override.
 * - Storage, shapes, dtypes and terminated/truncated semantics are those of {@link ReplayBuffer} (`storage`).
 * - No allocation and no `Effect` in `add`, `sample` or `updatePriorities` (scratch grows to the largest batch once).
 * - `sample` sends the sampled rows' loads (`ReplayBuffer.touch`: the rows are interleaved, one contiguous read each)
 *   before computing the weights, so the weights' arithmetic overlaps the rows' cache misses, then copies the rows.
 * - Cost at 1M rows, batch 256 (2-core AMD EPYC VM; CPU profile of `sample`): tree descent ~50%, the rows' cache
 *   misses ~25%, stratified uniforms, weights and the copy the rest (about 19 + 10 + 10 µs on a lightly loaded
 *   machine); `updatePriorities`: the two trees' upward pass ~70% (mostly the cache misses of its bottom levels), the
 *   leaf writes ~7%, `p^alpha` ~15% (side by side in one process, loaded machine: pass ~20 µs, leaves ~1.8 µs, p^alpha
 *   ~3.8 µs of ~26 µs). `autodidact bench replay` prints the figures beside a NumPy sampler's.
 *
 * **Gotchas**
 * - `updatePriorities` takes TD errors (any sign; the absolute value is used) and rejects NaN/±Infinity and
 *   indices outside `[0, size)`; `setPriorities` takes raw priorities and also rejects negative ones and zero.
 *   Both validate the whole batch first and change nothing when they throw.
 * - Indices from a sample may have been overwritten by newer transitions before the update (as in baselines):
 *   the update then applies to the new occupant of the row.
 *
 * @example
 * ```ts
 * const per = PrioritizedReplay.unsafeMake({ capacity: 1_000_000, obsDim: 4, alpha: 0.6, beta0: 0.4, seed: 1 })
 * per.addBatch(obs, actions, rewards, nextObs, terminations, truncations)
 * const batch = per.sample(256)                  // batch.indices, batch.weights
 * per.updatePriorities(batch.indices, tdErrors)  // tdErrors: Float32Array(256)
 * ```
 * @see https://arxiv.org/abs/1511.05952
 * @see https://github.com/openai/baselines/blob/master/baselines/deepq/replay_buffer.py
 * @category models
 * @since 0.1.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { MinTree, SumTree } from "@autodidact/kernels/trees"
import { Effect } from "effect"
import type { Batch, TransitionSink } from "./ReplayBuffer.js"
import * as ReplayBufferModule from "./ReplayBuffer.js"
import * as Columns from "./ReplayColumns.js"
import { construct, InvalidPriorityError } from "./ReplayErrors.js"
import type { Contents, Decoded } from "./ReplayFormat.js"

/**
 * `x^a` for `x > 0` as `exp(a · ln x)`: within a few ulps of `Math.pow` at under half its cost (V8); exact for `a` 1
 * (priorities are then the raw values) and 0.
 */
const powAlpha = (x: number, a: number): number => (a === 1 ? x : Math.exp(a * Math.log(x)))

/** Options of a {@link PrioritizedReplay}: those of a uniform buffer plus the PER hyper-parameters. */
export interface Options extends ReplayBufferModule.Options {
  /** Priority exponent, >= 0 (0: uniform); paper default 0.6 (proportional variant). */
  readonly alpha?: number
  /** Initial importance-sampling exponent, in [0, 1]; paper default 0.4. */
  readonly beta0?: number
  /** Transitions added over which beta goes linearly from `beta0` to 1 (default 1_000_000), >= 1. */
  readonly betaSteps?: number
  /** Added to |delta| so no priority is 0 (default 1e-6), > 0. */
  readonly eps?: number
  /** Capacity must be <= 2^30 here (segment-tree size). */
  readonly capacity: number
}

/**
 * A proportional prioritized replay buffer (see the module docs).
 * @category models
 */
export class PrioritizedReplay implements TransitionSink {
  readonly storage: ReplayBufferModule.ReplayBuffer
  /** Priorities `p_i^alpha` per row (kernels' sum tree; rows past `size` are 0). */
  readonly sums: SumTree.SumTree
  /** The same priorities in a min tree (rows past `size` are `+Infinity`). */
  readonly mins: MinTree.MinTree
  readonly alpha: number
  readonly beta0: number
  readonly betaSteps: number
  readonly eps: number
  /** Largest raw priority `|delta| + eps` seen (before `alpha`); new transitions get `maxPriority^alpha`. */
  maxPriority = 1
  private maxPriorityAlpha = 1
  /**
   * Scratch of `sample` (grown to the largest batch, never shrunk): the stratified targets go in, the tree descent
   * overwrites them with the sampled priorities.
   */
  private targets = new Float64Array(0)
  /** The `out` of the descent (the batch's `indices` and `targets`), reused while those arrays stay the same. */
  private descentOut: SumTree.SampleResult | undefined
  /** Scratch of `updatePriorities` / `setPriorities` (grown to the largest batch): priorities `p^alpha` and tree nodes. */
  private newPriorities = new Float64Array(0)
  private parents = new Int32Array(0)

  /**
   * @param storage an existing uniform buffer with these options to prioritize (used by `ReplayFile.load`); its rows get
   *   priority 1 until set.
   * @throws InvalidOptionError for an out-of-range option (naming it and its value).
   */
  constructor(options: Options, storage?: ReplayBufferModule.ReplayBuffer) {
    this.alpha = Columns.numberOption("alpha", options.alpha ?? 0.6, 0, 1e6)
    this.beta0 = Columns.numberOption("beta0", options.beta0 ?? 0.4, 0, 1)
    this.betaSteps = Columns.intOption("betaSteps", options.betaSteps ?? 1_000_000, 1, Number.MAX_SAFE_INTEGER)
    this.eps = Columns.numberOption("eps", options.eps ?? 1e-6, Number.MIN_VALUE, 1e6)
    Columns.intOption("capacity", options.capacity, 1, 2 ** 30)
    this.storage = storage ?? new ReplayBufferModule.ReplayBuffer(options)
    this.sums = SumTree.make(this.storage.capacity)
    this.mins = MinTree.make(this.storage.capacity)
    for (let i = 0; i < this.storage.size; i++) this.setRow(i, 1)
  }

  get capacity(): number {
    return this.storage.capacity
  }
  get size(): number {
    return this.storage.size
  }
  get rng(): Rng {
    return this.storage.rng
  }

  /** The importance-sampling exponent now: `beta0 + (1 - beta0) * min(1, added / betaSteps)`. */
  beta(): number {
    const f = Math.min(1, this.storage.added / this.betaSteps)
    return this.beta0 + (1 - this.beta0) * f
  }

  /** The priority `p_i^alpha` stored for row `index` (0 for rows never written). */
  priority(index: number): number {
    return SumTree.get(this.sums, index)
  }

  private setRow(row: number, p: number): void {
    SumTree.set(this.sums, row, p)
    MinTree.set(this.mins, row, p)
  }

  /**
   * Add one transition with the maximal priority (shapes and errors as `ReplayBuffer.add`). Returns the row.
   */
  add(
    observation: ArrayLike<number>,
    action: number | ArrayLike<number>,
    reward: number,
    nextObservation: ArrayLike<number>,
    terminated: boolean | number,
    truncated: boolean | number,
    discount: number = this.storage.gamma
  ): number {
    const row = this.storage.add(observation, action, reward, nextObservation, terminated, truncated, discount)
    this.setRow(row, this.maxPriorityAlpha)
    return row
  }

  /**
   * Add one row per sub-env, each with the maximal priority (shapes and errors as `ReplayBuffer.addBatch`).
   * Returns the first row written.
   */
  addBatch(
    observations: ArrayLike<number>,
    actions: ArrayLike<number>,
    rewards: ArrayLike<number>,
    nextObservations: ArrayLike<number>,
    terminations: ArrayLike<number | boolean>,
    truncations: ArrayLike<number | boolean>,
    discounts?: ArrayLike<number>
  ): number {
    const first = this.storage.addBatch(observations, actions, rewards, nextObservations, terminations, truncations, discounts)
    const c = this.storage.capacity
    let row = first
    for (let i = 0; i < rewards.length; i++) {
      this.setRow(row, this.maxPriorityAlpha)
      row = row + 1 === c ? 0 : row + 1
    }
    return first
  }

  /** A batch shaped for this buffer (allocate once; reuse across `sample` calls). */
  allocateBatch(batchSize: number): Batch {
    return this.storage.allocateBatch(batchSize)
  }

  /**
   * Sample `batchSize` rows with probability `P(i)` (stratified) into `out` (or a reused batch), with
   * `indices` and normalized importance `weights` (in (0, 1]). Allocates nothing once the batch exists.
   *
   * Ranges: `1 <= batchSize <= size`; `beta` in [0, 1] (default: the annealed {@link beta}).
   * @throws InsufficientDataError when `batchSize > size`; ShapeMismatchError for an `out` of another shape;
   *   InvalidOptionError for a non-integer batch size or a beta outside [0, 1].
   */
  sample(batchSize: number, rng: Rng = this.storage.rng, out?: Batch, beta: number = this.beta()): Batch {
    const st = this.storage
    st.checkSampleSize("PrioritizedReplay.sample", batchSize)
    if (!(beta >= 0 && beta <= 1)) throw new InvalidOptionError({ option: "beta", value: beta, reason: "expected a number in [0, 1]" })
    const batch = st.batchFor(batchSize, out)
    const idx = batch.indices
    const w = batch.weights
    const sums = this.sums
    const total = SumTree.total(sums)
    const segment = total / batchSize
    // rounding can put the last stratum's target at the total; keep every target in [0, total)
    const top = total * (1 - Number.EPSILON)
    const pMin = MinTree.min(this.mins)
    const last = st.size - 1
    const random = st.random
    random.reseed(rng)
    if (this.targets.length < batchSize) this.targets = new Float64Array(batchSize)
    const us = this.targets
    for (let b = 0; b < batchSize; b++) {
      const u = (b + random.random()) * segment
      us[b] = u < total ? u : top
    }
    // the targets descend 16 at a time as independent chains (their cache misses overlap); the sampled priorities
    // come back in `us`
    let res = this.descentOut
    if (res === undefined || res.indices !== idx || res.priorities !== us) res = this.descentOut = { indices: idx, priorities: us }
    SumTree.sampleBatch(sums, us, res, batchSize)
    for (let b = 0; b < batchSize; b++) {
      if (idx[b]! > last) {
        // unreachable while every stored row has positive priority; kept as a guard
        idx[b] = last
        us[b] = SumTree.get(sums, last)
      }
    }
    // the rows' cache misses go out first, and the weights are computed while they are in flight
    st.touch(batch)
    for (let b = 0; b < batchSize; b++) {
      // (pMin / p)^beta as exp(beta · ln(pMin / p)): the same value within a few ulps of float64 (the weights are
      // float32), at under half the cost of Math.pow
      w[b] = powAlpha(pMin / us[b]!, beta)
    }
    st.gather(batch, true)
    return batch
  }

  /**
   * Set the priorities of `indices` from TD errors: `p = (|tdErrors[j]| + eps)^alpha`, and raise `maxPriority`.
   *
   * Shapes: `indices` and `tdErrors` of equal length; indices in `[0, size)`; TD errors finite (any sign).
   * @throws InvalidPriorityError naming the index and value for a NaN/±Infinity TD error or an index outside
   *   `[0, size)`; ShapeMismatchError-like InvalidOptionError when the lengths differ. Nothing changes then.
   */
  updatePriorities(indices: ArrayLike<number>, tdErrors: ArrayLike<number>): void {
    this.writePriorities(indices, tdErrors, this.eps, false)
  }

  /**
   * Set raw priorities (before `alpha`; no `eps` added): `p = priorities[j]^alpha`.
   * @throws InvalidPriorityError naming the index and value for a negative, zero, NaN or infinite priority or an
   *   index outside `[0, size)`. Nothing changes then.
   */
  setPriorities(indices: ArrayLike<number>, priorities: ArrayLike<number>): void {
    this.writePriorities(indices, priorities, 0, true)
  }

  /**
   * Check the batch (as {@link checkUpdate}, entry by entry) while computing `p_j = (|values[j]| + add)^alpha` into
   * scratch (one pass; nothing is written to the trees before the whole batch is checked), then write both trees in one
   * upward pass (`SumTree.updateBatchWithMin`) and raise `maxPriority`. `x^alpha` is computed as
   * `exp(alpha · ln x)` (within a few ulps of `Math.pow`, at under half its cost). `raw`: priorities as given (no `abs`;
   * must be > 0), else TD errors.
   */
  private writePriorities(indices: ArrayLike<number>, values: ArrayLike<number>, add: number, raw: boolean): void {
    const n = indices.length
    if (values.length !== n) this.checkUpdate(indices, values, raw)
    if (this.newPriorities.length < n) {
      this.newPriorities = new Float64Array(n)
      this.parents = new Int32Array(n)
    }
    const pr = this.newPriorities
    const alpha = this.alpha
    const size = this.storage.size
    let maxP = this.maxPriority
    let ok = true
    for (let j = 0; j < n; j++) {
      const i = indices[j]!
      const v = values[j]!
      ok = ok && (i | 0) === i && i >= 0 && i < size && v - v === 0 && (!raw || v > 0)
      const x = (raw ? v : Math.abs(v)) + add
      if (x > maxP) maxP = x
      pr[j] = powAlpha(x, alpha)
    }
    // the plain comparisons above; on a failure checkUpdate names the first bad entry (and throws)
    if (!ok) this.checkUpdate(indices, values, raw)
    SumTree.updateBatchWithMin(this.sums, this.mins, indices, pr, this.parents, n)
    this.setMax(maxP)
  }

  private setMax(maxP: number): void {
    this.maxPriority = maxP
    this.maxPriorityAlpha = powAlpha(maxP, this.alpha) // as writePriorities computes x^alpha
  }

  private checkUpdate(indices: ArrayLike<number>, values: ArrayLike<number>, raw: boolean): void {
    if (indices.length !== values.length) {
      throw new InvalidOptionError({
        option: raw ? "setPriorities priorities" : "updatePriorities tdErrors",
        value: values.length,
        reason: `expected one value per index (${indices.length})`
      })
    }
    const size = this.storage.size
    for (let j = 0; j < indices.length; j++) {
      const i = indices[j]!
      const v = values[j]!
      if (!(i >= 0 && i < size) || !Number.isInteger(i)) {
        throw new InvalidPriorityError({ index: i, value: v, reason: `index outside [0, size ${size})` })
      }
      if (!(v - v === 0)) throw new InvalidPriorityError({ index: i, value: v, reason: raw ? "priority is not finite" : "TD error is not finite" })
      if (raw && !(v > 0)) throw new InvalidPriorityError({ index: i, value: v, reason: "priority must be > 0" })
    }
  }

  /** Forget every transition and reset `maxPriority` to 1 (keeps the memory and the generator). */
  clear(): void {
    this.storage.clear()
    SumTree.clear(this.sums)
    MinTree.clear(this.mins)
    this.setMax(1)
  }

  /** The file kind `ReplayFile.load` checks (`"prioritized"`). */
  static readonly kind: string = "prioritized"

  /**
   * The file contents (for `ReplayFile.save`): the storage, the stored priorities (`p^alpha`, float64),
   * `maxPriority`, the beta schedule and the generator. The columns are views, not copies.
   */
  contents(): Contents {
    const c = this.storage.contents(PrioritizedReplay.kind)
    const priorities = this.sums.nodes.subarray(this.sums.capacity, this.sums.capacity + this.storage.size)
    return {
      ...c,
      options: { ...c.options, alpha: this.alpha, beta0: this.beta0, betaSteps: this.betaSteps, eps: this.eps },
      counters: { ...c.counters, maxPriority: this.maxPriority },
      columns: [...c.columns, ["priorities", priorities]]
    }
  }

  /** Restore from a decoded file (used by `ReplayFile.load`). */
  static restore(d: Decoded): PrioritizedReplay {
    const storage = ReplayBufferModule.ReplayBuffer.restore(d)
    const o = d.header.options
    let per: PrioritizedReplay
    try {
      per = new PrioritizedReplay({
        ...storage.options,
        alpha: o["alpha"] as number,
        beta0: o["beta0"] as number,
        betaSteps: o["betaSteps"] as number,
        eps: o["eps"] as number
      }, storage)
    } catch (e) {
      return d.corrupt(`invalid options: ${(e as Error).message}`)
    }
    const priorities = d.column("priorities", "float64", storage.size)
    for (let i = 0; i < priorities.length; i++) {
      const p = priorities[i]!
      if (!(p > 0) || p === Infinity) d.corrupt(`priority ${p} at row ${i} is not finite and > 0`)
    }
    const maxP = d.header.counters["maxPriority"]
    if (maxP === undefined || !(maxP > 0) || maxP === Infinity) d.corrupt(`maxPriority ${maxP} is not finite and > 0`)
    for (let i = 0; i < priorities.length; i++) per.setRow(i, priorities[i]!)
    per.setMax(maxP!)
    return per
  }
}

/** The `kind` of a prioritized buffer's file. */
export const KIND = PrioritizedReplay.kind

/**
 * A proportional prioritized replay buffer (Schaul et al. 2016, arXiv:1511.05952; see {@link PrioritizedReplay}):
 * the uniform buffer's columns plus priorities in kernels' sum and min trees. Defaults: alpha 0.6, beta0 0.4,
 * betaSteps 1e6, eps 1e-6.
 * @returns fails with InvalidOptionError for an out-of-range option (capacity <= 0 or > 2^30, alpha < 0, beta0
 *   outside [0, 1], betaSteps < 1, eps <= 0, or any uniform-buffer option).
 */
export const make = (options: Options): Effect.Effect<PrioritizedReplay, InvalidOptionError> =>
  construct(PrioritizedReplay)(options)

/**
 * {@link make} for plain (non-Effect) code: the same checks, synchronously.
 * @throws InvalidOptionError (the error {@link make} fails with)
 */
export const create = (options: Options): PrioritizedReplay => new PrioritizedReplay(options)

/** @deprecated use {@link create} (same function). */
export const unsafeMake = create


