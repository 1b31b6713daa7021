/**
 * Uniform experience replay: a fixed-capacity ring of transitions in flat typed-array columns, sampled uniformly
 * with replacement from a seeded {@link Rng}.
 *
 * **When to use**: off-policy learners (DQN, SAC, TD3) that train on random minibatches of past transitions
 * (Lin, "Self-improving reactive agents based on reinforcement learning, planning and teaching", Machine Learning
 * 8, 1992; Mnih et al., "Human-level control through deep reinforcement learning", Nature 518, 2015).
 *
 * **Details**
 * - Columns, row `i` of each (capacity `C` rows): `observations` [C * obsDim] float32 (or uint8 for pixels),
 *   `actions` [C * actDim] int32 (discrete) or float32 (continuous), `rewards` [C] float32, `nextObservations`
 *   [C * obsDim], `terminated` / `truncated` [C] uint8, `discounts` [C] float32 (the bootstrap discount: `gamma`
 *   for one-step transitions, `gamma^k` for n-step ones from {@link NStep}).
 * - Storage (internal, since 0.2.0): the columns of a row are interleaved in one `ArrayBuffer`, so that a sampled
 *   row is one contiguous read (one or two cache lines and one page, instead of seven of each): per row, in 4-byte
 *   words, reward (float32), discount (float32), flags (bit 0 terminated, bit 1 truncated), `actDim` actions, then
 *   the observation and the next observation (`obsDim` float32 words each, or `obsDim` bytes each for uint8, the row
 *   padded to whole words; 48 bytes for obsDim 4 and one discrete action). `column(name)` copies one column out
 *   (`"observations"`, `"rewards"`, ...; O(capacity)); the saved file keeps the column format (version 1), so files
 *   written before and after this layout load in both.
 * - The next observation is stored explicitly, not as "the observation of the next row": with vector envs and
 *   autoreset the next row of the same env holds the *reset* observation after an episode end, while bootstrapping
 *   through a truncation needs the *final* one. This doubles observation memory; use `observationDtype: "uint8"`
 *   for pixels (4x smaller) when memory matters.
 * - Terminated vs truncated follow Stable Baselines3 / CleanRL (Gymnasium >= 0.26): the TD target is
 *   `r + discount * (1 - terminated) * V(s')`; a truncated (time-limit) transition still bootstraps from `s'`.
 * - The ring overwrites the oldest row first: row `pointer` is written next; `size` grows to `capacity`.
 * - `sample` draws `batchSize` indices uniformly in `[0, size)` with replacement (as SB3's `np.random.randint`)
 *   and copies the rows into a preallocated {@link Batch}; it allocates nothing. The draws come from a xoshiro128**
 *   stream seeded by one 64-bit draw of the given core `Rng` per batch (see `ReplayRandom`: PCG64 in JavaScript
 *   costs ~0.5 µs a draw), so batches are reproducible from the generator's seed and state.
 * - Everything here is synchronous and throws tagged errors (`create`, `add`, `sample`, ...); `make` is the Effect
 *   constructor. Saving and loading is `ReplayFile` in `@autodidact/memory/replay/node` (Node's `fs`).
 *
 * **Gotchas**
 * - A sampled batch is overwritten by the next `sample` call into the same batch: copy what must outlive it.
 * - `addBatch` takes a vector env's outputs, but the `nextObservations` of ended envs must be their *final*
 *   observations (`infos.finalObservation[i]` in `SameStep` autoreset mode), not the reset observations.
 *
 * @example
 * ```ts
 * import { Rng } from "@autodidact/core"
 * import { ReplayBuffer } from "@autodidact/memory"
 * const buffer = ReplayBuffer.unsafeMake({ capacity: 100_000, obsDim: 4, seed: 1 })
 * buffer.add([0, 0.1, 0, -0.1], 1, 1.0, [0.01, 0.2, 0, -0.3], false, false)
 * const batch = buffer.sample(1, Rng.make(0)) // batch.observations: Float32Array(4), batch.actions: Int32Array(1)
 * ```
 * @see https://github.com/DLR-RM/stable-baselines3/blob/master/stable_baselines3/common/buffers.py (ReplayBuffer)
 * @category models
 * @since 0.1.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { Effect } from "effect"
import * as Columns from "./ReplayColumns.js"
import { construct, InsufficientDataError, ShapeMismatchError } from "./ReplayErrors.js"
import type { Contents, Decoded } from "./ReplayFormat.js"
import { BatchRandom } from "./ReplayRandom.js"

/** Options of a {@link ReplayBuffer}. */
export interface Options {
  /** Maximum number of transitions (1 to 2^31 - 1); the oldest is overwritten when full. */
  readonly capacity: number
  /** Elements per observation (flat; product of the observation shape), >= 1. */
  readonly obsDim: number
  /** Elements per action, >= 1 (default 1: a discrete action). */
  readonly actDim?: number
  /** Observation dtype (default `"float32"`; `"uint8"` for pixels). */
  readonly observationDtype?: Columns.ObservationDtype
  /** Action dtype (default `"int32"`; `"float32"` for continuous actions). */
  readonly actionDtype?: Columns.ActionDtype
  /** Discount recorded for transitions added without an explicit one, in [0, 1] (default 0.99). */
  readonly gamma?: number
  /** Seed of the buffer's own generator, used by `sample` when no generator is passed (default 0). */
  readonly seed?: number
}

