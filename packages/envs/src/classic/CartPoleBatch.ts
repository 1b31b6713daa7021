/**
 * `CartPoleBatch`: `numEnvs` CartPole-v1 environments as arrays (structure of arrays), stepped in one loop:
 * bit-identical to `SyncVectorEnv` over `make("CartPole-v1")` (the same {@link CartPole} physics, float64 state,
 * float32 observations, `TimeLimit(500)`) with the same seeds, actions and autoreset mode.
 *
 * **Details**
 * - State as four arrays (structure of arrays), entry i for sub-env i: `x` (m), `xDot` (m/s), `theta` (rad),
 *   `thetaDot` (rad/s), float64.
 * - Engine: a WebAssembly SIMD step (`wasm/cartpole.ts`: two rows per f64x2 instruction, the same operations, so the
 *   same bits) where WebAssembly SIMD is available, else the JavaScript loop; `wasm: false` forces JavaScript. In
 *   NextStep mode one WebAssembly call makes the whole batch step: physics, `TimeLimit`, rewards and flags, and the
 *   resets of the rows that ended on the previous step, drawn from each row's PCG64 copy held in WebAssembly memory
 *   (the same stream as core's `Rng`: the generator a seeded reset makes is copied in once, then drawn there).
 * - `observations`: `Float32Array(4 * numEnvs)` (row i rounded from the state); `rewards`, `terminations`,
 *   `truncations`, `elapsed`, `finalObservations` as {@link BatchedVectorEnv}.
 * - Actions: an `Int32Array(numEnvs)` (or number array) of 0 (push left) / 1 (push right).
 * - `reset` options as `CartPoleEnv.reset` (`state`, `low`, `high`), applied to every reset row; kwargs
 *   `suttonBartoReward` as `CartPoleEnv`.
 *
 * @example
 * ```ts
 * import { CartPoleBatch } from "@autodidact/envs"
 * const envs = new CartPoleBatch.CartPoleBatch(1024)
 * envs.reset({ seed: 0 })
 * const actions = new Int32Array(1024).fill(1)
 * envs.step(actions)
 * envs.observations // Float32Array(4096), the same buffer every step
 * envs.theta // Float64Array: each sub-env's pole angle
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/envs/classic_control/cartpole.py
 * @since 0.2.0
 */
import type { Rng } from "@autodidact/core"
import type { Info } from "../Env.js"
import { type BatchedOptions, BatchedVectorEnv, NEXT_STEP } from "../vector/BatchedVectorEnv.js"
import type { Batch, VectorStepResult } from "../vector/VectorEnv.js"
import { actionSpace, CartPoleEnv, type CartPoleOptions, dynamics, observationSpace, outOfBounds, parseResetOptions } from "./CartPole.js"
import * as CartPoleWasm from "./CartPoleWasm.js"

const EMPTY_INFO: Info = Object.freeze({})

/** Options of {@link CartPoleBatch}: the env's kwargs plus the batch's. */
export interface CartPoleBatchOptions extends CartPoleOptions, BatchedOptions {
  /** Step with WebAssembly SIMD where available (default true); false: the JavaScript loop. Same results. */
  readonly wasm?: boolean | undefined
}

/**
 * `numEnvs` CartPole-v1 environments held in typed arrays.
 * @category models
 */
export class CartPoleBatch extends BatchedVectorEnv {
  /** Cart position of each sub-env (m); `Float64Array` of at least `numEnvs`. */
  readonly x: Float64Array
  /** Cart velocity (m/s). */
  readonly xDot: Float64Array
  /** Pole angle (rad). */
  readonly theta: Float64Array
  /** Pole angular velocity (rad/s). */
  readonly thetaDot: Float64Array
  /** `"wasm-simd"` or `"js"`: what steps the rows. */
  readonly engine: "wasm-simd" | "js"
  private readonly suttonBarto: boolean
  private readonly wasm: CartPoleWasm.CartPoleWasm | undefined
  /** Whether {@link checkActionValues} already copied this step's actions into the WebAssembly memory. */
  private copied = false
  /** Per row, the generator whose state was last copied into the WebAssembly PCG64 of that row. */
  private readonly loaded: Array<Rng | undefined>
  /** The JavaScript loop's next state of the row being stepped (`CartPole.dynamics` writes it). */
  private readonly next = new Float64Array(4)

