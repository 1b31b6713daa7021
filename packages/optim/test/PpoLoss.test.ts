/**
 * The PPO minibatch loss (CleanRL ppo.py) and its hand-written gradient, checked two independent ways:
 * - the loss value (and its logged parts) against a re-computation written here from CleanRL's formulas, with its
 *   own MLP forward pass, softmax and torch-style (unbiased) advantage normalization;
 * - the analytic gradient of `Ppo.lossAndGradient` (the code path `train` runs for every minibatch) against central
 *   finite differences of that re-computation, in float64, on every parameter not at a kink of the max/clip branches.
 */
import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { ActorCritic, Ppo } from "../src/index.js"

const OBS = 4
const ACTIONS = 3
const HIDDEN = 8
const ROWS = 20 // rollout rows; the minibatch takes MB of them through a shuffled index array, from START
const MB = 16
const START = 3
const EPS = 0.2 // clip coefficient, for both the surrogate and the value clipping (CleanRL)

/** Grid the parameters live on: ±h moves by a multiple of GRID, so perturbed float32 parameters stay exact. */
const GRID = 2 ** -16
const H = 2 ** -14

type LossOptions = Pick<Ppo.Options, "clipCoef" | "normAdv" | "clipVloss" | "entCoef" | "vfCoef">

interface Data {
  readonly obs: Float64Array
  readonly actions: Int32Array
  readonly logprobs: Float64Array
  readonly advantages: Float64Array
  readonly returns: Float64Array
  readonly values: Float64Array
  readonly indices: Int32Array
}

// ---------------------------------------------------------------------------------------------------------------
// Independent re-computation (CleanRL ppo.py), float64 throughout
// ---------------------------------------------------------------------------------------------------------------

/** y = tanh?(x · W + b) with W stored [in, out] row-major (the documented layout), from the named tensors. */
const denseRef = (net: ActorCritic.ActorCritic, prefix: string, x: ReadonlyArray<number>, tanh: boolean): Array<number> => {
  const w = net.layout.find((l) => l.name === `${prefix}.weight`)!
  const b = net.layout.find((l) => l.name === `${prefix}.bias`)!
  const [inDim, outDim] = w.shape as [number, number]
  return Array.from({ length: outDim }, (_, j) => {
    let s = net.params[b.offset + j]!
    for (let i = 0; i < inDim; i++) s += x[i]! * net.params[w.offset + i * outDim + j]!
    return tanh ? Math.tanh(s) : s
  })
}

const mlpRef = (net: ActorCritic.ActorCritic, head: "actor" | "critic", x: ReadonlyArray<number>): Array<number> =>
  denseRef(net, `${head}.4`, denseRef(net, `${head}.2`, denseRef(net, `${head}.0`, x, true), true), false)

/** Which side of each max/clip every sample is on: a change between θ and θ ± h means θ sits at a kink. */
interface Branches {
  /** per sample: 0 ratio inside [1 − ε, 1 + ε]; 1 outside, unclipped term is the max; 2 outside, clipped term is the max */
  readonly pg: Array<number>
  /** per sample: 0 |V − V_old| ≤ ε; 1 outside, unclipped loss is the max; 2 outside, clipped loss is the max */
  readonly v: Array<number>
}

interface RefLoss {
  readonly loss: number
  readonly policyLoss: number
  readonly valueLoss: number
  readonly entropy: number
  readonly approxKl: number
  readonly clipFraction: number
  readonly normAdv: Array<number>
  readonly ratios: Array<number>
  readonly branches: Branches
}

