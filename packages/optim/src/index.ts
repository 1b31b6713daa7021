/**
 * `@autodidact/optim`: gradient-based learners and advantage estimators.
 *
 * - PPO ({@link Ppo}) with an MLP actor-critic ({@link ActorCritic}) and Adam ({@link Adam}), and policy evaluation
 *   ({@link Evaluate}); plain Promise faces {@link trainPpo}, {@link ppoUpdates} (async iterator) and
 *   {@link evaluatePolicy}. Atomic checkpoints (`Checkpoint`, node:fs) are in `@autodidact/optim/node`, the
 *   TensorFlow.js interop (`ActorCriticTf`) in `@autodidact/optim/tfjs`; this entry point has no Node built-in.
 * - multi-turn text agents: group rollouts ({@link GroupRollout}), a DRRN text policy ({@link DrrnPolicy}) over
 *   abstracted observations ({@link TextAbstraction}), the GRPO / Dr. GRPO / RLOO / REINFORCE++ / GiGPO advantage
 *   estimators ({@link Advantages}; the conformance check {@link CheckEstimator}) and their trainer
 *   ({@link MultiTurnTrainer}), with the text-env task setups ({@link TextTasks}); the agent estimators of
 *   `src/estimators` register themselves when this entry loads: Flow-GRPO ({@link FlowGrpo}), SPA ({@link Spa}),
 *   OPRL ({@link Oprl}), IGPO ({@link Igpo}), AEPO ({@link Aepo}), with their per-step inputs ({@link StepSignals})
 *   and EPO's entropy smoothing ({@link Epo}).
 *
 * `ReleaseGate.compare` (AgentDevel's flip-centred accept/reject on per-task results) is here; the in-context LLM
 * learners (LLM policy, Training-Free GRPO, ExpeL, GEPA, experience library, the LLM release gate) are in
 * `@autodidact/llm`, which imports this package; this package never imports `@autodidact/llm`.
 * @since 0.1.0
 */
export * as ActorCritic from "./ppo/ActorCritic.js"
export * as Adam from "./Adam.js"
export { CheckpointError, CorruptCheckpointError } from "./ppo/CheckpointError.js"
export * as Evaluate from "./Evaluate.js"
export * as Ppo from "./ppo/Ppo.js"
export * as Advantages from "./Advantages.js"
export * as CheckEstimator from "./CheckEstimator.js"
export * as DrrnPolicy from "./text/DrrnPolicy.js"
export * as DrrnValue from "./text/DrrnValue.js"
export * as Dpo from "./text/Dpo.js"
export * as GroupRollout from "./text/GroupRollout.js"
export * as MultiTurnTrainer from "./text/MultiTurnTrainer.js"
export * as SelfPlay from "./selfplay/SelfPlay.js"
export * as SelfPlayDrrn from "./selfplay/SelfPlayDrrn.js"
export * as TextAbstraction from "./text/TextAbstraction.js"
export * as TextTasks from "./text/TextTasks.js"
export * as ReleaseGate from "./ReleaseGate.js"
export * as TaskSamplers from "./curriculum/TaskSamplers.js"
export * as StepSignals from "./estimators/StepSignals.js"
export * as FlowGrpo from "./estimators/FlowGrpo.js"
export * as Spa from "./estimators/Spa.js"
export * as Oprl from "./estimators/Oprl.js"
export * as Igpo from "./estimators/Igpo.js"
export * as Aepo from "./estimators/Aepo.js"
export * as Epo from "./estimators/Epo.js"
export { evaluatePolicy, ppoUpdates, trainPpo } from "./Plain.js"
export type { PpoUpdates, TrainPpoOptions, TrainPpoResult } from "./Plain.js"