/** A sampled minibatch: flat typed arrays, row `b` of each belongs to sample `b`. */
export interface Batch {
  readonly batchSize: number
  /** [batchSize * obsDim] */
  readonly observations: Float32Array | Uint8Array
  /** [batchSize * actDim] */
  readonly actions: Int32Array | Float32Array
  /** [batchSize] */
  readonly rewards: Float32Array
  /** [batchSize * obsDim] */
  readonly nextObservations: Float32Array | Uint8Array
  /** [batchSize], 0/1: the episode ended in a terminal state (no bootstrap). */
  readonly terminated: Uint8Array
  /** [batchSize], 0/1: the episode was cut by a time limit (still bootstrap). */
  readonly truncated: Uint8Array
  /** [batchSize]: bootstrap discount (`gamma`, or `gamma^k` for n-step transitions). */
  readonly discounts: Float32Array
  /** [batchSize]: the buffer rows sampled (pass to `updatePriorities`). */
  readonly indices: Int32Array
  /** [batchSize]: importance-sampling weights (all 1 for uniform replay). */
  readonly weights: Float32Array
}

/**
 * Something transitions can be added to: {@link ReplayBuffer} and `PrioritizedReplay` (the sink of {@link NStep}).
 * @category models
 */
export interface TransitionSink {
  add(
    observation: ArrayLike<number>,
    action: number | ArrayLike<number>,
    reward: number,
    nextObservation: ArrayLike<number>,
    terminated: boolean | number,
    truncated: boolean | number,
    discount?: number
  ): number
}

/** Words of a row (see the module docs): reward, discount, flags, then the actions from word `ACTIONS`. */
const REWARD = 0
const DISCOUNT = 1
const FLAGS = 2
const ACTIONS = 3
const HEAD = 3
/** Bits of the flags word. */
const TERMINATED = 1
const TRUNCATED = 2

/** A flag as 0/1. */
const bit = (x: boolean | number | undefined): number => (Columns.isSet(x) ? 1 : 0)
const ADD = Columns.transitionNames("ReplayBuffer.add")
const ADD_BATCH = Columns.stepNames("ReplayBuffer.addBatch")

/** The columns {@link ReplayBuffer.column} copies out, with their array types. */
export interface ColumnTypes {
  readonly observations: Float32Array | Uint8Array
  readonly nextObservations: Float32Array | Uint8Array
  readonly actions: Int32Array | Float32Array
  readonly rewards: Float32Array
  readonly discounts: Float32Array
  readonly terminated: Uint8Array
  readonly truncated: Uint8Array
}

/** A name of {@link ColumnTypes}. */
export type ColumnName = keyof ColumnTypes

/**
 * A uniform replay buffer (see the module docs). Construct with {@link make} or {@link unsafeMake}.
 * @category models
 */
