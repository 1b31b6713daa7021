/**
 * Batched (structure-of-arrays) vector environments: `numEnvs` copies of one environment whose state lives in flat
 * typed arrays, stepped by one loop per `step` call with no per-sub-env object and no allocation per step (the
 * EnvPool / GPUDrive design). `CartPoleBatch`, `FrozenLakeBatch` and `SokobanBatch` build on this base;
 * `Registry.makeVec(id, n, { vectorizationMode: "batched" })` builds them (Gymnasium's `vector_entry_point`).
 *
 * **When to use**: as a drop-in {@link VectorEnv} wherever `SyncVectorEnv` over `make(id)` is used (PPO's
 * `makeVec`, `CheckVectorEnv`) when stepping cost matters: results are bit-identical to `SyncVectorEnv` over
 * `make(id)` (the checker, `TimeLimit(maxEpisodeSteps)`) with the same seeds, actions and autoreset mode.
 *
 * **Details**
 * - Buffers, overwritten by every call (copy what must outlive it): {@link BatchedVectorEnv.observations} (the batch
 *   layout of `VectorEnv.ts`), `rewards` (`Float64Array(numEnvs)`), `terminations`/`truncations`
 *   (`Uint8Array(numEnvs)` of 0/1), `elapsed` (`Int32Array`, steps of each sub-env's episode) and, in `SameStep`
 *   mode, `finalObservations` (same layout, rows of the sub-envs that ended). `step`/`reset` return these same
 *   buffers.
 * - Autoreset exactly as `SyncVectorEnv` (Gymnasium 1.x `NextStep`, `SameStep`, `Disabled`); sub-env i is seeded with
 *   `seed + i` (`Rng.make`, NumPy's `default_rng`), one generator per row, used only as the single env uses its own.
 * - `infos` is built lazily from typed arrays when read (and cached for that step), so a caller that ignores it
 *   pays nothing; `infos.finalObservation[i]` is a copy of row i of `finalObservations`.
 *
 * **Gotchas**
 * - Every action is validated before any sub-env moves (`SyncVectorEnv` checks each as it steps it, and ignores
 *   the action of a sub-env it is autoresetting): an invalid action throws {@link InvalidActionError} naming the row,
 *   and leaves every sub-env as it was.
 * - `Disabled`: `step` throws {@link ResetNeededError} while some sub-env that ended has not been reset (with
 *   `reset({ options: { resetMask } })`), before moving any sub-env.
 *
 * @see https://github.com/sail-sg/envpool (EnvPool: Weng et al. 2022, arXiv:2206.10558)
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/vector/sync_vector_env.py
 * @since 0.2.0
 */
import { InvalidActionError, InvalidOptionError, ResetNeededError, Rng, type Space } from "@autodidact/core"
import type { Info } from "../Env.js"
import { checkAutoresetMode, splitResetOptions, subSeeds } from "../internal/VectorCommon.js"
import * as VectorBatch from "./VectorBatch.js"
import type {
  AutoresetMode,
  Batch,
  VectorEnv,
  VectorInfo,
  VectorResetOptions,
  VectorResetResult,
  VectorStepResult
} from "./VectorEnv.js"

/** Options shared by the batched vector envs. */
export interface BatchedOptions {
  /** Default `"NextStep"`. */
  readonly autoresetMode?: AutoresetMode | undefined
  /** Truncate each episode after this many steps (`make`'s `TimeLimit`); default the registered id's. */
  readonly maxEpisodeSteps?: number | undefined
}

/** Buffers a subclass may own (each of `numEnvs` rows, layouts as the fields of {@link BatchedVectorEnv}). */
export interface BatchedBuffers {
  readonly observations?: Batch | undefined
  readonly rewards?: Float64Array | undefined
  readonly terminations?: Uint8Array | undefined
  readonly truncations?: Uint8Array | undefined
  readonly elapsed?: Int32Array | undefined
  /** `Uint8Array(numEnvs)` for {@link BatchedVectorEnv.needsReset} (a step loop that autoresets by itself writes it). */
  readonly needsReset?: Uint8Array | undefined
  /** `Uint8Array(numEnvs)` for {@link BatchedVectorEnv.resetRows}. */
  readonly resetRows?: Uint8Array | undefined
}

/** `autoresetMode` as a small integer for the step loops. */
export const NEXT_STEP = 0
/** @see NEXT_STEP */
export const SAME_STEP = 1
/** @see NEXT_STEP */
export const DISABLED = 2

const EMPTY_INFO: Info = Object.freeze({})

/**
 * The step result returned by every `step` call of one batched env (the same object each time: its fields are the
 * env's buffers, its `infos` a lazy view).
 */
