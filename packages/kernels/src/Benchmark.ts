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
 *   copied once into a `WasmSimd.makeTopKIndex`) and `wasm-simd (sharded ×N)` (a {@link TopKShards} index: N worker
 *   threads, each holding a contiguous row shard in its own WebAssembly instance, results merged exactly; N from option
 *   `shards`, default `TopKShards.defaultShards()`; worker start-up is not timed), for KL k3 `wasm-simd (resident)` (inputs in a
 *   `WasmSimd.makeKlBuffers` workspace, values left there). Categorical sampling draws its uniforms inside the timed
 *   call on every path (the core `Rng`; for wasm-simd its stream continued in bulk by `WasmSimd.uniformStream`). Without WebAssembly SIMD the backend is skipped with the reason.
 * - Timing: one warm-up call, then calls until `minTimeMs` has passed (at least 3, at most 200); the fastest call
 *   is reported (as `timeit` recommends: on a shared machine, slower calls measure other processes, not the kernel).
 *   TensorFlow.js timings include uploading the inputs and reading the outputs back (`dataSync`): end to end from
 *   typed arrays, as a caller sees it.
 * - NumPy: `bench/numpy_kernels.py` run by `python3` (option `python`) with the same kernels and sizes, timed with
 *   `timeit` (autorange, best of 5) in the same run, after ours (never concurrently), one Python process per case
 *   (so that a case's time does not depend on the cases before it). `OPENBLAS_CORETYPE` / `OPENBLAS_L2_SIZE` are unset for
 *   that process only. Without python3 or NumPy, `numpyMs` and `ratio` are `null` and the reason is logged.
 * - `ratio = ourMs / numpyMs`: below 1 is faster than NumPy.
 *
 * @example
 * ```ts
 * import { Benchmark } from "@autodidact/kernels"
 * import { Effect } from "effect"
 * const rows = await Effect.runPromise(Benchmark.runKernelBenchmarks({ quick: true }))
 * console.log(Benchmark.formatTable(rows))
 * ```
 * @since 0.1.0
 */
import { Rng } from "@autodidact/core"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import type { BackendName, Tf } from "./Backend.js"
import * as Backend from "./Backend.js"
import * as Categorical from "./Categorical.js"
import * as Gae from "./Gae.js"
import * as GroupNorm from "./GroupNorm.js"
import { REFERENCE } from "./KernelError.js"
import * as Kl from "./Kl.js"
import * as OrtEngine from "./OrtEngine.js"
import * as PpoLoss from "./PpoLoss.js"
import * as Returns from "./Returns.js"
import * as Softmax from "./Softmax.js"
import * as SumTree from "./SumTree.js"
import * as TopK from "./TopK.js"
import * as TopKShards from "./TopKShards.js"
import * as WasmSimd from "./WasmSimd.js"

/** One line of the table. */
export interface BenchRow {
  readonly kernel: string
  readonly size: string
  /**
   * `typed-array`, `wasm`, `cpu`, `tensorflow`, `onnxruntime` (top-k matrix fed as a resident input tensor),
   * `onnxruntime (baked)` (top-k matrix baked into the model as an initializer), `wasm-simd` (the {@link WasmSimd}
   * kernels, inputs copied into WebAssembly memory on every call), `wasm-simd (resident)` (top-k against a
   * `WasmSimd.makeTopKIndex` matrix copied once) or `wasm-simd (sharded ×N)` (top-k against a `TopKShards` index of
   * N worker threads).
   */
  readonly backend: string
  readonly ourMs: number
  /** NumPy's time for the same kernel and size, or null when python3/NumPy is unavailable. */
  readonly numpyMs: number | null
  /** `ourMs / numpyMs` (null without NumPy). */
  readonly ratio: number | null
}

/** Options of {@link runKernelBenchmarks}. */
export interface BenchOptions {
  /**
   * Implementations to time (default: typed-array, wasm-simd, wasm, cpu, tensorflow; unavailable backends are skipped).
   * `onnxruntime` times the {@link OrtEngine} kernels (top-k, log-softmax, KL) and, for top-k, both ways of keeping
   * the matrix resident.
   */
  readonly backends?: ReadonlyArray<typeof REFERENCE | BackendName | typeof OrtEngine.BACKEND_NAME | typeof WasmSimd.BACKEND_NAME> | undefined
  /** Smaller sizes (seconds instead of minutes; for tests and smoke runs). Default false. */
  readonly quick?: boolean | undefined
  /** Only kernels whose name starts with one of these (e.g. `["gae", "topk"]`). */
  readonly kernels?: ReadonlyArray<string> | undefined
  /** Shard counts of the `wasm-simd (sharded ×N)` top-k rows (default `[TopKShards.defaultShards()]`; `[]`: none). */
  readonly shards?: ReadonlyArray<number> | undefined
  /** Time budget per measurement in ms (default 300). */
  readonly minTimeMs?: number | undefined
  /** Python executable (default `python3`); `null` skips NumPy. */
  readonly python?: string | null | undefined
  /** Called after each measurement (progress). */
  readonly onRow?: ((row: Omit<BenchRow, "numpyMs" | "ratio">) => void) | undefined
}

interface Case {
  readonly id: string
  readonly kernel: string
  readonly size: string
  /** What the NumPy script builds and times. */
  readonly numpy: { readonly kernel: string; readonly params: { readonly [key: string]: number | string } }
  /** Build inputs once; returns the call to time for one implementation (undefined: not applicable). */
  readonly setup: () => Impl
}

/**
 * The call to time on the typed-array path (`tf` undefined) or a TensorFlow.js backend; `ort`: on ONNX Runtime;
 * `simd`: the WebAssembly SIMD kernel; `simdResident`: top-k against a resident index (returns the call and a release);
 * `simdSharded`: top-k against a sharded index of N workers.
 */
type Impl = ((tf: Tf | undefined) => (() => unknown) | undefined) & {
  readonly ort?: (engine: OrtEngine.OrtEngineShape) => () => Promise<unknown>
  readonly simd?: () => unknown
  readonly simdResident?: () => { readonly call: () => unknown; readonly release: () => void }
  readonly simdSharded?: (shards: number) => Promise<{ readonly call: () => Promise<unknown>; readonly release: () => Promise<void> }>
}

const withOrt = (impl: Impl, ort: (engine: OrtEngine.OrtEngineShape) => () => Promise<unknown>): Impl => Object.assign(impl, { ort })

const withSimd = (impl: Impl, simd: () => unknown, simdResident?: Impl["simdResident"], simdSharded?: Impl["simdSharded"]): Impl =>
  Object.assign(impl, { simd }, simdResident === undefined ? {} : { simdResident }, simdSharded === undefined ? {} : { simdSharded })

/** Fast deterministic filler for big inputs (xorshift32, ~N(0, 1)-ish via a sum of uniforms). */
const filler = (seed: number) => {
  let s = seed >>> 0 || 1
  const u = () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    return s / 4294967296
  }
  return {
    u,
    normal: (n: number, scale = 1, shift = 0): Float32Array => {
      const out = new Float32Array(n)
      for (let i = 0; i < n; i++) out[i] = (u() + u() + u() - 1.5) * 2 * scale + shift
      return out
    },
    flags: (n: number, p: number): Float32Array => {
      const out = new Float32Array(n)
      for (let i = 0; i < n; i++) out[i] = u() < p ? 1 : 0
      return out
    }
  }
}

