/**
 * The cases of `autodidact bench kernels`: each kernel at realistic sizes, its inputs built once (a deterministic
 * xorshift filler), the call to time per engine, and what the NumPy script (`bench/numpy_kernels.py`) times for it.
 * Internal to {@link Benchmark}.
 * @since 0.1.0
 */
import { Rng } from "@autodidact/core"
import type { Tf } from "../engines/BackendTag.js"
import * as Categorical from "../policy/Categorical.js"
import * as Gae from "../advantages/Gae.js"
import * as GroupNorm from "../advantages/GroupNorm.js"
import * as Kl from "../policy/Kl.js"
import type * as OrtEngine from "../engines/OrtEngine.js"
import * as PpoLoss from "../policy/PpoLoss.js"
import * as Returns from "../advantages/Returns.js"
import * as Softmax from "../policy/Softmax.js"
import * as SumTree from "../trees/SumTree.js"
import * as TopK from "../retrieval/TopK.js"
import * as WasmSimd from "../engines/WasmSimd.js"
import * as CategoricalTf from "../tfjs/CategoricalTf.js"
import * as GaeTf from "../tfjs/GaeTf.js"
import * as GroupNormTf from "../tfjs/GroupNormTf.js"
import * as KlTf from "../tfjs/KlTf.js"
import * as PpoLossTf from "../tfjs/PpoLossTf.js"
import * as ReturnsTf from "../tfjs/ReturnsTf.js"
import * as SoftmaxTf from "../tfjs/SoftmaxTf.js"
import * as SumTreeTf from "../tfjs/SumTreeTf.js"
import * as TopKTf from "../tfjs/TopKTf.js"

export interface Case {
  readonly id: string
  readonly kernel: string
  /** The registry kernel name (`KernelRegistry.defaultEngines` key) whose default engine this case times. */
  readonly kernelName: string
  readonly size: string
  /** What the NumPy script builds and times. */
  readonly numpy: { readonly kernel: string; readonly params: { readonly [key: string]: number | string } }
  /** Build inputs once; returns the call to time for one implementation (undefined: not applicable). */
  readonly setup: () => Impl
}

/**
 * The call to time on the typed-array path (`tf` undefined) or a TensorFlow.js backend; `ort`: on ONNX Runtime;
 * `simd`: the WebAssembly SIMD kernel; `simdResident`: against resident inputs (returns the call and a release).
 */
export type Impl = ((tf: Tf | undefined) => (() => unknown) | undefined) & {
  readonly ort?: (engine: OrtEngine.OrtEngineShape) => () => Promise<unknown>
  readonly simd?: () => unknown
  readonly simdResident?: () => { readonly call: () => unknown; readonly release: () => void }
}

const withOrt = (impl: Impl, ort: (engine: OrtEngine.OrtEngineShape) => () => Promise<unknown>): Impl => Object.assign(impl, { ort })

const withSimd = (impl: Impl, simd: () => unknown, simdResident?: Impl["simdResident"]): Impl =>
  Object.assign(impl, { simd }, simdResident === undefined ? {} : { simdResident })

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

