/**
 * The optional peer dependencies of `@autodidact/rewards`, each loaded through core's `OptionalPeer.load` by the
 * entry point that needs it, so a missing one is a `MissingPeerError` naming the package to install and the entry
 * point, instead of a module-not-found error from inside a dependency.
 *
 * | entry point | peer | why |
 * |---|---|---|
 * | `@autodidact/rewards/onnx` | `@huggingface/tokenizers` | text models' `tokenizer.json` |
 * | `@autodidact/rewards/onnx` | `onnxruntime-node` | the session (loaded by `@autodidact/kernels/ort` at the first model) |
 * | `@autodidact/rewards/train` | `@tensorflow/tfjs-core` (+ a backend) | the MLP and its training |
 * | `@autodidact/rewards/train` | `onnx-proto` | `OnnxExport.exportMlp` |
 *
 * Each loader takes the importer as an argument (default: the real `import(...)`) so tests can prove the
 * missing-peer path without uninstalling anything.
 * @internal
 */
import { OptionalPeer } from "@autodidact/core"

/** The `@autodidact/rewards/onnx` entry point's name in errors. */
export const ONNX_ENTRY = "@autodidact/rewards/onnx"
/** The `@autodidact/rewards/train` entry point's name in errors. */
export const TRAIN_ENTRY = "@autodidact/rewards/train"

/** `@huggingface/tokenizers` for `@autodidact/rewards/onnx`; rejects with `MissingPeerError` when it is not installed. */
export const loadTokenizers = (importer: () => Promise<typeof import("@huggingface/tokenizers")> = () => import("@huggingface/tokenizers")) =>
  OptionalPeer.load("@huggingface/tokenizers", ONNX_ENTRY, importer, "^0.2.0")

/** `onnx-proto` for `@autodidact/rewards/train`; rejects with `MissingPeerError` when it is not installed. */
export const loadOnnxProto = (importer: () => Promise<typeof import("onnx-proto")> = () => import("onnx-proto")) =>
  OptionalPeer.load("onnx-proto", TRAIN_ENTRY, importer, "^8.0.1")

/** `@tensorflow/tfjs-core` for `@autodidact/rewards/train`; rejects with `MissingPeerError` when it is not installed. */
export const loadTfCore = (importer: () => Promise<typeof import("@tensorflow/tfjs-core")> = () => import("@tensorflow/tfjs-core")) =>
  OptionalPeer.load("@tensorflow/tfjs-core", TRAIN_ENTRY, importer, "^4.22.0")