const maskOf = (f: ReturnType<typeof filler>, B: number, A: number): Float32Array => {
  const m = f.flags(B * A, 0.75)
  for (let b = 0; b < B; b++) m[b * A] = 1
  return m
}

/** Variable-size segments (sizes in [lo, 2n/G − lo]), shuffled. */
const segmentIds = (f: ReturnType<typeof filler>, n: number, G: number, lo: number): Int32Array => {
  const ids = new Int32Array(n)
  const avg = Math.floor(n / G)
  let k = 0
  for (let g = 0; g < G && k < n; g++) {
    const size = lo + Math.floor(f.u() * (2 * avg - 2 * lo + 1))
    for (let i = 0; i < size && k < n; i++) ids[k++] = g
  }
  for (let g = 0; k < n; g = (g + 1) % G) ids[k++] = g
  for (let g = 0; g < G; g++) ids[g] = g // every segment non-empty (and ≥ lo for lo ≤ 2 below)
  if (lo >= 2) for (let g = 0; g < G; g++) ids[G + g] = g
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(f.u() * (i + 1))
    const t = ids[i]!
    ids[i] = ids[j]!
    ids[j] = t
  }
  return ids
}

const tfOnly = <I>(input: I, reference: (i: I) => unknown, tfjs: (tf: Tf, i: I) => unknown) => (tf: Tf | undefined) =>
  tf === undefined ? () => reference(input) : () => tfjs(tf, input)

