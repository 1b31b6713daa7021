/**
 * The `wasm-simd` masked log-softmax + entropy (same contract as `Softmax.logSoftmaxSync`; float32 `f32x4` inside, `exp` a float32x4 polynomial after ln 2 range reduction).
 * @since 0.1.0
 */
import type { Site } from "../KernelError.js"
import { checkShape, checkSize } from "../KernelError.js"
import * as Softmax from "../policy/Softmax.js"
import { BACKEND_NAME, alloc, commit, put, reset, wasm } from "./Module.js"

/** Masked log-softmax and entropy (same contract as `Softmax.logSoftmaxSync`; float32 inside). */
export const logSoftmax = (input: Softmax.SoftmaxInput): Softmax.SoftmaxResult => {
  const w = wasm()
  const { batch: B, numActions: A, logits, mask } = input
  const site: Site = { kernel: Softmax.kernelName, backend: BACKEND_NAME }
  checkSize(site, "batch", B)
  checkSize(site, "numActions", A)
  checkShape(site, "logits", logits, [B, A])
  if (mask !== undefined) checkShape(site, "mask", mask, [B, A])
  const n = B * A
  reset()
  const pz = alloc(4 * n)
  const pm = mask === undefined ? 0 : alloc(4 * n)
  const plp = alloc(4 * n)
  const ph = alloc(4 * B)
  const ps = alloc(4 * A)
  const v = commit(w)
  put(v, pz, logits)
  if (mask !== undefined) put(v, pm, mask)
  const bad = w.logSoftmax(pz, pm, B, A, plp, ph, ps)
  if (bad > 0) {
    Softmax.validate(input, Softmax.kernelName, BACKEND_NAME) // throws the precise error
    return Softmax.logSoftmaxSync(input) // finite doubles that overflow float32: the reference's answer
  }
  return { logProbs: v.f32.slice(plp >> 2, (plp >> 2) + n), entropy: v.f32.slice(ph >> 2, (ph >> 2) + B) }
}
