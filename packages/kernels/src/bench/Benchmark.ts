/**
 * Kernel benchmarks against NumPy on the same machine: what `autodidact bench kernels` prints.
 *
 * **Details**
 * - Every kernel runs at realistic sizes (GAE `[128, 64]` and `[2048, 256]`, top-10 over `100k × 384`, log-softmax
 *   `[4096, 32]`, ...) on the typed-array reference and on each requested TensorFlow.js backend that initializes
 *   (`wasm`, `cpu`, and `tensorflow` when `@tensorflow/tfjs-node(-gpu)` is installed). A backend that fails to
 *   initialize is skipped with a logged reason. Backend `onnxruntime` times the {@link OrtEngine} kernels (top-k,
 *   masked log-softmax, KL) end to end from typed arrays (`session.run` included): rows `onnxruntime` (top-k matrix fed
 *   as a resident input tensor) and, for top-k, `onnxruntime (baked)` (matrix baked into the model as an initializer);
 *   session creation happens in the warm-up call and is not timed. Backend `wasm-simd` times the {@link WasmSimd}
 *   kernels (GAE, log-softmax, categorical sampling, KL, PPO loss, group norm, top-k) end to end from typed arrays (inputs copied into the
 *   WebAssembly memory and results copied out on every call), and for top-k also `wasm-simd (resident)` (the matrix
 *   copied once into a `WasmSimd.makeTopKIndex`), for KL k3 `wasm-simd (resident)` (inputs in a
 *   `WasmSimd.makeKlBuffers` workspace, values left there). Categorical sampling draws its uniforms inside the timed
 *   call on every path (the core `Rng`; for wasm-simd its stream continued in bulk by `WasmSimd.uniformStream`). Without WebAssembly SIMD the backend is skipped with the reason.
 * - Part of `@autodidact/kernels/bench` (Node only: NumPy runs in a child process). The TensorFlow.js backends and ONNX
 *   Runtime are optional peers: `@autodidact/kernels/tfjs` / `@autodidact/kernels/ort` are imported only when their
 *   rows are requested, and a missing peer skips those rows with a logged reason (`MissingPeerError`'s message).
 * - Timing: one warm-up call, then calls until `minTimeMs` has passed (at least 3, at most 200); the fastest call
 *   is reported (as `timeit` recommends: on a shared machine, slower calls measure other processes, not the kernel).
 *   TensorFlow.js timings include uploading the inputs and reading the outputs back (`dataSync`): end to end from
 *   typed arrays, as a caller sees it.
 * - NumPy: `bench/numpy_kernels.py` run by `python3` (option `python`) with the same kernels and sizes, timed with
 *   `timeit` (autorange, best of 5) in the same run, after ours (never concurrently), one Python process per case
 *   (so that a case's time does not depend on the cases before it). `OPENBLAS_CORETYPE` / `OPENBLAS_L2_SIZE` are unset for
 *   that process only. Without python3 or NumPy, `numpyMs` and `ratio` are `null` and the reason is logged.
 * - `ratio = ourMs / numpyMs`: below 1 is faster than NumPy. When the baseline is unavailable (no python3 or NumPy,
 *   or the script exits early, e.g. before reading its input), `numpyMs` and `ratio` are null, the tables say
 *   "unavailable", and the run goes on.
 * - The default: each row says whether it times the engine the default dispatch picks for that kernel on this
 *   machine (`KernelRegistry.defaultEngineOf` on the default backend, without `OrtEngine.layer`); {@link formatDefaults}
 *   prints one line per case with the default engine's time against NumPy.
 *
 * @example
 * ```ts
 * import { Benchmark } from "@autodidact/kernels/bench"
 * import { Effect } from "effect"
 * const rows = await Effect.runPromise(Benchmark.runKernelBenchmarks({ quick: true }))
 * console.log(Benchmark.formatTable(rows))
 * ```
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { BackendName, Tf } from "../engines/BackendTag.js"
import { cases } from "./Cases.js"
import { runNumpy } from "./Numpy.js"
import { time, timeAsync } from "./Timing.js"
import { REFERENCE } from "../KernelError.js"
import * as KernelRegistry from "../engines/KernelRegistry.js"
import type * as OrtEngine from "../engines/OrtEngine.js"
import * as WasmSimd from "../engines/WasmSimd.js"

/** Registry name of the ONNX Runtime engine (`OrtEngine.BACKEND_NAME`), without loading it. */
const ONNXRUNTIME: typeof OrtEngine.BACKEND_NAME = KernelRegistry.ONNXRUNTIME

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 300)