class BatchedStepResult implements VectorStepResult {
  constructor(
    readonly observations: Batch,
    readonly rewards: Float64Array,
    readonly terminations: Uint8Array,
    readonly truncations: Uint8Array,
    readonly infos: VectorInfo
  ) {}
}

/** The lazy `infos` of a batched step: built from the env's arrays on first read after each step. */
class BatchedInfo implements VectorInfo {
  constructor(private readonly env: BatchedVectorEnv) {}
  get infos(): ReadonlyArray<Info> {
    return this.env.stepInfos()
  }
  get finalObservation(): ReadonlyArray<unknown> | undefined {
    return this.env.finalObservationList()
  }
  get finalInfo(): ReadonlyArray<Info | undefined> | undefined {
    return this.env.finalInfoList()
  }
}

/**
 * Base of the batched vector envs: buffers, seeding, masked reset, autoreset bookkeeping, action validation and the
 * lazy infos. A subclass holds its state in typed arrays, implements {@link resetRow} (start row i's episode and write
 * its observation row) and `step` as one loop over the rows that calls {@link beginStep}, {@link autoresetRow} (NextStep
 * rows waiting for their reset), {@link endRow} (rows that ended) and returns {@link finishStep}.
 * @category models
 */
export abstract class BatchedVectorEnv implements VectorEnv {
  /** Number of sub-envs (rows). */
  readonly numEnvs: number
  /** How ended rows are reset. */
  readonly autoresetMode: AutoresetMode
  /** Steps after which an episode is truncated (`TimeLimit`). */
  readonly maxEpisodeSteps: number
  /** Observation rows (layout of `VectorEnv.ts`); overwritten by every call. */
  readonly observations: Batch
  /** `Float64Array(numEnvs)` rewards of the last step. */
  readonly rewards: Float64Array
  /** `Uint8Array(numEnvs)`, 1 where the row terminated on the last step. */
  readonly terminations: Uint8Array
  /** `Uint8Array(numEnvs)`, 1 where the row was truncated on the last step. */
  readonly truncations: Uint8Array
  /** `Int32Array(numEnvs)`: steps taken in each row's current episode. */
  readonly elapsed: Int32Array
  /** `SameStep` mode: the final observation of each row that ended on the last step (other rows are stale). */
  readonly finalObservations: Batch
  /** 1 where the row ended and waits for its reset (`NextStep`: the next `step`; `Disabled`: a masked `reset`). */
  protected readonly needsReset: Uint8Array
  /** 1 where the row was reset during the last `step` (its info is the reset info). */
  protected readonly resetRows: Uint8Array
  /** 1 where the row ended during the last `step` in `SameStep` mode (it has a final observation). */
  protected readonly endedRows: Uint8Array
  /** One NumPy-compatible generator per row (created by the first seeded reset, or from entropy). */
  protected readonly rngs: Array<Rng | undefined>
  /** {@link autoresetMode} as {@link NEXT_STEP}, {@link SAME_STEP} or {@link DISABLED}. */
  protected readonly mode: number
  private readonly result: BatchedStepResult
  private readonly rowSize: number
  private readonly started: Uint8Array
  /** How many rows are flagged in {@link needsReset} (a subclass whose step loop writes the flags sets it too). */
  protected pending = 0
  private unstarted: number
  private endedCount = 0
  private closed = false
  private stepCount = 0
  private infosAt = -1
  private infosCache: ReadonlyArray<Info> = []
  private finalAt = -1
  private finalCache: ReadonlyArray<unknown> | undefined
  private finalInfoCache: ReadonlyArray<Info | undefined> | undefined

