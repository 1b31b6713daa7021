/**
 * The `wasm-simd` PPO clipped-surrogate loss with value clipping and entropy bonus, and its closed-form gradients (Schulman et al., "Proximal Policy Optimization Algorithms", arXiv:1707.06347; same contract as `PpoLoss.lossAndGradientSync`).
 * @since 0.1.0
 */
import type { Site } from "../KernelError.js"
import { checkRange, checkShape, checkSize, fail } from "../KernelError.js"
import * as PpoLoss from "../policy/PpoLoss.js"
import * as Softmax from "../policy/Softmax.js"
import { alloc, BACKEND_NAME, commit, prefix, put, reset, wasm } from "./Module.js"
import type { Views } from "./Module.js"

interface PpoPointers {
  readonly bad: number
  readonly pd: number
  readonly pdv: number
  readonly pparts: number
  readonly v: Views
}

/** `exact`: every array has exactly its shape's length; else at least (only the prefix is read, as `lossAndGradientInto`). */
const ppoRun = (input: PpoLoss.PpoLossInput, site: Site, exact: boolean): PpoPointers => {
  const w = wasm()
  const B = input.batch
  const A = input.numActions
  checkSize(site, "batch", B)
  checkSize(site, "numActions", A)
  const check = (name: string, x: ArrayLike<number> | undefined, shape: ReadonlyArray<number>) => {
    if (exact || x === undefined || x.length < shape.reduce((a, b) => a * b, 1)) checkShape(site, name, x, shape)
  }
  check("logits", input.logits, [B, A])
  if (input.mask !== undefined) check("mask", input.mask, [B, A])
  for (const name of ["actions", "oldLogProbs", "advantages", "values", "oldValues", "returns"] as const) check(name, input[name], [B])
  const c = input.clipCoef ?? 0.2
  const cv = input.vfClipCoef ?? c
  const ent = input.entCoef ?? 0.01
  const vf = input.vfCoef ?? 0.5
  checkRange(site, "clipCoef", c, 0, 1e9)
  checkRange(site, "vfClipCoef", cv, 0, Number.MAX_VALUE)
  checkRange(site, "entCoef", ent, -Number.MAX_VALUE, Number.MAX_VALUE)
  checkRange(site, "vfCoef", vf, -Number.MAX_VALUE, Number.MAX_VALUE)
  const n = B * A
  reset()
  const pz = alloc(4 * n)
  const pm = input.mask === undefined ? 0 : alloc(4 * n)
  const pa = alloc(4 * B)
  const pold = alloc(4 * B)
  const padv = alloc(4 * B)
  const pval = alloc(4 * B)
  const poldv = alloc(4 * B)
  const pret = alloc(4 * B)
  const pd = alloc(8 * n)
  const pdv = alloc(8 * B)
  const pparts = alloc(8 * 6)
  const ps = alloc(4 * A)
  const v = commit(w)
  put(v, pz, prefix(input.logits, n))
  if (input.mask !== undefined) put(v, pm, prefix(input.mask, n))
  v.i32.set(prefix(input.actions, B), pa >> 2)
  put(v, pold, prefix(input.oldLogProbs, B))
  put(v, padv, prefix(input.advantages, B))
  put(v, pval, prefix(input.values, B))
  put(v, poldv, prefix(input.oldValues, B))
  put(v, pret, prefix(input.returns, B))
  const bad = w.ppoLoss(pz, pm, B, A, pa, pold, padv, pval, poldv, pret, c, cv, (input.clipVloss ?? true) ? 1 : 0, ent, vf, pd, pdv, pparts, ps)
  return { bad, pd, pdv, pparts, v }
}

const partsOf = (r: PpoPointers): PpoLoss.PpoLossParts => {
  const o = r.pparts >> 3
  const f = r.v.f64
  if (r.bad > 0) {
    const nan = Number.NaN
    return { loss: nan, policyLoss: nan, valueLoss: nan, entropy: nan, approxKl: nan, clipFraction: nan }
  }
  return { loss: f[o]!, policyLoss: f[o + 1]!, valueLoss: f[o + 2]!, entropy: f[o + 3]!, approxKl: f[o + 4]!, clipFraction: f[o + 5]! }
}

/**
 * PPO loss and gradients (same contract as `PpoLoss.lossAndGradientSync`: validates, typed errors). Float32 inside
 * per element; the loss parts are accumulated in doubles.
 */
export const ppoLoss = (input: PpoLoss.PpoLossInput): PpoLoss.PpoLossResult => {
  PpoLoss.validate(input, BACKEND_NAME, false) // the [batch] arrays and actions (O(batch)); logits are checked in the kernel
  const r = ppoRun(input, { kernel: PpoLoss.kernelName, backend: BACKEND_NAME }, true)
  if (r.bad > 0) {
    Softmax.validate(input, PpoLoss.kernelName, BACKEND_NAME) // throws the precise error for bad logits/mask
    return PpoLoss.lossAndGradientSync(input) // finite inputs whose loss overflows float32: the reference's doubles
  }
  const n = input.batch * input.numActions
  return { ...partsOf(r), dLogits: r.v.f64.slice(r.pd >> 3, (r.pd >> 3) + n), dValues: r.v.f64.slice(r.pdv >> 3, (r.pdv >> 3) + input.batch) }
}

/**
 * The allocation-free form for training loops (same contract as `PpoLoss.lossAndGradientInto`, a drop-in
 * replacement): checks sizes (arrays may be longer; only the prefix is read) and coefficients, trusts the values;
 * bad values (NaN, an invalid action, a row without a valid action) give NaN parts. `out.logProbs` is not used.
 */
export const ppoLossInto = (input: PpoLoss.PpoLossInput, out: PpoLoss.PpoLossBuffers): PpoLoss.PpoLossParts => {
  const site: Site = { kernel: PpoLoss.kernelName, backend: BACKEND_NAME }
  const n = input.batch * input.numActions
  if (out.dLogits.length < n) fail(site, "dLogits", "shape", `[${out.dLogits.length}]`, `buffer needs at least ${n} elements`)
  if (out.dValues.length < input.batch) fail(site, "dValues", "shape", `[${out.dValues.length}]`, `buffer needs at least ${input.batch} elements`)
  const r = ppoRun(input, site, false)
  out.dLogits.set(r.v.f64.subarray(r.pd >> 3, (r.pd >> 3) + n))
  out.dValues.set(r.v.f64.subarray(r.pdv >> 3, (r.pdv >> 3) + input.batch))
  return partsOf(r)
}
