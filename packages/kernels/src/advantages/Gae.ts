/**
 * Generalized Advantage Estimation (GAE) over a rollout buffer laid out `[numSteps, numEnvs]`.
 *
 * Schulman, Moritz, Levine, Jordan, Abbeel, "High-Dimensional Continuous Control Using Generalized Advantage
 * Estimation", ICLR 2016 (arXiv:1506.02438), eq. (16):
 *
 * ```text
 * δ_t = r_t + γ · V(s_{t+1}) · nextnonterminal_t − V(s_t)
 * Â_t = δ_t + γλ · nextnonterminal_t · Â_{t+1}          (computed backwards, t = T−1 … 0)
 * R_t = Â_t + V(s_t)                                     (λ-returns, the value targets)
 * ```
 *
 * **Layout and conventions** (CleanRL `ppo.py`, exactly): arrays are row-major `[numSteps, numEnvs]`
 * (element `t * numEnvs + i` is step t of env i). `dones[t]` is 1 when the observation at step t is the *first* of
 * a new episode (the step t−1 ended its episode); so for step t,
 * `nextnonterminal = 1 − dones[t+1]` and `nextvalues = values[t+1]`, and for the last step
 * `nextnonterminal = 1 − nextDone`, `nextvalues = nextValue` (the value and done flag of the observation after the
 * rollout).
 *
 * **Truncation** (opt-in): CleanRL treats a time-limit truncation like a termination (no bootstrapping). With
 * `truncations` (1 where the step taken at t ended its episode by truncation, not termination) and `finalValues`
 * (V of the final observation of that episode, `infos.finalObservation` in `SameStep` autoreset mode), the
 * truncated step bootstraps from the final observation as modern implementations do:
 * `δ_t = r_t + γ · V(s_final) − V(s_t)`; the advantage recursion still stops at the episode boundary.
 *
 * **Errors**: mismatched lengths fail with {@link GaeShapeError}; NaN/±Infinity in an input fail with
 * `NonFiniteValueError` naming the array, the flat index and the value; `dones` must be 0 or 1.
 *
 * @example
 * ```ts
 * import { Gae } from "@autodidact/kernels"
 * const { advantages, returns } = Gae.computeSync({
 *   numSteps: 3, numEnvs: 1, gamma: 0.99, lambda: 0.95,
 *   rewards: Float32Array.of(1, 1, 1), values: Float32Array.of(0.5, 0.5, 0.5), dones: Float32Array.of(0, 0, 0),
 *   nextValue: Float32Array.of(0.5), nextDone: Float32Array.of(0)
 * })
 * ```
 * @see https://arxiv.org/abs/1506.02438
 * @see https://github.com/vwxyzjn/cleanrl/blob/master/cleanrl/ppo.py (the `with torch.no_grad()` GAE block)
 * @since 0.1.0
 */
import { NonFiniteValueError } from "@autodidact/core"
import { Effect, Schema } from "effect"
import type { KernelInputError } from "../KernelError.js"
import type { Builtin, Dispatched, RunOptions } from "../engines/KernelRegistry.js"
import * as KernelRegistry from "../engines/KernelRegistry.js"
import type { NumArray } from "../NumArray.js"
import { scratch } from "./Returns.js"

/** Numeric array accepted as input (read only); defined in `NumArray` (re-exported here for compatibility). */
export type { NumArray } from "../NumArray.js"

/** Inputs of a GAE computation; every `[numSteps, numEnvs]` array has `numSteps * numEnvs` elements. */
export interface GaeInput {
  readonly numSteps: number
  readonly numEnvs: number
  /** Discount γ in [0, 1]. */
  readonly gamma: number
  /** GAE λ in [0, 1]. */
  readonly lambda: number
  /** `[numSteps, numEnvs]` rewards r_t. */
  readonly rewards: NumArray
  /** `[numSteps, numEnvs]` critic values V(s_t). */
  readonly values: NumArray
  /** `[numSteps, numEnvs]` 0/1: observation t starts a new episode (CleanRL's `dones`). */
  readonly dones: NumArray
  /** `[numEnvs]` V of the observation after the last step. */
  readonly nextValue: NumArray
  /** `[numEnvs]` 0/1: the observation after the last step starts a new episode. */
  readonly nextDone: NumArray
  /** Optional `[numSteps, numEnvs]` 0/1: step t ended its episode by truncation (bootstrap from `finalValues`). */
  readonly truncations?: NumArray | undefined
  /** Optional `[numSteps, numEnvs]` V of the final observation where `truncations` is 1 (ignored elsewhere). */
  readonly finalValues?: NumArray | undefined
}

