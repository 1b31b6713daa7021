/**
 * GPU parity: the same suite as Parity.test.ts on the `tensorflow` backend, which uses the GPU when
 * `@tensorflow/tfjs-node-gpu` is installed (with CUDA/cuDNN). Opt in with AUTODIDACT_GPU_TESTS=1.
 *
 * Without the opt-in, one test runs instead (when neither tfjs-node package is importable, as on the development
 * machine): on the default dispatch, the `tensorflow` backend keeps TensorFlow.js's kernels (KernelRegistry's
 * `defaultEngineOf` gives `tfjs` there), and forcing it here fails with `BackendUnavailableError` rather than silently
 * running elsewhere. With tfjs-node installed but no opt-in, that test is skipped (its premise does not hold).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { KernelRegistry } from "../src/index.js"
import { Backend } from "../src/tfjs.js"
import { paritySuite } from "./parity.js"

const enabled = process.env.AUTODIDACT_GPU_TESTS === "1"

const importable = async (pkg: string): Promise<boolean> => {
  try {
    await import(pkg)
    return true
  } catch {
    return false
  }
}
const tfNode = (await importable("@tensorflow/tfjs-node-gpu")) || (await importable("@tensorflow/tfjs-node"))

if (enabled) {
  paritySuite("tensorflow")
} else {
  describe("GPU parity (tensorflow backend via @tensorflow/tfjs-node-gpu; set AUTODIDACT_GPU_TESTS=1 to run it)", () => {
    it.skipIf(tfNode)("without tfjs-node: tensorflow cannot be forced, and would keep TensorFlow.js as the default engine", () =>
      Effect.runPromise(Effect.gen(function* () {
        const error = yield* Effect.flip(Backend.select({ force: "tensorflow" }))
        if (!(error instanceof Backend.BackendUnavailableError)) throw error
        expect([error._tag, error.backend]).toEqual(["BackendUnavailableError", "tensorflow"])
        expect(error.reason).toMatch(/^neither @tensorflow\/tfjs-node-gpu nor @tensorflow\/tfjs-node is importable/)
        for (const kernel of ["Returns", "Gae", "LogSoftmax", "TopK"]) expect(KernelRegistry.defaultEngineOf(kernel, "tensorflow").engine).toBe("tfjs")
      })))
  })
}
