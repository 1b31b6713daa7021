/**
 * `TransformObservation`: observations mapped by a function (Gymnasium's `TransformObservation`).
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/wrappers/transform_observation.py
 * @since 0.1.0
 */
import type { Space } from "@autodidact/core"
import type { AnyEnv } from "../Env.js"
import { ObservationWrapper } from "./Wrapper.js"

/**
 * Applies `f` to every observation; pass `observationSpace` when `f` changes the space.
 * @category wrappers
 */
export class TransformObservation<Obs = any, Act = any, InnerObs = any> extends ObservationWrapper<Obs, Act, InnerObs> {
  /** @param f the map; @param space the observation space after `f` (default: the wrapped env's). */
  constructor(env: AnyEnv, readonly f: (observation: InnerObs) => Obs, private readonly space?: Space.Space) {
    super(env)
  }
  /** The space given to the constructor, else the wrapped env's. */
  override get observationSpace(): Space.Space {
    return this.space ?? this.env.observationSpace
  }
  /** `f(observation)`. */
  observation(observation: InnerObs): Obs {
    return this.f(observation)
  }
}
