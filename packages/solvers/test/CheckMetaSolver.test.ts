import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as CheckMetaSolver from "../src/normalform/CheckMetaSolver.js"
import * as Highs from "../src/normalform/HighsRuntime.js"
import * as MetaSolvers from "../src/normalform/MetaSolvers.js"
import * as PayoffTensor from "../src/normalform/PayoffTensor.js"
import { CheckMetaSolver as FromIndex } from "../src/index.js"

type Solver = MetaSolvers.MetaSolver | MetaSolvers.JointMetaSolver

/** The findings `checkMetaSolver` rejects `solver` with (fails the test when it passes). */
const findingsOf = async (solver: Solver, options: Parameters<typeof CheckMetaSolver.checkMetaSolver>[1]): Promise<ReadonlyArray<string>> => {
  const err = await CheckMetaSolver.checkMetaSolver(solver, { name: "broken", highs: Highs.layer, ...options }).then(
    () => undefined,
    (e: unknown) => e
  )
  expect(err).toBeInstanceOf(CheckMetaSolver.MetaSolverCheckError)
  const e = err as CheckMetaSolver.MetaSolverCheckError
  expect(e.solver).toBe("broken")
  expect(e.message).toContain("broken failed the meta-solver check")
  return e.findings
}
const expectFinding = (findings: ReadonlyArray<string>, property: CheckMetaSolver.Property, text: string) => {
  const hit = findings.filter((f) => f.startsWith(`${property}: `))
  expect(hit, findings.join("\n")).not.toEqual([])
  expect(hit.join("\n")).toContain(text)
}

describe("checkMetaSolver on every named built-in meta-solver, with its declared claims", () => {
  it("the index exports it", () => {
    expect(FromIndex.checkMetaSolver).toBe(CheckMetaSolver.checkMetaSolver)
  })
  // PRD with 2000 steps instead of OpenSpiel's 100000 keeps the run cheap; it claims only a distribution either way
  for (const name of MetaSolvers.metaSolverNames) {
    it(`PSRO "${name}" (${MetaSolvers.claims[name].claims})`, async () => {
      // "shor" is stateful by design (its annealing advances at each call), so the same game twice differs
      const skip: ReadonlyArray<CheckMetaSolver.Property> = name === "shor" ? ["determinism"] : []
      const report = await CheckMetaSolver.checkMetaSolver(MetaSolvers.named(name, { iterations: 2000 }), { name, ...MetaSolvers.claims[name], skip, highs: Highs.layer })
      expect(report.solver).toBe(name)
      expect(report.claims).toBe(MetaSolvers.claims[name].claims)
      expect(report.games.length).toBeGreaterThanOrEqual(4)
      if (name === "nash") expect(report.properties).toEqual(["distribution", "determinism", "invalidInput", "scope", "nashConv", "knownEquilibria"])
    })
  }
  for (const name of MetaSolvers.jointMetaSolverNames) {
    it(`JPSRO "${name}" (${MetaSolvers.jointClaims[name].claims})`, async () => {
      const report = await CheckMetaSolver.checkMetaSolver(MetaSolvers.namedJoint(name), { name, ...MetaSolvers.jointClaims[name], highs: Highs.layer })
      expect(report.output).toBe("joint")
      expect(report.games).toEqual(CheckMetaSolver.knownGames.map((g) => g.name))
    })
  }
  it.effect("the Effect face, and a solver needing HiGHS run without it says what to pass", () =>
    Effect.gen(function* () {
      const report = yield* CheckMetaSolver.check(MetaSolvers.uniform, { claims: "uniform" })
      expect(report.properties).toContain("uniform")
      const f = yield* Effect.promise(() => findingsOf(MetaSolvers.named("nash"), { ...MetaSolvers.claims.nash, highs: undefined }))
      expect(f.join("\n")).toContain("pass options.highs")
    }).pipe(Effect.provide(Highs.layer)))
})