const cases = (quick: boolean): ReadonlyArray<Case> => {
  const out: Array<Case> = []
  const rollout = quick ? [[128, 64]] : [[128, 64], [2048, 256]]
  for (const [T, N] of rollout as Array<[number, number]>) {
    out.push({
      id: `returns-${T}x${N}`,
      kernel: "returns",
      size: `[${T}, ${N}]`,
      numpy: { kernel: "returns", params: { T, N } },
      setup: () => {
        const f = filler(1)
        const input: Returns.ReturnsInput = { numSteps: T, numEnvs: N, gamma: 0.99, rewards: f.normal(T * N), dones: f.flags(T * N, 0.02), nextValue: f.normal(N) }
        return tfOnly(input, Returns.discountedReturnsSync, Returns.discountedReturnsTf)
      }
    })
    out.push({
      id: `gae-${T}x${N}`,
      kernel: "gae",
      size: `[${T}, ${N}]`,
      numpy: { kernel: "gae", params: { T, N } },
      setup: () => {
        const f = filler(2)
        const input: Gae.GaeInput = {
          numSteps: T,
          numEnvs: N,
          gamma: 0.99,
          lambda: 0.95,
          rewards: f.normal(T * N),
          values: f.normal(T * N),
          dones: f.flags(T * N, 0.02),
          nextValue: f.normal(N),
          nextDone: new Float32Array(N)
        }
        return withSimd(tfOnly(input, Gae.computeSync, Gae.computeTf), () => WasmSimd.gae(input))
      }
    })
  }
  const [B, A] = quick ? [512, 32] : [4096, 32]
  out.push({
    id: `logsoftmax-${B}x${A}`,
    kernel: "logsoftmax (masked)",
    size: `[${B}, ${A}]`,
    numpy: { kernel: "logsoftmax", params: { B, A } },
    setup: () => {
      const f = filler(3)
      const input: Softmax.SoftmaxInput = { batch: B, numActions: A, logits: f.normal(B * A), mask: maskOf(f, B, A) }
      return withSimd(withOrt(tfOnly(input, Softmax.logSoftmaxSync, Softmax.logSoftmaxTf), (e) => () => e.logSoftmax(input)), () => WasmSimd.logSoftmax(input))
    }
  })
  out.push({
    id: `categorical-${B}x${A}`,
    kernel: "categorical (masked)",
    size: `[${B}, ${A}]`,
    numpy: { kernel: "categorical", params: { B, A } },
    setup: () => {
      const f = filler(4)
      const input = { batch: B, numActions: A, logits: f.normal(B * A), mask: maskOf(f, B, A) }
      const rng = Rng.make(1)
      const impl: Impl = (tf) =>
        tf === undefined
          ? () => Categorical.fromUniformsSync({ ...input, uniforms: Categorical.uniforms(rng, B) })
          : () => Categorical.fromUniformsTf(tf, { ...input, uniforms: Categorical.uniforms(rng, B) })
      // every row draws its uniforms inside the timed call (NumPy: g.random(B)); wasm-simd continues the core Rng's
      // stream in bulk with WasmSimd.uniformStream (the same draws, generated in WebAssembly)
      let stream: WasmSimd.UniformStream | undefined
      return withSimd(impl, () => WasmSimd.categoricalSample((stream ??= WasmSimd.uniformStream(Rng.make(1))), input))
    }
  })
  const nKl = quick ? 16384 : 262144
  out.push({
    id: `kl-${nKl}`,
    kernel: "kl k3",
    size: `[${nKl}]`,
    numpy: { kernel: "kl", params: { n: nKl } },
    setup: () => {
      const f = filler(5)
      const input: Kl.KlInput = { logProbs: f.normal(nKl, 0.1, -2), otherLogProbs: f.normal(nKl, 0.1, -2), estimator: "k3" }
      // resident: the log-probabilities already live in a WasmSimd.makeKlBuffers workspace (no copies in or out)
      const resident = () => {
        const buffers = WasmSimd.makeKlBuffers(nKl)
        buffers.logProbs.set(input.logProbs)
        buffers.otherLogProbs.set(input.otherLogProbs)
        return { call: () => buffers.estimate(nKl, "k3"), release: buffers.dispose }
      }
      return withSimd(withOrt(tfOnly(input, Kl.estimateSync, Kl.estimateTf), (e) => () => e.klEstimate(input)), () => WasmSimd.klEstimate(input), resident)
    }
  })
  out.push({
    id: `ppo-${B}x${A}`,
    kernel: "ppo loss + grad",
    size: `[${B}, ${A}]`,
    numpy: { kernel: "ppo", params: { B, A } },
    setup: () => {
      const f = filler(6)
      const logits = f.normal(B * A)
      const mask = maskOf(f, B, A)
      const actions = new Int32Array(B)
      const lp = Softmax.logSoftmaxSync({ batch: B, numActions: A, logits, mask }).logProbs
      const oldLogProbs = new Float32Array(B)
      for (let b = 0; b < B; b++) oldLogProbs[b] = lp[b * A]! + (f.u() - 0.5) * 0.2
      const input: PpoLoss.PpoLossInput = {
        batch: B,
        numActions: A,
        logits,
        mask,
        actions,
        oldLogProbs,
        advantages: f.normal(B),
        values: f.normal(B),
        oldValues: f.normal(B),
        returns: f.normal(B)
      }
      return withSimd(tfOnly(input, PpoLoss.lossAndGradientSync, PpoLoss.lossAndGradientTf), () => WasmSimd.ppoLoss(input))
    }
  })
  const [n, G] = quick ? [8192, 512] : [65536, 4096]
  out.push({
    id: `groupnorm-${n}`,
    kernel: "group norm (GRPO)",
    size: `${n} in ${G} groups`,
    numpy: { kernel: "groupnorm", params: { n, G } },
    setup: () => {
      const f = filler(7)
      const input: GroupNorm.NormalizeInput = { values: f.normal(n), segmentIds: segmentIds(f, n, G, 1), numSegments: G }
      return withSimd(tfOnly(input, GroupNorm.groupNormalizeSync, GroupNorm.groupNormalizeTf), () => WasmSimd.groupNormalize(input))
    }
  })
  out.push({
    id: `rloo-${n}`,
    kernel: "rloo baselines",
    size: `${n} in ${G} groups`,
    numpy: { kernel: "rloo", params: { n, G } },
    setup: () => {
      const f = filler(8)
      return tfOnly({ values: f.normal(n), segmentIds: segmentIds(f, n, G, 2), numSegments: G }, GroupNorm.rlooSync, GroupNorm.rlooTf)
    }
  })
  const M = quick ? 10000 : 100000
  const D = 384
  const topk: Array<[number, "dot" | "cosine"]> = quick ? [[1, "dot"], [8, "cosine"]] : [[1, "dot"], [32, "dot"], [32, "cosine"]]
  let matrix: Float32Array | undefined
  let norms: Float64Array | undefined
  for (const [Q, metric] of topk) {
    out.push({
      id: `topk-${metric}-${Q}x${M}`,
      kernel: `top-10 ${metric}`,
      size: `${Q} × [${M}, ${D}]`,
      numpy: { kernel: "topk", params: { Q, M, D, k: 10, metric } },
      setup: () => {
        const f = filler(9)
        matrix ??= f.normal(M * D)
        norms ??= TopK.rowNorms(matrix, M, D)
        const input: TopK.TopKInput = {
          queries: f.normal(Q * D),
          matrix,
          numQueries: Q,
          numRows: M,
          dim: D,
          k: 10,
          metric,
          ...(metric === "cosine" ? { rowNorms: norms } : {})
        }
        const resident = () => {
          const index = WasmSimd.makeTopKIndex(input.matrix, M, D)
          return { call: () => index.search(input.queries, Q, 10, metric), release: index.dispose }
        }
        const sharded = async (shards: number) => {
          const index = await TopKShards.makeUnscoped(input.matrix, M, D, { shards })
          return { call: () => index.search(input.queries, Q, 10, metric), release: index.close }
        }
        return withSimd(withOrt(tfOnly(input, TopK.topKSync, TopK.topKTf), (e) => () => e.topK(input)), () => WasmSimd.topK(input), resident, sharded)
      }
    })
  }
  const C = quick ? 65536 : 1 << 20
  const SB = 256
  const makeTree = () => {
    const f = filler(10)
    const tree = SumTree.make(C)
    const all = new Int32Array(C)
    for (let j = 0; j < C; j++) all[j] = j
    SumTree.updateBatch(tree, all, Float64Array.from({ length: C }, () => f.u()))
    return { tree, f }
  }
  out.push({
    id: `sumtree-update-${C}`,
    kernel: "sumtree batch update",
    size: `${SB} of ${C}`,
    numpy: { kernel: "sumtree.update", params: { C, B: SB } },
    setup: () => {
      const { tree, f } = makeTree()
      const idx = new Int32Array(SB)
      const pr = new Float64Array(SB)
      const scratch = new Int32Array(SB)
      return (tf) =>
        tf !== undefined ? undefined : () => {
          for (let b = 0; b < SB; b++) {
            idx[b] = Math.floor(f.u() * C)
            pr[b] = f.u()
          }
          SumTree.updateBatch(tree, idx, pr, scratch)
        }
    }
  })
  out.push({
    id: `sumtree-sample-${C}`,
    kernel: "sumtree batch sample",
    size: `${SB} of ${C}`,
    numpy: { kernel: "sumtree.sample", params: { C, B: SB } },
    setup: () => {
      const { tree } = makeTree()
      const rng = Rng.make(3)
      const leaves = tree.nodes.subarray(C)
      const res: SumTree.SampleResult = { indices: new Int32Array(SB), priorities: new Float64Array(SB) }
      return (tf) =>
        tf === undefined
          ? () => SumTree.sampleBatch(tree, SumTree.stratifiedPrefixes(tree, rng, SB), res)
          : () => SumTree.sampleTf(tf, leaves, SumTree.stratifiedPrefixes(tree, rng, SB))
    }
  })
  return out
}

