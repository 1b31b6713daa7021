import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { KernelRegistry, Returns, Softmax } from "../src/index.js"
import { Backend } from "../src/tfjs.js"

const input = { batch: 1, numActions: 2, logits: [0, 0] }

describe("KernelRegistry", () => {
  it.effect("a registered kernel for the active backend wins; unregistering restores the built-in", () =>
    Effect.gen(function* () {
      const restore = KernelRegistry.registerKernel({
        kernelName: Softmax.kernelName,
        backendName: "wasm",
        kernelFunc: (i: Softmax.SoftmaxInput) => ({ ...Softmax.logSoftmaxSync(i), entropy: Float32Array.of(42) })
      })
      expect(KernelRegistry.getKernel(Softmax.kernelName, "wasm")?.backendName).toBe("wasm")
      expect(KernelRegistry.getKernelsForBackend("wasm").map((k) => k.kernelName)).toEqual([Softmax.kernelName])
      const custom = yield* Softmax.logSoftmax(input)
      expect([custom.implementation, custom.output.entropy[0]]).toEqual(["registered", 42])
      restore()
      expect(KernelRegistry.getKernel(Softmax.kernelName, "wasm")).toBeUndefined()
      // without a registration the default dispatch picks the measured-fastest engine (KernelRegistry.defaultEngines):
      // wasm-simd for log-softmax, never TensorFlow.js on wasm; engine "tfjs" still runs the built-in TensorFlow.js kernel
      const byDefault = yield* Softmax.logSoftmax(input)
      expect([byDefault.implementation, byDefault.backendName]).toEqual(["registered", "wasm-simd"])
      expect(byDefault.output.entropy[0]).toBeCloseTo(Math.LN2, 6)
      const builtin = yield* Softmax.logSoftmax(input, { engine: "tfjs" })
      expect([builtin.implementation, builtin.backendName]).toEqual(["tfjs", "wasm"])
      expect(builtin.output.entropy[0]).toBeCloseTo(Math.LN2, 6)
    }).pipe(Effect.provide(Backend.layerWith({ force: "wasm" }))))

  it.effect("a failing backend implementation falls back to the typed-array reference with a logged reason", () =>
    Effect.gen(function* () {
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => logs.push(String(Array.isArray(message) ? message.join(" ") : message)))
      KernelRegistry.registerKernel({
        kernelName: Softmax.kernelName,
        backendName: "cpu",
        kernelFunc: () => {
          throw new Error("device lost")
        }
      })
      const r = yield* Softmax.logSoftmax(input).pipe(Effect.provide(Logger.layer([logger])))
      KernelRegistry.unregisterKernel(Softmax.kernelName, "cpu")
      expect([r.implementation, r.backendName]).toEqual(["typed-array", "typed-array"])
      expect(r.fallbackReason).toBe("LogSoftmax could not run on backend cpu: Error: device lost")
      expect(r.output.entropy[0]).toBeCloseTo(Math.LN2, 6)
      expect(logs).toEqual(["LogSoftmax could not run on backend cpu: Error: device lost; falling back to the typed-array reference"])
    }).pipe(Effect.provide(Backend.layerWith({ force: "cpu" }))))

  it.effect("bad input is never retried on another implementation", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Softmax.logSoftmax({ batch: 1, numActions: 2, logits: [0, Number.NaN] }))
      expect([error._tag, error.kernel, error.backend, error.reason]).toEqual(["KernelInputError", "LogSoftmax", "wasm-simd", "non-finite"])
      const onTf = yield* Effect.flip(Softmax.logSoftmax({ batch: 1, numActions: 2, logits: [0, Number.NaN] }, { engine: "tfjs" }))
      expect([onTf._tag, onTf.kernel, onTf.backend, onTf.reason]).toEqual(["KernelInputError", "LogSoftmax", "cpu", "non-finite"])
      const onRef = yield* Effect.flip(Returns.discountedReturns({ numSteps: 1, numEnvs: 1, gamma: 1, rewards: [Number.NaN], dones: [0] }))
      expect([onRef.kernel, onRef.backend, onRef.reason]).toEqual(["Returns", "typed-array", "non-finite"])
    }).pipe(Effect.provide(Backend.layerWith({ force: "cpu" }))))

  it("defaultEngineOf: a registration for the backend wins; tensorflow keeps TensorFlow.js; else the first available engine", () => {
    expect(KernelRegistry.defaultEngineOf("Returns", "wasm").engine).toBe("typed-array")
    expect(KernelRegistry.defaultEngineOf("Rloo", "cpu").engine).toBe("typed-array")
    expect(KernelRegistry.defaultEngineOf("TopK", "wasm").engine).toBe("wasm-simd") // onnxruntime once @autodidact/kernels/ort is imported (MainEntry.test.ts)
    expect(KernelRegistry.defaultEngineOf("LogSoftmax", "wasm").engine).toBe("wasm-simd") // onnxruntime only while OrtEngine.layer is provided
    expect(KernelRegistry.defaultEngineOf("Kl", "tensorflow").engine).toBe("tfjs")
    expect(KernelRegistry.defaultEngineOf("NoSuchKernel", "wasm").engine).toBe("typed-array")
    const restore = KernelRegistry.registerKernel({ kernelName: "Returns", backendName: "wasm", kernelFunc: () => Float32Array.of(7) })
    expect(KernelRegistry.defaultEngineOf("Returns", "wasm").engine).toBe("registered")
    restore()
    const previous = process.env.AUTODIDACT_WASM_SIMD
    process.env.AUTODIDACT_WASM_SIMD = "0"
    try {
      expect(KernelRegistry.defaultEngineOf("Kl", "wasm").engine).toBe("typed-array")
      process.env.AUTODIDACT_ORT_DEFAULT = "0"
      expect(KernelRegistry.defaultEngineOf("TopK", "wasm").engine).toBe("typed-array")
    } finally {
      delete process.env.AUTODIDACT_ORT_DEFAULT
      if (previous === undefined) delete process.env.AUTODIDACT_WASM_SIMD
      else process.env.AUTODIDACT_WASM_SIMD = previous
    }
  })
})
