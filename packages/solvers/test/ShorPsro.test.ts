/**
 * SHOR-PSRO's meta-solvers (Li et al. 2026, arXiv:2602.16928, Appendix 7.1 Listing 6): the hybrid solver's limits
 * (λ = 0: optimistic regret matching+, λ = 1: the softmax response) on hand-computed 2x2 cases, the training
 * schedule, the meta-solver conformance check, and PSRO with "shor" on rock-paper-scissors and Kuhn poker.
 */
import { KuhnPoker } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as CheckMetaSolver from "../src/normalform/CheckMetaSolver.js"
import * as Equilibrium from "../src/normalform/Equilibrium.js"
import * as Highs from "../src/normalform/HighsRuntime.js"
import * as MetaSolvers from "../src/normalform/MetaSolvers.js"
import * as PayoffTensor from "../src/normalform/PayoffTensor.js"
import * as ShorPsro from "../src/normalform/ShorPsro.js"
import * as Psro from "../src/psro/Psro.js"
import * as PsroExtensive from "../src/psro/PsroExtensive.js"

const base: ShorPsro.HybridOptions = { iterations: 1, blend: 0, temperature: 1, momentum: 0, gainNormalization: true, diversity: 0, average: false }
const run = (g: PayoffTensor.PayoffTensor, o: Partial<ShorPsro.HybridOptions>) => Effect.runSync(ShorPsro.hybridOrm(g, { ...base, ...o })).map((x) => Array.from(x))

describe("ShorPsro", () => {
  it("λ = 0 is optimistic regret matching+ on centered, normalized gains (hand-computed, 2x2 zero-sum)", () => {
    const g = PayoffTensor.zeroSum([[3, -1], [-2, 1]])
    // round 1: u₀ = (1, −0.5) vs uniform → c = (0.75, −0.75) → g/|g| = (1, −1) → R = (1, 0) → σ₀ = (1, 0);
    // player 1 then answers σ₀ (players in turn): u₁ = (−3, 1) → c = (−2, 2) → σ₁ = (0, 1)
    expect(run(g, {})).toEqual([[1, 0], [0, 1]])
    // round 2 with momentum 0.5: u₀ = (−1, 1), g = 1.5 (−1, 1) − 0.5 (0.75, −0.75) → R = (0, 1) → σ₀ = (0, 1);
    // u₁ = (2, −1), g = 1.5 (1.5, −1.5) − 0.5 (−2, 2) → R = (1, 0) → σ₁ = (1, 0); averages (1/2, 1/2)
    expect(run(g, { iterations: 2, momentum: 0.5 })).toEqual([[0, 1], [1, 0]])
    expect(run(g, { iterations: 2, momentum: 0.5, average: true })).toEqual([[0.5, 0.5], [0.5, 0.5]])
    // diversity bonus δ (1 − σ) on top of c = 0 (matching pennies vs uniform): g = δ/2 each → R equal → uniform
    expect(run(PayoffTensor.zeroSum([[1, -1], [-1, 1]]), { diversity: 0.05 })).toEqual([[0.5, 0.5], [0.5, 0.5]])
  })

  it("λ = 1 is the softmax response to the others' current strategies (hand-computed, 2x2 coordination, τ = 0.5)", () => {
    const a = [[2, 0], [0, 1]]
    const g = PayoffTensor.fromMatrices(a, a)
    const soft = (u: ReadonlyArray<number>, tau: number) => {
      const top = Math.max(...u)
      const e = u.map((x) => Math.exp((x - top) / tau))
      return e.map((x) => x / e.reduce((s, y) => s + y, 0))
    }
    const s0 = soft([1, 0.5], 0.5) // against uniform
    const s1 = soft([2 * s0[0]!, s0[1]!], 0.5) // against the new σ₀
    const [x, y] = run(g, { blend: 1, temperature: 0.5 })
    x!.forEach((v, k) => expect(v).toBeCloseTo(s0[k]!, 15))
    y!.forEach((v, k) => expect(v).toBeCloseTo(s1[k]!, 15))
  })

  it("the training schedule anneals λ 0.3 → 0.05, τ 0.5 → 0.01, δ 0.05 → 0.001 over 75 calls; rounds grow with the population", () => {
    const first = ShorPsro.trainSchedule(1, 1)
    expect(first.iterations).toBe(1000)
    expect(first.blend).toBeCloseTo(0.3 - 0.25 / 75, 15)
    expect(first.temperature).toBeCloseTo(0.5 - 0.49 / 75, 15)
    expect(first.diversity).toBeCloseTo(0.05 - 0.049 / 75, 15)
    expect(first.average).toBe(true)
    const late = ShorPsro.trainSchedule(200, 500)
    expect([late.blend, late.temperature, late.diversity, late.iterations]).toEqual([0.05, 0.01, 0.001, 5000])
    expect(ShorPsro.trainSchedule(10, 11).iterations).toBe(1200)
  })

  it("bad options and tensors fail with typed errors naming the value", () => {
    const g = PayoffTensor.zeroSum([[1, -1], [-1, 1]])
    const exit = Effect.runSyncExit(ShorPsro.hybridOrm(g, { ...base, blend: 1.5 }))
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("blend")
    const bad = Effect.runSyncExit(ShorPsro.evalMetaSolver()({ shape: [2, 2], payoffs: [new Float64Array(4), new Float64Array(3)] }))
    expect(Exit.isFailure(bad) && JSON.stringify(bad.cause)).toContain("InvalidPayoffTensorError")
  })

  it("passes the meta-solver check: evaluation solver fully, training solver except determinism (stateful by design)", async () => {
    const evalReport = await CheckMetaSolver.checkMetaSolver(ShorPsro.evalMetaSolver({ baseIterations: 2000 }), { name: "shor-eval", claims: "none", highs: Highs.layer })
    expect(evalReport.properties).toContain("determinism")
    const trainReport = await CheckMetaSolver.checkMetaSolver(ShorPsro.trainMetaSolver(), { name: "shor", ...MetaSolvers.claims.shor, skip: ["determinism"], highs: Highs.layer })
    expect(trainReport.games.length).toBeGreaterThanOrEqual(4)
  })

  it.effect("PSRO with \"shor\" on rock-paper-scissors adds all three strategies and its evaluation solver is near uniform", () =>
    Effect.gen(function*() {
      const rps = PayoffTensor.zeroSum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
      const result = yield* Psro.run(rps, { metaSolver: "shor", iterations: 10 })
      expect(result.final.populations.map((p) => [...p].sort())).toEqual([[0, 1, 2], [0, 1, 2]])
      expect(result.final.nashConv).toBeLessThan(0.05)
      const x = yield* ShorPsro.evalMetaSolver()(rps)
      expect(Equilibrium.nashConv(rps, x)).toBeLessThan(0.05)
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("PSRO with \"shor\" on Kuhn poker drives NashConv down (from uniform's 0.917)", () =>
    Effect.gen(function*() {
      const result = yield* PsroExtensive.run(KuhnPoker.make(), { metaSolver: "shor", iterations: 8 })
      const curve = result.history.map((r) => r.nashConv)
      expect(curve[0]).toBeCloseTo(11 / 12, 10)
      expect(Math.min(...curve)).toBeLessThan(0.2)
    }).pipe(Effect.provide(Highs.layer)))
})