export class ReplayBuffer implements TransitionSink {
  readonly capacity: number
  readonly obsDim: number
  readonly actDim: number
  readonly observationDtype: Columns.ObservationDtype
  readonly actionDtype: Columns.ActionDtype
  readonly gamma: number
  /** The buffer's own generator (used when `sample` gets none; saved with the buffer). */
  rng: Rng
  /** The rows (see the module docs): `rowWords` 4-byte words per row, three views of one `ArrayBuffer`. */
  private readonly f32: Float32Array
  private readonly i32: Int32Array
  /** The element view observations are read and written through (`f32`, or bytes of the rows for uint8). */
  private readonly obsView: Float32Array | Uint8Array
  /** The view actions are read and written through (`i32` or `f32`). */
  private readonly actView: Int32Array | Float32Array
  /** Words per row. */
  private readonly rowWords: number
  /** Elements of `obsView` per row, and the offsets of the observation and the next observation in a row. */
  private readonly obsStride: number
  private readonly obsOffset: number
  private readonly nextOffset: number
  /** The row the next transition is written to. */
  pointer = 0
  /** Rows holding data, `0..capacity`. */
  size = 0
  /** Transitions ever added (not capped by capacity). */
  added = 0
  private cached: Batch | undefined
  /** The sum of `gather`'s first pass (kept so that the reads are not optimised away; meaningless). */
  private touched = 0
  /** The per-batch stream, reseeded from the caller's generator on each `sample` (see `ReplayRandom`). */
  readonly random = new BatchRandom()

  /** @throws InvalidOptionError for an out-of-range option (naming it and its value). */
  constructor(options: Options) {
    this.capacity = Columns.intOption("capacity", options.capacity, 1)
    this.obsDim = Columns.intOption("obsDim", options.obsDim, 1)
    this.actDim = Columns.intOption("actDim", options.actDim ?? 1, 1)
    this.observationDtype = Columns.enumOption("observationDtype", options.observationDtype ?? "float32", ["float32", "uint8"])
    this.actionDtype = Columns.enumOption("actionDtype", options.actionDtype ?? "int32", ["int32", "float32"])
    this.gamma = Columns.numberOption("gamma", options.gamma ?? 0.99, 0, 1)
    this.rng = Rng.make(Columns.intOption("seed", options.seed ?? 0, 0, Number.MAX_SAFE_INTEGER))
    const c = this.capacity
    const od = this.obsDim
    const bytes = this.observationDtype === "uint8"
    // words: reward, discount, flags, actions, then the observations (float32 words, or bytes padded to words)
    const obsWord = HEAD + this.actDim
    this.rowWords = bytes ? obsWord + Math.ceil((2 * od) / 4) : obsWord + 2 * od
    const limit = bytes ? 2 ** 30 : 2 ** 32 // elements of the largest view (bytes for uint8): 2^32
    if (c * this.rowWords > limit) {
      throw new InvalidOptionError({ option: "capacity", value: c, reason: `capacity * row size (${4 * this.rowWords} bytes) exceeds ${bytes ? "2^32 bytes" : "2^32 words"}` })
    }
    const rows = new ArrayBuffer(c * this.rowWords * 4)
    this.f32 = new Float32Array(rows)
    this.i32 = new Int32Array(rows)
    this.obsView = bytes ? new Uint8Array(rows) : this.f32
    this.actView = this.actionDtype === "int32" ? this.i32 : this.f32
    const unit = bytes ? 4 : 1
    this.obsStride = this.rowWords * unit
    this.obsOffset = obsWord * unit
    this.nextOffset = this.obsOffset + od
  }

  /**
   * One column of the buffer as a fresh copy in the column layout (`[capacity * obsDim]` observations and next
   * observations, `[capacity * actDim]` actions, `[capacity]` rewards, discounts and 0/1 terminated/truncated flags),
   * for reading: the rows are stored interleaved, so this is an O(capacity) copy — call it once, not per element.
   */
  column<K extends ColumnName>(name: K): ColumnTypes[K] {
    const n = this.capacity
    switch (name) {
      case "observations":
        return this.obsColumn(this.obsOffset, n) as ColumnTypes[K]
      case "nextObservations":
        return this.obsColumn(this.nextOffset, n) as ColumnTypes[K]
      case "actions":
        return this.actionColumn(n) as ColumnTypes[K]
      case "rewards":
        return this.wordColumn(new Float32Array(n), this.f32, REWARD, n) as ColumnTypes[K]
      case "discounts":
        return this.wordColumn(new Float32Array(n), this.f32, DISCOUNT, n) as ColumnTypes[K]
      case "terminated":
        return this.flagColumn(TERMINATED, n) as ColumnTypes[K]
      case "truncated":
        return this.flagColumn(TRUNCATED, n) as ColumnTypes[K]
    }
    throw new RangeError(`unknown replay column ${JSON.stringify(name)}`)
  }

