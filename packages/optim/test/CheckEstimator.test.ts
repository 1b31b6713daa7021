import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Advantages, CheckEstimator } from "../src/index.js"

type Estimator = Advantages.Estimator

/** The findings `checkEstimator` throws for `estimator` (fails the test when it passes). */
const findingsOf = (estimator: Estimator, options: CheckEstimator.CheckEstimatorOptions = {}): ReadonlyArray<string> => {
  try {
    CheckEstimator.checkEstimator(estimator, { name: "broken", ...options })
  } catch (e) {
    expect(e).toBeInstanceOf(CheckEstimator.EstimatorCheckError)
    const err = e as CheckEstimator.EstimatorCheckError
    expect(err.estimator).toBe("broken")
    expect(err.message).toContain("broken failed the advantage-estimator check")
    return err.findings
  }
  throw new Error("checkEstimator accepted a broken estimator")
}
const expectFinding = (findings: ReadonlyArray<string>, property: CheckEstimator.Property, text?: string) => {
  const hit = findings.filter((f) => f.startsWith(`${property}: `))
  expect(hit, findings.join("\n")).not.toEqual([])
  if (text !== undefined) expect(hit.join("\n")).toContain(text)
}

/** Per-trajectory value `f(R_i, returns of the group)` on every step, after the package's validation. */
const outcome = (f: (R: number, group: Array<number>) => number): Estimator => (batch, o) => {
  Advantages.validate("broken", batch)
  Advantages.validateOptions("broken", o)
  return batch.map((g) => {
    const R = g.map((t) => Advantages.episodeReturn(t.rewards))
    return g.map((t, i) => new Float64Array(t.rewards.length).fill(f(R[i]!, R)))
  })
}
const mean = (xs: Array<number>) => xs.reduce((s, x) => s + x, 0) / xs.length

describe("checkEstimator on every registered built-in", () => {
  // the registry's built-ins (vitest runs this project's files in one module graph, so names() may also hold
  // estimators other test files registered)
  const builtins = Advantages.builtinNames
  it("the registry's built-ins are the six documented ones, all registered (a new one joins the loop below)", () => {
    expect(builtins).toEqual(expect.arrayContaining(["gae", "grpo", "dr-grpo", "rloo", "reinforce++", "gigpo"]))
    expect(Advantages.names()).toEqual(expect.arrayContaining([...builtins]))
  })
  for (const name of builtins) {
    it(`${name} passes with its registered family (${Advantages.traits(name).family})`, () => {
      const report = CheckEstimator.checkRegistered(name)
      expect(report.estimator).toBe(name)
      expect(report.family).toBe(Advantages.traits(name).family)
      expect(report.properties).toEqual(expect.arrayContaining([...CheckEstimator.generalProperties]))
      expect(report.properties).toEqual(expect.arrayContaining(CheckEstimator.familyProperties(report.family)))
      expect(report.calls).toBeGreaterThan(15)
    })
  }
  it("the families assert what each definition guarantees", () => {
    expect(CheckEstimator.checkRegistered("grpo").properties).toEqual(
      expect.arrayContaining(["groupShiftInvariance", "groupScaleInvariance", "groupZeroSum", "batchIndependence"])
    )
    expect(CheckEstimator.checkRegistered("rloo").properties).toEqual(expect.arrayContaining(["groupZeroSum", "groupScaleEquivariance"]))
    expect(CheckEstimator.checkRegistered("reinforce++").properties).not.toContain("batchIndependence")
    expect(CheckEstimator.checkRegistered("gae").properties).toEqual(expect.arrayContaining(["discountedReturn", "tdError"]))
    // GiGPO with F_norm = 1 scales with the rewards instead
    expect(CheckEstimator.checkRegistered("gigpo", { estimatorOptions: { normalize: "none" } }).properties).toContain("groupScaleEquivariance")
  })
  it("a registered contributed estimator is checked with its declared traits; the Effect face succeeds", async () => {
    const unregister = [
      Advantages.register("check-test-loo", outcome((R, g) => g.length === 1 ? 0 : R - (g.reduce((s, x) => s + x, 0) - R) / (g.length - 1)), { family: "group-centered" }),
      // registered without traits: the general contract only
      Advantages.register("check-test-plain", Advantages.drGrpo)
    ]
    try {
      expect(CheckEstimator.checkRegistered("check-test-loo").family).toBe("group-centered")
      expect(CheckEstimator.checkRegistered("check-test-plain").properties).toEqual([...CheckEstimator.generalProperties])
    } finally {
      for (const undo of unregister) undo()
    }
    expect(Advantages.names()).not.toContain("check-test-loo")
    expect(() => Advantages.traits("check-test-plain")).toThrow(Advantages.UnknownEstimatorError)
    const report = await Effect.runPromise(CheckEstimator.check(Advantages.get("grpo"), { name: "grpo", family: "group-normalized" }))
    expect(report.properties).toContain("groupScaleInvariance")
  })
  it("a built-in declared in the wrong family fails: REINFORCE++ normalizes over the whole batch", () => {
    const findings = findingsOf(Advantages.reinforcePlusPlus, { family: "group-normalized" })
    expectFinding(findings, "batchIndependence", "alone differs")
    expectFinding(findings, "groupZeroSum")
  })
})

