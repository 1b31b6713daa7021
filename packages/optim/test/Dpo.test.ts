import { InvalidOptionError, Rng } from "@autodidact/core"
import { describe, expect, it } from "vitest"
import * as Adam from "../src/Adam.js"
import * as Dpo from "../src/text/Dpo.js"
import * as DrrnPolicy from "../src/text/DrrnPolicy.js"

const small = (seed: number) => DrrnPolicy.make({ buckets: 64, hidden: 6, embed: 4, history: 0, rng: Rng.make(seed) })
const state = (k: number) => ({
  task: "reach the goal",
  observation: `You are at junction ${k}. A door leads north and one leads east.`,
  admissible: ["go north", "go east", "wait"]
})
const pairs: Array<Dpo.PreferencePair> = [
  { input: state(0), chosen: "go north", rejected: "go east" },
  { input: state(1), chosen: "go east", rejected: "wait", weight: 2 },
  { input: state(2), chosen: "go north", rejected: "wait", weight: 0.5 }
]

/** Central differences (ε = 1e-3) of `loss` at the six largest gradient entries and a middle one equal `grad`. */
const expectFiniteDifferences = (p: DrrnPolicy.Drrn, grad: Float64Array, loss: () => number) => {
    const order = Array.from(grad.keys()).sort((a, b) => Math.abs(grad[b]!) - Math.abs(grad[a]!))
    const eps = 1e-3
    for (const k of [...order.slice(0, 6), order[order.length >> 1]!]) {
      const x = p.params[k]!
      p.params[k] = x + eps
      DrrnPolicy.paramsChanged(p)
      const up = loss()
      p.params[k] = x - eps
      DrrnPolicy.paramsChanged(p)
      const down = loss()
      p.params[k] = x
      DrrnPolicy.paramsChanged(p)
      expect(grad[k]!).toBeCloseTo((up - down) / (2 * eps), 4)
    }
}

