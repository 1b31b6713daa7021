/**
 * The main entry point alone: no optional peer loaded, no layer needed, the default dispatch on wasm-simd / typed-array,
 * and ONNX Runtime as the default top-k engine only once `@autodidact/kernels/ort` is imported.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { KernelRegistry, Softmax, TopK } from "../src/index.js"
import { resolvedBy } from "./resolved.js"

const softmaxInput = { batch: 1, numActions: 3, logits: [0, 0, 5], mask: [1, 1, 0] }
const topKInput = { numQueries: 1, numRows: 3, dim: 2, k: 2, metric: "dot" as const, queries: [1, 0], matrix: [0, 1, 3, 0, 2, 0] }

describe("@autodidact/kernels (main entry)", () => {
  it("loads no TensorFlow.js, ONNX Runtime, onnx-proto or Node built-in, and runs a kernel", () => {
    const { stdout, urls } = resolvedBy(`const { Softmax, KernelRegistry } = await import("@autodidact/kernels")
const r = Softmax.logSoftmaxSync({ batch: 1, numActions: 2, logits: [0, 0] })
process.stdout.write(r.logProbs[0].toFixed(3) + " " + KernelRegistry.defaultEngineOf("TopK", KernelRegistry.NO_BACKEND).engine + "\\n")`)
    expect(stdout.trim()).toBe("-0.693 wasm-simd")
    expect(urls.some((u) => u.endsWith("/kernels/src/index.ts"))).toBe(true)
    const afterEntry = urls.slice(urls.findIndex((u) => u.endsWith("/kernels/src/index.ts")))
    expect(afterEntry.filter((u) => /tensorflow|onnxruntime|onnx-proto|^node:|kernels\/src\/(tfjs|ort|bench)\.ts/.test(u))).toEqual([])
  }, 60_000)

  it.effect("the Effect entry points need no layer: default engines without TensorFlow.js; engine tfjs answers with the reference", () =>
    Effect.gen(function* () {
      const r = yield* Softmax.logSoftmax(softmaxInput)
      expect([r.implementation, r.backendName]).toEqual(["registered", "wasm-simd"])
      expect(Array.from(r.output.logProbs.slice(0, 2), (x) => Number(x.toFixed(3)))).toEqual([-0.693, -0.693])
      const t = yield* TopK.topK(topKInput)
      expect(t.backendName).toBe("wasm-simd") // no ONNX Runtime imported: no error, the next engine
      expect(Array.from(t.output.indices)).toEqual([1, 2])
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => logs.push(String(Array.isArray(message) ? message.join(" ") : message)))
      const tf = yield* Softmax.logSoftmax(softmaxInput, { engine: "tfjs" }).pipe(Effect.provide(Logger.layer([logger])))
      expect([tf.implementation, tf.backendName]).toEqual(["typed-array", "typed-array"])
      expect(logs.join("\n")).toMatch(/engine tfjs needs a TensorFlow.js backend \(import @autodidact\/kernels\/tfjs/)
    }))

  it("importing @autodidact/kernels/ort makes ONNX Runtime the default top-k engine again", async () => {
    expect(KernelRegistry.defaultEngineOf(TopK.kernelName, KernelRegistry.NO_BACKEND).engine).toBe("wasm-simd")
    await import("../src/ort.js")
    expect(KernelRegistry.defaultEngineOf(TopK.kernelName, KernelRegistry.NO_BACKEND).engine).toBe("onnxruntime")
  })
})
