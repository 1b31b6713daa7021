/**
 * `@autodidact/kernels`: numeric kernels: TensorFlow.js backend selection ({@link Backend}) and Generalized
 * Advantage Estimation with advantage normalization ({@link Gae}), each with a typed-array reference implementation.
 * @since 0.1.0
 */
export * as Backend from "./Backend.js"
export * as Gae from "./Gae.js"
