/**
 * `@autodidact/kernels`: the numeric core. Every kernel has a typed-array reference implementation and a
 * TensorFlow.js implementation (wasm, cpu, or native TensorFlow via `@tensorflow/tfjs-node(-gpu)` when installed),
 * dispatched through a {@link KernelRegistry} that users can extend; {@link OrtEngine} adds ONNX Runtime as a second
 * engine for top-k, log-softmax and KL (`AUTODIDACT_KERNEL_ENGINE=onnxruntime`); {@link WasmSimd} adds WebAssembly SIMD
 * kernels (backend `wasm-simd`: top-k, log-softmax, categorical sampling, KL, PPO loss, GAE, group norm), preferred on wasm/cpu once
 * registered; {@link TopKShards} shards a resident top-k index over worker threads; {@link Benchmark} times them against
 * NumPy.
 * @since 0.1.0
 */
export * as Backend from "./Backend.js"
export * as Benchmark from "./Benchmark.js"
export * as Categorical from "./Categorical.js"
export * as Gae from "./Gae.js"
export * as GroupNorm from "./GroupNorm.js"
export * as KernelError from "./KernelError.js"
export { KernelBackendError, KernelInputError } from "./KernelError.js"
export * as KernelRegistry from "./KernelRegistry.js"
export * as Kl from "./Kl.js"
export * as MinTree from "./MinTree.js"
export * as OrtEngine from "./OrtEngine.js"
export * as OrtSession from "./OrtSession.js"
export * as PpoLoss from "./PpoLoss.js"
export * as Returns from "./Returns.js"
export * as Softmax from "./Softmax.js"
export * as SumTree from "./SumTree.js"
export * as TopK from "./TopK.js"
export * as TopKShards from "./TopKShards.js"
export * as WasmSimd from "./WasmSimd.js"
