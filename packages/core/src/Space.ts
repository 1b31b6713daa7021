/**
 * Spaces: what observations and actions an environment may produce or accept, with Gymnasium 1.x semantics.
 *
 * A space is plain, serializable data (a tagged struct described by the `Space` schema, so it can be written to
 * `config.json` or sent to a worker) plus the functions `contains`, `sample`, `flatDim` and `describe` on it.
 *
 * | space           | value type in TypeScript                      | Gymnasium equivalent          |
 * |-----------------|-----------------------------------------------|-------------------------------|
 * | `Discrete`      | `number` in `[start, start + n)`              | `spaces.Discrete(n, start)`   |
 * | `Box`           | typed array, row-major, `shape` elements      | `spaces.Box(low, high, shape, dtype)` |
 * | `MultiDiscrete` | `Int32Array` with `nvec.length` elements      | `spaces.MultiDiscrete(nvec, start=start)` |
 * | `MultiBinary`   | `Uint8Array` of 0/1 with `n` elements         | `spaces.MultiBinary(n)`       |
 * | `Text`          | `string` of `minLength..maxLength` from `charset` | `spaces.Text(max_length, min_length=..., charset=...)` |
 * | `Tuple`         | array of the component values                 | `spaces.Tuple`                |
 * | `Dict`          | record of the component values                | `spaces.Dict`                 |
 *
 * **Gotchas**
 * - `Box` values are flat typed arrays (`Float32Array` for `float32`, `Float64Array`, `Int32Array`, `Uint8Array`);
 *   `shape` says how to read them. `low`/`high` are per element (length = product of `shape`).
 * - `sample` follows Gymnasium's rules (uniform for bounded Box dimensions, exponential for half-bounded, normal for
 *   unbounded; `start + integers(n)` for Discrete), drawing from an explicit {@link Rng}.
 *
 * @see https://gymnasium.farama.org/api/spaces/ (Gymnasium 1.x spaces)
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { Rng } from "./Rng.js"

/** Element types of a `Box`. */
export const Dtype = Schema.Literals(["float32", "float64", "int32", "uint8"])
export type Dtype = typeof Dtype.Type

/** `{0, 1, ..., n-1} + start`. */
export const Discrete = Schema.TaggedStruct("Discrete", { n: Schema.Int, start: Schema.Int })
export interface Discrete extends Schema.Schema.Type<typeof Discrete> {}

/** A (possibly unbounded) box in R^shape; `low`/`high` are flat per-element bounds (±Infinity allowed). */
export const Box = Schema.TaggedStruct("Box", {
  shape: Schema.Array(Schema.Int),
  low: Schema.Array(Schema.Number),
  high: Schema.Array(Schema.Number),
  dtype: Dtype
})
export interface Box extends Schema.Schema.Type<typeof Box> {}

/** A vector of independent discrete values, element i in `[start[i], start[i] + nvec[i])`. */
export const MultiDiscrete = Schema.TaggedStruct("MultiDiscrete", {
  nvec: Schema.Array(Schema.Int),
  start: Schema.Array(Schema.Int)
})
export interface MultiDiscrete extends Schema.Schema.Type<typeof MultiDiscrete> {}

/** A vector of `n` bits. */
export const MultiBinary = Schema.TaggedStruct("MultiBinary", { n: Schema.Int })
export interface MultiBinary extends Schema.Schema.Type<typeof MultiBinary> {}

/** Strings of `minLength..maxLength` characters drawn from `charset`. */
export const Text = Schema.TaggedStruct("Text", {
  minLength: Schema.Int,
  maxLength: Schema.Int,
  charset: Schema.String
})
export interface Text extends Schema.Schema.Type<typeof Text> {}

/** Any space. */
export type Space = Discrete | Box | MultiDiscrete | MultiBinary | Text | TupleSpace | DictSpace

/** A fixed-length product of spaces. */
export interface TupleSpace {
  readonly _tag: "Tuple"
  readonly spaces: ReadonlyArray<Space>
}
/** A keyed product of spaces. */
export interface DictSpace {
  readonly _tag: "Dict"
  readonly spaces: { readonly [key: string]: Space }
}

/** Schema of any space (recursive through `Tuple` and `Dict`). */
export const Space: Schema.Codec<Space> = Schema.Union([
  Discrete,
  Box,
  MultiDiscrete,
  MultiBinary,
  Text,
  Schema.TaggedStruct("Tuple", { spaces: Schema.Array(Schema.suspend((): Schema.Codec<Space> => Space)) }),
  Schema.TaggedStruct("Dict", {
    spaces: Schema.Record(Schema.String, Schema.suspend((): Schema.Codec<Space> => Space))
  })
]) as any

