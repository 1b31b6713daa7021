/**
 * `@autodidact/optim`: optimizers that make agents learn: PPO ({@link Ppo}) with an MLP actor-critic
 * ({@link ActorCritic}) and Adam ({@link Adam}), atomic checkpoints ({@link Checkpoint}) and policy evaluation
 * ({@link Evaluate}).
 * @since 0.1.0
 */
export * as ActorCritic from "./ActorCritic.js"
export * as Adam from "./Adam.js"
export * as Checkpoint from "./Checkpoint.js"
export * as Evaluate from "./Evaluate.js"
export * as Ppo from "./Ppo.js"
export * as Advantages from "./Advantages.js"
export * as DrrnPolicy from "./DrrnPolicy.js"
export * as GroupRollout from "./GroupRollout.js"
export * as MultiTurnTrainer from "./MultiTurnTrainer.js"
export * as TextAbstraction from "./TextAbstraction.js"
export * as TextTasks from "./TextTasks.js"
export * as ExperienceLibrary from "./ExperienceLibrary.js"
export * as Expel from "./Expel.js"
export * as Gepa from "./Gepa.js"
export * as LlmPolicy from "./LlmPolicy.js"
export * as LlmRollout from "./LlmRollout.js"
export * as ReleaseGate from "./ReleaseGate.js"
export * as TrainingFreeGrpo from "./TrainingFreeGrpo.js"