/** `@autodidact/kernels/ort`'s engine module, or why it cannot be loaded. */
const loadOrtEngine = (): Effect.Effect<typeof OrtEngine, string> =>
  Effect.tryPromise({ try: () => import("../engines/OrtEngine.js"), catch: reasonOf })

/** `@autodidact/kernels/tfjs` (TF.js kernels registered, its Backend module), or why it cannot be loaded. */
const loadTfjs = (): Effect.Effect<typeof import("../tfjs.js"), string> =>
  Effect.tryPromise({ try: () => import("../tfjs.js"), catch: reasonOf })

/** One line of the table. */
export interface BenchRow {
  readonly kernel: string
  readonly size: string
  /**
   * `typed-array`, `wasm`, `cpu`, `tensorflow`, `onnxruntime` (top-k matrix fed as a resident input tensor),
   * `onnxruntime (baked)` (top-k matrix baked into the model as an initializer), `wasm-simd` (the {@link WasmSimd}
   * kernels, inputs copied into WebAssembly memory on every call), `wasm-simd (resident)` (top-k against a
   * `WasmSimd.makeTopKIndex` matrix copied once; KL: inputs in a `WasmSimd.makeKlBuffers` workspace).
   */
  readonly backend: string
  /** The registry kernel name this row times (a `KernelRegistry.defaultEngines` key). */
  readonly kernelName: string
  /** Whether `backend` is the engine the default dispatch picks for this kernel here (`KernelRegistry.defaultEngineOf`). */
  readonly isDefault: boolean
  readonly ourMs: number
  /** NumPy's time for the same kernel and size, or null when python3/NumPy is unavailable (the table says "unavailable"). */
  readonly numpyMs: number | null
  /** `ourMs / numpyMs` (null without NumPy). */
  readonly ratio: number | null
}

/** Options of {@link runKernelBenchmarks}. */
export interface BenchOptions {
  /**
   * Implementations to time (default: typed-array, wasm-simd, onnxruntime, wasm, cpu, tensorflow; unavailable backends
   * are skipped).
   * `onnxruntime` times the {@link OrtEngine} kernels (top-k, log-softmax, KL) and, for top-k, both ways of keeping
   * the matrix resident.
   */
  readonly backends?: ReadonlyArray<typeof REFERENCE | BackendName | typeof ONNXRUNTIME | typeof WasmSimd.BACKEND_NAME> | undefined
  /** Smaller sizes (seconds instead of minutes; for tests and smoke runs). Default false. */
  readonly quick?: boolean | undefined
  /** Only kernels whose name starts with one of these (e.g. `["gae", "topk"]`). */
  readonly kernels?: ReadonlyArray<string> | undefined
  /** Time budget per measurement in ms (default 300). */
  readonly minTimeMs?: number | undefined
  /** Python executable (default `python3`); `null` skips NumPy. */
  readonly python?: string | null | undefined
  /** The NumPy script `python` runs (default `bench/numpy_kernels.py` of this package; a test seam). */
  readonly numpyScript?: string | undefined
  /** Called after each measurement (progress). */
  readonly onRow?: ((row: Omit<BenchRow, "numpyMs" | "ratio" | "isDefault" | "kernelName">) => void) | undefined
}

/**
 * Time every kernel on the typed-array path and each available TensorFlow.js backend, then NumPy on the same sizes;
 * rows in kernel order, then implementation order.
 */
