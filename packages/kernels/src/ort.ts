/**
 * `@autodidact/kernels/ort`: ONNX Runtime. The one session wrapper ({@link OrtSession}) and the ONNX Runtime kernel
 * engine ({@link OrtEngine}: top-k, masked log-softmax, KL as graphs built in JavaScript). `onnxruntime-node` (and
 * `onnx-proto`, for the engine) are optional peer dependencies, imported only when the first session or engine is
 * created, so importing this entry point loads neither ONNX Runtime nor TensorFlow.js; without `onnxruntime-node`
 * that first creation fails with `OrtLoadError` kind `"unavailable"` whose `cause` is core's `MissingPeerError`
 * naming the package to install.
 *
 * Importing this entry point also offers ONNX Runtime to the default dispatch for top-k (where it measured fastest:
 * `KernelRegistry.defaultEngines`), on a process-wide engine created at the first top-k call; if ONNX Runtime cannot
 * load then, that call is answered by the reference and later ones by wasm-simd (`AUTODIDACT_ORT_DEFAULT=0` opts
 * out). Without this import the default top-k engine is wasm-simd.
 * @since 0.1.0
 */
export * as OrtEngine from "./engines/OrtEngine.js"
export { OrtUnavailableError } from "./engines/OrtEngine.js"
export * as OrtSession from "./engines/OrtSession.js"
export { OrtInputError, OrtLoadError, OrtRunError } from "./engines/OrtSession.js"