const time = (f: () => unknown, minTimeMs: number): number => {
  f() // warm-up (JIT, kernel compilation, first allocation)
  const times: Array<number> = []
  const start = performance.now()
  while (times.length < 3 || (performance.now() - start < minTimeMs && times.length < 200)) {
    const t0 = performance.now()
    f()
    times.push(performance.now() - t0)
  }
  return Math.min(...times)
}

const timeAsync = async (f: () => Promise<unknown>, minTimeMs: number): Promise<number> => {
  await f() // warm-up (session creation, first allocation)
  const times: Array<number> = []
  const start = performance.now()
  while (times.length < 3 || (performance.now() - start < minTimeMs && times.length < 200)) {
    const t0 = performance.now()
    await f()
    times.push(performance.now() - t0)
  }
  return Math.min(...times)
}

const scriptPath = (): string => fileURLToPath(new URL("../bench/numpy_kernels.py", import.meta.url))

/** Run the NumPy side; resolves to per-case milliseconds, or a reason when unavailable. */
const runNumpy = (python: string, spec: ReadonlyArray<{ id: string; kernel: string; params: object }>): Promise<{ readonly results: { readonly [id: string]: number } } | { readonly error: string }> =>
  new Promise((resolve) => {
    const env = { ...process.env }
    delete env.OPENBLAS_CORETYPE // these slow NumPy down on this kind of machine; unset for this process only
    delete env.OPENBLAS_L2_SIZE
    const child = execFile(python, [scriptPath()], { env, maxBuffer: 16 * 1024 * 1024, timeout: 30 * 60 * 1000 }, (error, stdout, stderr) => {
      if (error !== null) {
        resolve({ error: `${python} ${scriptPath()} failed: ${(stderr || error.message).trim().split("\n").slice(-1)[0]}` })
        return
      }
      try {
        resolve({ results: (JSON.parse(stdout) as { results: { [id: string]: number } }).results })
      } catch (e) {
        resolve({ error: `unreadable NumPy output: ${String(e)}` })
      }
    })
    child.stdin?.end(JSON.stringify(spec))
  })

