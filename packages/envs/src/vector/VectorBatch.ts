/**
 * Batch layouts of vector environments (see `VectorEnv.ts`): one flat typed array per batch, row i for sub-env i.
 *
 * - `Box` of dtype d with k elements: a typed array of d with `n * k` elements.
 * - `Discrete`: an `Int32Array(n)`.
 * - any other space: an `Array<unknown>(n)` of values.
 *
 * Gymnasium's equivalent is `gymnasium/vector/utils/space_utils.py` (`create_empty_array`, `concatenate`, `iterate`).
 * @since 0.1.0
 */
import { InvalidActionError, Space } from "@autodidact/core"
import type { Batch } from "./VectorEnv.js"

/** Elements per row of a batch for `space` (1 for non-`Box` spaces). */
export const rowSize = (space: Space.Space): number => (space._tag === "Box" ? Space.boxSize(space) : 1)

/** A zeroed batch of `n` rows for `space`. */
export const create = (space: Space.Space, n: number): Batch => {
  if (space._tag === "Discrete") return new Int32Array(n)
  if (space._tag === "Box") return Space.allocate(space.dtype, n * Space.boxSize(space))
  return new Array<unknown>(n).fill(undefined)
}

/** Write `value` (a member of `space`) as row `i` of `batch`. */
export const write = (space: Space.Space, batch: Batch, i: number, value: unknown): void => {
  if (space._tag === "Discrete") (batch as Int32Array)[i] = value as number
  else if (space._tag === "Box") {
    const k = (value as ArrayLike<number>).length
    ;(batch as Float32Array).set(value as ArrayLike<number>, i * k)
  } else (batch as Array<unknown>)[i] = value
}

/** Row `i` of `batch` as a member of `space` (a fresh typed array for `Box` rows). */
export const read = (space: Space.Space, batch: Batch, i: number): unknown => {
  if (space._tag === "Discrete") return batch[i]
  if (space._tag === "Box") {
    const k = Space.boxSize(space)
    if (Array.isArray(batch)) return copyBox(space, batch[i] as ArrayLike<number>)
    const row = (batch as Float32Array).subarray(i * k, (i + 1) * k)
    return copyBox(space, row)
  }
  return (batch as Array<unknown>)[i]
}

const copyBox = (space: Space.Box, row: ArrayLike<number>): Space.BoxArray => {
  switch (space.dtype) {
    case "float32":
      return Float32Array.from(row)
    case "float64":
      return Float64Array.from(row)
    case "int32":
      return Int32Array.from(row)
    case "uint8":
      return Uint8Array.from(row)
  }
}

/**
 * Check that an action batch has the layout `space` needs for `n` sub-envs.
 * @throws InvalidActionError naming the batch and the expected layout.
 */
export const checkActions = (envId: string, space: Space.Space, actions: Batch, n: number): void => {
  const expected = space._tag === "Box" && !Array.isArray(actions) ? n * Space.boxSize(space) : n
  if (actions === null || typeof actions !== "object" || actions.length !== expected) {
    throw new InvalidActionError({
      envId,
      action: actions,
      space: `a batch of ${expected} elements for ${n} x ${Space.describe(space)}`
    })
  }
}
