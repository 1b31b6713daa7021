/**
 * `Ppo` of `@autodidact/optim/node`: the main entry's {@link Ppo} namespace, with {@link train} and {@link trainOn}
 * writing the `checkpoint` option's files with `Checkpoint.save` (atomic, node:fs). Same implementation, same errors.
 * @since 0.2.0
 */
import type { VectorEnv } from "@autodidact/envs"
import * as Checkpoint from "../ppo/Checkpoint.js"
import * as Ppo from "../ppo/Ppo.js"

export * from "../ppo/Ppo.js"

const withSave = (hooks: Ppo.Hooks): Ppo.Hooks => ({ saveCheckpoint: Checkpoint.save, ...hooks })

/** {@link Ppo.train} with checkpoints written by `Checkpoint.save` (unless `hooks.saveCheckpoint` says otherwise). */
export const train = (env: VectorEnv.VectorEnv, options: Ppo.TrainOptions = {}, hooks: Ppo.Hooks = {}): ReturnType<typeof Ppo.train> =>
  Ppo.train(env, options, withSave(hooks))

/** {@link Ppo.trainOn} with checkpoints written by `Checkpoint.save`. */
export const trainOn = (env: string | VectorEnv.VectorEnv, options: Ppo.TrainOnOptions = {}, hooks: Ppo.Hooks = {}): ReturnType<typeof Ppo.trainOn> =>
  Ppo.trainOn(env, options, withSave(hooks))
