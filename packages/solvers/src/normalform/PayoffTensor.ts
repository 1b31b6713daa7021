/**
 * Payoff tensors: the normal-form (matrix, n-player tensor) games that meta-solvers, PSRO and JPSRO work on.
 *
 * A payoff tensor for `n` players with `shape[i]` actions each stores one `Float64Array` of utilities per player,
 * row-major over joint actions: the joint action `(a_0, ..., a_{n-1})` sits at index `sum_i a_i * stride_i` with
 * the last player fastest (`stride_{n-1} = 1`), as NumPy's C order and OpenSpiel's `matrix_game`/`tensor_game`.
 *
 * **When to use**: build a game with {@link make} (validating) or {@link fromMatrices} / {@link fromFunction} /
 * {@link random}; restrict it to a population of strategies with {@link restrict} (a PSRO meta-game).
 *
 * **Details**: the interface is structural and identical to `PayoffTensor` in `@autodidact/envs`
 * (`NormalFormGame.ts`), so tensors from either package are interchangeable.
 *
 * **Errors**: {@link InvalidPayoffTensorError} names the player, index and value of a wrong length, a NaN or an
 * infinite payoff, or a non-positive dimension.
 *
 * @example
 * ```ts
 * import { PayoffTensor } from "@autodidact/solvers"
 * const rps = PayoffTensor.zeroSum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
 * rps.shape // [3, 3]
 * ```
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import { NormalFormGame } from "@autodidact/envs"
import { Effect, Schema } from "effect"

/**
 * A normal-form game: actions per player and one row-major payoff array per player (last player fastest); the
 * type of `@autodidact/envs`' `NormalFormGame`, so its games (rock-paper-scissors, ...) are payoff tensors as they are.
 */
export type PayoffTensor = NormalFormGame.PayoffTensor

/**
 * A payoff tensor (or a distribution/strategy over one) that is malformed: a wrong length, NaN or infinite entry,
 * a non-positive dimension, an empty strategy set. Names the player, index and value where they apply.
 * @category errors
 */
export class InvalidPayoffTensorError extends Schema.TaggedError<InvalidPayoffTensorError>()("InvalidPayoffTensorError", {
  reason: Schema.String,
  player: Schema.optional(Schema.Number),
  index: Schema.optional(Schema.Number),
  value: Schema.optional(Schema.Unknown)
}) {
  override get message() {
    const where = [
      this.player === undefined ? "" : `player ${this.player}`,
      this.index === undefined ? "" : `index ${this.index}`,
      this.value === undefined ? "" : `value ${String(this.value)}`
    ].filter((s) => s !== "").join(", ")
    return `Invalid payoff tensor: ${this.reason}${where === "" ? "" : ` (${where})`}`
  }
}

/** Number of joint actions, `prod(shape)`. */
export const size = (shape: ReadonlyArray<number>): number => {
  let n = 1
  for (const k of shape) n *= k
  return n
}

/** Row-major strides (last player fastest). */
export const strides: (shape: ReadonlyArray<number>) => Array<number> = NormalFormGame.strides

/** Flat index of a joint action. */
export const indexOf: (shape: ReadonlyArray<number>, actions: ReadonlyArray<number>) => number = NormalFormGame.jointIndex

/** Joint action of a flat index (inverse of {@link indexOf}). */
export const actionsOf = (shape: ReadonlyArray<number>, index: number): Array<number> => {
  const out = new Array<number>(shape.length)
  for (let i = shape.length - 1; i >= 0; i--) {
    out[i] = index % shape[i]!
    index = Math.floor(index / shape[i]!)
  }
  return out
}

/** Validate a shape and payoffs, returning the first problem found (or undefined). */
export const check = (shape: ReadonlyArray<number>, payoffs: ReadonlyArray<ArrayLike<number>>): InvalidPayoffTensorError | undefined => {
  if (!Array.isArray(shape) || shape.length === 0) return new InvalidPayoffTensorError({ reason: "shape must list at least one player", value: JSON.stringify(shape) })
  for (let p = 0; p < shape.length; p++) {
    const k = shape[p]
    if (typeof k !== "number" || !Number.isSafeInteger(k) || k <= 0) {
      return new InvalidPayoffTensorError({ reason: "every player needs a positive integer number of actions (empty strategy set?)", player: p, value: k })
    }
  }
  if (payoffs.length !== shape.length) {
    return new InvalidPayoffTensorError({ reason: `expected ${shape.length} payoff arrays (one per player), got ${payoffs.length}`, value: payoffs.length })
  }
  const n = size(shape)
  for (let p = 0; p < payoffs.length; p++) {
    const u = payoffs[p]!
    if (u.length !== n) return new InvalidPayoffTensorError({ reason: `payoff array length ${u.length} != prod(shape) = ${n}`, player: p, value: u.length })
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(u[i])) return new InvalidPayoffTensorError({ reason: "payoff is not a finite number", player: p, index: i, value: u[i] })
    }
  }
  return undefined
}

/** Build a validated tensor (copies the payoffs into fresh `Float64Array`s); throws {@link InvalidPayoffTensorError}. */
export const unsafeMake = (shape: ReadonlyArray<number>, payoffs: ReadonlyArray<ArrayLike<number>>): PayoffTensor => {
  const err = check(shape, payoffs)
  if (err !== undefined) throw err
  return { shape: [...shape], payoffs: payoffs.map((u) => Float64Array.from(u)) }
}

