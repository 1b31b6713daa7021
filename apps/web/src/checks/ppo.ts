/**
 * PPO in the page: one update of `Ppo.train` from `@autodidact/optim` on a seeded CartPole vector env (rollout of
 * `numSteps × numEnvs`, GAE, `updateEpochs` epochs of minibatch Adam steps; the network math is plain typed arrays),
 * then the updated network run on TensorFlow.js's CPU backend (`ActorCriticTf.forwardTf` from `@autodidact/optim/tfjs`) against the typed-array
 * forward pass. Reproducible for a seed, so the Node run of the same code must give the same parameters.
 * @since 0.0.0
 */
import type { Metrics } from "@autodidact/core"
import { Registry } from "@autodidact/envs"
import { ActorCritic, Ppo } from "@autodidact/optim"
import { ActorCriticTf } from "@autodidact/optim/tfjs"
import "@tensorflow/tfjs-backend-cpu"
import * as tf from "@tensorflow/tfjs-core"
import { Effect } from "effect"

/** What {@link ppoUpdate} reports. */
export interface PpoUpdateResult {
  readonly updates: Array<Metrics.UpdateRow>
  readonly globalStep: number
  /** Number of parameters, and how many changed in the update. */
  readonly numParams: number
  readonly paramsChanged: number
  /** Largest |Δθ| of the update. */
  readonly maxParamDelta: number
  /** Every 97th parameter after the update (to compare runs). */
  readonly paramSample: Array<number>
  /** The TensorFlow.js backend that ran the forward pass, and its largest deviation from the typed-array pass. */
  readonly tfBackend: string
  readonly tfMaxAbsDiff: number
}

/** One PPO update (4 envs × 32 steps, 4 minibatches, 2 epochs) with `seed`, then the TF.js CPU cross-check. */
export const ppoUpdate = async (seed: number): Promise<PpoUpdateResult> => {
  const numEnvs = 4
  const options = { seed, numSteps: 32, totalTimesteps: 128, numMinibatches: 4, updateEpochs: 2 }
  const before = Ppo.initialState({ ...Ppo.defaults, numEnvs, ...options }, 4, 2).agent.params.slice()
  const env = Registry.makeVec("CartPole-v1", numEnvs, { autoresetMode: "SameStep" })
  const updates: Array<Metrics.UpdateRow> = []
  const result = await Effect.runPromise(Ppo.train(env, options, { onUpdate: (row) => updates.push(row) }))
  env.close()
  const after = result.agent.params
  let changed = 0
  let maxDelta = 0
  for (let k = 0; k < after.length; k++) {
    const d = Math.abs(after[k]! - before[k]!)
    if (d > 0) changed++
    maxDelta = Math.max(maxDelta, d)
  }

  await tf.setBackend("cpu")
  await tf.ready()
  const B = 8
  const obs = Float32Array.from({ length: B * 4 }, (_, k) => Math.sin(k * 0.7) * 0.2)
  const viaTf = ActorCriticTf.forwardTf(result.agent, tf, obs, B)
  ActorCritic.forward(result.agent, obs, B)
  const logits = ActorCritic.logitsOf(result.agent)
  const values = ActorCritic.valuesOf(result.agent)
  let diff = 0
  for (let k = 0; k < B * 2; k++) diff = Math.max(diff, Math.abs(viaTf.logits[k]! - logits[k]!))
  for (let k = 0; k < B; k++) diff = Math.max(diff, Math.abs(viaTf.values[k]! - values[k]!))
  return {
    updates,
    globalStep: result.globalStep,
    numParams: after.length,
    paramsChanged: changed,
    maxParamDelta: maxDelta,
    paramSample: Array.from(after.filter((_, k) => k % 97 === 0)),
    tfBackend: tf.getBackend(),
    tfMaxAbsDiff: diff
  }
}