/** The benchmark cases (quick: smaller sizes), in table order. */
export const cases = (quick: boolean): ReadonlyArray<Case> => {
  const out: Array<Case> = []
  const rollout = quick ? [[128, 64]] : [[128, 64], [2048, 256]]
  for (const [T, N] of rollout as Array<[number, number]>) {
    out.push({
      id: `returns-${T}x${N}`,
      kernel: "returns",
      kernelName: "Returns",
      size: `[${T}, ${N}]`,
      numpy: { kernel: "returns", params: { T, N } },
      setup: () => {
        const f = filler(1)
        const input: Returns.ReturnsInput = { numSteps: T, numEnvs: N, gamma: 0.99, rewards: f.normal(T * N), dones: f.flags(T * N, 0.02), nextValue: f.normal(N) }
        return tfOnly(input, Returns.discountedReturnsSync, ReturnsTf.discountedReturnsTf)
      }
    })
    out.push({
      id: `gae-${T}x${N}`,
      kernel: "gae",
      kernelName: "Gae",
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
        return withSimd(tfOnly(input, Gae.computeSync, GaeTf.computeTf), () => WasmSimd.gae(input))
      }
    })
  }
  const [B, A] = quick ? [512, 32] : [4096, 32]
  out.push({
    id: `logsoftmax-${B}x${A}`,
    kernel: "logsoftmax (masked)",
      kernelName: "LogSoftmax",
    size: `[${B}, ${A}]`,
    numpy: { kernel: "logsoftmax", params: { B, A } },
    setup: () => {
      const f = filler(3)
      const input: Softmax.SoftmaxInput = { batch: B, numActions: A, logits: f.normal(B * A), mask: maskOf(f, B, A) }
      return withSimd(withOrt(tfOnly(input, Softmax.logSoftmaxSync, SoftmaxTf.logSoftmaxTf), (e) => () => e.logSoftmax(input)), () => WasmSimd.logSoftmax(input))
    }
  })
  out.push({
    id: `categorical-${B}x${A}`,
    kernel: "categorical (masked)",
      kernelName: "Categorical",
    size: `[${B}, ${A}]`,
    numpy: { kernel: "categorical", params: { B, A } },
    setup: () => {
      const f = filler(4)
      const input = { batch: B, numActions: A, logits: f.normal(B * A), mask: maskOf(f, B, A) }
      const rng = Rng.make(1)
      const impl: Impl = (tf) =>
        tf === undefined
          ? () => Categorical.fromUniformsSync({ ...input, uniforms: Categorical.uniforms(rng, B) })
          : () => CategoricalTf.fromUniformsTf(tf, { ...input, uniforms: Categorical.uniforms(rng, B) })
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
      kernelName: "Kl",
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
      return withSimd(withOrt(tfOnly(input, Kl.estimateSync, KlTf.estimateTf), (e) => () => e.klEstimate(input)), () => WasmSimd.klEstimate(input), resident)
    }
  })
  out.push({
    id: `ppo-${B}x${A}`,
    kernel: "ppo loss + grad",
      kernelName: "PpoLoss",
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
      return withSimd(tfOnly(input, PpoLoss.lossAndGradientSync, PpoLossTf.lossAndGradientTf), () => WasmSimd.ppoLoss(input))
    }
  })
  const [n, G] = quick ? [8192, 512] : [65536, 4096]
  out.push({
    id: `groupnorm-${n}`,
    kernel: "group norm (GRPO)",
      kernelName: "GroupNorm",
    size: `${n} in ${G} groups`,
    numpy: { kernel: "groupnorm", params: { n, G } },
    setup: () => {
      const f = filler(7)
      const input: GroupNorm.NormalizeInput = { values: f.normal(n), segmentIds: segmentIds(f, n, G, 1), numSegments: G }
      return withSimd(tfOnly(input, GroupNorm.groupNormalizeSync, GroupNormTf.groupNormalizeTf), () => WasmSimd.groupNormalize(input))
    }
  })
  out.push({
    id: `rloo-${n}`,
    kernel: "rloo baselines",
      kernelName: "Rloo",
    size: `${n} in ${G} groups`,
    numpy: { kernel: "rloo", params: { n, G } },
    setup: () => {
      const f = filler(8)
      return tfOnly({ values: f.normal(n), segmentIds: segmentIds(f, n, G, 2), numSegments: G }, GroupNorm.rlooSync, GroupNormTf.rlooTf)
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
      kernelName: "TopK",
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
        return withSimd(withOrt(tfOnly(input, TopK.topKSync, TopKTf.topKTf), (e) => () => e.topK(input)), () => WasmSimd.topK(input), resident)
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
      kernelName: "SumTree",
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
      kernelName: "SumTree",
    size: `${SB} of ${C}`,
    numpy: { kernel: "sumtree.sample", params: { C, B: SB } },
    setup: () => {
      const { tree } = makeTree()
      const rng = Rng.make(3)
      const leaves = tree.nodes.subarray(C)
      const res: SumTree.SampleResult = { indices: new Int32Array(SB), priorities: new Float64Array(SB) }
      // the descent alone: 64 batches of stratified prefixes drawn beforehand and used in turn (drawing 256 uniforms
      // from the core PCG64 Rng takes ~100 µs, more than the descent; NumPy's side does the same)
      const pool = Array.from({ length: 64 }, () => SumTree.stratifiedPrefixes(tree, rng, SB))
      let next = 0
      const prefixes = () => pool[(next = (next + 1) % pool.length)]!
      return (tf) =>
        tf === undefined
          ? () => SumTree.sampleBatch(tree, prefixes(), res)
          : () => SumTreeTf.sampleTf(tf, leaves, prefixes())
    }
  })
  return out
}

