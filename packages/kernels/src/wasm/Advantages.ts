/**
 * The `wasm-simd` advantage kernels: GAE (Schulman et al., arXiv:1506.02438) and GRPO group normalization (Shao et al., arXiv:2402.03300), in doubles like the references.
 * @since 0.1.0
 */
import * as Gae from "../advantages/Gae.js"
import * as GroupNorm from "../advantages/GroupNorm.js"
import type { Site } from "../KernelError.js"
import { checkShape, checkSize } from "../KernelError.js"
import { BACKEND_NAME, alloc, commit, put, reset, wasm } from "./Module.js"

/** GAE (same contract and errors as `Gae.computeSync`; doubles inside, the reference's float32 results). */
export const gae = (input: Gae.GaeInput): Gae.GaeResult => {
  const w = wasm()
  const { numSteps: T, numEnvs: N } = input
  const n = T * N
  const lengthsOk = Number.isInteger(T) && T >= 1 && Number.isInteger(N) && N >= 1 && input.gamma >= 0 && input.gamma <= 1 &&
    input.lambda >= 0 && input.lambda <= 1 && input.rewards?.length === n && input.values?.length === n && input.dones?.length === n &&
    input.nextValue?.length === N && input.nextDone?.length === N &&
    ((input.truncations === undefined && input.finalValues === undefined) || (input.truncations?.length === n && input.finalValues?.length === n))
  if (!lengthsOk) Gae.validate(input) // throws GaeShapeError
  const truncated = input.truncations !== undefined
  reset()
  const pr = alloc(4 * n)
  const pv = alloc(4 * n)
  const pd = alloc(4 * n)
  const pnv = alloc(4 * N)
  const pnd = alloc(4 * N)
  const pt = truncated ? alloc(4 * n) : 0
  const pf = truncated ? alloc(4 * n) : 0
  const pa = alloc(4 * n)
  const pret = alloc(4 * n)
  const v = commit(w)
  put(v, pr, input.rewards)
  put(v, pv, input.values)
  put(v, pd, input.dones)
  put(v, pnv, input.nextValue)
  put(v, pnd, input.nextDone)
  if (truncated) {
    put(v, pt, input.truncations!)
    put(v, pf, input.finalValues!)
  }
  const ok = w.gae(T, N, input.gamma, input.lambda, pr, pv, pd, pnv, pnd, pt, pf, pa, pret)
  if (ok === 0) {
    Gae.validate(input) // throws NonFiniteValueError / GaeShapeError naming the element
    return Gae.computeSync(input) // valid input whose results overflow float32: the reference's answer
  }
  return { advantages: v.f32.slice(pa >> 2, (pa >> 2) + n), returns: v.f32.slice(pret >> 2, (pret >> 2) + n) }
}



/** Group-relative normalization (same contract as `GroupNorm.groupNormalizeSync`; doubles inside). */
export const groupNormalize = (input: GroupNorm.NormalizeInput): Float32Array => {
  const w = wasm()
  const site: Site = { kernel: GroupNorm.kernelName, backend: BACKEND_NAME }
  const n = input.values.length
  const G = input.numSegments
  checkSize(site, "numSegments", G)
  checkSize(site, "values.length", n)
  checkShape(site, "segmentIds", input.segmentIds, [n])
  if (input.ddof !== undefined) checkSize(site, "ddof", input.ddof, true)
  // ids must be exact integers: an Int32Array is by construction, anything else is checked by the reference validator
  if (!(input.segmentIds instanceof Int32Array)) GroupNorm.validate(input, GroupNorm.kernelName, BACKEND_NAME)
  reset()
  const px = alloc(4 * n)
  const pids = alloc(4 * n)
  const pc = alloc(4 * G)
  const pmean = alloc(8 * G)
  const pstd = alloc(8 * G)
  const pout = alloc(4 * n)
  const v = commit(w)
  put(v, px, input.values)
  v.i32.set(input.segmentIds, pids >> 2)
  const code = w.groupNorm(px, pids, n, G, pc, input.ddof ?? 1, input.eps ?? 1e-4, input.scale === false ? 0 : 1, pmean, pstd, pout)
  if (code !== 0) {
    GroupNorm.validate(input, GroupNorm.kernelName, BACKEND_NAME) // names the bad id, empty segment or value
    return GroupNorm.groupNormalizeSync(input) // valid input whose results overflow float32
  }
  return v.f32.slice(pout >> 2, (pout >> 2) + n)
}