/** The typed array a `Box` of a given dtype holds. */
export type BoxArray = Float32Array | Float64Array | Int32Array | Uint8Array

/** The TypeScript type of a value in space `S`. */
export type Value<S extends Space> = S extends Discrete ? number
  : S extends Box ? BoxArray
  : S extends MultiDiscrete ? Int32Array
  : S extends MultiBinary ? Uint8Array
  : S extends Text ? string
  : S extends TupleSpace ? Array<unknown>
  : S extends DictSpace ? Record<string, unknown>
  : never

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const FLOAT32_MAX = 3.4028234663852886e38

/** Constructors */

/** `Discrete(n, start = 0)`; `n` must be a positive integer. */
export const discrete = (n: number, start = 0): Discrete => {
  if (!Number.isInteger(n) || n <= 0) throw new RangeError(`Discrete: n must be a positive integer, got ${n}`)
  if (!Number.isInteger(start)) throw new RangeError(`Discrete: start must be an integer, got ${start}`)
  return { _tag: "Discrete", n, start }
}

/**
 * `Box(low, high, shape, dtype = "float32")`. Scalar bounds are broadcast to every element.
 * @throws RangeError when a bound array's length differs from the product of `shape` or low > high somewhere.
 */
export const box = (
  low: number | ReadonlyArray<number>,
  high: number | ReadonlyArray<number>,
  shape: ReadonlyArray<number>,
  dtype: Dtype = "float32"
): Box => {
  const size = shape.reduce((a, b) => a * b, 1)
  const expand = (b: number | ReadonlyArray<number>, name: string): Array<number> => {
    if (typeof b === "number") return new Array<number>(size).fill(b)
    if (b.length !== size) throw new RangeError(`Box: ${name} has ${b.length} elements, shape ${JSON.stringify(shape)} needs ${size}`)
    return [...b]
  }
  const lo = expand(low, "low")
  const hi = expand(high, "high")
  for (let i = 0; i < size; i++) {
    if (!(lo[i]! <= hi[i]!)) throw new RangeError(`Box: low[${i}] = ${lo[i]} exceeds high[${i}] = ${hi[i]}`)
  }
  return { _tag: "Box", shape: [...shape], low: lo, high: hi, dtype }
}

/**
 * `MultiDiscrete(nvec, start = zeros)` as in Gymnasium: element i takes the integers `start[i] .. start[i] + nvec[i] − 1`.
 * `start`, when given, must have the length of `nvec` (not checked here; {@link contains} then fails).
 * @see Gymnasium `spaces.MultiDiscrete`
 */
export const multiDiscrete = (nvec: ReadonlyArray<number>, start?: ReadonlyArray<number>): MultiDiscrete => ({
  _tag: "MultiDiscrete",
  nvec: [...nvec],
  start: start ? [...start] : nvec.map(() => 0)
})

/** `MultiBinary(n)` as in Gymnasium: vectors of `n` values, each 0 or 1. @see Gymnasium `spaces.MultiBinary` */
export const multiBinary = (n: number): MultiBinary => ({ _tag: "MultiBinary", n })

/**
 * `Text(maxLength, { minLength = 1, charset = alphanumeric })` as in Gymnasium: strings of `minLength..maxLength`
 * characters (inclusive), each drawn from `charset` (default `0-9A-Za-z`).
 * @see Gymnasium `spaces.Text`
 */
export const text = (maxLength: number, options: { minLength?: number; charset?: string } = {}): Text => ({
  _tag: "Text",
  minLength: options.minLength ?? 1,
  maxLength,
  charset: options.charset ?? ALPHANUMERIC
})

/** `Tuple(spaces)` as in Gymnasium: fixed-length arrays whose element i lies in `spaces[i]` (the array is copied). */
export const tuple = (spaces: ReadonlyArray<Space>): TupleSpace => ({ _tag: "Tuple", spaces: [...spaces] })

/** `Dict(spaces)` as in Gymnasium: objects whose value at each key lies in `spaces[key]` (the record is copied). */
export const dict = (spaces: { readonly [key: string]: Space }): DictSpace => ({ _tag: "Dict", spaces: { ...spaces } })

/** Number of elements of a `Box` (product of its shape). */
export const boxSize = (space: Box): number => space.shape.reduce((a, b) => a * b, 1)

/**
 * A zeroed typed array of `n` elements of `dtype`, or, given a (shared) buffer, a view of it
 * (`Float32Array` for `float32`, `Float64Array`, `Int32Array`, `Uint8Array`).
 */
