/**
 * GPU parity: the same suite as Parity.test.ts on the `tensorflow` backend, which uses the GPU when
 * `@tensorflow/tfjs-node-gpu` is installed (with CUDA/cuDNN). Opt in with AUTODIDACT_GPU_TESTS=1; skipped otherwise.
 */
import { describe, it } from "@effect/vitest"
import { paritySuite } from "./parity.js"

const enabled = process.env.AUTODIDACT_GPU_TESTS === "1"

if (enabled) {
  paritySuite("tensorflow")
} else {
  describe("GPU parity (tensorflow backend via @tensorflow/tfjs-node-gpu)", () => {
    it.skip("skipped: set AUTODIDACT_GPU_TESTS=1 on a machine with @tensorflow/tfjs-node-gpu and CUDA installed to run the parity suite on the GPU", () => {})
  })
}
