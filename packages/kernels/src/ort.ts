/**
 * `@autodidact/kernels/ort`: the one ONNX Runtime session wrapper ({@link OrtSession}). `onnxruntime-node` is
 * imported only when the first session is created, so importing this entry point loads neither ONNX Runtime nor
 * TensorFlow.js.
 * @since 0.1.0
 */
export * as OrtSession from "./engines/OrtSession.js"
export { OrtInputError, OrtLoadError, OrtRunError } from "./engines/OrtSession.js"