describe("Dpo", () => {
  it("at the reference policy every z is 0: the loss is log 2 times the mean weight (hand value)", () => {
    const p = small(1)
    const { loss } = Dpo.lossAndGradient(p, pairs, { beta: 0.3 })
    expect(loss).toBeCloseTo(Math.LN2 * (1 + 2 + 0.5) / 3, 12)
  })

  it("the gradient matches finite differences of the loss (against a different reference)", () => {
    const p = small(2)
    const ref = small(3)
    const { grad } = Dpo.lossAndGradient(p, pairs, { beta: 0.7, reference: ref })
    const loss = () => Dpo.lossAndGradient(p, pairs, { beta: 0.7, reference: ref }).loss
    expectFiniteDifferences(p, grad, loss)
  })

  it("with nllWeight α the loss adds α · weight · −log π(chosen) (hand value at the reference) and the gradient matches finite differences", () => {
    const p = small(5)
    const alpha = 0.8
    let nll = 0
    for (const pr of pairs) {
      DrrnPolicy.forward(p, DrrnPolicy.encode(p, pr.input))
      nll -= (pr.weight ?? 1) * DrrnPolicy.logProbAt(p, pr.input.admissible.length, pr.input.admissible.indexOf(pr.chosen))
    }
    expect(Dpo.lossAndGradient(p, pairs, { beta: 0.3, nllWeight: alpha }).loss).toBeCloseTo((Math.LN2 * (1 + 2 + 0.5) + alpha * nll) / 3, 12)
    const ref = small(6)
    const { grad } = Dpo.lossAndGradient(p, pairs, { beta: 0.7, reference: ref, nllWeight: alpha })
    const loss = () => Dpo.lossAndGradient(p, pairs, { beta: 0.7, reference: ref, nllWeight: alpha }).loss
    expectFiniteDifferences(p, grad, loss)
  })

  it("fit with the NLL term raises each chosen command's probability", () => {
    const p = small(7)
    const prob = () => pairs.map((pr) => {
      DrrnPolicy.forward(p, DrrnPolicy.encode(p, pr.input))
      return Math.exp(DrrnPolicy.logProbAt(p, pr.input.admissible.length, pr.input.admissible.indexOf(pr.chosen)))
    })
    const before = prob()
    const report = Dpo.fit(p, pairs, { beta: 0.5, learningRate: 0.02, epochs: 40, batchSize: 2, nllWeight: 1 })
    expect(report.finalAccuracy).toBe(1)
    prob().forEach((q, i) => expect(q).toBeGreaterThan(before[i]!))
  })

  it("fit raises each chosen command over its rejected one: accuracy 1, loss falls, every logit gap grows", () => {
    const p = small(4)
    const gaps = () => pairs.map((pr) => {
      DrrnPolicy.forward(p, DrrnPolicy.encode(p, pr.input))
      const x = DrrnPolicy.logitsOf(p)
      return x[pr.input.admissible.indexOf(pr.chosen)]! - x[pr.input.admissible.indexOf(pr.rejected)]!
    })
    const before = gaps()
    const report = Dpo.fit(p, pairs, { beta: 0.5, learningRate: 0.02, epochs: 40, batchSize: 2 })
    expect(report.epochs[0]!.rewardMargin).toBe(0) // before any update the policy is its reference
    expect(report.epochs.at(-1)!.loss).toBeLessThan(report.epochs[0]!.loss)
    expect(report.finalAccuracy).toBe(1)
    // (DPO widens the margin; the chosen command's probability itself may fall, e.g. when a more preferred one rises)
    gaps().forEach((g, i) => expect(g).toBeGreaterThan(Math.max(before[i]!, 0)))
  })

  it("bad input throws InvalidOptionError naming the pair and the command, or the option", () => {
    const p = small(5)
    const cases: Array<[() => unknown, RegExp]> = [
      [() => Dpo.fit(p, []), /pairs = 0/],
      [() => Dpo.fit(p, [{ input: state(0), chosen: "fly", rejected: "wait" }]), /pairs\[0\]\.chosen = "fly"/],
      [() => Dpo.fit(p, [pairs[0]!, { input: state(0), chosen: "wait", rejected: "wait" }]), /pairs\[1\]\.rejected = "wait".*equals/],
      [() => Dpo.fit(p, [{ ...pairs[0]!, weight: Number.NaN }]), /pairs\[0\]\.weight = NaN/],
      [() => Dpo.fit(p, pairs, { beta: 0 }), /beta = 0/],
      [() => Dpo.fit(p, pairs, { nllWeight: -1 }), /nllWeight = -1/],
      [() => Dpo.lossAndGradient(p, pairs, { nllWeight: Number.POSITIVE_INFINITY }), /nllWeight = Infinity/],
      [() => Dpo.fit(p, pairs, { epochs: 1.5 }), /epochs = 1.5/]
    ]
    for (const [f, message] of cases) {
      expect(f).toThrow(InvalidOptionError)
      expect(f).toThrow(message)
    }
  })
})

