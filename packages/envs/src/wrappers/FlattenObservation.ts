/**
 * `FlattenObservation`: observations flattened to one `Float32Array` (Gymnasium's `FlattenObservation`, with
 * `gymnasium.spaces.flatten`).
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/wrappers/transform_observation.py
 * @since 0.1.0
 */
import { Space } from "@autodidact/core"
import type { AnyEnv } from "../Env.js"
import { ObservationWrapper } from "./Wrapper.js"

/** Flat `[low, high]` bounds of a space's flat encoding (one-hot parts are in [0, 1]). */
const flatBounds = (space: Space.Space, low: Array<number>, high: Array<number>): void => {
  switch (space._tag) {
    case "Box":
      low.push(...space.low)
      high.push(...space.high)
      return
    case "Tuple":
      for (const s of space.spaces) flatBounds(s, low, high)
      return
    case "Dict":
      for (const s of Object.values(space.spaces)) flatBounds(s, low, high)
      return
    default: {
      const n = Space.flatDim(space)
      for (let i = 0; i < n; i++) {
        low.push(0)
        high.push(1)
      }
    }
  }
}

/**
 * Flattens observations to a `Float32Array` of `Space.flatDim(observationSpace)` elements with
 * `Space.flattenInto` (one-hot for `Discrete`, concatenation for `Tuple`/`Dict`).
 * @throws RangeError for `Text` observation spaces (no flat form).
 * @category wrappers
 */
export class FlattenObservation<Act = any> extends ObservationWrapper<Float32Array, Act, unknown> {
  private readonly space: Space.Box
  private readonly inner: Space.Space
  /** @throws RangeError when the wrapped observation space is or contains a `Text` space. */
  constructor(env: AnyEnv) {
    super(env)
    this.inner = env.observationSpace
    const low: Array<number> = []
    const high: Array<number> = []
    flatBounds(this.inner, low, high)
    this.space = Space.box(low, high, [low.length], "float32")
  }
  /** `Box(low, high, [flatDim], float32)`: the wrapped bounds for `Box` parts, [0, 1] for one-hot parts. */
  override get observationSpace(): Space.Space {
    return this.space
  }
  /** The flat encoding of `observation` (a new `Float32Array(flatDim)`). */
  observation(observation: unknown): Float32Array {
    const out = new Float32Array(this.space.low.length)
    Space.flattenInto(this.inner, observation, out, 0)
    return out
  }
}
