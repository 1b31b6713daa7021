/**
 * Input checks and row copies shared by the replay buffers, the n-step accumulator and the episode buffer.
 *
 * **Details**
 * - Inputs are validated completely *before* anything is written, so a rejected `add`/`addBatch` leaves the buffer
 *   exactly as it was (a full ring never loses its oldest row to a bad insert).
 * - Accepted containers per column dtype: `float32` takes `Float32Array`, `Float64Array` or a plain number array
 *   (finite values); `uint8` takes `Uint8Array`, `Uint8ClampedArray` or a plain array (integers 0..255); `int32`
 *   takes `Int32Array` or a plain array (integers). Any other typed array is a {@link DtypeMismatchError}.
 * - No allocation: plain loops over typed arrays.
 *
 * @since 0.1.0
 */
import { InvalidOptionError, NonFiniteValueError } from "@autodidact/core"
import { DtypeMismatchError, ShapeMismatchError } from "./ReplayErrors.js"

/** Element type of an observation column: `float32` (default) or `uint8` (pixels, 4x smaller). */
export type ObservationDtype = "float32" | "uint8"
/** Element type of an action column: `int32` (discrete, default) or `float32` (continuous). */
export type ActionDtype = "int32" | "float32"
/** Any column dtype that takes caller input. */
export type InputDtype = "float32" | "uint8" | "int32"

/** A typed column of one of the input dtypes. */
export type InputColumn = Float32Array | Uint8Array | Int32Array

/** A new zeroed column of `length` elements. */
export const allocate = (dtype: InputDtype, length: number): InputColumn =>
  dtype === "float32" ? new Float32Array(length) : dtype === "uint8" ? new Uint8Array(length) : new Int32Array(length)

const containerName = (x: unknown): string =>
  Array.isArray(x) ? "Array" : x !== null && typeof x === "object" ? (x.constructor?.name ?? "object") : typeof x

const containerOk = (x: unknown, dtype: InputDtype): boolean => {
  if (Array.isArray(x)) return true
  switch (dtype) {
    case "float32":
      return x instanceof Float32Array || x instanceof Float64Array
    case "uint8":
      return x instanceof Uint8Array || x instanceof Uint8ClampedArray
    case "int32":
      return x instanceof Int32Array
  }
}

/**
 * Check that `x` is an accepted container for `dtype` with `length` elements whose values fit the dtype.
 * @throws DtypeMismatchError for a wrong container or an out-of-type value (naming it), ShapeMismatchError for a
 *   wrong length, NonFiniteValueError for NaN/±Infinity in a float column.
 */
export const check = (where: string, x: ArrayLike<number>, dtype: InputDtype, length: number): void => {
  if (!containerOk(x, dtype)) {
    throw new DtypeMismatchError({ where, expected: `${dtype} values (${expectedContainers[dtype]})`, actual: containerName(x) })
  }
  if (x.length !== length) throw new ShapeMismatchError({ where, expected: length, actual: x.length })
  if (dtype === "float32") {
    for (let i = 0; i < length; i++) {
      const v = x[i]!
      if (!(v - v === 0)) throw new NonFiniteValueError({ where, value: v, index: i })
    }
  } else if (dtype === "uint8") {
    if (x instanceof Uint8Array || x instanceof Uint8ClampedArray) return
    for (let i = 0; i < length; i++) {
      const v = x[i]!
      if (!Number.isInteger(v) || v < 0 || v > 255) {
        throw new DtypeMismatchError({ where, expected: "an integer in [0, 255]", actual: `element ${i}`, value: v })
      }
    }
  } else {
    if (x instanceof Int32Array) return
    for (let i = 0; i < length; i++) {
      const v = x[i]!
      if (!Number.isInteger(v) || v < -2147483648 || v > 2147483647) {
        throw new DtypeMismatchError({ where, expected: "an int32 integer", actual: `element ${i}`, value: v })
      }
    }
  }
}

const expectedContainers: Record<InputDtype, string> = {
  float32: "Float32Array, Float64Array or number[]",
  uint8: "Uint8Array or number[]",
  int32: "Int32Array or number[]"
}

/**
 * Check a scalar for a column of `dtype` (a discrete action, a reward).
 * @throws NonFiniteValueError for NaN/±Infinity, DtypeMismatchError for a fractional int32 or non-number.
 */
export const checkScalar = (where: string, v: number, dtype: InputDtype): void => {
  if (typeof v !== "number") throw new DtypeMismatchError({ where, expected: "a number", actual: typeof v, value: v })
  if (!(v - v === 0)) throw new NonFiniteValueError({ where, value: v })
  if (dtype !== "float32" && !Number.isInteger(v)) {
    throw new DtypeMismatchError({ where, expected: `an ${dtype} integer`, actual: "a fractional number", value: v })
  }
}

/** Copy `dim` elements `src[srcOff..]` to `dst[dstOff..]` (no checks; call {@link check} first). */
export const copy = (src: ArrayLike<number>, srcOff: number, dst: InputColumn | Float64Array, dstOff: number, dim: number): void => {
  for (let k = 0; k < dim; k++) dst[dstOff + k] = src[srcOff + k]!
}

/** A terminated/truncated flag as given (`true`, a non-zero number) read as a boolean; `undefined` is false. */
export const isSet = (x: boolean | number | undefined): boolean => x === true || (typeof x === "number" && x !== 0)

/** Check that a flag batch (`terminations`, `truncations`) has `length` entries. */
export const checkFlags = (where: string, x: ArrayLike<number | boolean>, length: number): void => {
  if (x.length !== length) throw new ShapeMismatchError({ where, expected: length, actual: x.length })
}