const refLoss = (net: ActorCritic.ActorCritic, d: Data, o: LossOptions): RefLoss => {
  const inds = Array.from(d.indices.subarray(START, START + MB))
  // mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8), torch's unbiased std
  const rawAdv = inds.map((k) => d.advantages[k]!)
  const mean = rawAdv.reduce((a, b) => a + b, 0) / MB
  const std = Math.sqrt(rawAdv.reduce((a, b) => a + (b - mean) ** 2, 0) / (MB - 1))
  const adv = o.normAdv ? rawAdv.map((a) => (a - mean) / (std + 1e-8)) : rawAdv
  const c = o.clipCoef
  const pgTerms: Array<number> = []
  const vTerms: Array<number> = []
  const entropies: Array<number> = []
  const kls: Array<number> = []
  const ratios: Array<number> = []
  const branches: Branches = { pg: [], v: [] }
  inds.forEach((k, b) => {
    const x = Array.from(d.obs.subarray(k * OBS, (k + 1) * OBS))
    const logits = mlpRef(net, "actor", x)
    const newValue = mlpRef(net, "critic", x)[0]!
    // Categorical(logits=logits): log_softmax, entropy = −Σ p log p
    const m = Math.max(...logits)
    const lse = m + Math.log(logits.reduce((s, z) => s + Math.exp(z - m), 0))
    const logp = logits.map((z) => z - lse)
    entropies.push(-logp.reduce((s, lp) => s + Math.exp(lp) * lp, 0))
    const logratio = logp[d.actions[k]!]! - d.logprobs[k]!
    const ratio = Math.exp(logratio)
    ratios.push(ratio)
    kls.push(ratio - 1 - logratio) // approx_kl = ((ratio - 1) - logratio).mean()
    // pg_loss = torch.max(-mb_advantages * ratio, -mb_advantages * torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef)).mean()
    const pg1 = -adv[b]! * ratio
    const pg2 = -adv[b]! * Math.min(Math.max(ratio, 1 - c), 1 + c)
    pgTerms.push(Math.max(pg1, pg2))
    branches.pg.push(Math.abs(ratio - 1) <= c ? 0 : pg1 >= pg2 ? 1 : 2)
    // v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2; v_clipped = b_values + clamp(newvalue - b_values, -ε, ε)
    const ret = d.returns[k]!
    const old = d.values[k]!
    const unclipped = (newValue - ret) ** 2
    if (o.clipVloss) {
      const vClipped = old + Math.min(Math.max(newValue - old, -c), c)
      const clipped = (vClipped - ret) ** 2
      vTerms.push(0.5 * Math.max(unclipped, clipped)) // v_loss = 0.5 * v_loss_max.mean()
      branches.v.push(Math.abs(newValue - old) <= c ? 0 : unclipped >= clipped ? 1 : 2)
    } else {
      vTerms.push(0.5 * unclipped) // v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()
      branches.v.push(0)
    }
  })
  const avg = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
  const policyLoss = avg(pgTerms)
  const valueLoss = avg(vTerms)
  const entropy = avg(entropies)
  return {
    loss: policyLoss - o.entCoef * entropy + o.vfCoef * valueLoss, // loss = pg_loss - ent_coef * entropy_loss + v_loss * vf_coef
    policyLoss,
    valueLoss,
    entropy,
    approxKl: avg(kls),
    clipFraction: ratios.filter((r) => Math.abs(r - 1) > c).length / MB, // clipfracs: ((ratio - 1.0).abs() > clip_coef)
    normAdv: adv,
    ratios,
    branches
  }
}

// ---------------------------------------------------------------------------------------------------------------
// A small agent and a synthetic minibatch that exercises every branch
// ---------------------------------------------------------------------------------------------------------------

