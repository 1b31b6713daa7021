/**
 * ONNX Runtime as a second engine for the inference-heavy kernels: top-k retrieval, masked log-softmax + entropy and
 * the KL estimators, run by `onnxruntime-node` on graphs built in JavaScript with `onnx-proto` (no model files).
 *
 * **When to use**
 *
 * Provide {@link layer} (a scoped resource): while it is alive the default dispatch (`KernelRegistry.defaultEngines`)
 * runs top-k and log-softmax here, where ONNX Runtime measured fastest (KL stays on wasm-simd, a tie). Or select the
 * engine for the kernel entry points explicitly, either per call
 * (`TopK.topK(input, { engine: "onnxruntime" })`) or for the process with `AUTODIDACT_KERNEL_ENGINE=onnxruntime`.
 * While the layer is alive, its kernels are registered in the {@link KernelRegistry} for backend `"onnxruntime"`;
 * when a kernel fails there (anything but bad input), the failure is logged and the typed-array reference answers.
 * Kernels without an ONNX implementation (GAE, returns, ...) keep running on the {@link Backend} service's backend.
 *
 * **Details**
 * - Execution providers: `["cuda", "cpu"]` when `ort.listSupportedBackends()` reports CUDA as bundled, else
 *   `["cpu"]` (never a failure for lack of CUDA; if a session cannot be created with CUDA it is created on CPU and
 *   {@link OrtEngineShape.reason} says why). Intra-op threads: `os.availableParallelism()`.
 * - Sessions are created once per graph signature, with dynamic (symbolic) batch axes, and cached; they are released
 *   (`session.release()`) when the layer's scope closes.
 * - Top-k: `Gemm(queries, matrix, transB = 1)` (MLAS SGEMM, multithreaded), for cosine `· 1/‖q‖ · 1/‖m_j‖` (0 for a
 *   zero vector, as the reference), then `TopK(k, largest, sorted)` (ties: lower row first). A `ReduceSum` of each raw
 *   score row flags non-finite scores (then the inputs are checked to name the element). The embedding matrix stays
 *   resident in one of two ways ({@link OrtEngineOptions.topKMatrix}):
 *   `"input"` (default): the matrix is fed as an input tensor that wraps the caller's `Float32Array` without copying
 *   (converted once and cached per matrix object when it is not a `Float32Array`); in-place edits are seen.
 *   `"initializer"`: the matrix (and its inverse row norms) is baked into a model per matrix object; at most
 *   `maxResidentMatrices` such sessions are kept (least recently used released first). **In-place edits of a baked
 *   matrix are not seen** — call {@link OrtEngineShape.forget}.
 * - Log-softmax: `Where(mask == 0, −∞, Where(mask == 1, z, NaN))` → `LogSoftmax(axis = 1)`;
 *   entropy `−ReduceSum(Where(mask == 1, exp(lp) · lp, 0)) + 0 · ReduceMax(zm)` (the last term is NaN exactly for a
 *   row without a valid action). A NaN entropy (bad mask value, empty row, non-finite valid logit) triggers the full
 *   validation that names the problem.
 * - KL: with `x = log r = log p − log q` (float32): `k1 = −x`, `k2 = ½ x²`, `k3 = (exp(x) − 1) − x`
 *   (ONNX has no `expm1`; absolute error ≲ 2⁻²² · max(1, eˣ), fine for a loss statistic, not for |x| ≲ 1e-3 relative
 *   accuracy); the mean is a float32 `ReduceMean`.
 * - All computation is float32; `Float64Array`/array inputs are converted (a copy) per call.
 *
 * **Gotchas**: `session.run` is asynchronous, so these kernels only run through the Effect entry points
 * (`KernelRegistry.run`); `KernelRegistry.dispatchSync` treats them as failed and answers with the reference.
 *
 * @see https://onnxruntime.ai/docs/api/js/ (onnxruntime-node)
 * @see https://onnx.ai/onnx/operators/ (Gemm, TopK, LogSoftmax, Where, ReduceSum, ReduceMean)
 * @since 0.1.0
 */
