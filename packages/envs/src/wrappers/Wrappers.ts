/**
 * Wrappers: environments that change one thing about another environment, composable and stackable, each named
 * by what it changes (Gymnasium's `gymnasium.Wrapper` family).
 *
 * | wrapper | changes | Gymnasium source |
 * |---|---|---|
 * | {@link Wrapper} | nothing (forwards everything; base class) | `gymnasium/core.py` `Wrapper` |
 * | {@link ObservationWrapper}, {@link RewardWrapper}, {@link ActionWrapper} | one field, by a method | `gymnasium/core.py` |
 * | {@link Checked} | nothing, but throws on misuse (step before reset or after the end, bad actions, NaN) | `gymnasium/wrappers/common.py` `PassiveEnvChecker`, `OrderEnforcing` |
 * | {@link OrderEnforcing} | throws on step before reset | `gymnasium/wrappers/common.py` |
 * | {@link TimeLimit} | truncates after `maxEpisodeSteps` | `gymnasium/wrappers/common.py` |
 * | {@link RecordEpisodeStatistics} | adds `info.episode = { r, l, t }` at episode end | `gymnasium/wrappers/common.py` |
 * | {@link NormalizeObservation} | observations to running zero mean / unit variance | `gymnasium/wrappers/stateful_observation.py` |
 * | {@link FlattenObservation} | observations to a flat `Float32Array` | `gymnasium/wrappers/transform_observation.py` |
 * | {@link TransformObservation}, {@link TransformReward} | by a function | `transform_observation.py`, `transform_reward.py` |
 * | {@link ClipReward} | rewards clipped to `[min, max]` | `gymnasium/wrappers/transform_reward.py` |
 *
 * **Gotchas**
 * - `spec`, `npRandom` and `unwrapped` forward to the wrapped environment; setting `spec` sets the inner one.
 * - Wrappers do not copy observations unless they change them; what the inner env returns is what you get.
 *
 * One module per wrapper in `src/wrappers/`; this namespace gathers them.
 *
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/wrappers/common.py
 * @since 0.1.0
 */
import type { Info } from "../Env.js"

export { assertFinite, Checked } from "./Checked.js"
export { ClipReward } from "./ClipReward.js"
export { FlattenObservation } from "./FlattenObservation.js"
export { NormalizeObservation, RunningMeanStd } from "./NormalizeObservation.js"
export { OrderEnforcing } from "./OrderEnforcing.js"
export { type EpisodeStatistics, RecordEpisodeStatistics } from "./RecordEpisodeStatistics.js"
export { TimeLimit } from "./TimeLimit.js"
export { TransformObservation } from "./TransformObservation.js"
export { TransformReward } from "./TransformReward.js"
export { ActionWrapper, envIdOf, ObservationWrapper, RewardWrapper, Wrapper } from "./Wrapper.js"

/** A frozen empty `Info`, for wrappers and envs that return no extras (share it; do not mutate it). */
export const emptyInfo: Info = Object.freeze({})