/** Advantages Â and λ-returns R = Â + V, both `[numSteps, numEnvs]`. */
export interface GaeResult {
  readonly advantages: Float32Array
  readonly returns: Float32Array
}

/**
 * An input array has the wrong length, or a size/option is out of range.
 * @category errors
 */
export class GaeShapeError extends Schema.TaggedError<GaeShapeError>()("GaeShapeError", {
  input: Schema.String,
  expected: Schema.String,
  actual: Schema.String
}) {
  override get message() {
    return `GAE input ${this.input}: expected ${this.expected}, got ${this.actual}`
  }
}

const checkArray = (name: string, x: NumArray | undefined, n: number, binary: boolean): void => {
  if (x === undefined || x.length !== n) {
    throw new GaeShapeError({ input: name, expected: `length ${n}`, actual: x === undefined ? "undefined" : `length ${x.length}` })
  }
  for (let k = 0; k < n; k++) {
    const v = x[k]!
    if (!Number.isFinite(v)) throw new NonFiniteValueError({ where: `Gae.${name}`, value: v, index: k })
    if (binary && v !== 0 && v !== 1) {
      throw new GaeShapeError({ input: name, expected: "0 or 1 at every index", actual: `${v} at index ${k}` })
    }
  }
}

/**
 * Check sizes, ranges and finiteness of a GAE input.
 * @throws GaeShapeError | NonFiniteValueError
 */
export const validate = (input: GaeInput): void => {
  const { numSteps: T, numEnvs: N } = input
  if (!Number.isInteger(T) || T < 1) throw new GaeShapeError({ input: "numSteps", expected: "a positive integer", actual: String(T) })
  if (!Number.isInteger(N) || N < 1) throw new GaeShapeError({ input: "numEnvs", expected: "a positive integer", actual: String(N) })
  if (!(input.gamma >= 0 && input.gamma <= 1)) throw new GaeShapeError({ input: "gamma", expected: "a number in [0, 1]", actual: String(input.gamma) })
  if (!(input.lambda >= 0 && input.lambda <= 1)) throw new GaeShapeError({ input: "lambda", expected: "a number in [0, 1]", actual: String(input.lambda) })
  const n = T * N
  checkArray("rewards", input.rewards, n, false)
  checkArray("values", input.values, n, false)
  checkArray("dones", input.dones, n, true)
  checkArray("nextValue", input.nextValue, N, false)
  checkArray("nextDone", input.nextDone, N, true)
  if (input.truncations !== undefined || input.finalValues !== undefined) {
    checkArray("truncations", input.truncations, n, true)
    checkArray("finalValues", input.finalValues, n, false)
  }
}

/**
 * The column-blocked GAE scan (no validation, no allocation): t runs backwards, the inner loop over the N contiguous
 * envs of a row with one double accumulator per env, so memory is read and written sequentially. Each element is the
 * same double-precision expression as CleanRL's per-env recurrence, so the results are bit-identical to it. Returns
 * whether the input looked bad (a non-finite accumulator, a done flag other than 0/1); the caller then validates.
 */