import * as os from "node:os"
import { Context, Effect, Layer, Schema } from "effect"
import type { Scope } from "effect"
import { OptionalPeer } from "@autodidact/core"
import type * as ort from "onnxruntime-node"
import type onnxProto from "onnx-proto"
import type { NumArray } from "../NumArray.js"
import type { Site } from "../KernelError.js"
import { checkFinite, checkShape, checkSize, fail, shapeString } from "../KernelError.js"
import * as KernelRegistry from "./KernelRegistry.js"
import * as Kl from "../policy/Kl.js"
import * as OrtSession from "./OrtSession.js"
import * as Softmax from "../policy/Softmax.js"
import * as TopK from "../retrieval/TopK.js"

/** The ONNX protobuf classes (`onnx-proto`), loaded with the runtime by {@link loadEngineRuntime}. */
let onnx: typeof onnxProto.onnx
/** The `onnxruntime-node` module, loaded by {@link loadEngineRuntime}. */
let runtime: OrtSession.Runtime

/**
 * Load the optional peers of the engine (`onnxruntime-node` and `onnx-proto`), once. Rejects with `OrtLoadError` kind
 * `"unavailable"` (cause `MissingPeerError`) without `onnxruntime-node`, with `MissingPeerError` without `onnx-proto`.
 */
export const loadEngineRuntime = async (): Promise<void> => {
  runtime ??= await OrtSession.loadRuntime()
  if (onnx === undefined) {
    const mod = await OptionalPeer.load("onnx-proto", OrtSession.ENTRY_POINT, () => import("onnx-proto"), "^8.0.1")
    onnx = ((mod as { default?: typeof onnxProto }).default ?? (mod as unknown as typeof onnxProto)).onnx
  }
}

/** The registry backend name of this engine. */
export const BACKEND_NAME = KernelRegistry.ONNXRUNTIME

/**
 * ONNX Runtime could not be loaded or could not create a session.
 * @category errors
 */
export class OrtUnavailableError extends Schema.TaggedError<OrtUnavailableError>()("OrtUnavailableError", {
  reason: Schema.String
}) {
  override get message() {
    return `ONNX Runtime is unavailable: ${this.reason}`
  }
}

/** Options of {@link make} / {@link layerWith}. */
export interface OrtEngineOptions {
  /** Execution providers, in order (default: `["cuda", "cpu"]` when CUDA is bundled, else `["cpu"]`). */
  readonly executionProviders?: ReadonlyArray<"cuda" | "cpu"> | undefined
  /** Intra-op threads per session (default `os.availableParallelism()`). */
  readonly intraOpNumThreads?: number | undefined
  /** How top-k keeps the embedding matrix resident (default `"input"`; see the module docs). */
  readonly topKMatrix?: "input" | "initializer" | undefined
  /** Baked-matrix sessions kept at once in `"initializer"` mode (default 2). */
  readonly maxResidentMatrices?: number | undefined
  /** Register the kernels for backend `"onnxruntime"` while the engine is alive (default true). */
  readonly register?: boolean | undefined
}

/** What the {@link OrtEngine} service holds. */
export interface OrtEngineShape {
  /** The execution providers sessions are created with. */
  readonly executionProviders: ReadonlyArray<string>
  readonly intraOpNumThreads: number
  /** Why these providers (CUDA bundled or not, a failed CUDA session). */
  readonly reason: string
  readonly topKMatrix: "input" | "initializer"
  /** Top-k (validates; `KernelInputError` on bad input). */
  readonly topK: (input: TopK.TopKInput) => Promise<TopK.TopKResult>
  /** Masked log-softmax and entropy (validates). */
  readonly logSoftmax: (input: Softmax.SoftmaxInput) => Promise<Softmax.SoftmaxResult>
  /** KL estimates k1/k2/k3 (validates). */
  readonly klEstimate: (input: Kl.KlInput) => Promise<Kl.KlResult>
  /** Sessions currently held. */
  readonly sessionCount: () => number
  /** Drop the cached tensors/baked sessions of a matrix (after editing it in place). */
  readonly forget: (matrix: NumArray) => Promise<void>
}