  /**
   * @param numEnvs number of sub-envs (positive integer).
   * @throws InvalidOptionError for a bad `numEnvs`, `maxEpisodeSteps` (default 500), mode or `suttonBartoReward`.
   */
  constructor(numEnvs: number, options: CartPoleBatchOptions = {}) {
    new CartPoleEnv(options) // validates the kwargs as the single env does
    const wasm = options.wasm !== false && Number.isInteger(numEnvs) && numEnvs > 0 ? CartPoleWasm.instantiate(numEnvs) : undefined
    const buffers = wasm === undefined ? {} : {
      observations: wasm.observations,
      rewards: wasm.rewards.subarray(0, numEnvs),
      terminations: wasm.terminated.subarray(0, numEnvs),
      truncations: wasm.truncated.subarray(0, numEnvs),
      elapsed: wasm.elapsed.subarray(0, numEnvs),
      needsReset: wasm.needsReset.subarray(0, numEnvs),
      resetRows: wasm.resetRows.subarray(0, numEnvs)
    }
    super("CartPoleBatch(CartPole-v1)", numEnvs, observationSpace, actionSpace, options.maxEpisodeSteps ?? 500, options, buffers)
    this.suttonBarto = options.suttonBartoReward ?? false
    this.wasm = wasm
    this.engine = wasm === undefined ? "js" : "wasm-simd"
    this.x = wasm?.x ?? new Float64Array(numEnvs)
    this.xDot = wasm?.xDot ?? new Float64Array(numEnvs)
    this.theta = wasm?.theta ?? new Float64Array(numEnvs)
    this.thetaDot = wasm?.thetaDot ?? new Float64Array(numEnvs)
    this.loaded = new Array<Rng | undefined>(numEnvs).fill(undefined)
  }

  protected resetRow(i: number, options: { readonly [key: string]: unknown } | undefined): void {
    const init = parseResetOptions(options)
    const wasm = this.wasm
    if (wasm !== undefined && init.state === undefined) {
      this.syncRng(i, wasm)
      wasm.resetRow(i, init.low, init.high)
      return
    }
    let x: number, xDot: number, theta: number, thetaDot: number
    if (init.state !== undefined) [x, xDot, theta, thetaDot] = init.state as [number, number, number, number]
    else {
      const rng = this.rng(i)
      x = rng.uniform(init.low, init.high)
      xDot = rng.uniform(init.low, init.high)
      theta = rng.uniform(init.low, init.high)
      thetaDot = rng.uniform(init.low, init.high)
    }
    this.x[i] = x
    this.xDot[i] = xDot
    this.theta[i] = theta
    this.thetaDot[i] = thetaDot
    const obs = this.observations as Float32Array
    const o = 4 * i
    obs[o] = x
    obs[o + 1] = xDot
    obs[o + 2] = theta
    obs[o + 3] = thetaDot
  }

  /**
   * The WebAssembly engine draws row i's resets from its own PCG64 copy: when the row's generator is new (a seeded
   * reset, or the first one from entropy), copy its state in. From then on the WebAssembly copy is the row's stream
   * (the `Rng` object is not drawn from again).
   */
  private syncRng(i: number, wasm: CartPoleWasm.CartPoleWasm): void {
    const rng = this.rng(i)
    if (this.loaded[i] === rng) return
    const { state, inc } = rng.getState()
    const limbs = wasm.rng
    for (let k = 0; k < 8; k++) {
      limbs[16 * i + k] = state[k]!
      limbs[16 * i + 8 + k] = inc[k]!
    }
    this.loaded[i] = rng
  }

  protected resetInfo(_i: number): Info {
    return EMPTY_INFO
  }

  protected stepInfo(_i: number): Info {
    return EMPTY_INFO
  }