  private obsColumn(offset: number, rows: number): Float32Array | Uint8Array {
    const od = this.obsDim
    const out = Columns.allocate(this.observationDtype, rows * od) as Float32Array | Uint8Array
    const v = this.obsView
    for (let i = 0; i < rows; i++) {
      const r = i * this.obsStride + offset
      for (let k = 0; k < od; k++) out[i * od + k] = v[r + k]!
    }
    return out
  }

  private actionColumn(rows: number): Int32Array | Float32Array {
    const ad = this.actDim
    const out = Columns.allocate(this.actionDtype, rows * ad) as Int32Array | Float32Array
    const v = this.actView
    for (let i = 0; i < rows; i++) {
      const r = i * this.rowWords + ACTIONS
      for (let k = 0; k < ad; k++) out[i * ad + k] = v[r + k]!
    }
    return out
  }

  private wordColumn<A extends Float32Array | Int32Array>(out: A, v: Float32Array | Int32Array, word: number, rows: number): A {
    for (let i = 0; i < rows; i++) out[i] = v[i * this.rowWords + word]!
    return out
  }

  private flagColumn(bit: number, rows: number): Uint8Array {
    const out = new Uint8Array(rows)
    const v = this.i32
    for (let i = 0; i < rows; i++) out[i] = (v[i * this.rowWords + FLAGS]! & bit) === 0 ? 0 : 1
    return out
  }

  /** Write row `row`'s scalars: reward, discount and the two flags (0/1). */
  private writeScalars(row: number, reward: number, discount: number, terminated: number, truncated: number): void {
    const w = row * this.rowWords
    this.f32[w + REWARD] = reward
    this.f32[w + DISCOUNT] = discount
    this.i32[w + FLAGS] = terminated * TERMINATED + truncated * TRUNCATED
  }

  /** The options this buffer was made with (for `ReplayFile.save` and for making a compatible buffer). */
  get options(): Required<Omit<Options, "seed">> {
    return {
      capacity: this.capacity,
      obsDim: this.obsDim,
      actDim: this.actDim,
      observationDtype: this.observationDtype,
      actionDtype: this.actionDtype,
      gamma: this.gamma
    }
  }

  private checkDiscount(where: string, d: number): void {
    if (!(d >= 0 && d <= 1)) throw new InvalidOptionError({ option: where, value: d, reason: "expected a discount in [0, 1]" })
  }

  /**
   * Add one transition `(s, a, r, s', terminated, truncated)` at row `pointer`, overwriting the oldest when full.
   *
   * Shapes: `observation`, `nextObservation` [obsDim]; `action` a number (actDim 1) or [actDim]; `reward` finite;
   * `discount` in [0, 1] (default `gamma`). Returns the row written.
   * @throws ShapeMismatchError, DtypeMismatchError, NonFiniteValueError (NaN reward or observation),
   *   InvalidOptionError (discount outside [0, 1]); nothing is written then.
   */
  add(
    observation: ArrayLike<number>,
    action: number | ArrayLike<number>,
    reward: number,
    nextObservation: ArrayLike<number>,
    terminated: boolean | number,
    truncated: boolean | number,
    discount: number = this.gamma
  ): number {
    Columns.checkTransition(ADD, this, observation, action, reward, nextObservation)
    this.checkDiscount("ReplayBuffer.add discount", discount)
    const row = this.pointer
    const o = row * this.obsStride
    Columns.copy(observation, 0, this.obsView, o + this.obsOffset, this.obsDim)
    Columns.copy(nextObservation, 0, this.obsView, o + this.nextOffset, this.obsDim)
    const a = row * this.rowWords + ACTIONS
    if (typeof action === "number") this.actView[a] = action
    else Columns.copy(action, 0, this.actView, a, this.actDim)
    this.writeScalars(row, reward, discount, bit(terminated), bit(truncated))
    this.advance(1)
    return row
  }

