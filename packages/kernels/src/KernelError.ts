/**
 * Typed errors shared by every kernel, and the input checks that raise them.
 *
 * **Details**
 * - {@link KernelInputError} is bad input: a shape mismatch, an empty segment (a group with no member, a row with no
 *   valid action), a NaN/±Infinity, or a value out of range. It names the kernel, the backend that was asked to run it
 *   (`typed-array` for the reference implementations), the input, the offending shape and what was expected.
 * - {@link KernelBackendError} is a backend that could not run a kernel (initialization failure, an op missing on that
 *   backend). `KernelRegistry.run` logs it and falls back to the typed-array reference; it never turns into numbers.
 * - The checks are plain functions that throw (kernels are synchronous hot code); the Effect entry points turn the
 *   throw into a typed failure.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** Backend name of the typed-array reference implementations. */
export const REFERENCE = "typed-array"

/** What is wrong with an input. */
export const InputReason = Schema.Literals(["shape", "empty-segment", "non-finite", "range"])
export type InputReason = typeof InputReason.Type

/**
 * Bad input to a kernel: shape mismatch, empty segment, NaN/Infinity, value out of range.
 * @category errors
 */
export class KernelInputError extends Schema.TaggedError<KernelInputError>()("KernelInputError", {
  kernel: Schema.String,
  backend: Schema.String,
  input: Schema.String,
  reason: InputReason,
  /** The offending shape (`[4096, 31]`), or the shape of the array holding the offending value. */
  shape: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `${this.kernel} on ${this.backend}: input ${this.input} ${this.shape}: ${this.reason}: ${this.detail}`
  }
}

/**
 * A backend could not run a kernel (initialization failure, missing op). Logged and answered by the typed-array
 * reference by `KernelRegistry.run`.
 * @category errors
 */
export class KernelBackendError extends Schema.TaggedError<KernelBackendError>()("KernelBackendError", {
  kernel: Schema.String,
  backend: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.kernel} could not run on backend ${this.backend}: ${this.reason}`
  }
}

/** Where a check runs: the kernel and the backend named in its errors. */
export interface Site {
  readonly kernel: string
  readonly backend: string
}

/** `[a, b]` */
export const shapeString = (shape: ReadonlyArray<number>): string => `[${shape.join(", ")}]`

/** Throw a {@link KernelInputError}. */
export const fail = (site: Site, input: string, reason: InputReason, shape: string, detail: string): never => {
  throw new KernelInputError({ kernel: site.kernel, backend: site.backend, input, reason, shape, detail })
}

/** Check that a size is a positive (or, with `allowZero`, non-negative) integer. */
export const checkSize = (site: Site, input: string, n: number, allowZero = false): void => {
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1)) {
    fail(site, input, "range", String(n), `expected a ${allowZero ? "non-negative" : "positive"} integer`)
  }
}

/** Check that `x` has `shape`'s element count (the shape is only used for the message). */
export const checkShape = (site: Site, input: string, x: ArrayLike<number> | undefined, shape: ReadonlyArray<number>): void => {
  let n = 1
  for (const d of shape) n *= d
  if (x === undefined) fail(site, input, "shape", "undefined", `expected ${shapeString(shape)} (${n} elements)`)
  else if (x.length !== n) fail(site, input, "shape", `[${x.length}]`, `expected ${shapeString(shape)} (${n} elements), got ${x.length} elements`)
}

/** Check that every element is finite; names the first NaN/±Infinity's flat index and value. */
export const checkFinite = (site: Site, input: string, x: ArrayLike<number>, shape: ReadonlyArray<number> = [x.length]): void => {
  for (let k = 0; k < x.length; k++) {
    const v = x[k]!
    // v - v is NaN exactly for NaN and ±Infinity
    if (v - v !== 0) fail(site, input, "non-finite", shapeString(shape), `${v} at flat index ${k}`)
  }
}

/** Check length and finiteness at once. */
export const checkArray = (site: Site, input: string, x: ArrayLike<number> | undefined, shape: ReadonlyArray<number>): void => {
  checkShape(site, input, x, shape)
  checkFinite(site, input, x!, shape)
}

/** Check that a scalar option lies in `[lo, hi]`. */
export const checkRange = (site: Site, input: string, v: number, lo: number, hi: number): void => {
  if (!(v >= lo && v <= hi)) fail(site, input, "range", String(v), `expected a number in [${lo}, ${hi}]`)
}

/** Check that every element is 0 or 1 (done flags, masks). */
export const checkBinary = (site: Site, input: string, x: ArrayLike<number>, shape: ReadonlyArray<number>): void => {
  checkShape(site, input, x, shape)
  for (let k = 0; k < x.length; k++) {
    const v = x[k]
    if (v !== 0 && v !== 1) fail(site, input, "range", shapeString(shape), `expected 0 or 1, got ${v} at flat index ${k}`)
  }
}