const setup = () => {
  const rng = Rng.make(2024)
  const net = ActorCritic.make({ obsDim: OBS, numActions: ACTIONS, hidden: HIDDEN, rng })
  // move off the initialization (the 0.01 actor head would make the policy uniform) and onto the grid
  for (let k = 0; k < net.params.length; k++) net.params[k] = Math.round((net.params[k]! + rng.uniform(-0.5, 0.5)) / GRID) * GRID
  const obs = Float64Array.from({ length: ROWS * OBS }, () => rng.uniform(-1.5, 1.5))
  const indices = Int32Array.from({ length: ROWS }, (_, k) => k)
  rng.shuffle(indices)
  const actions = Int32Array.from({ length: ROWS }, (_, k) => k % ACTIONS)
  // target ratios and advantages (signs survive normalization: mean ≈ 0): every (inside / outside low / outside high)
  // × (A > 0 / A < 0) combination, so the clipped surrogate picks both terms away from 1 ± ε
  const ratioTargets = [1.05, 0.7, 1.4, 0.9, 1.3, 0.6, 1.1, 0.75, 0.97, 1.5, 0.8, 1.25, 1.02, 0.65, 1.35, 1.15, 0.5, 1.6, 0.92, 1.08]
  const advantages = Float64Array.from({ length: ROWS }, (_, k) => (k % 2 === 0 ? 1 : -1) * (0.3 + 1.7 * ((k * 7) % 11) / 11) + 0.05)
  const logprobs = new Float64Array(ROWS)
  const values = new Float64Array(ROWS)
  const returns = new Float64Array(ROWS)
  // value offsets V − V_old inside and outside ±ε, returns on either side, so both terms of the value max are taken
  const vOffsets = [0.05, -0.5, 0.6, -0.1, 0.45, -0.7, 0.15, 0.35, -0.3, 0.55, -0.05, -0.4, 0.8, 0.1, -0.65, 0.3, -0.25, 0.5, -0.15, 0.4]
  const retOffsets = [0.9, -1.2, 1.1, 0.4, -0.8, 1.3, -0.5, 0.7, 1.0, -1.1, -0.3, 0.6, -0.9, 1.2, 0.8, -1.0, 0.5, 1.4, -0.6, -0.7]
  for (let k = 0; k < ROWS; k++) {
    const x = Array.from(obs.subarray(k * OBS, (k + 1) * OBS))
    const logits = mlpRef(net, "actor", x)
    const m = Math.max(...logits)
    const lse = m + Math.log(logits.reduce((s, z) => s + Math.exp(z - m), 0))
    logprobs[k] = logits[actions[k]!]! - lse - Math.log(ratioTargets[k]!)
    const v = mlpRef(net, "critic", x)[0]!
    values[k] = v - vOffsets[k]!
    returns[k] = v + retOffsets[k]!
  }
  const data: Data = { obs, actions, logprobs, advantages, returns, values, indices }
  return { net, data }
}

const scratchFor = (net: ActorCritic.ActorCritic): Ppo.LossScratch => ({
  mbAdv: new Float64Array(MB),
  dLogits: new Float64Array(MB * ACTIONS),
  dValues: new Float64Array(MB),
  grad: new Float64Array(net.params.length)
})

const minibatch = (d: Data): Ppo.Minibatch => ({ ...d, start: START, size: MB })

const base: LossOptions = { clipCoef: EPS, normAdv: true, clipVloss: true, entCoef: 0.01, vfCoef: 0.5 }
const configs: ReadonlyArray<[string, LossOptions]> = [
  ["clipVloss true", base],
  ["clipVloss false", { ...base, clipVloss: false }],
  ["normAdv false", { ...base, normAdv: false }]
]

const sameBranches = (a: Branches, b: Branches): boolean =>
  a.pg.every((x, k) => x === b.pg[k]) && a.v.every((x, k) => x === b.v[k])

