/**
 * A process reward model (PRM) in TensorFlow.js: an {@link Mlp} trained pointwise with BCE on Monte Carlo step targets
 * (`ProcessReward.monteCarloTargets`, AgentPRM) over `ProcessReward.featurize` features, served as a
 * {@link RewardModel.RewardModelShape} ({@link model}) or as a shaping potential ({@link potential}).
 *
 * Part of `@autodidact/rewards/train` (needs the optional peer `@tensorflow/tfjs-core` and a backend).
 * @see Choudhury, "Process Reward Models for LLM Agents: Practical Framework and Directions" (AgentPRM: Monte Carlo
 *   targets), arXiv:2502.10325
 * @see Xi et al., "AgentPRM: Process Reward Models for LLM Agents via Step-Wise Promise and Progress", arXiv:2511.08325
 * @since 0.2.0
 */
import { Effect } from "effect"
import * as Mlp from "./Mlp.js"
import * as ProcessReward from "./ProcessReward.js"
import * as RewardModel from "./RewardModel.js"
import * as Search from "./Search.js"
import type * as Shaping from "./Shaping.js"
import * as Training from "./Training.js"

/**
 * Train a process reward model: an {@link Mlp} (`dim` → `hidden`, default `[64]`, ReLU → 1) on `ProcessReward.featurize`
 * features (`dim` default 4096), pointwise BCE on the soft targets in `[0, 1]` (`Training.trainPointwise`, Adam).
 * Returns the model (dispose it with `Mlp.dispose`), its feature size and the per-epoch losses.
 */
export const train = (
  tf: Mlp.Tf,
  targets: ReadonlyArray<ProcessReward.StepTarget>,
  options: Training.TrainOptions & { readonly dim?: number | undefined; readonly hidden?: ReadonlyArray<number> | undefined }
): { readonly mlp: Mlp.Mlp; readonly dim: number; readonly result: Training.TrainResult } => {
  const dim = options.dim ?? 4096
  const x = new Float32Array(targets.length * dim)
  const y = new Float32Array(targets.length)
  targets.forEach((s, i) => {
    x.set(ProcessReward.featurize(s.task, s.state, s.action, dim), i * dim)
    y[i] = s.target
  })
  const mlp = Mlp.make(tf, { inputSize: dim, hidden: options.hidden ?? [64], activation: "relu" }, options.rng)
  const result = Training.trainPointwise(mlp, { n: targets.length, dim, x, y }, { ...options, loss: "bce" })
  return { mlp, dim, result }
}

/**
 * A trained PRM as a {@link RewardModel.RewardModelShape} named `name`: `scoreSteps` gives σ(logit) in `(0, 1)`, the
 * predicted success probability of each step (its features from the candidate's task and the step's state and
 * action); `dim` must be the feature size it was trained with.
 */
export const model = (mlp: Mlp.Mlp, dim: number, name = "prm"): RewardModel.RewardModelShape =>
  RewardModel.fromFeatures(
    name,
    dim,
    (rows, n) => Effect.sync(() => Mlp.predict(mlp, rows, n).map((s) => 1 / (1 + Math.exp(-s)))),
    { step: (s, c) => ProcessReward.featurize(c.task ?? "", s.state, s.action, dim) }
  )

/**
 * A shaping potential (for `Shaping.PotentialShaping`) from a trained PRM ({@link train}): `Φ(s) = max_a σ(PRM(s, a))` over the admissible actions,
 * in `(0, 1)` (0 when none is admissible), a value estimate `V(s) = max_a Q(s, a)` of the success probability.
 * `dim` is the PRM's feature size.
 */
export const potential = (mlp: Mlp.Mlp, dim: number): Shaping.Potential => (env, observation, history) => {
  const acts = env.admissibleActions()
  if (acts.length === 0) return 0
  const state = Search.stateText(observation, history)
  const rows = new Float32Array(acts.length * dim)
  acts.forEach((a, i) => rows.set(ProcessReward.featurize(env.task, state, a, dim), i * dim))
  const logits = Mlp.predict(mlp, rows, acts.length)
  let best = -Infinity
  for (const s of logits) best = Math.max(best, s)
  return 1 / (1 + Math.exp(-best))
}