  /**
   * Advance every sub-env by `TAU` = 0.02 s with force -10 N (action 0) or +10 N (action 1), in one pass over the
   * rows; autoreset as `autoresetMode` says. Returns the shared buffers.
   * @throws InvalidActionError when `actions` is not `numEnvs` values in {0, 1}; ResetNeededError (see the base).
   */
  step(actions: Batch): VectorStepResult {
    this.beginStep(actions)
    if (this.wasm !== undefined) this.stepWasm(actions, this.wasm)
    else this.stepJs(actions as Int32Array)
    return this.finishStep()
  }

  /**
   * An `Int32Array` batch is copied into the WebAssembly actions and checked there (one SIMD pass); anything else,
   * or a bad value, goes through the base check (which names the row).
   */
  protected override checkActionValues(actions: Batch): void {
    const wasm = this.wasm
    if (wasm !== undefined && actions instanceof Int32Array) {
      wasm.actions.set(actions)
      if (wasm.actionsValid()) {
        this.copied = true
        return
      }
    }
    super.checkActionValues(actions)
  }

  /**
   * WebAssembly for every row: NextStep in one call (see the class docs); SameStep and Disabled: physics, `TimeLimit`,
   * rewards, flags and the list of rows that ended, then `endRow` in JavaScript for those rows only.
   */
  private stepWasm(actions: Batch, wasm: CartPoleWasm.CartPoleWasm): void {
    const n = this.numEnvs
    if (!this.copied) {
      if (actions instanceof Int32Array) wasm.actions.set(actions)
      else for (let i = 0; i < n; i++) wasm.actions[i] = (actions as ArrayLike<number>)[i]!
    }
    this.copied = false
    const maxSteps = Math.min(this.maxEpisodeSteps, 0x7fffffff)
    const rewardEnd = this.suttonBarto ? -1.0 : 1.0
    const rewardStep = this.suttonBarto ? 0.0 : 1.0
    if (this.mode === NEXT_STEP) {
      // one call: rows waiting for their reset are reset (from their PCG64), the others stepped and flagged when they end
      this.pending = wasm.step(maxSteps, rewardEnd, rewardStep, true)
      return
    }
    const ended = wasm.step(maxSteps, rewardEnd, rewardStep, false)
    const list = wasm.ended
    for (let k = 0; k < ended; k++) this.endRow(list[k]!)
  }

  /** The JavaScript loop: `CartPoleEnv.step` operation for operation, row by row. */
  private stepJs(act: Int32Array): void {
    const n = this.numEnvs
    const xs = this.x
    const xDots = this.xDot
    const thetas = this.theta
    const thetaDots = this.thetaDot
    const obs = this.observations as Float32Array
    const rew = this.rewards
    const term = this.terminations
    const trunc = this.truncations
    const el = this.elapsed
    const need = this.needsReset
    const nextStep = this.mode === NEXT_STEP
    const maxSteps = this.maxEpisodeSteps
    const rewardEnd = this.suttonBarto ? -1.0 : 1.0
    const rewardStep = this.suttonBarto ? 0.0 : 1.0
    const next = this.next
    for (let i = 0; i < n; i++) {
      if (nextStep && need[i] === 1) {
        this.autoresetRow(i)
        continue
      }
      dynamics(xs[i]!, xDots[i]!, thetas[i]!, thetaDots[i]!, act[i]!, next)
      const x = next[0]!
      const theta = next[2]!
      xs[i] = x
      xDots[i] = next[1]!
      thetas[i] = theta
      thetaDots[i] = next[3]!
      const o = 4 * i
      obs[o] = x
      obs[o + 1] = next[1]!
      obs[o + 2] = theta
      obs[o + 3] = next[3]!
      const terminated = outOfBounds(x, theta)
      const steps = el[i]! + 1
      el[i] = steps
      const truncated = steps >= maxSteps
      rew[i] = terminated ? rewardEnd : rewardStep
      term[i] = terminated ? 1 : 0
      trunc[i] = truncated ? 1 : 0
      if (terminated || truncated) this.endRow(i)
    }
  }
}

/**
 * `numEnvs` batched CartPole-v1 sub-envs (the registry's `vectorEntryPoint` for `CartPole-v1`).
 * @category constructors
 */
export const make = (numEnvs: number, options: CartPoleBatchOptions = {}): CartPoleBatch => new CartPoleBatch(numEnvs, options)
