/**
 * GAE in the page: `Gae.computeSync` of `@autodidact/kernels` on a small `[3, 2]` rollout whose advantages were
 * worked out by hand (see the test: γ = λ = 0.5, an episode start in env 1 at step 2).
 * @since 0.0.0
 */
import { Gae } from "@autodidact/kernels"

/** The hand-computed case's inputs: `[numSteps = 3, numEnvs = 2]`, row-major (element `t * 2 + i`). */
export const handCase: Gae.GaeInput = {
  numSteps: 3,
  numEnvs: 2,
  gamma: 0.5,
  lambda: 0.5,
  rewards: Float32Array.of(1, 1, 0, 1, 2, 1),
  values: Float32Array.of(0, 1, 1, 1, 0, 1),
  dones: Float32Array.of(0, 0, 0, 0, 0, 1),
  nextValue: Float32Array.of(2, 4),
  nextDone: Float32Array.of(0, 0)
}

/** Advantages and returns of {@link handCase}, as plain arrays. */
export const gaeHandCase = (): { readonly advantages: Array<number>; readonly returns: Array<number> } => {
  const { advantages, returns } = Gae.computeSync(handCase)
  return { advantages: Array.from(advantages), returns: Array.from(returns) }
}