/** Build a validated tensor, failing with {@link InvalidPayoffTensorError}. */
export const make = (shape: ReadonlyArray<number>, payoffs: ReadonlyArray<ArrayLike<number>>): Effect.Effect<PayoffTensor, InvalidPayoffTensorError> =>
  Effect.suspend(() => {
    const err = check(shape, payoffs)
    return err === undefined ? Effect.succeed(unsafeMake(shape, payoffs)) : Effect.fail(err)
  })

/** Validate a tensor that came from elsewhere (returned unchanged when valid). */
export const validate = (tensor: PayoffTensor): Effect.Effect<PayoffTensor, InvalidPayoffTensorError> =>
  Effect.suspend(() => {
    const err = check(tensor.shape, tensor.payoffs)
    return err === undefined ? Effect.succeed(tensor) : Effect.fail(err)
  })

/** A bimatrix game from the row player's and column player's payoff matrices (`rows[i][j]`). Throws on bad input. */
export const fromMatrices = (rowPayoffs: ReadonlyArray<ReadonlyArray<number>>, colPayoffs: ReadonlyArray<ReadonlyArray<number>>): PayoffTensor => {
  const m = rowPayoffs.length
  const n = m === 0 ? 0 : rowPayoffs[0]!.length
  for (const [p, mat] of [rowPayoffs, colPayoffs].entries()) {
    if (mat.length !== m) throw new InvalidPayoffTensorError({ reason: `matrix has ${mat.length} rows, expected ${m}`, player: p })
    for (const [i, row] of mat.entries()) {
      if (row.length !== n) throw new InvalidPayoffTensorError({ reason: `row ${i} has ${row.length} entries, expected ${n}`, player: p, index: i })
    }
  }
  return unsafeMake([m, n], [rowPayoffs.flat(), colPayoffs.flat()])
}

/** A two-player zero-sum game from the row player's matrix (the column player gets the negation). */
export const zeroSum = (matrix: ReadonlyArray<ReadonlyArray<number>>): PayoffTensor =>
  fromMatrices(matrix, matrix.map((row) => row.map((x) => (x === 0 ? 0 : -x))))

/** A tensor whose payoffs are `f(jointAction)` (one utility per player). Throws on bad input. */
export const fromFunction = (shape: ReadonlyArray<number>, f: (actions: ReadonlyArray<number>) => ReadonlyArray<number>): PayoffTensor => {
  const err = check(shape, shape.map(() => new Float64Array(size(shape))))
  if (err !== undefined) throw err
  const n = size(shape)
  const payoffs = shape.map(() => new Float64Array(n))
  for (let i = 0; i < n; i++) {
    const u = f(actionsOf(shape, i))
    for (let p = 0; p < shape.length; p++) payoffs[p]![i] = u[p]!
  }
  return unsafeMake(shape, payoffs)
}

/** A general-sum game with payoffs drawn i.i.d. uniform in `[low, high)` (player-major, then joint index order). */
export const random = (shape: ReadonlyArray<number>, rng: Rng, low = 0, high = 1): PayoffTensor => {
  const n = size(shape)
  const payoffs = shape.map(() => {
    const u = new Float64Array(n)
    for (let i = 0; i < n; i++) u[i] = rng.uniform(low, high)
    return u
  })
  return unsafeMake(shape, payoffs)
}

/**
 * The sub-game where player `p` may only use the actions `sets[p]` (in that order): a PSRO/JPSRO meta-game.
 * Throws {@link InvalidPayoffTensorError} on an empty set or an out-of-range action.
 */
export const restrict = (tensor: PayoffTensor, sets: ReadonlyArray<ReadonlyArray<number>>): PayoffTensor => {
  const shape = tensor.shape
  if (sets.length !== shape.length) throw new InvalidPayoffTensorError({ reason: `expected ${shape.length} strategy sets, got ${sets.length}` })
  for (let p = 0; p < sets.length; p++) {
    if (sets[p]!.length === 0) throw new InvalidPayoffTensorError({ reason: "empty strategy set", player: p })
    for (const [i, a] of sets[p]!.entries()) {
      if (!Number.isInteger(a) || a < 0 || a >= shape[p]!) throw new InvalidPayoffTensorError({ reason: `action out of range [0, ${shape[p]})`, player: p, index: i, value: a })
    }
  }
  const subShape = sets.map((s) => s.length)
  const n = size(subShape)
  const st = strides(shape)
  const payoffs = shape.map(() => new Float64Array(n))
  for (let j = 0; j < n; j++) {
    const sub = actionsOf(subShape, j)
    let full = 0
    for (let p = 0; p < shape.length; p++) full += sets[p]![sub[p]!]! * st[p]!
    for (let p = 0; p < shape.length; p++) payoffs[p]![j] = tensor.payoffs[p]![full]!
  }
  return { shape: subShape, payoffs }
}

/** Largest absolute payoff (at least 1): the scale used for tolerances. */
export const scale = (tensor: PayoffTensor): number => {
  let m = 1
  for (const u of tensor.payoffs) for (let i = 0; i < u.length; i++) m = Math.max(m, Math.abs(u[i]!))
  return m
}
