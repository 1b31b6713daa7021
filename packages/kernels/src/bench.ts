/**
 * `@autodidact/kernels/bench` (Node only): the kernel benchmarks against NumPy that `autodidact bench kernels` prints
 * ({@link Benchmark}). NumPy runs in a `python3` child process; the TensorFlow.js and ONNX Runtime rows load
 * `@autodidact/kernels/tfjs` / `@autodidact/kernels/ort` on demand and are skipped (with the reason logged) when
 * their optional peers are not installed. {@link Numpy} runs a NumPy baseline script (also used by other packages' benchmarks).
 * @since 0.2.0
 */
export * as Benchmark from "./bench/Benchmark.js"
export * as Numpy from "./bench/Numpy.js"
