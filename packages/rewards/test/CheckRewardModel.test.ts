import { Rng } from "@autodidact/core"
import { Backend } from "@autodidact/kernels/tfjs"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { createRequire } from "node:module"
import { type ScriptedServer, startScriptedServer } from "@autodidact/llm/testing"
import { join } from "node:path"
import { CheckRewardModel, InputMismatchError, LlmJudge, RewardModel } from "../src/index.js"
import { OnnxRewardModel, TextTokenizer } from "../src/onnx.js"
import { Mlp, ProcessRewardModel } from "../src/train.js"
import { hasSharedOnnx, ONNX_DIR, SKIP_MESSAGE, wordLevelTokenizer, writeTokenizer } from "./fixtures.js"

type Shape = RewardModel.RewardModelShape

const hasOrt = (() => {
  try {
    createRequire(import.meta.url).resolve("onnxruntime-node")
    return true
  } catch {
    return false
  }
})()
if (!hasSharedOnnx || !hasOrt) console.warn(hasOrt ? SKIP_MESSAGE : "onnxruntime-node (optional peer) not installed: skipping the ONNX reward-model checks")

/** The findings `checkRewardModel` rejects `model` with (fails the test when it passes). */
const findingsOf = async (model: Shape, options: CheckRewardModel.CheckRewardModelOptions = {}): Promise<ReadonlyArray<string>> => {
  const err = await CheckRewardModel.checkRewardModel(model, options).then(
    () => undefined,
    (e: unknown) => e
  )
  expect(err).toBeInstanceOf(CheckRewardModel.RewardModelCheckError)
  const e = err as CheckRewardModel.RewardModelCheckError
  expect(e.model).toBe(model.name)
  expect(e.message).toContain(`${model.name} failed the reward-model check`)
  return e.findings
}
const expectFinding = (findings: ReadonlyArray<string>, property: CheckRewardModel.Property, text: string) => {
  const hit = findings.filter((f) => f.startsWith(`${property}: `))
  expect(hit, findings.join("\n")).not.toEqual([])
  expect(hit.join("\n")).toContain(text)
}

const exact = RewardModel.rules("exact", {
  outcome: (c) => (c.response !== undefined && Number(c.response) % 2 === 0 ? 1 : 0),
  step: (s) => (s.action.startsWith("answer") ? 1 : 0)
})
const length = RewardModel.rules("length", { outcome: (c) => (c.response ?? "").length / 10, step: (s) => s.state.length / 100 })
const DIM = 4
const linear = RewardModel.fromFeatures("linear", DIM, (rows, n) =>
  Effect.sync(() => Float64Array.from({ length: n }, (_, i) => rows[i * DIM]! - 0.5 * rows[i * DIM + 1]! + 0.25 * rows[i * DIM + 3]!)))