/**
 * The ONNX Runtime engine (sessions, cached resident tensors).
 * @category services
 */
export class OrtEngine extends Context.Service<OrtEngine, OrtEngineShape>()("@autodidact/kernels/OrtEngine") {}

// ---------------------------------------------------------------------------------------------------------------------
// Graph construction with onnx-proto

type Dim = number | string
const FLOAT = 1 // onnx.TensorProto.DataType.FLOAT
const INT64 = 7 // onnx.TensorProto.DataType.INT64
const OPSET = 13

const valueInfo = (name: string, elemType: number, dims: ReadonlyArray<Dim>): onnxProto.onnx.IValueInfoProto => ({
  name,
  type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) } } }
})

type Attr = number | ReadonlyArray<number>
const node = (opType: string, input: ReadonlyArray<string>, output: ReadonlyArray<string>, attrs: { readonly [k: string]: Attr } = {}): onnxProto.onnx.INodeProto => ({
  opType,
  input: [...input],
  output: [...output],
  attribute: Object.entries(attrs).map(([name, v]) =>
    typeof v === "number"
      ? { name, type: onnx.AttributeProto.AttributeType.INT, i: v }
      : { name, type: onnx.AttributeProto.AttributeType.INTS, ints: [...v] }
  )
})

const f32Const = (name: string, values: ReadonlyArray<number>, dims: ReadonlyArray<number> = []): onnxProto.onnx.ITensorProto => ({
  name,
  dataType: FLOAT,
  dims: [...dims],
  floatData: [...values]
})
const i64Const = (name: string, values: ReadonlyArray<number>): onnxProto.onnx.ITensorProto => ({ name, dataType: INT64, dims: [values.length], int64Data: [...values] })
const rawF32 = (name: string, data: Float32Array, dims: ReadonlyArray<number>): onnxProto.onnx.ITensorProto => ({
  name,
  dataType: FLOAT,
  dims: [...dims],
  rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
})

interface Graph {
  readonly nodes: ReadonlyArray<onnxProto.onnx.INodeProto>
  readonly inputs: ReadonlyArray<onnxProto.onnx.IValueInfoProto>
  readonly outputs: ReadonlyArray<onnxProto.onnx.IValueInfoProto>
  readonly initializers?: ReadonlyArray<onnxProto.onnx.ITensorProto>
}

/** Serialize a graph to ONNX model bytes (IR 8, default opset 13). Needs {@link loadEngineRuntime} first. */
export const modelBytes = (name: string, g: Graph): Uint8Array =>
  onnx.ModelProto.encode(onnx.ModelProto.create({
    irVersion: 8,
    producerName: "@autodidact/kernels",
    opsetImport: [{ domain: "", version: OPSET }],
    graph: { name, node: [...g.nodes], input: [...g.inputs], output: [...g.outputs], initializer: [...(g.initializers ?? [])] }
  })).finish()

/**
 * Top-k graph. Inputs `q [Q, D]`, `k [1]` (int64), `m [M, D]` unless baked; cosine: `invQ [Q, 1]`, and `rowNorms [M]`
 * when `norms === "input"`. Outputs `values [Q, k]`, `indices [Q, k]` (int64), `check [Q]` (row sums of raw scores).
 */
