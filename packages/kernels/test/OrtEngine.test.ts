import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import * as os from "node:os"
import * as ort from "onnxruntime-node"
import { KernelInputError, KernelRegistry, Kl, Softmax, TopK } from "../src/index.js"
import { Backend } from "../src/tfjs.js"
import { OrtEngine } from "../src/ort.js"
import { close } from "./helpers.js"

/** The rejection of `p` (fails the test when it resolves). */
const rejected = async (p: Promise<unknown>): Promise<any> => {
  try {
    await p
  } catch (e) {
    return e
  }
  throw new Error("expected a rejection")
}

const withEngine = async <A>(options: OrtEngine.OrtEngineOptions, f: (e: OrtEngine.OrtEngineShape) => Promise<A>): Promise<A> => {
  const engine = await OrtEngine.makeUnscoped(options)
  try {
    return await f(engine)
  } finally {
    await engine.close()
  }
}

const rng = Rng.make(11)
const [Q, M, D] = [5, 3000, 67]
const queries = Float32Array.from({ length: Q * D }, () => rng.normal())
const matrix = Float32Array.from({ length: M * D }, () => rng.normal())
for (let d = 0; d < D; d++) matrix[17 * D + d] = 0 // a zero row: cosine 0

describe("OrtEngine (ONNX Runtime engine)", () => {
  it("cpu execution provider unless CUDA is bundled; one intra-op thread per available core", async () => {
    await withEngine({}, async (e) => {
      const cudaBundled = ort.listSupportedBackends().some((b) => b.name === "cuda" && b.bundled)
      expect(e.executionProviders).toEqual(cudaBundled ? ["cuda", "cpu"] : ["cpu"])
      expect(e.reason).toContain(cudaBundled ? "cuda first" : "cpu only")
      expect(e.intraOpNumThreads).toBe(os.availableParallelism())
    })
  })

  it("top-k parity with the typed-array reference: indices identical, scores to float32 tolerance (both matrix modes)", async () => {
    const norms = TopK.rowNorms(matrix, M, D)
    for (const mode of ["input", "initializer"] as const) {
      await withEngine({ topKMatrix: mode }, async (e) => {
        for (const metric of ["dot", "cosine"] as const) {
          for (const k of [1, 10, 64]) {
            for (const rowNorms of metric === "cosine" ? [undefined, norms] : [undefined]) {
              const input: TopK.TopKInput = { queries, matrix, numQueries: Q, numRows: M, dim: D, k, metric, ...(rowNorms !== undefined ? { rowNorms } : {}) }
              const want = TopK.topKSync(input)
              // distinct scores: consecutive best scores (through the (k+1)-th) differ by more than float32 rounding
              const plus = TopK.topKSync({ ...input, k: k + 1 }).scores
              for (let q = 0; q < Q; q++) {
                for (let i = 0; i < k; i++) expect(plus[q * (k + 1) + i]! - plus[q * (k + 1) + i + 1]!).toBeGreaterThan(1e-6)
              }
              const got = await e.topK(input)
              expect(Array.from(got.indices), `${mode} ${metric} k=${k}`).toEqual(Array.from(want.indices))
              close(got.scores, want.scores, 1e-5, 1e-5)
            }
          }
        }
        // sessions are reused across k and calls (k is an input; batch axes are dynamic)
        expect(e.sessionCount()).toBeLessThanOrEqual(mode === "input" ? 3 : 2)
        await e.topK({ queries: queries.subarray(0, 2 * D), matrix, numQueries: 2, numRows: M, dim: D, k: 3, metric: "dot" })
        expect(e.sessionCount()).toBeLessThanOrEqual(mode === "input" ? 3 : 2)
      })
    }
  })

  it("top-k: in-place edits of the matrix are seen in input mode; forget() refreshes a baked one", async () => {
    const m = Float32Array.from(matrix.subarray(0, 200 * D))
    const q = queries.subarray(0, D)
    const input: TopK.TopKInput = { queries: q, matrix: m, numQueries: 1, numRows: 200, dim: D, k: 1, metric: "dot" }
    await withEngine({}, async (e) => {
      await e.topK(input)
      for (let d = 0; d < D; d++) m[150 * D + d] = q[d]! * 100
      expect(Array.from((await e.topK(input)).indices)).toEqual([150])
    })
    await withEngine({ topKMatrix: "initializer" }, async (e) => {
      await e.topK(input)
      for (let d = 0; d < D; d++) m[99 * D + d] = q[d]! * 1000
      expect(Array.from((await e.topK(input)).indices)).toEqual([150]) // stale baked copy (documented)
      await e.forget(m)
      expect(Array.from((await e.topK(input)).indices)).toEqual([99])
    })
  })

  it("log-softmax and entropy parity within 1e-5 (masked, unmasked, −∞/NaN at masked actions)", async () => {
    const [B, A] = [64, 19]
    const logits = Float32Array.from({ length: B * A }, () => 3 * rng.normal())
    const mask = Float32Array.from({ length: B * A }, (_, i) => (i % A === 0 || rng.random() < 0.7 ? 1 : 0))
    await withEngine({}, async (e) => {
      for (const input of [{ batch: B, numActions: A, logits, mask }, { batch: B, numActions: A, logits }]) {
        const want = Softmax.logSoftmaxSync(input)
        const got = await e.logSoftmax(input)
        close(got.logProbs, want.logProbs, 1e-5, 1e-5)
        close(got.entropy, want.entropy, 1e-5, 1e-5)
      }
      const hand = await e.logSoftmax({ batch: 2, numActions: 3, logits: [0, 0, 5, 7, -Infinity, Number.NaN], mask: [1, 1, 0, 1, 0, 0] })
      close(hand.logProbs, [-Math.LN2, -Math.LN2, -Infinity, 0, -Infinity, -Infinity], 1e-6, 1e-6)
      close(hand.entropy, [Math.LN2, 0], 1e-6, 1e-6)
    })
  })

  it("KL k1/k2/k3 parity within 1e-5 (values and mean)", async () => {
    const n = 10000
    const logProbs = Float32Array.from({ length: n }, () => -2 + 0.3 * rng.normal())
    const otherLogProbs = Float32Array.from({ length: n }, () => -2 + 0.3 * rng.normal())
    await withEngine({}, async (e) => {
      for (const estimator of ["k1", "k2", "k3"] as const) {
        const want = Kl.estimateSync({ logProbs, otherLogProbs, estimator })
        const got = await e.klEstimate({ logProbs, otherLogProbs, estimator })
        close(got.values, want.values, 1e-5, 1e-6)
        expect(Math.abs(got.mean - want.mean)).toBeLessThan(1e-5)
      }
    })
  })

  it("bad input: KernelInputError naming the kernel, backend onnxruntime and the shape", async () => {
    await withEngine({}, async (e) => {
      const base = { queries: [1, 0], matrix: [0, 1, 3, 0], numQueries: 1, numRows: 2, dim: 2, k: 1, metric: "dot" as const }
      const shape = await rejected(e.topK({ ...base, matrix: [0, 1, 3] }))
      expect(shape).toBeInstanceOf(KernelInputError)
      expect(shape.message).toBe("TopK.dot on onnxruntime: input matrix [3]: shape: expected [2, 2] (4 elements), got 3 elements")
      const nan = await rejected(e.topK({ ...base, matrix: [0, 1, Number.NaN, 0] }))
      expect([nan.kernel, nan.backend, nan.input, nan.reason, nan.shape, nan.detail]).toEqual(["TopK.dot", "onnxruntime", "matrix", "non-finite", "[2, 2]", "NaN at flat index 2"])
      const mask = await rejected(e.logSoftmax({ batch: 2, numActions: 2, logits: [0, 0, 0, 0], mask: [1, 1, 1] }))
      expect([mask.kernel, mask.backend, mask.input, mask.reason, mask.shape]).toEqual(["LogSoftmax", "onnxruntime", "mask", "shape", "[3]"])
      const empty = await rejected(e.logSoftmax({ batch: 2, numActions: 2, logits: [0, 0, 0, 0], mask: [1, 0, 0, 0] }))
      expect(empty.message).toBe("LogSoftmax on onnxruntime: input mask [2, 2]: empty-segment: row 1 has no valid action")
      const badMask = await rejected(e.logSoftmax({ batch: 1, numActions: 2, logits: [0, 0], mask: [1, 2] }))
      expect([badMask.input, badMask.reason]).toEqual(["mask", "range"])
      const logit = await rejected(e.logSoftmax({ batch: 1, numActions: 2, logits: [0, Infinity] }))
      expect([logit.input, logit.reason, logit.detail]).toEqual(["logits", "non-finite", "Infinity at [0, 1] (a valid action)"])
      const kl = await rejected(e.klEstimate({ logProbs: [0, 0], otherLogProbs: [0], estimator: "k3" }))
      expect([kl.kernel, kl.backend, kl.input, kl.reason, kl.shape]).toEqual(["Kl.k3", "onnxruntime", "otherLogProbs", "shape", "[1]"])
      const klNan = await rejected(e.klEstimate({ logProbs: [0, Number.NaN], otherLogProbs: [0, 0], estimator: "k3" }))
      expect([klNan.input, klNan.reason]).toEqual(["logProbs", "non-finite"])
    })
  })
})

