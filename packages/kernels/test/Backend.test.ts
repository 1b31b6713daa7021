import { describe, expect, it } from "@effect/vitest"
import { MissingPeerError } from "@autodidact/core"
import { Effect } from "effect"
import { Backend } from "../src/tfjs.js"

/** What Node's loader throws for a package that is not installed (the shape `OptionalPeer` recognizes). */
const notInstalled = (pkg: string) => () =>
  Promise.reject(Object.assign(new Error(`Cannot find package '${pkg}' imported from /app/index.js`), { code: "ERR_MODULE_NOT_FOUND" }))

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
      if (!(error instanceof Backend.BackendUnavailableError)) throw error
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

  it("the entry point's loader: a missing @tensorflow/tfjs-core is a MissingPeerError naming it and @autodidact/kernels/tfjs", async () => {
    const missing = "@tensorflow/tfjs-core-not-installed"
    const error = await Backend.loadCore(() => import(missing), missing).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(MissingPeerError)
    expect(error).toMatchObject({ _tag: "MissingPeerError", peer: missing, entryPoint: "@autodidact/kernels/tfjs", install: `npm install ${missing}@^4.22.0` })
    // the real package loads, and is the module the Backend service hands out
    const tf = await Backend.loadCore()
    expect(typeof tf.setBackend).toBe("function")
  })

  it("neither JavaScript backend installed: MissingPeerError naming @tensorflow/tfjs-backend-wasm; wasm missing alone: cpu", async () => {
    const none = await Backend.load({ env: {}, importers: { wasm: notInstalled("@tensorflow/tfjs-backend-wasm"), cpu: notInstalled("@tensorflow/tfjs-backend-cpu") } })
      .then(() => undefined, (e: unknown) => e)
    expect(none).toBeInstanceOf(MissingPeerError)
    expect(none).toMatchObject({ peer: "@tensorflow/tfjs-backend-wasm", entryPoint: "@autodidact/kernels/tfjs", install: "npm install @tensorflow/tfjs-backend-wasm@^4.22.0" })
    const cpu = await Backend.load({ env: {}, importers: { wasm: notInstalled("@tensorflow/tfjs-backend-wasm") } })
    expect(cpu.name).toBe("cpu")
    expect(cpu.tried.map((t) => t.name)).toEqual(["tensorflow", "wasm"])
    expect(cpu.tried[1]!.error).toMatch(/needs the optional peer dependency @tensorflow\/tfjs-backend-wasm/)
  })
})