/**
 * Time every kernel on the typed-array path and each available TensorFlow.js backend, then NumPy on the same sizes;
 * rows in kernel order, then implementation order.
 */
export const runKernelBenchmarks = (options: BenchOptions = {}): Effect.Effect<ReadonlyArray<BenchRow>> =>
  Effect.gen(function* () {
    const quick = options.quick ?? false
    const minTimeMs = options.minTimeMs ?? 300
    const wanted = options.backends ?? [REFERENCE, WasmSimd.BACKEND_NAME, "wasm", "cpu", "tensorflow"]
    const selected = cases(quick).filter((c) => options.kernels === undefined || options.kernels.some((k) => c.id.startsWith(k)))
    const measured: Array<Omit<BenchRow, "numpyMs" | "ratio"> & { readonly id: string }> = []
    const calls = selected.map((c) => ({ c, forTf: c.setup() }))
    for (const backend of wanted) {
      if (backend === OrtEngine.BACKEND_NAME) {
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
          if (forTf.simdSharded !== undefined) {
            for (const n of options.shards ?? [TopKShards.defaultShards()]) {
              const label = `${backend} (sharded ×${n})`
              const ourMs = yield* Effect.acquireUseRelease(
                Effect.tryPromise(() => forTf.simdSharded!(n)),
                ({ call }) => Effect.promise(() => timeAsync(call, minTimeMs)),
                ({ release }) => Effect.promise(release)
              ).pipe(Effect.catch((e) => Effect.as(Effect.logWarning(`bench kernels: skipping ${label}: ${String(e)}`), undefined)))
              if (ourMs === undefined) continue
              const row = { id: c.id, kernel: c.kernel, size: c.size, backend: label, ourMs }
              measured.push(row)
              options.onRow?.(row)
            }
          }
          yield* Effect.yieldNow
        }
        continue
      }
      let tf: Tf | undefined
      if (backend !== REFERENCE) {
        const selectedBackend = yield* Effect.result(Backend.select({ force: backend }))
        if (selectedBackend._tag === "Failure") {
          yield* Effect.logWarning(`bench kernels: skipping backend ${backend}: ${selectedBackend.failure.reason}`)
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
        const result = yield* Effect.promise(() => runNumpy(options.python ?? "python3", [{ id: c.id, ...c.numpy }]))
        if ("error" in result) {
          yield* Effect.logWarning(`bench kernels: no NumPy baseline: ${result.error}`)
          break
        }
        Object.assign(merged, result.results)
      }
      numpy = merged
    }
    const order = new Map(selected.map((c, i) => [c.id, i]))
    return measured
      .map(({ id, ...row }) => {
        const numpyMs = numpy[id] ?? null
        return { ...row, numpyMs, ratio: numpyMs === null ? null : row.ourMs / numpyMs, order: order.get(id)! }
      })
      .sort((a, b) => a.order - b.order)
      .map(({ order: _order, ...row }) => row)
  })

const fmt = (x: number | null): string => (x === null ? "n/a" : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 0.1 ? x.toFixed(2) : x.toFixed(3))

/** The rows as a Markdown table (`| kernel | size | backend | ours ms | numpy ms | ours/numpy |`). */
export const formatTable = (rows: ReadonlyArray<BenchRow>): string => {
  const lines = ["| kernel | size | backend | ours (ms) | NumPy (ms) | ours / NumPy |", "|---|---|---|---:|---:|---:|"]
  for (const r of rows) lines.push(`| ${r.kernel} | ${r.size} | ${r.backend} | ${fmt(r.ourMs)} | ${fmt(r.numpyMs)} | ${r.ratio === null ? "n/a" : r.ratio.toFixed(2)} |`)
  return lines.join("\n")
}
