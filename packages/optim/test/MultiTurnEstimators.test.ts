/**
 * The trainer's side of the estimators in src/estimators: per-step entropies and log-ratios reach the estimator, EPO's
 * smoothing term and AEPO's entropy-balanced clipping in the loss, and IGPO's refusal on a policy without goal
 * log-probabilities.
 */
import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as Advantages from "../src/Advantages.js"
import * as DrrnPolicy from "../src/text/DrrnPolicy.js"
import "../src/estimators/Aepo.js"
import "../src/estimators/FlowGrpo.js"
import "../src/estimators/Igpo.js"
import "../src/estimators/Oprl.js"
import "../src/estimators/Spa.js"
import * as GroupRollout from "../src/text/GroupRollout.js"
import * as MultiTurnTrainer from "../src/text/MultiTurnTrainer.js"
import { DoorsEnv } from "./fixtures/DoorsEnv.js"
import { sharpDrrn } from "./fixtures/sharpDrrn.js"
import { maxRelativeError, nonZeroIndices } from "./gradientCheck.js"

const texts = [
  { task: "open the red doors", observation: "You are at junction 0.", admissible: ["open red door", "open blue door", "wait"] },
  { task: "open the blue doors", observation: "You are at junction 1.", admissible: ["open red door", "open blue door", "open green door", "wait"] }
]

const smallPolicy = sharpDrrn