const topKGraph = (metric: "dot" | "cosine", norms: "input" | "reduce" | "baked", baked?: { matrix: Float32Array; invRow: Float32Array; M: number; D: number }): Graph => {
  const inputs = [valueInfo("q", FLOAT, ["Q", baked?.D ?? "D"]), valueInfo("k", INT64, [1])]
  const initializers: Array<onnxProto.onnx.ITensorProto> = [i64Const("axes1", [1]), f32Const("zero", [0])]
  const nodes: Array<onnxProto.onnx.INodeProto> = []
  if (baked === undefined) inputs.push(valueInfo("m", FLOAT, ["M", "D"]))
  else initializers.push(rawF32("m", baked.matrix, [baked.M, baked.D]))
  nodes.push(node("Gemm", ["q", "m"], ["raw"], { transB: 1 }))
  nodes.push(node("ReduceSum", ["raw", "axes1"], ["check"], { keepdims: 0 }))
  let scores = "raw"
  if (metric === "cosine") {
    inputs.push(valueInfo("invQ", FLOAT, ["Q", 1]))
    if (baked !== undefined) {
      initializers.push(rawF32("invRow", baked.invRow, [baked.M]))
    } else {
      if (norms === "input") inputs.push(valueInfo("rowNorms", FLOAT, ["M"]))
      else nodes.push(node("ReduceL2", ["m"], ["rowNorms"], { axes: [1], keepdims: 0 }))
      nodes.push(
        node("Greater", ["rowNorms", "zero"], ["positive"]),
        node("Reciprocal", ["rowNorms"], ["recip"]),
        node("Where", ["positive", "recip", "zero"], ["invRow"])
      )
    }
    nodes.push(node("Mul", ["raw", "invQ"], ["scaledQ"]), node("Mul", ["scaledQ", "invRow"], ["cos"]))
    scores = "cos"
  }
  nodes.push(node("TopK", [scores, "k"], ["values", "indices"], { axis: 1, largest: 1, sorted: 1 }))
  return {
    nodes,
    inputs,
    initializers,
    outputs: [valueInfo("values", FLOAT, ["Q", "K"]), valueInfo("indices", INT64, ["Q", "K"]), valueInfo("check", FLOAT, ["Q"])]
  }
}

/** Log-softmax + entropy graph (masked or not). Inputs `z [B, A]` (and `mask [B, A]`); outputs `logProbs`, `entropy`. */
const logSoftmaxGraph = (masked: boolean): Graph => {
  const inputs = [valueInfo("z", FLOAT, ["B", "A"])]
  const initializers = [i64Const("axes1", [1]), f32Const("zero", [0]), f32Const("one", [1]), f32Const("ninf", [-Infinity]), f32Const("nan", [Number.NaN])]
  const nodes: Array<onnxProto.onnx.INodeProto> = []
  if (masked) {
    inputs.push(valueInfo("mask", FLOAT, ["B", "A"]))
    nodes.push(
      node("Equal", ["mask", "zero"], ["isZero"]),
      node("Equal", ["mask", "one"], ["isOne"]),
      node("Where", ["isOne", "z", "nan"], ["zValid"]), // a mask value other than 0/1 poisons its row (NaN entropy)
      node("Where", ["isZero", "ninf", "zValid"], ["zm"]),
      node("LogSoftmax", ["zm"], ["logProbs"], { axis: 1 }),
      node("Exp", ["logProbs"], ["p"]),
      node("Mul", ["p", "logProbs"], ["plogp"]),
      node("Where", ["isOne", "plogp", "zero"], ["plogpValid"]),
      node("ReduceSum", ["plogpValid", "axes1"], ["negHValid"], { keepdims: 0 }),
      // 0 · max_a zm: 0 for a row with a finite valid maximum, NaN for a row with no valid action (max = −∞) or a +∞
      // valid logit, so the entropy flags them (plogpValid alone is 0 for an empty row)
      node("ReduceMax", ["zm"], ["rowMax"], { axes: [1], keepdims: 0 }),
      node("Mul", ["rowMax", "zero"], ["flag"]),
      node("Sub", ["negHValid", "flag"], ["negH"])
    )
  } else {
    nodes.push(
      node("LogSoftmax", ["z"], ["logProbs"], { axis: 1 }),
      node("Exp", ["logProbs"], ["p"]),
      node("Mul", ["p", "logProbs"], ["plogp"]),
      node("ReduceSum", ["plogp", "axes1"], ["negH"], { keepdims: 0 })
    )
  }
  nodes.push(node("Neg", ["negH"], ["entropy"]))
  return { nodes, inputs, initializers, outputs: [valueInfo("logProbs", FLOAT, ["B", "A"]), valueInfo("entropy", FLOAT, ["B"])] }
}