export const allocate = (dtype: Dtype, n: number | ArrayBufferLike): BoxArray => {
  const arg = n as number & ArrayBufferLike
  switch (dtype) {
    case "float32":
      return new Float32Array(arg)
    case "float64":
      return new Float64Array(arg)
    case "int32":
      return new Int32Array(arg)
    case "uint8":
      return new Uint8Array(arg)
  }
}

const isTypedFor = (dtype: Dtype, x: unknown): x is BoxArray => {
  switch (dtype) {
    case "float32":
      return x instanceof Float32Array
    case "float64":
      return x instanceof Float64Array
    case "int32":
      return x instanceof Int32Array
    case "uint8":
      return x instanceof Uint8Array
  }
}

/**
 * Whether `x` is a member of `space` (Gymnasium's `space.contains(x)`): right type and length, every element
 * finite where the bounds are, within `[low, high]`, integral for discrete spaces.
 */
export const contains = (space: Space, x: unknown): boolean => {
  switch (space._tag) {
    case "Discrete":
      return typeof x === "number" && Number.isInteger(x) && x >= space.start && x < space.start + space.n
    case "Box": {
      if (!isTypedFor(space.dtype, x) || x.length !== space.low.length) return false
      for (let i = 0; i < x.length; i++) {
        const v = x[i]!
        if (Number.isNaN(v) || v < space.low[i]! || v > space.high[i]!) return false
      }
      return true
    }
    case "MultiDiscrete": {
      if (!(x instanceof Int32Array) || x.length !== space.nvec.length) return false
      for (let i = 0; i < x.length; i++) {
        if (x[i]! < space.start[i]! || x[i]! >= space.start[i]! + space.nvec[i]!) return false
      }
      return true
    }
    case "MultiBinary": {
      if (!(x instanceof Uint8Array) || x.length !== space.n) return false
      for (let i = 0; i < x.length; i++) if (x[i]! > 1) return false
      return true
    }
    case "Text": {
      if (typeof x !== "string") return false
      const chars = [...x]
      if (chars.length < space.minLength || chars.length > space.maxLength) return false
      return chars.every((ch) => space.charset.includes(ch))
    }
    case "Tuple":
      return Array.isArray(x) && x.length === space.spaces.length && space.spaces.every((s, i) => contains(s, x[i]))
    case "Dict": {
      if (typeof x !== "object" || x === null) return false
      const keys = Object.keys(space.spaces)
      const rec = x as Record<string, unknown>
      return Object.keys(rec).length === keys.length && keys.every((k) => k in rec && contains(space.spaces[k]!, rec[k]))
    }
  }
}

/**
 * A random member of `space`, drawn from `rng` with Gymnasium's sampling rules.
 * `Discrete` matches Gymnasium's stream exactly (`start + np_random.integers(n)`).
 */
export const sample = (space: Space, rng: Rng): unknown => {
  switch (space._tag) {
    case "Discrete":
      return space.start + rng.integers(space.n)
    case "Box": {
      const n = space.low.length
      const out = allocate(space.dtype, n)
      const integral = space.dtype === "int32" || space.dtype === "uint8"
      for (let i = 0; i < n; i++) {
        const lo = space.low[i]!
        const hi = space.high[i]!
        const loB = Number.isFinite(lo) && Math.abs(lo) < FLOAT32_MAX
        const hiB = Number.isFinite(hi) && Math.abs(hi) < FLOAT32_MAX
        let v: number
        if (integral) {
          v = loB && hiB ? lo + rng.integers(hi - lo + 1) : Math.round(rng.normal())
        } else if (loB && hiB) v = rng.uniform(lo, hi)
        else if (loB) v = lo - Math.log(1 - rng.random())
        else if (hiB) v = hi + Math.log(1 - rng.random())
        else v = rng.normal()
        out[i] = v
      }
      return out
    }
    case "MultiDiscrete": {
      const out = new Int32Array(space.nvec.length)
      for (let i = 0; i < out.length; i++) out[i] = space.start[i]! + rng.integers(space.nvec[i]!)
      return out
    }
    case "MultiBinary": {
      const out = new Uint8Array(space.n)
      for (let i = 0; i < out.length; i++) out[i] = rng.integers(2)
      return out
    }
    case "Text": {
      const chars = [...space.charset]
      const len = space.minLength + rng.integers(space.maxLength - space.minLength + 1)
      let s = ""
      for (let i = 0; i < len; i++) s += chars[rng.integers(chars.length)]
      return s
    }
    case "Tuple":
      return space.spaces.map((s) => sample(s, rng))
    case "Dict":
      return Object.fromEntries(Object.entries(space.spaces).map(([k, s]) => [k, sample(s, rng)]))
  }
}

