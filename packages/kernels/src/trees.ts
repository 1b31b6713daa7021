/**
 * `@autodidact/kernels/trees`: the light entry point of the segment trees behind prioritized replay,
 * {@link SumTree} and {@link MinTree}. It loads no TensorFlow.js and no ONNX Runtime, so replay buffers
 * (`@autodidact/memory`) import it without pulling the engines of the main entry.
 * @since 0.1.0
 */
export * as MinTree from "./trees/MinTree.js"
export * as SumTree from "./trees/SumTree.js"