describe("a broken meta-solver per property is rejected with a finding naming it", () => {
  const firstAction: MetaSolvers.MetaSolver = (g) => Effect.succeed(g.shape.map((k) => new Float64Array(k).fill(0).map((_, a) => (a === 0 ? 1 : 0))))
  it("distribution: not summing to 1, negative, the wrong length, a joint of the wrong length", async () => {
    expectFinding(await findingsOf((g) => Effect.succeed(g.shape.map((k) => new Float64Array(k).fill(0.6))), {}), "distribution", "sums to 1.2")
    expectFinding(await findingsOf((g) => Effect.succeed(g.shape.map((k) => Float64Array.from({ length: k }, (_, a) => (a === 0 ? 1.5 : -0.5 / (k - 1))))), {}), "distribution", "entry 1 is -0.5")
    expectFinding(await findingsOf((g) => Effect.succeed(g.shape.map(() => Float64Array.of(1))), {}), "distribution", "length 1, expected 2")
    expectFinding(await findingsOf(() => Effect.succeed(Float64Array.of(1)), { output: "joint" }), "distribution", "joint distribution length 1, expected 4")
  })
  it("determinism: a solver that alternates", async () => {
    let calls = 0
    expectFinding(await findingsOf((g) => (calls++ % 2 === 0 ? MetaSolvers.uniform(g) : firstAction(g)), {}), "determinism", "first [0.5, 0.5, 0.5, 0.5], then [1, 0, 1, 0]")
  })
  it("invalidInput: no validation (a result, or a throw) instead of InvalidPayoffTensorError", async () => {
    expectFinding(await findingsOf(firstAction, {}), "invalidInput", "a NaN payoff: returned")
    const throws: MetaSolvers.MetaSolver = (g) => {
      if (g.payoffs.some((u) => u.some((x) => Number.isNaN(x)))) throw new Error("NaN")
      return MetaSolvers.uniform(g)
    }
    expectFinding(await findingsOf(throws, {}), "invalidInput", "a NaN payoff: died with Error: NaN")
  })
  it("scope: a two-player zero-sum solver that answers a general-sum game", async () => {
    expectFinding(await findingsOf(MetaSolvers.uniform, { scope: "two-player-zero-sum" }), "scope", "prisoner's dilemma (outside two-player zero-sum): returned")
  })
  it("uniform: a pure strategy claimed uniform; a uniform joint claimed uniform but not exact", async () => {
    expectFinding(await findingsOf(firstAction, { claims: "uniform" }), "uniform", "matching pennies: not uniform")
    const nearly: MetaSolvers.JointMetaSolver = (g) => Effect.map(MetaSolvers.uniformJoint(g), (d) => d.map((x, i) => (i === 0 ? x + 1e-9 : i === 1 ? x - 1e-9 : x)))
    expectFinding(await findingsOf(nearly, { output: "joint", claims: "uniform" }), "uniform", "not uniform")
  })
  it("nashConv / knownEquilibria: uniform claimed Nash", async () => {
    const f = await findingsOf(MetaSolvers.uniform, { claims: "nash" })
    expectFinding(f, "nashConv", "prisoner's dilemma: NashConv 1.5 > 5.00e-6")
    expectFinding(f, "knownEquilibria", "dominant zero-sum [[2, 3], [0, 1]]: [[0.5, 0.5], [0.5, 0.5]], expected the unique equilibrium [[1, 0], [1, 0]]")
  })
  it("ceGap / cceGap: the uniform joint claimed (coarse) correlated", async () => {
    expectFinding(await findingsOf(MetaSolvers.uniformJoint, { output: "joint", claims: "correlated" }), "ceGap", "prisoner's dilemma: CE gap")
    expectFinding(await findingsOf(MetaSolvers.uniformJoint, { output: "joint", claims: "coarse-correlated" }), "cceGap", "chicken: CCE gap")
  })
  it("knownEquilibria for a joint solver: a CCE whose marginals are not the unique equilibrium is impossible, so a solver that skips the gap check is caught by its marginals", async () => {
    const f = await findingsOf(MetaSolvers.uniformJoint, { output: "joint", claims: "coarse-correlated", skip: ["cceGap"] })
    expectFinding(f, "knownEquilibria", "prisoner's dilemma: marginals")
  })
  it("the suite's games are valid tensors with the stated equilibria", () => {
    for (const g of CheckMetaSolver.knownGames) {
      expect(PayoffTensor.check(g.tensor.shape, g.tensor.payoffs)).toBeUndefined()
      if (g.equilibrium !== undefined) expect(g.equilibrium.length).toBe(g.tensor.shape.length)
    }
  })
})
