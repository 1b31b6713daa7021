import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { join } from "node:path"
import { readFileSync } from "node:fs"
import { RewardModel } from "../src/index.js"
import { OnnxRewardModel, TextTokenizer } from "../src/onnx.js"
import { hasSharedOnnx, ONNX_DIR, reference, SKIP_MESSAGE, tempFile, wordLevelTokenizer, writeTokenizer } from "./fixtures.js"

if (!hasSharedOnnx) console.warn(SKIP_MESSAGE)
const FEATURE = join(ONNX_DIR, "feature_rm.onnx")
const TEXT = join(ONNX_DIR, "text_rm.onnx")

describe.skipIf(!hasSharedOnnx)("PyTorch-exported models through the RewardModel service", () => {
  it.effect("feature_rm.onnx matches reference_outputs.json within 1e-6", () =>
    Effect.gen(function* () {
      const ref = reference()["feature_rm.onnx"]!
      const x = ref.inputs["features"]!
      const want = ref.outputs["reward"]!.data
      const rows = Array.from({ length: x.dims[0]! }, (_, i) => x.data.slice(i * 16, i * 16 + 16))
      const rm = yield* RewardModel.RewardModel
      const got = yield* rm.scoreOutcome(rows.map((features) => ({ features })))
      expect(got).toHaveLength(want.length)
      for (let i = 0; i < want.length; i++) expect(Math.abs(got[i]! - want[i]!)).toBeLessThan(1e-6)
    }).pipe(Effect.provide(OnnxRewardModel.layerFeature(FEATURE))))

  it.effect("text_rm.onnx matches reference_outputs.json within 1e-6 from ids and from text", () =>
    Effect.gen(function* () {
      const ref = reference()["text_rm.onnx"]!
      const ids = ref.inputs["input_ids"]!, mask = ref.inputs["attention_mask"]!
      const want = ref.outputs["logits"]!.data
      const [batch, length] = [ids.dims[0]!, ids.dims[1]!]
      const tok = yield* TextTokenizer.load(writeTokenizer(wordLevelTokenizer(64)))
      const m = yield* OnnxRewardModel.openText(TEXT, { tokenizer: tok })
      expect(m.vocabSize).toBe(64)
      const fromIds = yield* m.scoreIds({
        batch, length,
        inputIds: BigInt64Array.from(ids.data.map(BigInt)),
        attentionMask: BigInt64Array.from(mask.data.map(BigInt))
      })
      // the same inputs as text: the unmasked tokens of each row
      const texts = Array.from({ length: batch }, (_, i) =>
        ids.data.slice(i * length, (i + 1) * length).filter((_, k) => mask.data[i * length + k] === 1).map((id) => `tok${id}`).join(" "))
      const rm = RewardModel.fromTexts("text_rm", m.scoreTexts, { outcome: (c) => c.response ?? "" })
      const fromText = yield* rm.scoreOutcome(texts.map((response) => ({ response })))
      for (let i = 0; i < batch; i++) {
        expect(Math.abs(fromIds[i]! - want[i]!)).toBeLessThan(1e-6)
        expect(Math.abs(fromText[i]! - want[i]!)).toBeLessThan(1e-6)
      }
    }).pipe(Effect.scoped))

  it.effect("dynamic batch sizes: one row scores the same alone and in a batch of 256", () =>
    Effect.gen(function* () {
      const m = yield* OnnxRewardModel.openFeature(FEATURE)
      const rows = new Float32Array(256 * 16).map((_, i) => Math.sin(i))
      const all = yield* m.scoreRows(rows, 256)
      const one = yield* m.scoreRows(rows.slice(16 * 7, 16 * 8), 1)
      expect(all).toHaveLength(256)
      expect(Math.abs(one[0]! - all[7]!)).toBeLessThan(1e-6)
    }).pipe(Effect.scoped))

  it.effect("the session is released when the scope closes", () =>
    Effect.gen(function* () {
      const m = yield* Effect.scoped(OnnxRewardModel.openFeature(FEATURE))
      expect(m.session.released).toBe(true)
      const e = yield* Effect.flip(m.scoreRows(new Float32Array(16), 1))
      expect(e._tag).toBe("InferenceError")
      expect(e.message).toContain("released")
    }))
})