const scanInto = (input: GaeInput, advantages: Float32Array | Float64Array, returns: Float32Array | Float64Array): boolean => {
  const { numSteps: T, numEnvs: N, gamma, lambda, rewards, values, dones, nextValue, nextDone } = input
  const trunc = input.truncations
  const finalV = input.finalValues
  const gl = gamma * lambda
  const last = scratch(N)
  let bad = false
  let k = (T - 1) * N
  for (let i = 0; i < N; i++) {
    const nnt = 1 - nextDone[i]!
    let bootstrap = gamma * nextValue[i]! * nnt
    if (trunc !== undefined && trunc[k + i] === 1) bootstrap = gamma * finalV![k + i]!
    const v = values[k + i]!
    const delta = rewards[k + i]! + bootstrap - v
    const a = delta + gl * nnt * 0 // Â_{T−1} = δ + γλ·nnt·0, the reference's expression with Â_T = 0
    last[i] = a
    advantages[k + i] = a
    returns[k + i] = a + v
  }
  for (let t = T - 2; t >= 0; t--) {
    const kNext = k
    k -= N
    if (trunc === undefined) {
      for (let i = 0; i < N; i++) {
        const d = dones[kNext + i]!
        if (d !== 0 && d !== 1) bad = true
        const nnt = 1 - d
        const v = values[k + i]!
        const delta = rewards[k + i]! + gamma * values[kNext + i]! * nnt - v
        const a = delta + gl * nnt * last[i]!
        last[i] = a
        advantages[k + i] = a
        returns[k + i] = a + v
      }
    } else {
      for (let i = 0; i < N; i++) {
        const d = dones[kNext + i]!
        if (d !== 0 && d !== 1) bad = true
        const nnt = 1 - d
        let bootstrap = gamma * values[kNext + i]! * nnt
        if (trunc[k + i] === 1) bootstrap = gamma * finalV![k + i]!
        const v = values[k + i]!
        const delta = rewards[k + i]! + bootstrap - v
        const a = delta + gl * nnt * last[i]!
        last[i] = a
        advantages[k + i] = a
        returns[k + i] = a + v
      }
    }
  }
  // a NaN/±Infinity reward or value reaches row 0 of its column (x + c·NaN is NaN, 0·±Infinity is NaN)
  let sum = 0
  for (let i = 0; i < N; i++) {
    sum += last[i]!
    const d = dones[i]!
    if (d !== 0 && d !== 1) bad = true
  }
  return bad || sum - sum !== 0
}

const checkLengths = (input: GaeInput, advantages: { readonly length: number }, returns: { readonly length: number }): void => {
  const { numSteps: T, numEnvs: N } = input
  if (!Number.isInteger(T) || T < 1) throw new GaeShapeError({ input: "numSteps", expected: "a positive integer", actual: String(T) })
  if (!Number.isInteger(N) || N < 1) throw new GaeShapeError({ input: "numEnvs", expected: "a positive integer", actual: String(N) })
  if (!(input.gamma >= 0 && input.gamma <= 1)) throw new GaeShapeError({ input: "gamma", expected: "a number in [0, 1]", actual: String(input.gamma) })
  if (!(input.lambda >= 0 && input.lambda <= 1)) throw new GaeShapeError({ input: "lambda", expected: "a number in [0, 1]", actual: String(input.lambda) })
  const n = T * N
  const len = (name: string, x: NumArray | undefined, m: number) => {
    if (x === undefined || x.length !== m) throw new GaeShapeError({ input: name, expected: `length ${m}`, actual: x === undefined ? "undefined" : `length ${x.length}` })
  }
  len("rewards", input.rewards, n)
  len("values", input.values, n)
  len("dones", input.dones, n)
  checkArray("nextValue", input.nextValue, N, false)
  checkArray("nextDone", input.nextDone, N, true)
  if (advantages.length !== n) throw new GaeShapeError({ input: "advantages (output)", expected: `length ${n}`, actual: `length ${advantages.length}` })
  if (returns.length !== n) throw new GaeShapeError({ input: "returns (output)", expected: `length ${n}`, actual: `length ${returns.length}` })
}

/**
 * GAE into caller-owned outputs (no allocation; doubles inside): the typed-array kernel, which is also what the
 * default dispatch runs on every backend but native `tensorflow`.
 *
 * **Shapes**: every `[numSteps, numEnvs]` input and both outputs have `numSteps * numEnvs` elements (row-major,
 * element `t * numEnvs + i`); `nextValue` / `nextDone` have `numEnvs`. Outputs: advantages Â_t and λ-returns
 * R_t = Â_t + V(s_t) (GAE, arXiv:1506.02438 eq. 16; CleanRL `ppo.py`'s loop, bit-identical to it in doubles).
 *
 * **Validation** is fused into the scan (column-blocked over contiguous envs): sizes and the `[numEnvs]` arrays are
 * checked first, a NaN/±Infinity or a non-0/1 done is detected in the scan and then named by {@link validate}. With
 * `truncations` the full {@link validate} runs first (it also checks `finalValues` where no truncation reads them).
 * Gotcha: when a value error is thrown, the outputs may already hold partial results (sizes are checked before any
 * write).
 * @throws GaeShapeError | NonFiniteValueError (also when an output has the wrong length)
 */
