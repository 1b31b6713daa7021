/**
 * `@autodidact/envs`: environments with Gymnasium 1.x semantics.
 * @since 0.1.0
 */
export * as Env from "./Env.js"
export * as VectorEnv from "./VectorEnv.js"