describe("checkRewardModel on every built-in constructor of the RewardModel contract", () => {
  it("rules, outcome and steps, in [0, 1]", async () => {
    const report = await CheckRewardModel.checkRewardModel(exact, { range: [0, 1] })
    expect(report.model).toBe("exact")
    expect(report.properties).toEqual(["outcomeScores", "stepScores", "batchConsistency", "determinism", "emptyBatch"])
    expect(report.calls).toBeGreaterThan(12)
  })
  it("rules with the outcome face only (scoreSteps must fail with InputMismatchError)", async () => {
    const report = await CheckRewardModel.checkRewardModel(RewardModel.rules("outcome-only", { outcome: () => 1 }), { steps: false })
    expect(report.properties).toContain("unsupported")
    expect(report.properties).not.toContain("stepScores")
  })
  it("weighted and gated ensembles", async () => {
    await CheckRewardModel.checkRewardModel(RewardModel.ensemble("weighted", [exact, length], { _tag: "weighted", weights: [0.7, 0.3] }))
    await CheckRewardModel.checkRewardModel(RewardModel.ensemble("gated", [exact, length], { _tag: "gated", gate: 0, threshold: 1, weights: [0, 1] }))
  })
  it("fromFeatures (a linear feature model) with the wrong-width and NaN feature checks", async () => {
    const report = await CheckRewardModel.checkRewardModel(linear, { features: { dim: DIM } })
    expect(report.properties).toContain("invalidInput")
  })
  it("fromTexts", async () => {
    await CheckRewardModel.checkRewardModel(RewardModel.fromTexts("text-length", (texts) => Effect.succeed(texts.map((t) => t.length))))
  })
  it("make (raw scorers) and createEnsemble (the plain ensemble)", async () => {
    await CheckRewardModel.checkRewardModel(RewardModel.make("raw", {
      outcome: (b) => Effect.succeed(b.map((c) => (c.prompt ?? "").length)),
      steps: (flat) => Effect.succeed(flat.map((s) => s.action.length))
    }))
    await CheckRewardModel.checkRewardModel(RewardModel.createEnsemble("plain-ensemble", [exact, RewardModel.toScorer(length)], { _tag: "weighted", weights: [1, 1] }))
  })
  it("every constructor of the RewardModel module is covered here (add a new one above)", () => {
    const covered = ["make", "rules", "fromFeatures", "fromTexts", "ensemble", "toScorer", "createRules", "createEnsemble"]
    const notConstructors = ["RewardModel", "layer"]
    const exported = Object.entries(RewardModel).filter(([, v]) => typeof v === "function").map(([k]) => k)
    expect(exported.filter((k) => !covered.includes(k) && !notConstructors.includes(k))).toEqual([])
  })
  it("the plain face: a Scorer from createRules", async () => {
    const report = await CheckRewardModel.checkRewardModel(RewardModel.createRules("plain", { outcome: () => 0.5, step: () => 0.25 }), { range: [0, 1] })
    expect(report.model).toBe("plain")
  })
  it.effect("ProcessRewardModel (a TF.js MLP PRM): steps in (0, 1), outcome features checked", () =>
    Effect.gen(function* () {
      const { tf } = yield* Backend.Backend
      const dim = 16
      const mlp = Mlp.make(tf, { inputSize: dim, hidden: [8], activation: "relu" }, Rng.make(3))
      const report = yield* CheckRewardModel.check(ProcessRewardModel.model(mlp, dim), { features: { dim, steps: false }, range: [0, 1] })
      expect(report.properties).toContain("invalidInput")
      Mlp.dispose(mlp)
    }).pipe(Effect.provide(Backend.layerWith({ force: "wasm" }))))
  describe.skipIf(!hasSharedOnnx || !hasOrt)("ONNX", () => {
  it.effect("OnnxRewardModel.feature and .text (the shared PyTorch-exported models)", () =>
    Effect.gen(function* () {
      const featureModel = yield* OnnxRewardModel.feature(join(ONNX_DIR, "feature_rm.onnx"))
      yield* CheckRewardModel.check(featureModel, { features: { dim: 16 } })
      const tokenizer = yield* TextTokenizer.load(writeTokenizer(wordLevelTokenizer(64, "tok1")))
      const textModel = yield* OnnxRewardModel.text(join(ONNX_DIR, "text_rm.onnx"), { tokenizer })
      yield* CheckRewardModel.check(textModel)
    }).pipe(Effect.scoped))
  })

  describe("LlmJudge over a scripted chat-completions server", () => {
    let server: ScriptedServer
    let baseUrl = ""
    beforeAll(async () => {
      // the answer is a function of the request: the (last) user message's length mod 11, on the default [0, 10] scale
      server = await startScriptedServer({ respond: (r) => ({ content: String(r.lastUser.length % 11), usage: null }) })
      baseUrl = server.baseUrl
    })
    afterAll(async () => {
      await server.close()
    })
    it("scores in [0, 1], batch = one by one", async () => {
      const judge = await Effect.runPromise(LlmJudge.make({ baseUrl, model: "judge-1" }).pipe(Effect.provide(FetchHttpClient.layer)))
      const report = await CheckRewardModel.checkRewardModel(judge, { range: [0, 1] })
      expect(report.model).toBe("llm-judge:judge-1")
    })
  })
})