/** KL graph. Inputs `q [N]` (log q), `p [N]` (log p); outputs `values [N]`, `mean []`. */
const klGraph = (estimator: Kl.Estimator): Graph => {
  const nodes: Array<onnxProto.onnx.INodeProto> = []
  const initializers = [f32Const("one", [1]), f32Const("half", [0.5])]
  switch (estimator) {
    case "k1":
      nodes.push(node("Sub", ["q", "p"], ["values"]))
      break
    case "k2":
      nodes.push(node("Sub", ["p", "q"], ["x"]), node("Mul", ["x", "x"], ["x2"]), node("Mul", ["x2", "half"], ["values"]))
      break
    case "k3":
      nodes.push(node("Sub", ["p", "q"], ["x"]), node("Exp", ["x"], ["r"]), node("Sub", ["r", "one"], ["rm1"]), node("Sub", ["rm1", "x"], ["values"]))
      break
  }
  nodes.push(node("ReduceMean", ["values"], ["mean"], { keepdims: 0 }))
  return {
    nodes,
    inputs: [valueInfo("q", FLOAT, ["N"]), valueInfo("p", FLOAT, ["N"])],
    initializers,
    outputs: [valueInfo("values", FLOAT, ["N"]), valueInfo("mean", FLOAT, [])]
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// The engine

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 300)

const toF32 = (x: NumArray): Float32Array => (x instanceof Float32Array ? x : Float32Array.from(x as ArrayLike<number>))

const toInt32 = (x: ort.Tensor["data"]): Int32Array => {
  if (x instanceof Int32Array) return x
  const src = x as BigInt64Array
  const out = new Int32Array(src.length)
  for (let i = 0; i < src.length; i++) out[i] = Number(src[i]!)
  return out
}

/** Execution providers to use and why: CUDA first when this onnxruntime-node build bundles it (see `OrtSession.detectProviders`). */
export const detectExecutionProviders = async (): Promise<{ readonly providers: ReadonlyArray<"cuda" | "cpu">; readonly reason: string }> => {
  await loadEngineRuntime()
  return OrtSession.detectProviders(runtime)
}

interface Baked {
  readonly session: Promise<ort.InferenceSession>
  readonly key: string
}

/** Create the engine (sessions are created lazily and released by the returned `close`). */
export const makeUnscoped = async (options: OrtEngineOptions = {}): Promise<OrtEngineShape & { readonly close: () => Promise<void> }> => {
  const detected = await detectExecutionProviders()
  let providers: ReadonlyArray<string> = options.executionProviders ?? detected.providers
  let reason = options.executionProviders !== undefined ? "set by the executionProviders option" : detected.reason
  const threads = options.intraOpNumThreads ?? os.availableParallelism()
  const topKMatrix = options.topKMatrix ?? "input"
  const maxResident = Math.max(1, options.maxResidentMatrices ?? 2)
  const sessions = new Map<string, Promise<ort.InferenceSession>>()
  const baked = new Map<NumArray, Baked>() // insertion order = LRU order
  const matrixTensors = new WeakMap<object, { readonly data: Float32Array; readonly tensor: ort.Tensor }>()
  const all = new Set<Promise<ort.InferenceSession>>()
  let closed = false

  const create = async (name: string, graph: Graph): Promise<ort.InferenceSession> => {
    const base = { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: "all" as const, logSeverityLevel: 3 as const }
    // the one session wrapper: retries without CUDA when a CUDA session fails, and says so
    const s = await OrtSession.create(modelBytes(name, graph), { name, executionProviders: providers, sessionOptions: base })
    if (s.executionProviders.length !== providers.length) {
      providers = s.executionProviders
      reason = s.providerNote
    }
    return s.session
  }
  const track = (p: Promise<ort.InferenceSession>) => {
    all.add(p)
    p.catch(() => all.delete(p))
    return p
  }
  const session = (key: string, graph: () => Graph): Promise<ort.InferenceSession> => {
    if (closed) return Promise.reject(new Error("the ONNX Runtime engine is closed"))
    let s = sessions.get(key)
    if (s === undefined) {
      s = track(create(key, graph()))
      s.catch(() => sessions.delete(key))
      sessions.set(key, s)
    }
    return s
  }
  const release = async (p: Promise<ort.InferenceSession>) => {
    all.delete(p)
    const s = await p.catch(() => undefined)
    await s?.release()
  }

  const matrixTensor = (input: TopK.TopKInput): ort.Tensor => {
    const m = input.matrix as object
    const cached = matrixTensors.get(m)
    if (cached !== undefined && cached.data.length === input.numRows * input.dim && cached.tensor.dims[0] === input.numRows) return cached.tensor
    const data = toF32(input.matrix)
    const tensor = new runtime.Tensor("float32", data, [input.numRows, input.dim]) // wraps `data`, no copy
    matrixTensors.set(m, { data, tensor })
    return tensor
  }

  const bakedSession = (input: TopK.TopKInput): Promise<ort.InferenceSession> => {
    const key = `TopK/${input.metric}/baked/${input.numRows}x${input.dim}/${input.rowNorms === undefined ? "norms" : "given"}`
    const hit = baked.get(input.matrix)
    if (hit !== undefined && hit.key === key && !closed) {
      baked.delete(input.matrix)
      baked.set(input.matrix, hit) // most recently used
      return hit.session
    }
    if (hit !== undefined) {
      baked.delete(input.matrix)
      void release(hit.session)
    }
    const { numRows: M, dim: D } = input
    const matrix = toF32(input.matrix)
    const invRow = new Float32Array(M)
    if (input.metric === "cosine") {
      const norms = input.rowNorms ?? TopK.rowNorms(matrix, M, D)
      for (let j = 0; j < M; j++) invRow[j] = norms[j]! > 0 ? 1 / norms[j]! : 0
    }
    const s = closed ? Promise.reject(new Error("the ONNX Runtime engine is closed")) : track(create(key, topKGraph(input.metric, "baked", { matrix, invRow, M, D })))
    baked.set(input.matrix, { session: s, key })
    s.catch(() => baked.get(input.matrix)?.session === s && baked.delete(input.matrix))
    while (baked.size > maxResident) {
      const [oldest, entry] = baked.entries().next().value!
      baked.delete(oldest)
      void release(entry.session)
    }
    return s
  }

  const topK = async (input: TopK.TopKInput): Promise<TopK.TopKResult> => {
    const site = TopK.validate(input, BACKEND_NAME)
    const { numQueries: Q, numRows: M, dim: D, k } = input
    const queries = toF32(input.queries)
    const feeds: Record<string, ort.Tensor> = {
      q: new runtime.Tensor("float32", queries, [Q, D]),
      k: new runtime.Tensor("int64", BigInt64Array.of(BigInt(k)), [1])
    }
    if (input.metric === "cosine") {
      const invQ = new Float32Array(Q)
      const qn = TopK.rowNorms(queries, Q, D)
      for (let q = 0; q < Q; q++) invQ[q] = qn[q]! > 0 ? 1 / qn[q]! : 0
      feeds.invQ = new runtime.Tensor("float32", invQ, [Q, 1])
    }
    let s: ort.InferenceSession
    if (topKMatrix === "initializer") {
      s = await bakedSession(input)
    } else {
      feeds.m = matrixTensor(input)
      const norms = input.metric === "dot" ? "reduce" : input.rowNorms === undefined ? "reduce" : "input"
      if (norms === "input") feeds.rowNorms = new runtime.Tensor("float32", toF32(input.rowNorms!), [M])
      s = await session(`TopK/${input.metric}/${norms}`, () => topKGraph(input.metric, norms))
    }
    const out = await s.run(feeds)
    const check = out.check!.data as Float32Array
    for (let q = 0; q < Q; q++) {
      const v = check[q]!
      if (v - v !== 0) {
        checkFinite(site, "queries", input.queries, [Q, D])
        checkFinite(site, "matrix", input.matrix, [M, D])
        break // finite inputs whose float32 scores overflowed a row sum: the top-k itself is still well defined
      }
    }
    return { indices: toInt32(out.indices!.data), scores: out.values!.data as Float32Array }
  }

  const logSoftmax = async (input: Softmax.SoftmaxInput): Promise<Softmax.SoftmaxResult> => {
    const { batch: B, numActions: A, logits, mask } = input
    const site: Site = { kernel: Softmax.kernelName, backend: BACKEND_NAME }
    checkSize(site, "batch", B)
    checkSize(site, "numActions", A)
    checkShape(site, "logits", logits, [B, A])
    if (mask !== undefined) checkShape(site, "mask", mask, [B, A])
    const feeds: Record<string, ort.Tensor> = { z: new runtime.Tensor("float32", toF32(logits), [B, A]) }
    if (mask !== undefined) feeds.mask = new runtime.Tensor("float32", toF32(mask), [B, A])
    const s = await session(`LogSoftmax/${mask === undefined ? "dense" : "masked"}`, () => logSoftmaxGraph(mask !== undefined))
    const out = await s.run(feeds)
    const entropy = out.entropy!.data as Float32Array
    for (let b = 0; b < B; b++) {
      const h = entropy[b]!
      if (h !== h) {
        Softmax.validate(input, Softmax.kernelName, BACKEND_NAME)
        break
      }
    }
    return { logProbs: out.logProbs!.data as Float32Array, entropy }
  }

  const klEstimate = async (input: Kl.KlInput): Promise<Kl.KlResult> => {
    const site: Site = { kernel: `${Kl.kernelName}.${input.estimator}`, backend: BACKEND_NAME }
    const n = input.logProbs.length
    checkSize(site, "logProbs.length", n)
    checkShape(site, "otherLogProbs", input.otherLogProbs, [n])
    if (input.estimator !== "k1" && input.estimator !== "k2" && input.estimator !== "k3") {
      fail(site, "estimator", "range", shapeString([]), `expected k1, k2 or k3, got ${String(input.estimator)}`)
    }
    const s = await session(`Kl/${input.estimator}`, () => klGraph(input.estimator))
    const out = await s.run({ q: new runtime.Tensor("float32", toF32(input.logProbs), [n]), p: new runtime.Tensor("float32", toF32(input.otherLogProbs), [n]) })
    const mean = (out.mean!.data as Float32Array)[0]!
    if (mean - mean !== 0) Kl.validate(input, BACKEND_NAME)
    return { values: out.values!.data as Float32Array, mean }
  }

  const forget = async (matrix: NumArray): Promise<void> => {
    matrixTensors.delete(matrix as object)
    const hit = baked.get(matrix)
    if (hit !== undefined) {
      baked.delete(matrix)
      await release(hit.session)
    }
  }

  const close = async (): Promise<void> => {
    closed = true
    const pending = [...all]
    sessions.clear()
    baked.clear()
    await Promise.all(pending.map(release))
  }

  return {
    get executionProviders() {
      return providers
    },
    intraOpNumThreads: threads,
    get reason() {
      return reason
    },
    topKMatrix,
    topK,
    logSoftmax,
    klEstimate,
    sessionCount: () => all.size,
    forget,
    close
  }
}

/**
 * Register the engine's kernels (TopK, LogSoftmax, Kl) in the {@link KernelRegistry} for backend `"onnxruntime"`;
 * returns the function that restores the previous registrations.
 */
export const registerKernels = (engine: OrtEngineShape): () => void => {
  const restores = [
    KernelRegistry.registerKernel({ kernelName: TopK.kernelName, backendName: BACKEND_NAME, kernelFunc: (i: TopK.TopKInput) => engine.topK(i) }),
    KernelRegistry.registerKernel({ kernelName: Softmax.kernelName, backendName: BACKEND_NAME, kernelFunc: (i: Softmax.SoftmaxInput) => engine.logSoftmax(i) }),
    KernelRegistry.registerKernel({ kernelName: Kl.kernelName, backendName: BACKEND_NAME, kernelFunc: (i: Kl.KlInput) => engine.klEstimate(i) })
  ]
  return () => {
    for (const r of restores.reverse()) r()
  }
}

/**
 * The engine as a scoped resource: sessions are released and the registry entries restored when the scope closes.
 * Fails with {@link OrtUnavailableError} when `onnxruntime-node` cannot create a session at all (checked eagerly with
 * a tiny KL session).
 */
export const make = (options: OrtEngineOptions = {}): Effect.Effect<OrtEngineShape, OrtUnavailableError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const engine = await makeUnscoped(options)
        try {
          await engine.klEstimate({ logProbs: [0], otherLogProbs: [0], estimator: "k3" }) // smoke test: the runtime loads and runs
        } catch (e) {
          await engine.close()
          throw e
        }
        const unregister = options.register === false ? () => {} : registerKernels(engine)
        return { engine, unregister }
      },
      catch: (e) => new OrtUnavailableError({ reason: message(e) })
    }),
    ({ engine, unregister }) =>
      Effect.promise(async () => {
        unregister()
        await engine.close()
      })
  ).pipe(Effect.map(({ engine }) => engine))