/**
 * Length of the flat vector a value of `space` becomes (Gymnasium's `flatdim`): one-hot for `Discrete`,
 * concatenated one-hots for `MultiDiscrete`, element count for `Box`/`MultiBinary`.
 * @throws RangeError for `Text`, which has no fixed flat form.
 */
export const flatDim = (space: Space): number => {
  switch (space._tag) {
    case "Discrete":
      return space.n
    case "Box":
      return boxSize(space)
    case "MultiDiscrete":
      return space.nvec.reduce((a, b) => a + b, 0)
    case "MultiBinary":
      return space.n
    case "Text":
      throw new RangeError("flatDim: Text spaces have no fixed-size flat form")
    case "Tuple":
      return space.spaces.reduce((a, s) => a + flatDim(s), 0)
    case "Dict":
      return Object.values(space.spaces).reduce((a, s) => a + flatDim(s), 0)
  }
}

/**
 * Write the flat float encoding of `x` (a member of `space`) into `out` at `offset` (Gymnasium's `flatten`);
 * returns the number of elements written. No allocation: the hot path of policies and vector environments.
 */
export const flattenInto = (space: Space, x: unknown, out: Float32Array | Float64Array, offset = 0): number => {
  switch (space._tag) {
    case "Discrete": {
      out.fill(0, offset, offset + space.n)
      out[offset + (x as number) - space.start] = 1
      return space.n
    }
    case "Box":
    case "MultiBinary": {
      const a = x as BoxArray
      for (let i = 0; i < a.length; i++) out[offset + i] = a[i]!
      return a.length
    }
    case "MultiDiscrete": {
      const a = x as Int32Array
      let o = offset
      for (let i = 0; i < a.length; i++) {
        out.fill(0, o, o + space.nvec[i]!)
        out[o + a[i]! - space.start[i]!] = 1
        o += space.nvec[i]!
      }
      return o - offset
    }
    case "Text":
      throw new RangeError("flattenInto: Text spaces have no fixed-size flat form")
    case "Tuple": {
      let o = offset
      space.spaces.forEach((s, i) => (o += flattenInto(s, (x as Array<unknown>)[i], out, o)))
      return o - offset
    }
    case "Dict": {
      let o = offset
      for (const [k, s] of Object.entries(space.spaces)) o += flattenInto(s, (x as Record<string, unknown>)[k], out, o)
      return o - offset
    }
  }
}

/** A short human-readable description, as Gymnasium's `repr` (`Discrete(2)`, `Box(-4.8, 4.8, (4,), float32)`). */
export const describe = (space: Space): string => {
  switch (space._tag) {
    case "Discrete":
      return space.start === 0 ? `Discrete(${space.n})` : `Discrete(${space.n}, start=${space.start})`
    case "Box": {
      const same = (xs: ReadonlyArray<number>) => xs.every((v) => v === xs[0])
      const fmt = (xs: ReadonlyArray<number>) => (same(xs) ? String(xs[0]) : `[${xs.join(", ")}]`)
      return `Box(${fmt(space.low)}, ${fmt(space.high)}, (${space.shape.join(", ")}${space.shape.length === 1 ? "," : ""}), ${space.dtype})`
    }
    case "MultiDiscrete":
      return `MultiDiscrete([${space.nvec.join(", ")}])`
    case "MultiBinary":
      return `MultiBinary(${space.n})`
    case "Text":
      return `Text(${space.minLength}, ${space.maxLength})`
    case "Tuple":
      return `Tuple(${space.spaces.map(describe).join(", ")})`
    case "Dict":
      return `Dict(${Object.entries(space.spaces).map(([k, s]) => `${k}: ${describe(s)}`).join(", ")})`
  }
}

/**
 * Whether two spaces are structurally equal: same kind, shapes, dtypes and bounds (`-Infinity`, `+Infinity` and
 * `NaN` compared by value, `-0` equal to `0`), and for `Tuple`/`Dict` the same members in the same order.
 *
 * @since 0.1.0
 */
export const equals = (a: Space, b: Space): boolean => JSON.stringify(a, exactNumbers) === JSON.stringify(b, exactNumbers)

// JSON.stringify writes ±Infinity and NaN as `null`; spell them out so that a Box with `high = +Infinity` and one with
// `high = -Infinity` are not "equal". Typed-array bounds are written as plain arrays first.
const exactNumbers = (_key: string, v: unknown): unknown => {
  if (typeof v === "number") return Number.isFinite(v) ? (v === 0 ? 0 : v) : String(v)
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>, (x) => (Number.isFinite(x) ? x : String(x)))
  return v
}