describe("MultiTurnTrainer with EPO / AEPO", () => {
  it("EPO smoothing: the gradient matches central finite differences (below, above and inside the band)", () => {
    const p = smallPolicy()
    const specs: Array<[number, number, number, number | undefined]> = [[0, 0, 1.3, 0.5], [0, 2, -0.7, 2], [1, 1, 0.9, 1], [1, 3, -1.1, undefined]]
    const samples: Array<MultiTurnTrainer.Sample> = specs.map(([ti, action, advantage, factor]) => {
      const encoded = DrrnPolicy.encode(p, texts[ti]!)
      const h = DrrnPolicy.forward(p, encoded)
      const logp = DrrnPolicy.logProbAt(p, encoded.actions.length, action)
      // the historical average h / factor puts h at factor × average: below 0.8 (0.5), above 1.2 (2), inside (1)
      return { encoded, action, advantage, oldLogProb: logp + 0.1, refLogProb: 0, ...(factor === undefined ? {} : { entropyAverage: h / factor }) }
    })
    const o = { clip: 0.2, klCoef: 0, klEstimator: "k3" as const, entCoef: 0.05 }
    const epo = { coef: 0.3, low: 0.8, high: 1.2 }
    const inds = [0, 1, 2, 3]
    const grad = new Float64Array(p.params.length)
    const scratch = new Float64Array(8)
    const parts = MultiTurnTrainer.lossAndGradient(p, o, samples, inds, 0, 4, grad, scratch, epo)
    expect(parts.entropyPenalty).toBeGreaterThan(0)
    // hand-computed penalty: 0.3·|h − h/0.5| + 0.3·|h − h/2| for samples 0 and 1, averaged over 4
    const h0 = DrrnPolicy.forward(p, samples[0]!.encoded)
    const h1 = DrrnPolicy.forward(p, samples[1]!.encoded)
    expect(parts.entropyPenalty).toBeCloseTo((0.3 * h0 + 0.3 * (h1 / 2)) / 4, 10)
    const lossAt = () => MultiTurnTrainer.lossAndGradient(p, o, samples, inds, 0, 4, new Float64Array(p.params.length), scratch, epo).loss
    const check = nonZeroIndices(grad, 1, (k) => k % 97 === 0)
    expect(check.length).toBeGreaterThan(100)
    expect(maxRelativeError(p.params, grad, lossAt, check, 4e-3)).toBeLessThan(2e-3)
  })

  it("AEPO clipping: a clipped high-entropy step keeps the gradient of (1 + ε)·A·log π; a low-entropy one gets none", () => {
    const p = smallPolicy()
    const encoded = DrrnPolicy.encode(p, texts[1]!)
    DrrnPolicy.forward(p, encoded)
    const logp = DrrnPolicy.logProbAt(p, encoded.actions.length, 2)
    const o = { clip: 0.2, klCoef: 0, klEstimator: "k3" as const, entCoef: 0, entropyBalancedClip: true }
    const gradOf = (smp: MultiTurnTrainer.Sample, opts: typeof o) => {
      const g = new Float64Array(p.params.length)
      MultiTurnTrainer.lossAndGradient(p, opts, [smp], [0], 0, 1, g, new Float64Array(8))
      return g
    }
    // ratio e^{0.25} = 1.28 > 1.2 with A = 1: clipped, inside the outer bound 1 ± 2ε
    const clipped = { encoded, action: 2, advantage: 1, oldLogProb: logp - 0.25, refLogProb: 0 }
    const balanced = gradOf({ ...clipped, highEntropy: true }, o)
    const reference = gradOf({ ...clipped, advantage: 1.2, oldLogProb: logp }, { ...o, entropyBalancedClip: false }) // ratio 1, A = 1.2
    let norm = 0
    for (let k = 0; k < balanced.length; k++) {
      expect(balanced[k]).toBeCloseTo(reference[k]!, 10)
      norm += Math.abs(reference[k]!)
    }
    expect(norm).toBeGreaterThan(0)
    expect(gradOf(clipped, o).every((x) => x === 0)).toBe(true) // not high-entropy: PPO's zero gradient
    // ratio e^{0.5} = 1.65: past the outer bound 1.4, no gradient even for a high-entropy step
    expect(gradOf({ ...clipped, oldLogProb: logp - 0.5, highEntropy: true }, o).every((x) => x === 0)).toBe(true)
  })

  it("the DRRN rollout records each step's entropy (the distribution's, as DrrnPolicy.forward gives it)", () => {
    const policy = DrrnPolicy.make({ buckets: 256, hidden: 8, embed: 4, history: 0, rng: Rng.make(1) })
    const g = GroupRollout.collectGroup([new DoorsEnv()], MultiTurnTrainer.drrnTextPolicy(policy), { seed: 4 }, Rng.make(2), { groupSize: 2, maxSteps: 3 })
    for (const tr of g.trajectories) {
      for (const s of tr.steps) {
        expect(s.entropy).toBeDefined()
        expect(s.entropy).toBeCloseTo(DrrnPolicy.forward(policy, s.encoded), 12)
      }
    }
  })
})