  /**
   * @param id the env id, for error messages.
   * @param buffers the buffers the subclass owns (e.g. in WebAssembly memory); the others are allocated here.
   * @throws InvalidOptionError when `numEnvs` or `maxEpisodeSteps` is not a positive integer, or the mode is unknown.
   */
  constructor(
    readonly id: string,
    numEnvs: number,
    readonly singleObservationSpace: Space.Space,
    readonly singleActionSpace: Space.Discrete,
    maxEpisodeSteps: number,
    options: BatchedOptions,
    buffers: BatchedBuffers = {}
  ) {
    if (!Number.isInteger(numEnvs) || numEnvs <= 0) {
      throw new InvalidOptionError({ option: "numEnvs", value: numEnvs, reason: "expected a positive integer" })
    }
    if (!(maxEpisodeSteps === Infinity || (Number.isInteger(maxEpisodeSteps) && maxEpisodeSteps > 0))) {
      throw new InvalidOptionError({ option: "maxEpisodeSteps", value: maxEpisodeSteps, reason: "expected a positive integer" })
    }
    this.numEnvs = numEnvs
    this.maxEpisodeSteps = maxEpisodeSteps
    this.autoresetMode = checkAutoresetMode(options.autoresetMode ?? "NextStep")
    this.mode = this.autoresetMode === "NextStep" ? NEXT_STEP : this.autoresetMode === "SameStep" ? SAME_STEP : DISABLED
    this.observations = buffers.observations ?? VectorBatch.create(singleObservationSpace, numEnvs)
    this.finalObservations = VectorBatch.create(singleObservationSpace, numEnvs)
    this.rowSize = VectorBatch.rowSize(singleObservationSpace)
    this.rewards = buffers.rewards ?? new Float64Array(numEnvs)
    this.terminations = buffers.terminations ?? new Uint8Array(numEnvs)
    this.truncations = buffers.truncations ?? new Uint8Array(numEnvs)
    this.elapsed = buffers.elapsed ?? new Int32Array(numEnvs)
    this.needsReset = buffers.needsReset ?? new Uint8Array(numEnvs)
    this.resetRows = buffers.resetRows ?? new Uint8Array(numEnvs)
    this.endedRows = new Uint8Array(numEnvs)
    this.rngs = new Array<Rng | undefined>(numEnvs).fill(undefined)
    this.unstarted = numEnvs
    this.result = new BatchedStepResult(this.observations, this.rewards, this.terminations, this.truncations, new BatchedInfo(this))
    this.started = new Uint8Array(numEnvs)
  }

  /** Row i's generator, created from entropy when no seeded reset made one. */
  protected rng(i: number): Rng {
    return (this.rngs[i] ??= Rng.fromEntropy())
  }

  /**
   * Start row i's episode: draw its initial state from {@link rng}(i) exactly as the single env's `reset` does with
   * the same `options`, and write its observation row. Not called in the hot loop except for autoresets.
   */
  protected abstract resetRow(i: number, options: { readonly [key: string]: unknown } | undefined): void
  /** The info the single env's `reset` returns for row i's current episode start. */
  protected abstract resetInfo(i: number): Info
  /** The info the single env's last `step` returned for row i. */
  protected abstract stepInfo(i: number): Info

  /**
   * Reset every row (or those in `options.resetMask`); row i gets `seed + i` (or `seed[i]`).
   * @throws InvalidOptionError for a bad mask, seed array or env option; InvalidSeedError for a bad seed;
   *   ResetNeededError after `close()`.
   */
  reset(options: VectorResetOptions = {}): VectorResetResult {
    this.assertOpen()
    const n = this.numEnvs
    const seeds = subSeeds(options.seed, n)
    const { mask, rest } = splitResetOptions(options.options, n)
    const infos = new Array<Info>(n)
    for (let i = 0; i < n; i++) {
      if (!mask[i]) {
        infos[i] = EMPTY_INFO
        continue
      }
      const seed = seeds[i]
      if (seed !== undefined) this.rngs[i] = Rng.make(seed)
      this.resetRow(i, rest)
      this.elapsed[i] = 0
      if (this.needsReset[i] === 1) {
        this.needsReset[i] = 0
        this.pending--
      }
      if (this.started[i] === 0) {
        this.started[i] = 1
        this.unstarted--
      }
      infos[i] = this.resetInfo(i)
    }
    return { observations: this.observations, infos: { infos } }
  }

  /**
   * Step every row with its action; see the subclasses.
   * @throws InvalidActionError for a malformed batch or an action outside the space (naming the row);
   *   ResetNeededError before every row was reset, after `close()`, or in `Disabled` mode while a row that ended
   *   waits for its reset.
   */
  abstract step(actions: Batch): VectorStepResult

  /**
   * Checks before a step (see {@link step}'s errors) and clears the last step's per-row bookkeeping. Throws before
   * any row moves.
   */
  protected beginStep(actions: Batch): void {
    this.assertOpen()
    const n = this.numEnvs
    VectorBatch.checkActions(this.id, this.singleActionSpace, actions, n)
    if (this.unstarted > 0) {
      throw new ResetNeededError({ envId: this.id, reason: `step() called before reset() of ${this.unstarted} sub-env(s)` })
    }
    if (this.mode === DISABLED && this.pending > 0) {
      const i = this.needsReset.indexOf(1)
      throw new ResetNeededError({
        envId: `${this.id}[${i}]`,
        reason: `sub-env ${i} ended and autoreset is Disabled; reset it with reset({ options: { resetMask } })`
      })
    }
    this.checkActionValues(actions)
    if (this.mode !== DISABLED) this.resetRows.fill(0)
    if (this.endedCount > 0) {
      this.endedRows.fill(0)
      this.endedCount = 0
    }
    this.stepCount++
  }