export const runKernelBenchmarks = (options: BenchOptions = {}): Effect.Effect<ReadonlyArray<BenchRow>> =>
  Effect.gen(function* () {
    const quick = options.quick ?? false
    const minTimeMs = options.minTimeMs ?? 300
    const wanted = options.backends ?? [REFERENCE, WasmSimd.BACKEND_NAME, ONNXRUNTIME, "wasm", "cpu", "tensorflow"]
    const selected = cases(quick).filter((c) => options.kernels === undefined || options.kernels.some((k) => c.id.startsWith(k)))
    const measured: Array<Omit<BenchRow, "numpyMs" | "ratio" | "isDefault" | "kernelName"> & { readonly id: string }> = []
    const calls = selected.map((c) => ({ c, forTf: c.setup() }))
    for (const backend of wanted) {
      if (backend === ONNXRUNTIME) {
        const loaded = yield* Effect.result(loadOrtEngine())
        if (loaded._tag === "Failure") {
          yield* Effect.logWarning(`bench kernels: skipping backend ${backend}: ${loaded.failure}`)
          continue
        }
        const OrtEngine = loaded.success
        // resident input tensor, then (top-k only) the matrix baked into the model; one engine each, released after
        for (const mode of ["input", "initializer"] as const) {
          const label = mode === "input" ? backend : `${backend} (baked)`
          const ok = yield* Effect.acquireUseRelease(
            Effect.tryPromise(() => OrtEngine.makeUnscoped({ topKMatrix: mode })),
            (engine) =>
              Effect.gen(function* () {
                for (const { c, forTf } of calls) {
                  if (forTf.ort === undefined || (mode === "initializer" && !c.id.startsWith("topk"))) continue
                  const call = forTf.ort(engine)
                  const ourMs = yield* Effect.promise(() => timeAsync(call, minTimeMs))
                  const row = { id: c.id, kernel: c.kernel, size: c.size, backend: label, ourMs }
                  measured.push(row)
                  options.onRow?.(row)
                }
                return true
              }),
            (engine) => Effect.promise(() => engine.close())
          ).pipe(Effect.catch((e) => Effect.as(Effect.logWarning(`bench kernels: skipping backend ${label}: ${String(e)}`), false)))
          if (!ok) break
        }
        continue
      }
      if (backend === WasmSimd.BACKEND_NAME) {
        const available = WasmSimd.load()
        if (!available.ok) {
          yield* Effect.logWarning(`bench kernels: skipping backend ${backend}: ${available.reason}`)
          continue
        }
        for (const { c, forTf } of calls) {
          if (forTf.simd !== undefined) {
            const ourMs = yield* Effect.sync(() => time(forTf.simd!, minTimeMs))
            const row = { id: c.id, kernel: c.kernel, size: c.size, backend, ourMs }
            measured.push(row)
            options.onRow?.(row)
          }
          if (forTf.simdResident !== undefined) {
            const { call, release } = forTf.simdResident()
            const ourMs = yield* Effect.sync(() => time(call, minTimeMs))
            release()
            const row = { id: c.id, kernel: c.kernel, size: c.size, backend: `${backend} (resident)`, ourMs }
            measured.push(row)
            options.onRow?.(row)
          }
          yield* Effect.yieldNow
        }
        continue
      }
      let tf: Tf | undefined
      if (backend !== REFERENCE) {
        const tfjs = yield* Effect.result(loadTfjs())
        if (tfjs._tag === "Failure") {
          yield* Effect.logWarning(`bench kernels: skipping backend ${backend}: ${tfjs.failure}`)
          continue
        }
        const selectedBackend = yield* Effect.result(tfjs.success.Backend.select({ force: backend }))
        if (selectedBackend._tag === "Failure") {
          yield* Effect.logWarning(`bench kernels: skipping backend ${backend}: ${selectedBackend.failure.message}`)
          continue
        }
        tf = selectedBackend.success.tf
      }
      for (const { c, forTf } of calls) {
        const call = forTf(tf)
        if (call === undefined) continue
        const ourMs = yield* Effect.sync(() => time(call, minTimeMs))
        const row = { id: c.id, kernel: c.kernel, size: c.size, backend, ourMs }
        measured.push(row)
        options.onRow?.(row)
        yield* Effect.yieldNow
      }
    }
    let numpy: { readonly [id: string]: number } = {}
    if (options.python !== null) {
      // one Python process per case: a case's time must not depend on what ran before it (after the categorical
      // case, NumPy's KL k3 took 1.0 ms instead of 0.2 ms in the same process here: allocator state)
      const merged: { [id: string]: number } = {}
      for (const c of selected) {
        const result = yield* Effect.promise(() => runNumpy(options.python ?? "python3", [{ id: c.id, ...c.numpy }], options.numpyScript))
        if ("error" in result) {
          // the NumPy column says "unavailable" for every row (formatTable); the reason is logged once
          yield* Effect.logWarning(`bench kernels: NumPy baseline unavailable: ${result.error}`)
          break
        }
        Object.assign(merged, result.results)
      }
      numpy = merged
    }
    const order = new Map(selected.map((c, i) => [c.id, i]))
    const byId = new Map(selected.map((c) => [c.id, c]))
    // the default backend here: native tensorflow when it initialized for this run, else wasm (any non-native backend
    // gives the same default engines)
    const defaultBackend = measured.some((r) => r.backend === "tensorflow") ? "tensorflow" : "wasm"
    return measured
      .map(({ id, ...row }) => {
        const numpyMs = numpy[id] ?? null
        const kernelName = byId.get(id)!.kernelName
        return {
          ...row,
          kernelName,
          isDefault: row.backend === defaultRowLabel(kernelName, defaultBackend),
          numpyMs,
          ratio: numpyMs === null ? null : row.ourMs / numpyMs,
          order: order.get(id)!
        }
      })
      .sort((a, b) => a.order - b.order)
      .map(({ order: _order, ...row }) => row)
  })