describe("a broken estimator per property is rejected with a finding naming it", () => {
  const grpoLike = outcome((R, g) => {
    const m = mean(g)
    const s = Math.sqrt(g.reduce((a, x) => a + (x - m) ** 2, 0) / Math.max(1, g.length - 1))
    return g.length === 1 ? 0 : (R - m) / s // no ε: 0/0 on all-equal returns
  })

  it("shape: a missing trajectory, a Float32Array, a wrong length", () => {
    expectFinding(findingsOf((b, o) => Advantages.grpo(b, o).map((g) => g.slice(1))), "shape", "trajectories for")
    expectFinding(findingsOf((b, o) => Advantages.grpo(b, o).map((g) => g.map((a) => Float32Array.from(a) as unknown as Float64Array))), "shape", "not a Float64Array")
    expectFinding(findingsOf((b, o) => Advantages.grpo(b, o).map((g) => g.map((a) => a.subarray(1)))), "shape", "advantages for")
  })
  it("finite: dividing by a zero std gives NaN on all-equal returns", () => {
    expectFinding(findingsOf(grpoLike), "finite", "= NaN")
  })
  it("invalidInput: no validation returns NaN; a plain Error is not the typed error", () => {
    const unchecked: Estimator = (batch) =>
      batch.map((g) => g.map((t) => new Float64Array(t.rewards.length).fill(Advantages.episodeReturn(t.rewards) - mean(g.map((u) => Advantages.episodeReturn(u.rewards))))))
    expectFinding(findingsOf(unchecked), "invalidInput", "NaN reward returned")
    const plainError: Estimator = (b, o) => {
      if (b.some((g) => g.some((t) => Array.from(t.rewards).some((r) => !Number.isFinite(r))))) throw new Error("bad reward")
      return Advantages.grpo(b, o)
    }
    expectFinding(findingsOf(plainError), "invalidInput", "NaN reward threw Error: bad reward instead of AdvantageInputError")
    // a GAE that does not require its values
    const noValues: Estimator = (b, o) => Advantages.gae(b.map((g) => g.map((t) => ({ ...t, values: t.values ?? Array.from(t.rewards, () => 0) }))), o)
    expectFinding(findingsOf(noValues, { family: "critic", needs: { values: true } }), "invalidInput", "missing values returned")
  })
  it("determinism: output that depends on a call counter", () => {
    let calls = 0
    expectFinding(findingsOf((b, o) => Advantages.grpo(b, o).map((g) => g.map((a) => a.map((x) => x + ++calls * 1e-3)))), "determinism", "twice gave")
  })
  it("purity: an estimator that writes into its input", () => {
    const writes: Estimator = (b, o) => {
      const r = Advantages.drGrpo(b, o)
      for (const g of b) for (const t of g) (t.rewards as Array<number>)[0] = 0
      return r
    }
    expectFinding(findingsOf(writes), "purity", "was modified")
  })
  it("batchIndependence: a baseline over the whole batch", () => {
    const batchMean: Estimator = (b) => {
      Advantages.validate("broken", b)
      const all = b.flatMap((g) => g.map((t) => Advantages.episodeReturn(t.rewards)))
      return b.map((g) => g.map((t) => new Float64Array(t.rewards.length).fill(Advantages.episodeReturn(t.rewards) - mean(all))))
    }
    expectFinding(findingsOf(batchMean, { properties: ["batchIndependence"] }), "batchIndependence", "alone differs")
  })
  it("trajectoryIndependence: GAE plus the group's size", () => {
    const leaky: Estimator = (b, o) => Advantages.gae(b, o).map((g) => g.map((a) => a.map((x) => x + g.length)))
    expectFinding(findingsOf(leaky, { properties: ["trajectoryIndependence"], needs: { values: true } }), "trajectoryIndependence", "alone differs")
  })
  it("perTrajectoryConstant: GiGPO's step level varies along a trajectory", () => {
    expectFinding(findingsOf(Advantages.gigpo, { properties: ["perTrajectoryConstant"] }), "perTrajectoryConstant", "varies across steps")
  })
  it("singletonZero: verl's raw-score pass-through for a one-member group", () => {
    expectFinding(findingsOf(outcome((R, g) => g.length === 1 ? R : R - mean(g)), { family: "group-centered" }), "singletonZero", "one-member group 1 got")
  })
  it("groupShiftInvariance: the raw return as the advantage", () => {
    const f = findingsOf(outcome((R) => R), { properties: ["groupShiftInvariance"] })
    expectFinding(f, "groupShiftInvariance", "adding 3.5 to every reward of group 0 changed")
  })
  it("groupZeroSum: a min baseline", () => {
    expectFinding(findingsOf(outcome((R, g) => g.length === 1 ? 0 : R - Math.min(...g)), { properties: ["groupZeroSum"] }), "groupZeroSum", "sum to")
  })
  it("groupScaleInvariance / groupScaleEquivariance: Dr. GRPO is not scale-invariant, GRPO not equivariant", () => {
    expectFinding(findingsOf(Advantages.drGrpo, { properties: ["groupScaleInvariance"] }), "groupScaleInvariance", "by 2 changed")
    expectFinding(findingsOf(Advantages.grpo, { properties: ["groupScaleEquivariance"] }), "groupScaleEquivariance", "did not scale")
  })
  it("batchScaleInvariance / batchZeroMean: Dr. GRPO and GAE claimed batch-normalized", () => {
    expectFinding(findingsOf(Advantages.drGrpo, { family: "batch-normalized" }), "batchScaleInvariance", "of the batch by 2 changed")
    expectFinding(findingsOf(Advantages.gae, { properties: ["batchZeroMean"] }), "batchZeroMean", "mean over the batch")
  })
  it("discountedReturn / tdError: a GAE that ignores γ or λ", () => {
    const undiscounted: Estimator = (b, o) => Advantages.gae(b, { ...o, gamma: 1 })
    expectFinding(findingsOf(undiscounted, { family: "critic" }), "discountedReturn", "not Σ γ^k r_{t+k}")
    const lambdaOne: Estimator = (b, o) => Advantages.gae(b, { ...o, lambda: 1 })
    const f = findingsOf(lambdaOne, { family: "critic" })
    expectFinding(f, "tdError", "with λ = 0")
    expect(f.some((x) => x.startsWith("discountedReturn"))).toBe(false)
  })
  it("a throw on a valid batch is a finding, and skip drops a property", () => {
    expectFinding(findingsOf(() => { throw new Error("boom") }), "shape", "threw on a valid batch: Error: boom")
    expect(CheckEstimator.checkEstimator(grpoLike, { skip: ["finite"] }).properties).not.toContain("finite")
  })
})