/** The {@link OrtEngine} service with default options (kernels registered for backend `"onnxruntime"`). */
export const layer: Layer.Layer<OrtEngine, OrtUnavailableError> = Layer.effect(OrtEngine, make())

/** An {@link OrtEngine} layer with explicit options. */
export const layerWith = (options: OrtEngineOptions): Layer.Layer<OrtEngine, OrtUnavailableError> => Layer.effect(OrtEngine, make(options))

// ---------------------------------------------------------------------------------------------- default dispatch

/** Set to `0` to keep the default dispatch's top-k off ONNX Runtime without a {@link layer} (it then runs on wasm-simd). */
export const DEFAULT_ENV_VAR = "AUTODIDACT_ORT_DEFAULT"

let shared: Promise<OrtEngineShape> | undefined
let sharedFailed = false

/**
 * The process-wide engine behind the default dispatch's top-k when no {@link layer} is provided: created on the
 * first such call (options as {@link makeUnscoped}'s defaults: the matrix fed as an input tensor, so in-place edits
 * are seen), its sessions cached per graph signature until the process exits. ONNX Runtime's multithreaded SGEMM
 * measured fastest for top-k on `bench kernels` (0.16–0.24× NumPy for 32 queries over 100k × 384, where the
 * single-threaded wasm-simd kernel was 2.4×). If it cannot be created, that call is answered by the typed-array
 * reference (logged) and later calls go to the next engine (wasm-simd).
 */
const sharedEngine = (): Promise<OrtEngineShape> =>
  (shared ??= makeUnscoped().catch((e: unknown) => {
    sharedFailed = true
    throw e
  }))

KernelRegistry.provideEngineKernel(
  BACKEND_NAME,
  TopK.kernelName,
  (input: TopK.TopKInput) => sharedEngine().then((engine) => engine.topK(input)),
  () => !sharedFailed && process.env[DEFAULT_ENV_VAR] !== "0"
)
