/**
 * CartPole in the page: a seeded `SyncVectorEnv` of `CartPole-v1` stepped with fixed actions (compared with the same
 * code run in Node), and a replay of one Gymnasium 1.4 reference episode (`cartpole_public.json`: initial state,
 * actions, and the float32 observations Gymnasium returned), compared exactly.
 * @since 0.0.0
 */
import { Registry } from "@autodidact/envs"

/** Input of {@link vectorTrace}. */
export interface VectorTraceInput {
  readonly seed: number
  readonly numEnvs: number
  readonly steps: number
}

/** What {@link vectorTrace} records: the reset observations, then per step the flat observations, rewards and flags. */
export interface VectorTrace {
  readonly reset: Array<number>
  readonly observations: Array<Array<number>>
  readonly rewards: Array<Array<number>>
  readonly terminations: Array<Array<number>>
  readonly truncations: Array<Array<number>>
  readonly episodesEnded: number
}

/**
 * `makeVec("CartPole-v1", numEnvs, { autoresetMode: "SameStep" })`, reset with `seed` (sub-env i gets `seed + i`),
 * then `steps` steps with action `(t + i) % 2` for sub-env i at step t.
 */
export const vectorTrace = (input: VectorTraceInput): VectorTrace => {
  const envs = Registry.makeVec("CartPole-v1", input.numEnvs, { autoresetMode: "SameStep" })
  const reset = Array.from(envs.reset({ seed: input.seed }).observations as Float32Array)
  const trace: VectorTrace = { reset, observations: [], rewards: [], terminations: [], truncations: [], episodesEnded: 0 }
  let ended = 0
  for (let t = 0; t < input.steps; t++) {
    const r = envs.step(Int32Array.from({ length: input.numEnvs }, (_, i) => (t + i) % 2))
    trace.observations.push(Array.from(r.observations as Float32Array))
    trace.rewards.push(Array.from(r.rewards))
    trace.terminations.push(Array.from(r.terminations))
    trace.truncations.push(Array.from(r.truncations))
    for (let i = 0; i < input.numEnvs; i++) ended += r.terminations[i]! | r.truncations[i]!
  }
  envs.close()
  return { ...trace, episodesEnded: ended }
}

/** One episode of Gymnasium's `cartpole_public.json`. */
export interface ReferenceEpisode {
  readonly initialState: ReadonlyArray<number>
  readonly steps: ReadonlyArray<{
    readonly action: number
    readonly observation: ReadonlyArray<number>
    readonly reward: number
    readonly terminated: boolean
    readonly truncated: boolean
  }>
}

/** Result of {@link replayReference}: steps replayed and the first step (0-based) that differs, if any. */
export interface ReplayResult {
  readonly steps: number
  readonly firstMismatch: { readonly step: number; readonly expected: unknown; readonly got: unknown } | null
}

/** Replay `episode` through `make("CartPole-v1")` from its initial state; compare every step exactly. */
export const replayReference = (episode: ReferenceEpisode): ReplayResult => {
  const env = Registry.make<Float32Array, number>("CartPole-v1")
  env.reset({ options: { state: [...episode.initialState] } })
  for (let t = 0; t < episode.steps.length; t++) {
    const ref = episode.steps[t]!
    const r = env.step(ref.action)
    const got = { observation: Array.from(r.observation), reward: r.reward, terminated: r.terminated, truncated: r.truncated }
    const expected = { observation: [...ref.observation], reward: ref.reward, terminated: ref.terminated, truncated: ref.truncated }
    if (JSON.stringify(got) !== JSON.stringify(expected)) return { steps: t + 1, firstMismatch: { step: t, expected, got } }
  }
  env.close()
  return { steps: episode.steps.length, firstMismatch: null }
}