/** A NumPy time for the tables: "unavailable" without a baseline. */
const fmtNumpy = (x: number | null): string => (x === null ? "unavailable" : fmt(x))

const fmt = (x: number | null): string => (x === null ? "n/a" : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 0.1 ? x.toFixed(2) : x.toFixed(3))

/**
 * The bench row label of the engine the default dispatch picks for `kernelName` on `backendName`
 * (`KernelRegistry.defaultEngineOf`): `typed-array`, `wasm-simd`, `onnxruntime`, or the backend's name for TensorFlow.js
 * and user-registered kernels.
 */
export const defaultRowLabel = (kernelName: string, backendName: string): string => {
  const { engine } = KernelRegistry.defaultEngineOf(kernelName, backendName)
  return engine === "tfjs" || engine === "registered" ? backendName : engine
}

/**
 * The rows as a Markdown table (`| kernel | size | backend | default | ours ms | numpy ms | ours/numpy |`); the
 * `default` column marks the engine the default dispatch picks.
 */
export const formatTable = (rows: ReadonlyArray<BenchRow>): string => {
  const lines = ["| kernel | size | backend | default | ours (ms) | NumPy (ms) | ours / NumPy |", "|---|---|---|:---:|---:|---:|---:|"]
  for (const r of rows) {
    lines.push(`| ${r.kernel} | ${r.size} | ${r.backend} | ${r.isDefault ? "default" : ""} | ${fmt(r.ourMs)} | ${fmtNumpy(r.numpyMs)} | ${r.ratio === null ? "n/a" : r.ratio.toFixed(2)} |`)
  }
  return lines.join("\n")
}

/**
 * One line per case: the default engine, its time, NumPy's and the ratio (`| kernel | size | default engine |
 * default (ms) | NumPy (ms) | default / NumPy |`). Cases whose default engine was not among the timed backends are
 * left out.
 */
export const formatDefaults = (rows: ReadonlyArray<BenchRow>): string => {
  const lines = ["| kernel | size | default engine | default (ms) | NumPy (ms) | default / NumPy |", "|---|---|---|---:|---:|---:|"]
  for (const r of rows) {
    if (r.isDefault) lines.push(`| ${r.kernel} | ${r.size} | ${r.backend} | ${fmt(r.ourMs)} | ${fmtNumpy(r.numpyMs)} | ${r.ratio === null ? "n/a" : r.ratio.toFixed(2)} |`)
  }
  return lines.join("\n")
}
