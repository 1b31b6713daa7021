/**
 * `@autodidact/memory/bench` (Node only): the prioritized-replay benchmark against a NumPy transcription that
 * `autodidact bench replay` prints ({@link ReplayBenchmark}). NumPy runs in a `python3` child process.
 * @since 0.2.0
 */
export * as ReplayBenchmark from "./replay/ReplayBenchmark.js"
