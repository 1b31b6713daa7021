/**
 * `@autodidact/solvers/tfjs`: Deep CFR's TensorFlow.js training engine ({@link DeepCfrTf}: `DeepCfrTf.loadEngine("tfjs")`
 * or `DeepCfrTf.engine(tf)`, passed as `DeepCfr.make(game, { engine })`). `@tensorflow/tfjs-core` and a backend
 * (`@tensorflow/tfjs-backend-wasm` or `-cpu`, or `@tensorflow/tfjs-node(-gpu)`) are optional peer dependencies:
 * importing this entry point without `@tensorflow/tfjs-core` fails with `MissingPeerError` naming it. The main entry
 * never loads TensorFlow.js.
 * @since 0.3.0
 */
export * as DeepCfrTf from "./deep/DeepCfrTf.js"