  /**
   * Add one row per sub-env of a vector env step (`numEnvs = rewards.length` rows, env `i` at row `pointer + i`
   * mod capacity).
   *
   * Shapes: `observations`, `nextObservations` [numEnvs * obsDim]; `actions` [numEnvs * actDim]; `rewards`,
   * `terminations`, `truncations` and optional `discounts` [numEnvs]. Returns the first row written.
   * @throws ShapeMismatchError, DtypeMismatchError, NonFiniteValueError (naming the env index), InvalidOptionError
   *   (a discount outside [0, 1] or more rows than capacity); nothing is written then.
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
    const n = rewards.length
    if (n > this.capacity) {
      throw new InvalidOptionError({ option: "ReplayBuffer.addBatch rows", value: n, reason: `more rows than capacity ${this.capacity}` })
    }
    Columns.checkStep(ADD_BATCH, this, n, observations, actions, rewards, nextObservations, terminations, truncations)
    if (discounts !== undefined) {
      if (discounts.length !== n) throw new ShapeMismatchError({ where: "ReplayBuffer.addBatch discounts", expected: n, actual: discounts.length })
      for (let i = 0; i < n; i++) this.checkDiscount(`ReplayBuffer.addBatch discounts[${i}]`, discounts[i]!)
    }
    const first = this.pointer
    const od_ = this.obsDim
    const ad = this.actDim
    let row = first
    for (let i = 0; i < n; i++) {
      const o = row * this.obsStride
      Columns.copy(observations, i * od_, this.obsView, o + this.obsOffset, od_)
      Columns.copy(nextObservations, i * od_, this.obsView, o + this.nextOffset, od_)
      Columns.copy(actions, i * ad, this.actView, row * this.rowWords + ACTIONS, ad)
      this.writeScalars(row, rewards[i]!, discounts === undefined ? this.gamma : discounts[i]!, bit(terminations[i]), bit(truncations[i]))
      row = row + 1 === this.capacity ? 0 : row + 1
    }
    this.advance(n)
    return first
  }

  private advance(n: number): void {
    this.pointer = (this.pointer + n) % this.capacity
    this.size = Math.min(this.capacity, this.size + n)
    this.added += n
  }

  /** A batch of `batchSize` rows shaped for this buffer (allocate once, reuse across `sample` calls). */
  allocateBatch(batchSize: number): Batch {
    const b = Columns.intOption("batchSize", batchSize, 1)
    const weights = new Float32Array(b)
    weights.fill(1)
    return {
      batchSize: b,
      observations: Columns.allocate(this.observationDtype, b * this.obsDim) as Float32Array | Uint8Array,
      actions: Columns.allocate(this.actionDtype, b * this.actDim) as Int32Array | Float32Array,
      rewards: new Float32Array(b),
      nextObservations: Columns.allocate(this.observationDtype, b * this.obsDim) as Float32Array | Uint8Array,
      terminated: new Uint8Array(b),
      truncated: new Uint8Array(b),
      discounts: new Float32Array(b),
      indices: new Int32Array(b),
      weights
    }
  }

  /** The batch `sample` reuses when called without `out` (reallocated only when `batchSize` changes). */
  batchFor(batchSize: number, out?: Batch): Batch {
    if (out !== undefined) {
      if (out.batchSize !== batchSize || out.observations.length !== batchSize * this.obsDim || out.actions.length !== batchSize * this.actDim) {
        throw new ShapeMismatchError({ where: "sample out.observations", expected: batchSize * this.obsDim, actual: out.observations.length })
      }
      return out
    }
    if (this.cached === undefined || this.cached.batchSize !== batchSize) this.cached = this.allocateBatch(batchSize)
    return this.cached
  }

  /** @throws InsufficientDataError when `batchSize` exceeds `size` (or the buffer is empty). */
  checkSampleSize(where: string, batchSize: number): void {
    Columns.intOption("batchSize", batchSize, 1)
    if (batchSize > this.size) throw new InsufficientDataError({ where, requested: batchSize, size: this.size })
  }