describe("OrtEngine in the KernelRegistry", () => {
  const input: TopK.TopKInput = { queries: queries.subarray(0, D), matrix, numQueries: 1, numRows: M, dim: D, k: 4, metric: "cosine" }

  it.effect("engine onnxruntime (option or AUTODIDACT_KERNEL_ENGINE) runs the registered kernels; others stay on the backend", () =>
    Effect.gen(function* () {
      const engine = yield* OrtEngine.OrtEngine
      const r = yield* TopK.topK(input, { engine: "onnxruntime" })
      expect([r.implementation, r.backendName]).toEqual(["registered", "onnxruntime"])
      expect(Array.from(r.output.indices)).toEqual(Array.from(TopK.topKSync(input).indices))
      const previous = process.env[KernelRegistry.ENGINE_ENV_VAR]
      yield* Effect.gen(function* () {
        process.env[KernelRegistry.ENGINE_ENV_VAR] = "onnxruntime"
        const s = yield* Softmax.logSoftmax({ batch: 1, numActions: 2, logits: [0, 0] })
        expect([s.implementation, s.backendName]).toEqual(["registered", "onnxruntime"])
        const k = yield* Kl.estimate({ logProbs: [-1], otherLogProbs: [-1.5], estimator: "k3" })
        expect(k.backendName).toBe("onnxruntime")
        const bad = yield* Effect.flip(Softmax.logSoftmax({ batch: 1, numActions: 2, logits: [0, 0], mask: [0, 0] }))
        expect([bad._tag, bad.backend, bad.reason]).toEqual(["KernelInputError", "onnxruntime", "empty-segment"])
      }).pipe(Effect.ensuring(Effect.sync(() => {
        if (previous === undefined) delete process.env[KernelRegistry.ENGINE_ENV_VAR]
        else process.env[KernelRegistry.ENGINE_ENV_VAR] = previous
      })))
      expect(KernelRegistry.resolveEngine({}, { [KernelRegistry.ENGINE_ENV_VAR]: "onnxruntime" }).engine).toBe("onnxruntime")
      expect(KernelRegistry.resolveEngine({}, { [KernelRegistry.ENGINE_ENV_VAR]: "bogus" }).warning).toContain("is not one of")
      expect(KernelRegistry.resolveEngine({ engine: "typed-array" }, { [KernelRegistry.ENGINE_ENV_VAR]: "onnxruntime" }).engine).toBe("typed-array")
      expect(engine.sessionCount()).toBeGreaterThan(0)
      // while the layer is provided the default dispatch prefers onnxruntime for top-k and log-softmax (measured
      // fastest), not for KL (wasm-simd: KernelRegistry.defaultEngines)
      expect((yield* TopK.topK(input)).backendName).toBe("onnxruntime")
      expect((yield* Softmax.logSoftmax({ batch: 1, numActions: 2, logits: [0, 0] })).backendName).toBe("onnxruntime")
      expect((yield* Kl.estimate({ logProbs: [-1], otherLogProbs: [-1.5], estimator: "k3" })).backendName).toBe("wasm-simd")
    }).pipe(Effect.provide(OrtEngine.layer), Effect.provide(Backend.layerWith({ force: "cpu" }))))

  it.effect("a failing onnxruntime kernel falls back to the typed-array reference with a logged reason", () =>
    Effect.gen(function* () {
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => logs.push(String(Array.isArray(message) ? message.join(" ") : message)))
      const restore = KernelRegistry.registerKernel({
        kernelName: Kl.kernelName,
        backendName: OrtEngine.BACKEND_NAME,
        kernelFunc: () => Promise.reject(new Error("session lost"))
      })
      const r = yield* Kl.estimate({ logProbs: [-1], otherLogProbs: [-1], estimator: "k3" }, { engine: "onnxruntime" }).pipe(Effect.provide(Logger.layer([logger])))
      restore()
      expect([r.implementation, r.backendName, r.fallbackReason]).toEqual(["typed-array", "typed-array", "Kl could not run on backend onnxruntime: Error: session lost"])
      expect(logs).toEqual(["Kl could not run on backend onnxruntime: Error: session lost; falling back to the typed-array reference"])
      // the synchronous dispatcher cannot await an asynchronous kernel: it answers with the reference
      const sync = KernelRegistry.dispatchSync(Kl.builtin, { logProbs: [-1], otherLogProbs: [-1], estimator: "k3" }, {
        tf: (yield* Backend.Backend).tf,
        backendName: OrtEngine.BACKEND_NAME
      })
      expect(sync.implementation).toBe("typed-array")
    }).pipe(Effect.provide(OrtEngine.layer), Effect.provide(Backend.layerWith({ force: "cpu" }))))

  it.effect("closing the layer's scope releases the sessions and unregisters the kernels", () =>
    Effect.gen(function* () {
      let engine: OrtEngine.OrtEngineShape | undefined
      yield* Effect.gen(function* () {
        engine = yield* OrtEngine.OrtEngine
        yield* Effect.promise(() => engine!.topK(input))
        expect(KernelRegistry.getKernelsForBackend("onnxruntime").map((k) => k.kernelName).sort()).toEqual(["Kl", "LogSoftmax", "TopK"])
      }).pipe(Effect.provide(OrtEngine.layer))
      expect(engine!.sessionCount()).toBe(0)
      expect(KernelRegistry.getKernelsForBackend("onnxruntime")).toEqual([])
      const r = yield* TopK.topK(input, { engine: "onnxruntime" }) // no engine: the backend answers (warned once)
      expect(r.backendName).toBe("cpu")
    }).pipe(Effect.provide(Backend.layerWith({ force: "cpu" }))))

  it.effect("without the layer, the default dispatch runs top-k on a process-wide ONNX Runtime engine (AUTODIDACT_ORT_DEFAULT=0: wasm-simd)", () =>
    Effect.gen(function* () {
      const r = yield* TopK.topK(input)
      expect([r.implementation, r.backendName]).toEqual(["registered", "onnxruntime"])
      expect(Array.from(r.output.indices)).toEqual(Array.from(TopK.topKSync(input).indices))
      const bad = yield* Effect.flip(TopK.topK({ ...input, k: 0 }))
      expect([bad._tag, bad.backend]).toEqual(["KernelInputError", "onnxruntime"])
      process.env[OrtEngine.DEFAULT_ENV_VAR] = "0"
      try {
        expect((yield* TopK.topK(input)).backendName).toBe("wasm-simd")
      } finally {
        delete process.env[OrtEngine.DEFAULT_ENV_VAR]
      }
    }).pipe(Effect.provide(Backend.layerWith({ force: "cpu" }))))
})