describe.skipIf(!hasSharedOnnx)("bad input gives typed errors", () => {
  it.effect("missing file", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(Effect.scoped(OnnxRewardModel.openFeature("/nonexistent/model.onnx")))
      expect(e._tag).toBe("ModelLoadError")
      expect(e.reason).toContain("file not found")
    }))

  it.effect("corrupted file (truncated bytes)", () =>
    Effect.gen(function* () {
      const bytes = readFileSync(FEATURE).subarray(0, 700)
      const e = yield* Effect.flip(Effect.scoped(OnnxRewardModel.openFeature(tempFile("broken.onnx", bytes))))
      expect(e._tag).toBe("ModelLoadError")
      expect(e.reason).toContain("not a loadable ONNX model")
    }))

  it.effect("a feature model opened as a text model is rejected at load", () =>
    Effect.gen(function* () {
      const tok = yield* TextTokenizer.fromJson(wordLevelTokenizer(64))
      const e = yield* Effect.flip(Effect.scoped(OnnxRewardModel.openText(FEATURE, { tokenizer: tok })))
      expect(e._tag).toBe("ModelLoadError")
      expect(e.message).toContain("input_ids")
    }))

  it.effect("feature vectors of the wrong length and empty batches", () =>
    Effect.gen(function* () {
      const rm = yield* RewardModel.RewardModel
      const short = yield* Effect.flip(rm.scoreOutcome([{ features: new Float32Array(16) }, { features: new Float32Array(3) }]))
      expect(short).toMatchObject({ _tag: "InputMismatchError", input: "item 1 features", actual: "length 3" })
      const empty = yield* Effect.flip(rm.scoreOutcome([]))
      expect(empty._tag).toBe("EmptyBatchError")
      const noSteps = yield* Effect.flip(rm.scoreSteps([{ steps: [] }]))
      expect(noSteps._tag).toBe("EmptyBatchError")
    }).pipe(Effect.provide(OnnxRewardModel.layerFeature(FEATURE))))

  it.effect("NaN or Infinity input gives NonFiniteInputError naming the item's row and column", () =>
    Effect.gen(function* () {
      const rm = yield* RewardModel.RewardModel
      const x = new Float32Array(16)
      x[3] = Number.NaN
      const e = yield* Effect.flip(rm.scoreOutcome([{ features: new Float32Array(16) }, { features: x }]))
      expect(e).toMatchObject({ _tag: "NonFiniteInputError", input: "item features", row: 1, column: 3, value: "NaN" })
      const y = new Float32Array(16)
      y[15] = Number.NEGATIVE_INFINITY
      const s = yield* Effect.flip(rm.scoreSteps([{ steps: [{ state: "a", action: "b", features: new Float32Array(16) }, { state: "c", action: "d", features: y }] }]))
      expect(s).toMatchObject({ _tag: "NonFiniteInputError", input: "step features", row: 1, column: 15, value: "-Infinity" })
    }).pipe(Effect.provide(OnnxRewardModel.layerFeature(FEATURE))))

  it.effect("raw scoreRows: a matrix of another size is InputMismatchError with both shapes, never ORT's raw tensor error", () =>
    Effect.gen(function* () {
      const m = yield* OnnxRewardModel.openFeature(FEATURE)
      // 15 features for one row, 32 for one row, 8 per row for 3 rows: the declared input is features [batch, 16]
      const cases = [[15, 1, "[1, 15] (15 values)"], [32, 1, "[1, 32] (32 values)"], [24, 3, "[3, 8] (24 values)"]] as const
      for (const [length, n, actual] of cases) {
        const exit = yield* Effect.exit(m.scoreRows(new Float32Array(length), n))
        expect(Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail").toBe(true) // a typed failure, not a defect
        const e = yield* Effect.flip(m.scoreRows(new Float32Array(length), n))
        expect(e).toMatchObject({ _tag: "InputMismatchError", input: "features", expected: `[${n}, 16] (${n * 16} values; declared [batch, 16])`, actual })
        expect(e.message).not.toContain("Tensor's size")
      }
      expect(yield* Effect.flip(m.scoreRows(new Float32Array(16), 1.5))).toMatchObject({ _tag: "InputMismatchError", actual: "[1.5, 16]" })
      expect(yield* Effect.flip(m.scoreRows(new Float32Array(16), -1))).toMatchObject({ _tag: "InputMismatchError", actual: "[-1, 16]" })
      // the right size still scores
      expect(yield* m.scoreRows(new Float32Array(32), 2)).toHaveLength(2)
    }).pipe(Effect.scoped))

  it.effect("raw scoreRows: NaN and ±Infinity are NonFiniteInputError naming row and column", () =>
    Effect.gen(function* () {
      const m = yield* OnnxRewardModel.openFeature(FEATURE)
      for (const [at, v] of [[2 * 16 + 5, Number.NaN], [16 + 0, Number.POSITIVE_INFINITY], [47, Number.NEGATIVE_INFINITY]] as const) {
        const rows = new Float32Array(3 * 16)
        rows[at] = v
        const e = yield* Effect.flip(m.scoreRows(rows, 3))
        expect(e).toMatchObject({ _tag: "NonFiniteInputError", input: "features", row: Math.floor(at / 16), column: at % 16, value: String(v) })
        expect(e.message).toContain(`row ${Math.floor(at / 16)}, column ${at % 16}`)
      }
    }).pipe(Effect.scoped))

  it.effect("raw scoreIds: ids or mask of another length than [batch, length] is InputMismatchError naming the input", () =>
    Effect.gen(function* () {
      const tok = yield* TextTokenizer.fromJson(wordLevelTokenizer(64))
      const m = yield* OnnxRewardModel.openText(TEXT, { tokenizer: tok })
      const ids = yield* Effect.flip(m.scoreIds({ batch: 2, length: 4, inputIds: new BigInt64Array(7), attentionMask: new BigInt64Array(8).fill(1n) }))
      expect(ids).toMatchObject({ _tag: "InputMismatchError", input: "input_ids", expected: "[2, 4] (8 values; declared [batch, sequence])", actual: "7 values" })
      expect(ids.message).not.toContain("Tensor's size")
      const mask = yield* Effect.flip(m.scoreIds({ batch: 2, length: 4, inputIds: new BigInt64Array(8), attentionMask: new BigInt64Array(6).fill(1n) }))
      expect(mask).toMatchObject({ _tag: "InputMismatchError", input: "attention_mask", expected: "[2, 4] (8 values; declared [batch, sequence])", actual: "[2, 3] (6 values)" })
      expect(yield* m.scoreIds({ batch: 2, length: 4, inputIds: new BigInt64Array(8), attentionMask: new BigInt64Array(8).fill(1n) })).toHaveLength(2)
    }).pipe(Effect.scoped))

  it.effect("tokenizer vocabulary larger or smaller than the model's is TokenizerMismatchError, and the session is released", () =>
    Effect.gen(function* () {
      for (const size of [80, 32]) {
        const tok = yield* TextTokenizer.fromJson(wordLevelTokenizer(size))
        const exit = yield* Effect.exit(Effect.scoped(OnnxRewardModel.openText(TEXT, { tokenizer: tok })))
        expect(Exit.isFailure(exit)).toBe(true)
        const e = yield* Effect.flip(Effect.scoped(OnnxRewardModel.openText(TEXT, { tokenizer: tok })))
        expect(e).toMatchObject({ _tag: "TokenizerMismatchError", tokenizerVocabSize: size, modelVocabSize: 64 })
      }
    }))

  it.effect("a word the tokenizer cannot map (no unk_token) is TokenizerMismatchError", () =>
    Effect.gen(function* () {
      const tok = yield* TextTokenizer.fromJson(wordLevelTokenizer(64))
      const m = yield* OnnxRewardModel.openText(TEXT, { tokenizer: tok })
      const e = yield* Effect.flip(m.scoreTexts(["tok3 banana"]))
      expect(e._tag).toBe("TokenizerMismatchError")
      expect(e.message).toContain("banana")
      const withUnk = yield* TextTokenizer.fromJson(wordLevelTokenizer(64, "tok1"))
      const enc = yield* TextTokenizer.encodeBatch(withUnk, ["tok3 banana", "tok5"])
      expect(Array.from(enc.inputIds)).toEqual([3n, 1n, 5n, 0n])
      expect(Array.from(enc.attentionMask)).toEqual([1n, 1n, 1n, 0n])
    }).pipe(Effect.scoped))
})