export const computeInto = (input: GaeInput, advantages: Float32Array | Float64Array, returns: Float32Array | Float64Array): void => {
  checkLengths(input, advantages, returns)
  if (input.truncations !== undefined || input.finalValues !== undefined) validate(input)
  if (scanInto(input, advantages, returns)) validate(input)
}

/**
 * GAE with the typed-array reference implementation, allocating the outputs.
 * @throws GaeShapeError | NonFiniteValueError
 */
export const computeSync = (input: GaeInput): GaeResult => {
  const n = input.numSteps * input.numEnvs
  const advantages = new Float32Array(Number.isInteger(n) && n > 0 ? n : 0)
  const returns = new Float32Array(advantages.length)
  computeInto(input, advantages, returns)
  return { advantages, returns }
}

/** Run `f`, failing with its typed errors (`GaeShapeError`, `NonFiniteValueError`); anything else is a defect. */
export const catchTyped = <A>(f: () => A): Effect.Effect<A, GaeShapeError | NonFiniteValueError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(f())
    } catch (e) {
      if (e instanceof GaeShapeError || e instanceof NonFiniteValueError) return Effect.fail(e)
      return Effect.die(e)
    }
  })

/** GAE (typed-array implementation) as an Effect that fails with a typed error. */
export const compute = (input: GaeInput): Effect.Effect<GaeResult, GaeShapeError | NonFiniteValueError> =>
  catchTyped(() => computeSync(input))

export const kernelName = "Gae"

/** The built-in implementations (for `KernelRegistry`). */
export const builtin: Builtin<GaeInput, GaeResult, GaeShapeError | NonFiniteValueError> = {
  kernelName,
  reference: computeSync,
  isInputError: (e): e is GaeShapeError | NonFiniteValueError => e instanceof GaeShapeError || e instanceof NonFiniteValueError
}

/**
 * GAE (arXiv:1506.02438) dispatched through `KernelRegistry.run`: by default the engine that measured fastest
 * (`KernelRegistry.defaultEngines`: the column-blocked typed-array scan), TensorFlow.js on native `tensorflow`;
 * `options.engine` overrides. On a backend failure (logged) the typed-array reference answers.
 * Fails with {@link GaeShapeError} / `NonFiniteValueError` on bad input.
 */
export const run = (input: GaeInput, options?: RunOptions): Effect.Effect<Dispatched<GaeResult>, GaeShapeError | NonFiniteValueError | KernelInputError> =>
  KernelRegistry.run(builtin, input, options)

/**
 * Normalize advantages in place over `x[start, end)`: `(x − mean) / (std + eps)` with the unbiased (n − 1) standard
 * deviation, as CleanRL's `(mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)` (torch's `.std()`
 * is unbiased). With one element the std is NaN in torch; here it is taken as 0 (the result is 0).
 */
export const normalizeInPlace = (x: Float32Array | Float64Array, eps = 1e-8, start = 0, end = x.length): void => {
  const n = end - start
  if (n <= 0) return
  let mean = 0
  for (let k = start; k < end; k++) mean += x[k]!
  mean /= n
  let ss = 0
  for (let k = start; k < end; k++) {
    const d = x[k]! - mean
    ss += d * d
  }
  const std = n > 1 ? Math.sqrt(ss / (n - 1)) : 0
  const inv = 1 / (std + eps)
  for (let k = start; k < end; k++) x[k] = (x[k]! - mean) * inv
}

/**
 * Normalized copy of `x`: `(x − mean) / (std + eps)`, unbiased std (torch `.std()`), `eps` default 1e-8.
 * @throws NonFiniteValueError when `x` holds NaN or ±Infinity (naming the index and value)
 */
export const normalizeAdvantages = (x: NumArray, eps = 1e-8): Float32Array => {
  for (let k = 0; k < x.length; k++) {
    if (!Number.isFinite(x[k]!)) throw new NonFiniteValueError({ where: "Gae.normalizeAdvantages", value: x[k]!, index: k })
  }
  const out = Float32Array.from(x as ArrayLike<number>)
  normalizeInPlace(out, eps)
  return out
}
