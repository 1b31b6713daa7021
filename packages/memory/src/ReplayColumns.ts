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

/** Check that a flag batch (`terminations`, `truncations`) has `length` entries. */
export const checkFlags = (where: string, x: ArrayLike<number | boolean>, length: number): void => {
  if (x.length !== length) throw new ShapeMismatchError({ where, expected: length, actual: x.length })
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
