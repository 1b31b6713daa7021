/**
 * `@autodidact/memory/onnx`: a local ONNX sentence-embedding model as the store's `Embedder`
 * (`OnnxEmbedder.layerOnnx`). Node only. Needs the optional peers `onnxruntime-node` (through
 * `@autodidact/kernels/ort`) and `@huggingface/tokenizers`, loaded when the layer is built; a missing one fails it with
 * core's `MissingPeerError` naming the package to install.
 * @since 0.1.0
 */
export * as OnnxEmbedder from "./embedders/OnnxEmbedder.js"
export { EmbedderError, EmbedderLoadError, EmbedderTokenizerMismatchError } from "./store/StoreErrors.js"