/** The row layout of a buffer: observation and action widths and element types. */
export interface Layout {
  readonly obsDim: number
  readonly actDim: number
  readonly observationDtype: ObservationDtype
  readonly actionDtype: ActionDtype
}

/** The names a transition's columns carry in errors (built once per call site, so checks allocate nothing). */
export interface TransitionNames {
  readonly observation: string
  readonly nextObservation: string
  readonly action: string
  readonly reward: string
}

/** {@link TransitionNames} prefixed by `where` (e.g. `"ReplayBuffer.add"` → `"ReplayBuffer.add observation"`). */
export const transitionNames = (where: string): TransitionNames => ({
  observation: `${where} observation`,
  nextObservation: `${where} nextObservation`,
  action: `${where} action`,
  reward: `${where} reward`
})

/**
 * Check an action for `layout`: a number when `actDim` is 1 (finite; an integer for `int32`), else `[actDim]`.
 * @throws ShapeMismatchError (a number where `actDim > 1`, or a wrong length), DtypeMismatchError, NonFiniteValueError.
 */
export const checkAction = (where: string, layout: Layout, action: number | ArrayLike<number>): void => {
  if (typeof action === "number" && layout.actDim === 1) checkScalar(where, action, layout.actionDtype)
  else if (typeof action === "number") throw new ShapeMismatchError({ where, expected: layout.actDim, actual: 1 })
  else check(where, action, layout.actionDtype, layout.actDim)
}

/**
 * Check one transition `(s, a, r, s')` before anything is written: `observation`, `nextObservation` `[obsDim]` of
 * the observation dtype, `action` (see {@link checkAction}), `reward` finite.
 * @throws ShapeMismatchError, DtypeMismatchError, NonFiniteValueError naming the column.
 */
export const checkTransition = (
  names: TransitionNames,
  layout: Layout,
  observation: ArrayLike<number>,
  action: number | ArrayLike<number>,
  reward: number,
  nextObservation: ArrayLike<number>
): void => {
  check(names.observation, observation, layout.observationDtype, layout.obsDim)
  check(names.nextObservation, nextObservation, layout.observationDtype, layout.obsDim)
  checkAction(names.action, layout, action)
  checkScalar(names.reward, reward, "float32")
}

/** The names a vector step's columns carry in errors (built once per call site). */
export interface StepNames {
  readonly observations: string
  readonly nextObservations: string
  readonly actions: string
  readonly rewards: string
  readonly terminations: string
  readonly truncations: string
}

/** {@link StepNames} prefixed by `where` (e.g. `"NStep.addBatch"`). */
export const stepNames = (where: string): StepNames => ({
  observations: `${where} observations`,
  nextObservations: `${where} nextObservations`,
  actions: `${where} actions`,
  rewards: `${where} rewards`,
  terminations: `${where} terminations`,
  truncations: `${where} truncations`
})

/**
 * Check one vector-env step of `n` rows (row `i` is env `i`) before anything is written: `observations`,
 * `nextObservations` `[n * obsDim]` of the observation dtype, `actions` `[n * actDim]` of the action dtype,
 * `rewards` `[n]` finite (any array of numbers), `terminations`, `truncations` `[n]`.
 * @throws ShapeMismatchError, DtypeMismatchError, NonFiniteValueError naming the column (and the env index).
 */
export const checkStep = (
  names: StepNames,
  layout: Layout,
  n: number,
  observations: ArrayLike<number>,
  actions: ArrayLike<number>,
  rewards: ArrayLike<number>,
  nextObservations: ArrayLike<number>,
  terminations: ArrayLike<number | boolean>,
  truncations: ArrayLike<number | boolean>
): void => {
  check(names.observations, observations, layout.observationDtype, n * layout.obsDim)
  check(names.nextObservations, nextObservations, layout.observationDtype, n * layout.obsDim)
  check(names.actions, actions, layout.actionDtype, n * layout.actDim)
  if (rewards.length !== n) throw new ShapeMismatchError({ where: names.rewards, expected: n, actual: rewards.length })
  for (let i = 0; i < n; i++) {
    const r = rewards[i]!
    if (!(r - r === 0)) throw new NonFiniteValueError({ where: names.rewards, value: r, index: i })
  }
  checkFlags(names.terminations, terminations, n)
  checkFlags(names.truncations, truncations, n)
}

/**
 * Check that an option is an integer in `[min, max]`.
 * @throws InvalidOptionError naming the option and value.
 */
export const intOption = (option: string, value: unknown, min: number, max = 2147483647): number => {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidOptionError({ option, value, reason: `expected an integer in [${min}, ${max}]` })
  }
  return value
}

/**
 * Check that an option is a finite number in `[min, max]`.
 * @throws InvalidOptionError naming the option and value.
 */
export const numberOption = (option: string, value: unknown, min: number, max: number): number => {
  if (typeof value !== "number" || !(value >= min && value <= max)) {
    throw new InvalidOptionError({ option, value, reason: `expected a number in [${min}, ${max}]` })
  }
  return value
}

/**
 * Check that an option is one of `allowed`.
 * @throws InvalidOptionError naming the option and value.
 */
export const enumOption = <A extends string>(option: string, value: unknown, allowed: ReadonlyArray<A>): A => {
  if (!allowed.includes(value as A)) {
    throw new InvalidOptionError({ option, value, reason: `expected one of ${allowed.join(", ")}` })
  }
  return value as A
}
