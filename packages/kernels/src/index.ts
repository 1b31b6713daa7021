/**
 * `@autodidact/kernels`: the numeric core. Every kernel has a typed-array reference implementation, dispatched
 * through a {@link KernelRegistry} that users can extend and whose default picks, per kernel, the engine that measured
 * fastest (`KernelRegistry.defaultEngines`): {@link WasmSimd}'s WebAssembly SIMD kernels or the typed-array kernels.
 * This entry point loads no optional peer and no Node built-in (it runs in browsers). The other engines sit behind
 * their own entry points, each loading its optional peer only when imported: `@autodidact/kernels/tfjs` (TensorFlow.js:
 * the `Backend` service and the tensor-level `*Tf` kernels), `@autodidact/kernels/ort` (ONNX Runtime: `OrtSession`,
 * `OrtEngine`, which also becomes the default top-k engine), `@autodidact/kernels/bench` (the NumPy benchmark, Node
 * only) and `@autodidact/kernels/trees` (the sum/min trees alone).
 * @since 0.1.0
 */
export * as Adam from "./nn/Adam.js"
export * as Categorical from "./policy/Categorical.js"
export * as Gae from "./advantages/Gae.js"
export * as GroupNorm from "./advantages/GroupNorm.js"
export * as KernelError from "./KernelError.js"
export { KernelBackendError, KernelInputError } from "./KernelError.js"
export * as KernelRegistry from "./engines/KernelRegistry.js"
export * as Kl from "./policy/Kl.js"
export * as MinTree from "./trees/MinTree.js"
export * as MlpSimd from "./nn/MlpSimd.js"
export * as PpoLoss from "./policy/PpoLoss.js"
export * as Returns from "./advantages/Returns.js"
export * as Softmax from "./policy/Softmax.js"
export * as SumTree from "./trees/SumTree.js"
export * as TopK from "./retrieval/TopK.js"
export * as TopKIndex from "./retrieval/TopKIndex.js"
export * as WasmSimd from "./engines/WasmSimd.js"