describe("a broken model per property is rejected with a finding naming it", () => {
  const raw = (name: string, outcome: Shape["scoreOutcome"], steps?: Shape["scoreSteps"]): Shape => ({
    name,
    scoreOutcome: outcome,
    scoreSteps: steps ?? ((batch) => exact.scoreSteps(batch))
  })
  it("outcomeScores: out of the declared range, NaN, a wrong count", async () => {
    expectFinding(await findingsOf(RewardModel.rules("two", { outcome: () => 2, step: () => 0 }), { range: [0, 1] }), "outcomeScores", "score 0 is 2, not finite and in [0, 1]")
    expectFinding(await findingsOf(raw("nan", (b) => b.length === 0 ? exact.scoreOutcome(b) : Effect.succeed(b.map(() => NaN)))), "outcomeScores", "is NaN")
    expectFinding(await findingsOf(raw("short", (b) => Effect.succeed(b.slice(1).map(() => 0)))), "outcomeScores", "for 5 candidates")
  })
  it("stepScores: one score per candidate instead of per step", async () => {
    const perCandidate = raw("per-candidate", (b) => exact.scoreOutcome(b), (b) => b.length === 0 ? exact.scoreSteps(b) : Effect.succeed(b.map(() => [0])))
    expectFinding(await findingsOf(perCandidate), "stepScores", "for step counts [1,2,3,1,2]")
  })
  it("batchConsistency: a score that depends on the batch (normalized over it)", async () => {
    const normalized = RewardModel.make("batch-normalized", {
      outcome: (b) => Effect.succeed(b.map((c, i) => (c.response ?? "").length + i - b.length / 2)),
      steps: (flat) => Effect.succeed(flat.map(() => 0))
    })
    expectFinding(await findingsOf(normalized), "batchConsistency", "alone but")
  })
  it("determinism: a score from a call counter", async () => {
    let calls = 0
    const drifting = RewardModel.rules("drifting", { outcome: () => ++calls, step: () => 0 })
    expectFinding(await findingsOf(drifting, { skip: ["batchConsistency"] }), "determinism", "scoreOutcome twice: item 0 gave")
  })
  it("emptyBatch: an empty batch answered with [] (or a defect) instead of EmptyBatchError", async () => {
    const lenient = raw("lenient", (b) => b.length === 0 ? Effect.succeed([]) : exact.scoreOutcome(b))
    expectFinding(await findingsOf(lenient), "emptyBatch", "scoreOutcome([]) returned [] instead of failing with EmptyBatchError")
    const thrower = raw("thrower", (b) => {
      if (b.length === 0) throw new Error("no items")
      return exact.scoreOutcome(b)
    })
    expectFinding(await findingsOf(thrower), "emptyBatch", "died with Error: no items")
    const stepless = raw("stepless", exact.scoreOutcome, (b) => b.some((c) => (c.steps ?? []).length === 0) ? Effect.succeed(b.map(() => [])) : exact.scoreSteps(b))
    expectFinding(await findingsOf(stepless), "emptyBatch", "scoreSteps of a candidate with no steps returned [[],[]]")
    const wrongTag = raw("wrong-tag", (b) =>
      b.length === 0 ? Effect.fail(new InputMismatchError({ model: "wrong-tag", input: "batch", expected: "items", actual: "none" })) : exact.scoreOutcome(b))
    expectFinding(await findingsOf(wrongTag), "emptyBatch", "scoreOutcome([]) failed with InputMismatchError")
  })
  it("unsupported: a missing face that crashes instead of InputMismatchError", async () => {
    const crashes = raw("crashes", exact.scoreOutcome, () => Effect.die(new Error("not implemented")))
    expectFinding(await findingsOf(crashes, { steps: false }), "unsupported", "died with Error: not implemented instead of failing with InputMismatchError")
  })
  it("invalidInput: a feature model that reads features without checking them", async () => {
    const unchecked = RewardModel.make("unchecked", {
      outcome: (b) => Effect.succeed(b.map((c) => Number(c.features?.[0] ?? 0))),
      steps: (flat) => Effect.succeed(flat.map((s) => Number(s.features?.[0] ?? 0)))
    })
    const f = await findingsOf(unchecked, { features: { dim: DIM } })
    expectFinding(f, "invalidInput", `scoreOutcome with ${DIM + 1} features returned`)
    expectFinding(f, "invalidInput", "scoreSteps with a NaN step feature returned")
  })
  it("the Effect face fails with the same error", async () => {
    const exit = await Effect.runPromiseExit(CheckRewardModel.check(RewardModel.rules("two", { outcome: () => 2, step: () => 0 }), { range: [0, 1] }))
    expect(exit._tag).toBe("Failure")
  })
})
