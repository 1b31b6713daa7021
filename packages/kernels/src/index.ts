/**
 * `@autodidact/kernels`: the numeric core. Every kernel has a typed-array reference implementation and a
 * TensorFlow.js implementation (wasm, cpu, or native TensorFlow via `@tensorflow/tfjs-node(-gpu)` when installed),
 * dispatched through a {@link KernelRegistry} that users can extend and whose default picks, per kernel, the engine
 * that measured fastest (`KernelRegistry.defaultEngines`): {@link WasmSimd}'s WebAssembly SIMD kernels, the typed-array
 * kernels, or {@link OrtEngine}'s ONNX Runtime kernels (top-k, log-softmax) while its layer is provided;
 * {@link Benchmark} times every engine against NumPy and marks the default.
 * @since 0.1.0
 */
export * as Backend from "./engines/Backend.js"
export * as Benchmark from "./bench/Benchmark.js"
export * as Categorical from "./policy/Categorical.js"
export * as Gae from "./advantages/Gae.js"
export * as GroupNorm from "./advantages/GroupNorm.js"
export * as KernelError from "./KernelError.js"
export { KernelBackendError, KernelInputError } from "./KernelError.js"
export * as KernelRegistry from "./engines/KernelRegistry.js"
export * as Kl from "./policy/Kl.js"
export * as MinTree from "./trees/MinTree.js"
export * as OrtEngine from "./engines/OrtEngine.js"
export * as OrtSession from "./engines/OrtSession.js"
export * as PpoLoss from "./policy/PpoLoss.js"
export * as Returns from "./advantages/Returns.js"
export * as Softmax from "./policy/Softmax.js"
export * as SumTree from "./trees/SumTree.js"
export * as TopK from "./retrieval/TopK.js"
export * as WasmSimd from "./engines/WasmSimd.js"
