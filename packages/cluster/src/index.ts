/**
 * `@autodidact/cluster`: distributed rollouts on `effect/cluster` with PostgreSQL. One rollout service
 * ({@link RolloutService.RolloutService}) with an in-process layer (a worker-thread pool, {@link ThreadPool}) and a
 * cluster layer of runner processes, a runner process entry ({@link Runner}), and an episode-based PPO trainer that
 * collects through the service ({@link Trainer}) and a group-based text trainer ({@link TextTrainer}).
 * @since 0.1.0
 */
export * as Collect from "./Collect.js"
export * as Errors from "./Errors.js"
export * as Policy from "./Policy.js"
export * as RolloutService from "./RolloutService.js"
export * as RolloutStore from "./RolloutStore.js"
export * as ThreadPool from "./ThreadPool.js"
export * as Runner from "./Runner.js"
export * as Worker from "./Worker.js"
export * as Trainer from "./Trainer.js"
export { ClusterStoreError, PolicyLagError, RolloutError } from "./Errors.js"
export { PolicyDecodeError } from "./Policy.js"
export * as TextTrainer from "./TextTrainer.js"
