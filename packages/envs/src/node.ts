/**
 * `@autodidact/envs/node`: the parts of envs that need Node: {@link AsyncVectorEnv} (sub-envs on `worker_threads`,
 * `node:os`), {@link EnvBenchmark} (`autodidact bench envs`, with a Python baseline run by `python3`) and Sokoban level
 * files read with `node:fs` (`SokobanLevel.readLevelFile` / `loadLevelFile`; this
 * `SokobanLevel` is the main entry's plus the file loaders). Loading this entry also enables
 * `vectorizationMode: "async"` in `Registry.makeVec`; `makeVec` here is that same function. The main entry
 * `@autodidact/envs` has no Node built-in in its import graph and bundles for browsers.
 *
 * @example
 * ```ts
 * import { makeVec } from "@autodidact/envs/node"
 * const envs = makeVec("CartPole-v1", 8, { vectorizationMode: "async", autoresetMode: "SameStep" })
 * envs.reset({ seed: 0 })
 * envs.step(new Int32Array(8).fill(1))
 * envs.close()
 * ```
 * @since 0.2.0
 */
export * as AsyncVectorEnv from "./vector/AsyncVectorEnv.js"
export * as EnvBenchmark from "./checks/EnvBenchmark.js"
export * as SokobanLevel from "./sokoban/SokobanLevelFile.js"
export { makeVec, type MakeVecOptions } from "./Registry.js"
