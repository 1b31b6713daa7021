import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Backend } from "../src/index.js"

describe("Backend", () => {
  it.effect("picks the first available backend and says why (no tfjs-node installed here: wasm)", () =>
    Effect.gen(function* () {
      const b = yield* Backend.select({ env: {} })
      expect(b.name).toBe("wasm")
      expect(b.tf.getBackend()).toBe("wasm")
      expect(b.tried.map((t) => t.name)).toEqual(["tensorflow"])
      expect(b.reason).toMatch(/^wasm is the first available backend \(tensorflow: neither/)
      expect(b.tf.sum(b.tf.tensor1d([1, 2, 3])).dataSync()[0]).toBe(6)
    }))

  it.effect("AUTODIDACT_TF_BACKEND forces a backend; the force option wins over it", () =>
    Effect.gen(function* () {
      const cpu = yield* Backend.select({ env: { AUTODIDACT_TF_BACKEND: "cpu" } })
      expect(cpu.name).toBe("cpu")
      expect(cpu.tf.getBackend()).toBe("cpu")
      expect(cpu.reason).toBe("forced by AUTODIDACT_TF_BACKEND=cpu")
      const wasm = yield* Backend.select({ force: "wasm", env: { AUTODIDACT_TF_BACKEND: "cpu" } })
      expect(wasm.tf.getBackend()).toBe("wasm")
    }))

  it.effect("a forced backend that cannot load fails with BackendUnavailableError", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Backend.select({ force: "tensorflow" }))
      expect(error._tag).toBe("BackendUnavailableError")
      expect(error.backend).toBe("tensorflow")
      expect(error.message).toMatch(/tfjs-node/)
      const unknown = yield* Effect.flip(Backend.select({ env: { AUTODIDACT_TF_BACKEND: "webgpu" } }))
      expect(unknown.message).toBe('TensorFlow.js backend "webgpu" is unavailable: unknown backend; expected one of tensorflow, wasm, cpu')
    }))

  it.effect("the layer provides the service", () =>
    Effect.gen(function* () {
      const b = yield* Backend.Backend
      expect(b.name).toBe("cpu")
    }).pipe(Effect.provide(Backend.layerWith({ force: "cpu" }))))
})