describe("rules and ensembles", () => {
  it.effect("a rule verifier scores outcomes and steps", () =>
    Effect.gen(function* () {
      const rm = RewardModel.rules("exact", { outcome: (c) => (c.response === "42" ? 1 : 0), step: (s) => (s.action.startsWith("take") ? 0.5 : 0) })
      expect(yield* rm.scoreOutcome([{ response: "42" }, { response: "41" }])).toEqual([1, 0])
      expect(yield* rm.scoreSteps([{ steps: [{ state: "a", action: "take x" }, { state: "b", action: "look" }] }])).toEqual([[0.5, 0]])
      const nan = RewardModel.rules("bad", { outcome: () => Number.POSITIVE_INFINITY })
      expect(yield* Effect.flip(nan.scoreOutcome([{}]))).toMatchObject({ _tag: "NonFiniteScoreError", value: "Infinity" })
    }))

  it.effect("weighted and gated ensembles (R2E-Gym hybrid)", () =>
    Effect.gen(function* () {
      const tests = RewardModel.rules("tests", { outcome: (c) => (c.response?.includes("ok") ? 1 : 0) })
      const judge = RewardModel.rules("judge", { outcome: (c) => (c.response?.length ?? 0) / 10 })
      const batch = [{ response: "ok" }, { response: "long answer" }, { response: "ok answer" }]
      const weighted = RewardModel.ensemble("w", [tests, judge], { _tag: "weighted", weights: [0.5, 2] })
      const w = yield* weighted.scoreOutcome(batch)
      expect(w[0]).toBeCloseTo(0.5 + 0.4, 12)
      expect(w[1]).toBeCloseTo(2.2, 12)
      const gated = RewardModel.ensemble("g", [tests, judge], { _tag: "gated", gate: 0, threshold: 1, weights: [0, 1], rejected: -5 })
      expect(yield* gated.scoreOutcome(batch)).toEqual([0.2, -5, 0.9])
    }))
})