describe("MultiTurnTrainer.train with the new estimators", () => {
  const tiny = { totalEnvSteps: 400, maxSteps: 6, groupSize: 4, tasksPerBatch: 4, evalEvery: 0, evalEpisodes: 4, policy: { buckets: 256, hidden: 8, embed: 4, history: 0 } }

  it.effect("flow-grpo, spa, oprl and aepo train (entropies and log-ratios reach the estimator); EPO and AEPO clipping run", () =>
    Effect.gen(function* () {
      for (const algo of ["flow-grpo", "spa", "oprl", "aepo"]) {
        const rows: Array<MultiTurnTrainer.UpdateRow> = []
        const r = yield* MultiTurnTrainer.train([new DoorsEnv()], { ...tiny, algo, seed: 2 }, { onUpdate: (u) => rows.push(u) })
        expect(r.globalStep, algo).toBeGreaterThanOrEqual(400)
        for (const u of rows) expect(Number.isFinite(u.policyLoss), algo).toBe(true)
      }
      // an estimator that would fail without its signal: the trainer supplies it (a spy on what aepo receives)
      const seen: Array<ReadonlyArray<number> | undefined> = []
      const undo = Advantages.register("aepo-spy", (batch, o) => {
        for (const group of batch) for (const tr of group) seen.push((tr as { entropies?: ReadonlyArray<number> }).entropies)
        return Advantages.get("aepo")(batch, o)
      })
      try {
        const { StepSignals } = yield* Effect.promise(() => import("../src/index.js"))
        const undeclare = StepSignals.declare("aepo-spy", ["entropies"])
        yield* MultiTurnTrainer.train([new DoorsEnv()], { ...tiny, totalEnvSteps: 50, algo: "aepo-spy" })
        undeclare()
      } finally {
        undo()
      }
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.every((e) => e !== undefined && e.every((h) => h >= 0 && h <= Math.log(4) + 1e-9))).toBe(true)
      // oprl: a separate implicit PRM trained by trajectory-level DPO gives the log-ratios (OPRL), reported per update
      const ratios: Array<ReadonlyArray<number>> = []
      const undoOprl = Advantages.register("oprl-spy", (batch, o) => {
        for (const group of batch) for (const tr of group) ratios.push(Array.from((tr as { logRatios?: ArrayLike<number> }).logRatios!))
        return Advantages.get("oprl")(batch, o)
      })
      const prmRows: Array<MultiTurnTrainer.UpdateRow> = []
      try {
        const { StepSignals } = yield* Effect.promise(() => import("../src/index.js"))
        const undeclare = StepSignals.declare("oprl-spy", ["logRatios"])
        yield* MultiTurnTrainer.train([new DoorsEnv()], { ...tiny, algo: "oprl-spy", seed: 3 }, { onUpdate: (u) => prmRows.push(u) })
        undeclare()
      } finally {
        undoOprl()
      }
      const withPairs = prmRows.filter((u) => u.prm !== undefined)
      expect(withPairs.length).toBeGreaterThan(0)
      for (const u of withPairs) {
        expect(u.prm!.pairs).toBeGreaterThan(0)
        expect(u.prm!.accuracy).toBeGreaterThanOrEqual(0)
        expect(Number.isFinite(u.prm!.loss)).toBe(true)
      }
      // the first round's PRM starts as the rollout policy (ℓ = 0) and its DPO step moves it: not all 0, all finite
      expect(ratios.flat().every(Number.isFinite)).toBe(true)
      expect(ratios.flat().some((x) => Math.abs(x) > 1e-6)).toBe(true)
      const rows: Array<MultiTurnTrainer.UpdateRow> = []
      yield* MultiTurnTrainer.train([new DoorsEnv()], { ...tiny, epo: { coef: 0.5, low: 1.5, high: 2 }, entropyBalancedClip: true }, { onUpdate: (u) => rows.push(u) })
      expect(rows[0]!.entropyPenalty).toBe(0) // no history before the first update
      expect(rows.slice(1).some((u) => u.entropyPenalty > 0)).toBe(true) // every step is below 1.5 × its average
    }))

  it.effect("igpo on the DRRN policy fails with GoalLogProbUnavailableError; bad EPO and PRM options with InvalidOptionError", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(MultiTurnTrainer.train([new DoorsEnv()], { ...tiny, algo: "igpo" }))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(JSON.stringify(exit.cause)).toContain("GoalLogProbUnavailableError")
      const bad = yield* Effect.exit(MultiTurnTrainer.train([new DoorsEnv()], { ...tiny, epo: { low: 2, high: 1 } }))
      expect(Exit.isFailure(bad)).toBe(true)
      if (Exit.isFailure(bad)) expect(JSON.stringify(bad.cause)).toContain("epo.high")
      for (const [prm, name] of [[{ learningRate: 0 }, "prm.learningRate"], [{ steps: 1.5 }, "prm.steps"]] as const) {
        const e = yield* Effect.exit(MultiTurnTrainer.train([new DoorsEnv()], { ...tiny, algo: "oprl", prm: prm as never }))
        expect(Exit.isFailure(e)).toBe(true)
        if (Exit.isFailure(e)) expect(JSON.stringify(e.cause)).toContain(name)
      }
    }))
})