describe("Ppo.lossAndGradient (CleanRL ppo.py minibatch loss)", () => {
  it("the synthetic minibatch covers every branch of the clipped surrogate and the clipped value loss", () => {
    const { net, data } = setup()
    const r = refLoss(net, data, base)
    const count = (xs: ReadonlyArray<number>, v: number) => xs.filter((x) => x === v).length
    for (const branch of [0, 1, 2]) {
      expect(count(r.branches.pg, branch)).toBeGreaterThanOrEqual(2)
      expect(count(r.branches.v, branch)).toBeGreaterThanOrEqual(2)
    }
    // normalization kept advantages of both signs; ratios on both sides of the clip range
    expect(r.normAdv.some((a) => a > 0.1) && r.normAdv.some((a) => a < -0.1)).toBe(true)
    expect(r.ratios.some((x) => x < 1 - EPS) && r.ratios.some((x) => x > 1 + EPS)).toBe(true)
  })

  for (const [name, o] of configs) {
    it(`${name}: loss and logged parts equal the direct re-computation`, () => {
      const { net, data } = setup()
      const sc = scratchFor(net)
      const parts = Ppo.lossAndGradient(net, o, minibatch(data), sc)
      const r = refLoss(net, data, o)
      expect(Math.abs(parts.loss - r.loss)).toBeLessThan(1e-12 * Math.max(1, Math.abs(r.loss)))
      expect(parts.policyLoss).toBeCloseTo(r.policyLoss, 12)
      expect(parts.valueLoss).toBeCloseTo(r.valueLoss, 12)
      expect(parts.entropy).toBeCloseTo(r.entropy, 12)
      expect(parts.approxKl).toBeCloseTo(r.approxKl, 12)
      expect(parts.clipFraction).toBe(r.clipFraction)
      expect(r.clipFraction).toBeGreaterThan(0)
      expect(r.clipFraction).toBeLessThan(1)
      // the advantages the trainer used are the normalized ones
      for (let b = 0; b < MB; b++) expect(sc.mbAdv[b]).toBeCloseTo(r.normAdv[b]!, 12)
    })

    it(`${name}: gradient equals central finite differences of the loss (float64, every parameter off a kink)`, () => {
      const { net, data } = setup()
      const sc = scratchFor(net)
      Ppo.lossAndGradient(net, o, minibatch(data), sc)
      const grad = Float64Array.from(sc.grad)
      const at = refLoss(net, data, o)
      let checked = 0
      let kinks = 0
      let worst = 0
      for (let k = 0; k < net.params.length; k++) {
        const p0 = net.params[k]!
        net.params[k] = p0 + H
        expect(net.params[k]! - p0).toBe(H) // exact in float32: the parameters sit on a 2^-16 grid
        const up = refLoss(net, data, o)
        net.params[k] = p0 - H
        const down = refLoss(net, data, o)
        net.params[k] = p0
        if (!sameBranches(up.branches, at.branches) || !sameBranches(down.branches, at.branches)) {
          kinks++
          continue
        }
        const numeric = (up.loss - down.loss) / (2 * H)
        const analytic = grad[k]!
        const rel = Math.abs(numeric - analytic) / Math.max(Math.abs(numeric), Math.abs(analytic), 1e-6)
        worst = Math.max(worst, rel)
        if (rel >= 1e-4) expect.fail(`parameter ${k}: analytic ${analytic}, numeric ${numeric}, relative error ${rel}`)
        checked++
      }
      expect(worst).toBeLessThan(1e-4)
      expect(kinks).toBeLessThanOrEqual(net.params.length / 20)
      expect(checked).toBeGreaterThan(net.params.length * 0.95)
      // not a vacuous check: every layer receives gradient
      for (const l of net.layout) {
        const g = grad.subarray(l.offset, l.offset + l.size)
        expect(Math.max(...Array.from(g, Math.abs)), l.name).toBeGreaterThan(1e-6)
      }
    })
  }

  it("samples on the clipped side of a max contribute no gradient (the clipped branches are constants)", () => {
    // perturbing only the data of samples whose clipped term is active must not move the gradient
    const { net, data } = setup()
    const o = base
    const r = refLoss(net, data, o)
    const sc = scratchFor(net)
    Ppo.lossAndGradient(net, o, minibatch(data), sc)
    const grad = Float64Array.from(sc.grad)
    const inds = Array.from(data.indices.subarray(START, START + MB))
    // a sample whose value loss is on the clipped side: moving its return a little keeps that branch; the value
    // gradient of that sample is zero, so the critic gradient must not change
    const b = r.branches.v.findIndex((x) => x === 2)
    expect(b).toBeGreaterThanOrEqual(0)
    const k = inds[b]!
    const moved: Data = { ...data, returns: Float64Array.from(data.returns) }
    const old = data.values[k]!
    // keep the clipped branch: shift the return away from the clipped value, i.e. the same direction as before
    moved.returns[k] = moved.returns[k]! + 0.01 * Math.sign(moved.returns[k]! - old)
    expect(refLoss(net, moved, o).branches.v[b]).toBe(2)
    Ppo.lossAndGradient(net, o, minibatch(moved), sc)
    for (let j = 0; j < grad.length; j++) expect(sc.grad[j]).toBe(grad[j])
  })
})