describe("Dpo trajectory-level (OPRL's implicit PRM)", () => {
  const steps = (p: DrrnPolicy.Drrn, ref: DrrnPolicy.Drrn, plan: ReadonlyArray<readonly [number, string]>): Array<Dpo.TrajectoryStep> =>
    plan.map(([k, command]) => {
      const encoded = DrrnPolicy.encode(p, state(k))
      const action = state(k).admissible.indexOf(command)
      DrrnPolicy.forward(ref, encoded)
      return { encoded, action, refLogProb: DrrnPolicy.logProbAt(ref, 3, action) }
    })
  const groupsOf = (p: DrrnPolicy.Drrn, ref: DrrnPolicy.Drrn): Array<Dpo.TrajectoryGroup> => [
    {
      // returns 1 > 0.5 > 0 (and a tie at 0): pairs (0,1) (0,2) (0,3) (1,2) (1,3)
      trajectories: [
        steps(p, ref, [[0, "go north"], [1, "go east"]]),
        steps(p, ref, [[0, "go east"], [1, "go east"], [2, "go north"]]),
        steps(p, ref, [[0, "wait"]]),
        steps(p, ref, [[0, "go east"], [1, "wait"], [2, "wait"]])
      ],
      returns: [1, 0.5, 0, 0]
    },
    { trajectories: [steps(p, ref, [[2, "go north"]]), steps(p, ref, [[2, "wait"]])], returns: [0, 0] } // all equal: no pair
  ]
  const grad = (p: DrrnPolicy.Drrn) => new Float64Array(p.params.length)

  it("against itself as reference every z is 0: the loss is log 2 over the 5 ordered pairs (hand count), accuracy 0", () => {
    const p = small(11)
    const r = Dpo.trajectoryLossAndGradient(p, groupsOf(p, p), 0.5, grad(p), new Float64Array(8))
    expect(r.pairs).toBe(5)
    expect(r.loss).toBeCloseTo(Math.LN2, 12)
    expect(r.accuracy).toBe(0) // z = 0 is not a correct ranking
  })

  it("z sums the per-step log-ratios of each trajectory (a hand-built one-pair case)", () => {
    const p = small(12)
    const ref = small(13)
    const [g] = groupsOf(p, ref)
    const pair: Dpo.TrajectoryGroup = { trajectories: [g!.trajectories[0]!, g!.trajectories[2]!], returns: [1, 0] }
    const sum = (tr: ReadonlyArray<Dpo.TrajectoryStep>) =>
      tr.reduce((s, st) => {
        DrrnPolicy.forward(p, st.encoded)
        return s + DrrnPolicy.logProbAt(p, 3, st.action) - st.refLogProb
      }, 0)
    const z = 0.7 * (sum(pair.trajectories[0]!) - sum(pair.trajectories[1]!))
    const r = Dpo.trajectoryLossAndGradient(p, [pair], 0.7, grad(p), new Float64Array(8))
    expect(r.loss).toBeCloseTo(Math.log1p(Math.exp(-z)), 12)
  })

  it("the gradient matches finite differences of the loss", () => {
    const p = small(14)
    const ref = small(15)
    const groups = groupsOf(p, ref)
    const g = grad(p)
    Dpo.trajectoryLossAndGradient(p, groups, 0.9, g, new Float64Array(8))
    expectFiniteDifferences(p, g, () => Dpo.trajectoryLossAndGradient(p, groups, 0.9, grad(p), new Float64Array(8)).loss)
  })

  it("Adam steps rank the preferred trajectories higher; a batch without pairs changes nothing", () => {
    const p = small(16)
    const ref = DrrnPolicy.clone(p)
    const groups = groupsOf(p, ref)
    const adam = Adam.make(p.params.length, { eps: 1e-8 })
    const g = grad(p)
    const d = new Float64Array(8)
    const first = Dpo.trajectoryStep(p, adam, groups, { beta: 0.5, learningRate: 0.02 }, g, d)
    let last = first
    for (let i = 0; i < 60; i++) last = Dpo.trajectoryStep(p, adam, groups, { beta: 0.5, learningRate: 0.02 }, g, d)
    expect(last.loss).toBeLessThan(first.loss)
    expect(last.accuracy).toBe(1)
    const before = Float32Array.from(p.params)
    const none = Dpo.trajectoryStep(p, adam, [groups[1]!], { beta: 0.5, learningRate: 0.02 }, g, d)
    expect(none.pairs).toBe(0)
    expect(p.params).toEqual(before)
  })

  it("bad input throws InvalidOptionError naming the option", () => {
    const p = small(17)
    const groups = groupsOf(p, p)
    const cases: Array<[() => unknown, RegExp]> = [
      [() => Dpo.trajectoryLossAndGradient(p, groups, 0, grad(p), new Float64Array(8)), /beta = 0/],
      [() => Dpo.trajectoryLossAndGradient(p, [{ ...groups[0]!, returns: [1] }], 0.5, grad(p), new Float64Array(8)), /groups\[0\]\.returns = 1/],
      [() => Dpo.trajectoryStep(p, Adam.make(p.params.length), groups, { beta: 0.5, learningRate: Number.NaN }, grad(p), new Float64Array(8)), /learningRate = NaN/]
    ]
    for (const [f, message] of cases) {
      expect(f).toThrow(InvalidOptionError)
      expect(f).toThrow(message)
    }
  })
})