  /**
   * Sample `batchSize` rows uniformly with replacement into `out` (or the buffer's reused batch) and return it.
   * `weights` are 1. Allocates nothing once the batch exists.
   *
   * Ranges: `1 <= batchSize <= size`. Uses `rng` (default: the buffer's own generator).
   * @throws InsufficientDataError when `batchSize > size`; ShapeMismatchError when `out` has another shape;
   *   InvalidOptionError when `batchSize` is not a positive integer.
   */
  sample(batchSize: number, rng: Rng = this.rng, out?: Batch): Batch {
    this.checkSampleSize("ReplayBuffer.sample", batchSize)
    const batch = this.batchFor(batchSize, out)
    const idx = batch.indices
    const n = this.size
    const random = this.random
    random.reseed(rng)
    for (let b = 0; b < batchSize; b++) idx[b] = random.integers(n)
    batch.weights.fill(1)
    this.gather(batch)
    return batch
  }

  /**
   * The first pass of {@link gather} alone: read the first and the last word of each row named by `batch.indices`
   * (each in `[0, size)`; not checked), so that their cache misses are in flight while the caller computes something
   * else (`PrioritizedReplay.sample` computes the importance weights) before `gather(batch, true)`.
   */
  touch(batch: Batch): void {
    const idx = batch.indices
    const w32 = this.i32
    const rw = this.rowWords
    let touched = 0
    for (let b = 0; b < batch.batchSize; b++) {
      const r = idx[b]! * rw
      touched = (touched + w32[r]! + w32[r + rw - 1]!) | 0
    }
    this.touched = touched
  }

  /**
   * Copy the rows named by `batch.indices` into `batch` (each index in `[0, size)`; not checked).
   *
   * Two passes over the interleaved rows: the first only reads the first and the last word of each row (no stores, so
   * every row's cache misses are in flight together; a row of up to 64 bytes spans at most two lines), the second
   * copies the now-cached rows into the batch's columns. With the columns stored apart (before 0.2.0) a row was seven
   * cache lines on seven pages (at 1M rows, 256 random rows on a 2-core AMD EPYC VM: about 23 µs in the benchmark); one
   * row is now one or two adjacent lines on one page. `touched`: the first pass ({@link touch}) was just made for
   * these indices, so only the copy is left.
   */
  gather(batch: Batch, touched = false): void {
    if (!touched) this.touch(batch)
    const od = this.obsDim
    const ad = this.actDim
    const idx = batch.indices
    const n = batch.batchSize
    const f = this.f32
    const w32 = this.i32
    const rw = this.rowWords
    const ov = this.obsView
    const os = this.obsStride
    const oo = this.obsOffset
    const no = this.nextOffset
    const av = this.actView
    const bo = batch.observations
    const bn = batch.nextObservations
    const ba = batch.actions
    const br = batch.rewards
    const bd = batch.discounts
    const bt = batch.terminated
    const bu = batch.truncated
    for (let b = 0; b < n; b++) {
      const i = idx[b]!
      const r = i * rw
      br[b] = f[r + REWARD]!
      bd[b] = f[r + DISCOUNT]!
      const flags = w32[r + FLAGS]!
      bt[b] = flags & TERMINATED
      bu[b] = (flags & TRUNCATED) >> 1
      if (ad === 1) ba[b] = av[r + ACTIONS]!
      else for (let k = 0; k < ad; k++) ba[b * ad + k] = av[r + ACTIONS + k]!
      const so = i * os
      const d = b * od
      for (let k = 0; k < od; k++) {
        bo[d + k] = ov[so + oo + k]!
        bn[d + k] = ov[so + no + k]!
      }
    }
  }

  /** Forget every transition (keeps the memory and the generator). */
  clear(): void {
    this.pointer = 0
    this.size = 0
    this.added = 0
  }

  /** The file kind `ReplayFile.load` checks (`"uniform"`). */
  static readonly kind: string = "uniform"

