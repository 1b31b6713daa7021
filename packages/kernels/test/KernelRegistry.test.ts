import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { Backend, KernelRegistry, Softmax } from "../src/index.js"

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
      const builtin = yield* Softmax.logSoftmax(input)
      expect(builtin.implementation).toBe("tfjs")
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
      expect([error._tag, error.kernel, error.backend, error.reason]).toEqual(["KernelInputError", "LogSoftmax", "cpu", "non-finite"])
    }).pipe(Effect.provide(Backend.layerWith({ force: "cpu" }))))
})