  /**
   * Throw {@link InvalidActionError} naming the first row whose action is outside the action space (called by
   * {@link beginStep} after the batch's shape is checked; a subclass may check faster, then call this one to throw).
   */
  protected checkActionValues(actions: Batch): void {
    const n = this.numEnvs
    const na = this.singleActionSpace.n
    const lo = this.singleActionSpace.start
    if (actions instanceof Int32Array) {
      for (let i = 0; i < n; i++) if ((actions[i]! - lo) >>> 0 >= na) this.invalidAction(i, actions[i])
    } else {
      for (let i = 0; i < n; i++) {
        const a = (actions as ArrayLike<unknown>)[i] as number
        if (!(a >= lo && a < lo + na && Math.floor(a) === a)) this.invalidAction(i, a)
      }
    }
  }

  private invalidAction(i: number, a: unknown): never {
    throw new InvalidActionError({ envId: `${this.id}[${i}]`, action: a, space: `Discrete(${this.singleActionSpace.n})` })
  }

  /** `NextStep`: reset row i (ended on the last step) instead of stepping it: reward 0, flags 0. */
  protected autoresetRow(i: number): void {
    this.resetRow(i, undefined)
    this.elapsed[i] = 0
    this.rewards[i] = 0
    this.terminations[i] = 0
    this.truncations[i] = 0
    this.needsReset[i] = 0
    this.pending--
    this.resetRows[i] = 1
  }

  /**
   * Row i ended on this step (its observation row, reward and flags written): `SameStep` keeps its final observation
   * and resets it at once; the other modes mark it for its reset.
   */
  protected endRow(i: number): void {
    if (this.mode === SAME_STEP) {
      const k = this.rowSize
      const src = this.observations as Float32Array
      const dst = this.finalObservations as Float32Array
      for (let j = i * k, e = j + k; j < e; j++) dst[j] = src[j]!
      this.endedRows[i] = 1
      this.endedCount++
      this.captureFinalInfo(i)
      this.resetRow(i, undefined)
      this.elapsed[i] = 0
      this.resetRows[i] = 1
    } else {
      this.needsReset[i] = 1
      this.pending++
    }
  }

  /** `SameStep`: keep what {@link stepInfo}(i) needs before row i is reset in the same step (default: nothing). */
  protected captureFinalInfo(_i: number): void {}

  /** The result of the step just taken (the env's buffers). */
  protected finishStep(): VectorStepResult {
    return this.result
  }

  /** @internal the lazy `infos.infos` of the last step. */
  stepInfos(): ReadonlyArray<Info> {
    if (this.infosAt !== this.stepCount) {
      this.infosAt = this.stepCount
      const n = this.numEnvs
      const list = new Array<Info>(n)
      for (let i = 0; i < n; i++) list[i] = this.resetRows[i] === 1 ? this.resetInfo(i) : this.stepInfo(i)
      this.infosCache = list
    }
    return this.infosCache
  }

  private buildFinal(): void {
    if (this.finalAt === this.stepCount) return
    this.finalAt = this.stepCount
    if (this.endedCount === 0) {
      this.finalCache = undefined
      this.finalInfoCache = undefined
      return
    }
    const n = this.numEnvs
    const obs = new Array<unknown>(n).fill(undefined)
    const infos = new Array<Info | undefined>(n).fill(undefined)
    for (let i = 0; i < n; i++) {
      if (this.endedRows[i] === 1) {
        obs[i] = VectorBatch.read(this.singleObservationSpace, this.finalObservations, i)
        infos[i] = this.stepInfo(i)
      }
    }
    this.finalCache = obs
    this.finalInfoCache = infos
  }

  /** @internal the lazy `infos.finalObservation` of the last step (`SameStep`, when some row ended). */
  finalObservationList(): ReadonlyArray<unknown> | undefined {
    this.buildFinal()
    return this.finalCache
  }

  /** @internal the lazy `infos.finalInfo` of the last step. */
  finalInfoList(): ReadonlyArray<Info | undefined> | undefined {
    this.buildFinal()
    return this.finalInfoCache
  }

  /** Further calls throw {@link ResetNeededError}. Idempotent. */
  close(): void {
    this.closed = true
  }

  private assertOpen(): void {
    if (this.closed) throw new ResetNeededError({ envId: this.id, reason: "the vector env is closed" })
  }
}