  /**
   * The file contents of this buffer (for `ReplayFile.save`): the column format of version 1, each column a copy of
   * the first `size` rows (the rows are stored interleaved).
   */
  contents(kind = ReplayBuffer.kind): Contents {
    const s = this.size
    const od = this.obsDim
    return {
      kind,
      capacity: this.capacity,
      size: s,
      pointer: this.pointer,
      shapes: { observation: [od], action: [this.actDim] },
      options: { observationDtype: this.observationDtype, actionDtype: this.actionDtype, gamma: this.gamma },
      counters: { added: this.added },
      rng: this.rng.getState(),
      columns: [
        ["observations", this.obsColumn(this.obsOffset, s)],
        ["actions", this.actionColumn(s)],
        ["rewards", this.wordColumn(new Float32Array(s), this.f32, REWARD, s)],
        ["nextObservations", this.obsColumn(this.nextOffset, s)],
        ["terminated", this.flagColumn(TERMINATED, s)],
        ["truncated", this.flagColumn(TRUNCATED, s)],
        ["discounts", this.wordColumn(new Float32Array(s), this.f32, DISCOUNT, s)]
      ]
    }
  }

  /** Restore rows, pointer, counters and generator from a decoded file (used by `ReplayFile.load`). */
  static restore(d: Decoded): ReplayBuffer {
    const h = d.header
    const o = h.options
    const obsDim = h.shapes["observation"]?.[0]
    const actDim = h.shapes["action"]?.[0]
    let buffer: ReplayBuffer
    try {
      buffer = new ReplayBuffer({
        capacity: h.capacity,
        obsDim: obsDim ?? -1,
        actDim: actDim ?? -1,
        observationDtype: o["observationDtype"] as Columns.ObservationDtype,
        actionDtype: o["actionDtype"] as Columns.ActionDtype,
        gamma: o["gamma"] as number
      })
    } catch (e) {
      return d.corrupt(`invalid options: ${(e as Error).message}`)
    }
    if (h.size < 0 || h.size > h.capacity) d.corrupt(`size ${h.size} outside [0, capacity ${h.capacity}]`)
    if (h.pointer < 0 || h.pointer >= h.capacity) d.corrupt(`pointer ${h.pointer} outside [0, capacity ${h.capacity})`)
    if (h.size < h.capacity && h.pointer !== h.size) d.corrupt(`pointer ${h.pointer} != size ${h.size} in a buffer that is not full`)
    const s = h.size
    const od = buffer.obsDim
    const obs = d.column("observations", buffer.observationDtype, s * od)
    const next = d.column("nextObservations", buffer.observationDtype, s * od)
    const actions = d.column("actions", buffer.actionDtype, s * buffer.actDim)
    const rewards = d.column("rewards", "float32", s)
    const terminated = d.column("terminated", "uint8", s)
    const truncated = d.column("truncated", "uint8", s)
    const discounts = d.column("discounts", "float32", s)
    const ad = buffer.actDim
    for (let i = 0; i < s; i++) {
      const o = i * buffer.obsStride
      Columns.copy(obs, i * od, buffer.obsView, o + buffer.obsOffset, od)
      Columns.copy(next, i * od, buffer.obsView, o + buffer.nextOffset, od)
      Columns.copy(actions, i * ad, buffer.actView, i * buffer.rowWords + ACTIONS, ad)
      // flags as stored (any non-zero byte is set, as `add` reads a flag)
      buffer.writeScalars(i, rewards[i]!, discounts[i]!, terminated[i] === 0 ? 0 : 1, truncated[i] === 0 ? 0 : 1)
    }
    buffer.size = s
    buffer.pointer = h.pointer
    buffer.added = h.counters["added"] ?? s
    if (h.rng !== undefined) buffer.rng = Rng.fromState(h.rng)
    return buffer
  }
}

/** The `kind` of a uniform buffer's file. */
export const KIND = ReplayBuffer.kind

/**
 * A uniform replay buffer.
 * @returns fails with InvalidOptionError when capacity, obsDim or actDim is not a positive integer, gamma is
 *   outside [0, 1], a dtype is unknown or the seed is not a non-negative safe integer.
 */
export const make = (options: Options): Effect.Effect<ReplayBuffer, InvalidOptionError> =>
  construct(ReplayBuffer)(options)

/**
 * {@link make} for plain (non-Effect) code: the same checks, synchronously.
 * @throws InvalidOptionError (the error {@link make} fails with)
 */
export const create = (options: Options): ReplayBuffer => new ReplayBuffer(options)

/** @deprecated use {@link create} (same function). */
export const unsafeMake = create


