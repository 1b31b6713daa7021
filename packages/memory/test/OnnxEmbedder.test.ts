import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import onnxProto from "onnx-proto"
import * as Embedder from "../src/embedders/Embedder.js"
import * as OnnxEmbedder from "../src/embedders/OnnxEmbedder.js"
import { OrtSession } from "@autodidact/kernels/ort"
import * as Records from "../src/store/Records.js"
import { ExperienceStore, layerMemory } from "../src/store/Store.js"

const { onnx } = onnxProto

// ---- fixtures: a WordLevel tokenizer and a Gather-based "sentence encoder" --------------------------------------

const WORDS = ["[PAD]", "[UNK]", "open", "the", "door", "close", "window", "kettle", "kitchen", "dog", "barks", "[SEP]"]
const VOCAB: Record<string, number> = Object.fromEntries(WORDS.map((w, i) => [w, i]))
const V = WORDS.length
const D = 6

/** Ids computed here, independently of the tokenizer library (lower-case, split on non-word characters). */
const idsOf = (text: string): Array<number> =>
  text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0).map((w) => VOCAB[w] ?? VOCAB["[UNK]"])

const tokenizerJson = (withSep = false) => ({
  version: "1.0",
  truncation: null,
  padding: null,
  added_tokens: [
    { id: 0, content: "[PAD]", single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
    { id: 1, content: "[UNK]", single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
    { id: 11, content: "[SEP]", single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }
  ],
  normalizer: { type: "Lowercase" },
  pre_tokenizer: { type: "Whitespace" },
  post_processor: withSep
    ? {
      type: "TemplateProcessing",
      single: [{ Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } }],
      pair: [{ Sequence: { id: "A", type_id: 0 } }, { Sequence: { id: "B", type_id: 1 } }],
      special_tokens: { "[SEP]": { id: "[SEP]", ids: [11], tokens: ["[SEP]"] } }
    }
    : null,
  decoder: null,
  model: { type: "WordLevel", vocab: VOCAB, unk_token: "[UNK]" }
})

const dir = mkdtempSync(join(tmpdir(), "memory-onnx-"))
const writeFile = (name: string, data: Uint8Array | string): string => {
  const path = join(dir, name)
  writeFileSync(path, data)
  return path
}
const TOKENIZER = writeFile("tokenizer.json", JSON.stringify(tokenizerJson()))
const tokDir = mkdtempSync(join(tmpdir(), "memory-onnx-sep-"))
writeFileSync(join(tokDir, "tokenizer.json"), JSON.stringify(tokenizerJson(true)))
writeFileSync(join(tokDir, "tokenizer_config.json"), JSON.stringify({ pad_token: "[PAD]" }))
const TOKENIZER_SEP = join(tokDir, "tokenizer.json")

/** A deterministic table [rows, D] (LCG in [-1, 1)). */
const table = (rows: number, seed: number): Float32Array => {
  const t = new Float32Array(rows * D)
  let s = seed >>> 0
  for (let i = 0; i < t.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    t[i] = s / 2 ** 31 - 1
  }
  return t
}
const EMB = table(V, 7)
const TYPES = table(2, 99)

const f32 = (name: string, dims: ReadonlyArray<number>, data: Float32Array) =>
  onnx.TensorProto.create({
    name,
    dims: [...dims],
    dataType: onnx.TensorProto.DataType.FLOAT,
    rawData: new Uint8Array(Float32Array.from(data).buffer)
  })
const valueInfo = (name: string, elemType: number, dims: ReadonlyArray<number | string>) =>
  onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType,
        shape: onnx.TensorShapeProto.create({
          dim: dims.map((d) =>
            typeof d === "number"
              ? onnx.TensorShapeProto.Dimension.create({ dimValue: d })
              : onnx.TensorShapeProto.Dimension.create({ dimParam: d })
          )
        })
      })
    })
  })
const I64 = onnx.TensorProto.DataType.INT64
const F32 = onnx.TensorProto.DataType.FLOAT

interface ModelSpec {
  readonly emb?: Float32Array
  readonly rows?: number
  readonly inputs?: ReadonlyArray<string>
  readonly idsName?: string
  readonly tokenTypes?: boolean
  /** "tokens" → last_hidden_state [b, s, D]; "reduced" → [b, 1, D] (a wrong shape); "rank4" → [b, s, D, 1]. */
  readonly out?: "tokens" | "reduced" | "rank4"
  readonly outputName?: string
}

/** Gather(table, input_ids) (+ Gather(types, token_type_ids)) → last_hidden_state [batch, seq, D]. */
const buildModel = (spec: ModelSpec = {}): Uint8Array => {
  const ids = spec.idsName ?? "input_ids"
  const rows = spec.rows ?? V
  const inputNames = spec.inputs ?? [ids, "attention_mask", ...(spec.tokenTypes === true ? ["token_type_ids"] : [])]
  const outName = spec.outputName ?? "last_hidden_state"
  const nodes = [onnx.NodeProto.create({ opType: "Gather", name: "emb", input: ["emb.weight", ids], output: ["h0"] })]
  const inits = [f32("emb.weight", [rows, D], spec.emb ?? EMB.subarray(0, rows * D))]
  let h = "h0"
  if (spec.tokenTypes === true) {
    inits.push(f32("types.weight", [2, D], TYPES))
    nodes.push(
      onnx.NodeProto.create({ opType: "Gather", name: "types", input: ["types.weight", "token_type_ids"], output: ["t0"] }),
      onnx.NodeProto.create({ opType: "Add", name: "add", input: [h, "t0"], output: ["h1"] })
    )
    h = "h1"
  }
  let outDims: Array<number | string> = ["batch", "seq", D]
  if (spec.out === "reduced") {
    nodes.push(onnx.NodeProto.create({
      opType: "ReduceMean",
      name: "reduce",
      input: [h],
      output: [outName],
      attribute: [onnx.AttributeProto.create({ name: "axes", type: onnx.AttributeProto.AttributeType.INTS, ints: [1] })]
    }))
    outDims = ["batch", "one", D]
  } else if (spec.out === "rank4") {
    inits.push(onnx.TensorProto.create({ name: "axes", dims: [1], dataType: I64, int64Data: [3] }))
    nodes.push(onnx.NodeProto.create({ opType: "Unsqueeze", name: "unsq", input: [h, "axes"], output: [outName] }))
    outDims = ["batch", "seq", D, 1]
  } else {
    nodes.push(onnx.NodeProto.create({ opType: "Identity", name: "out", input: [h], output: [outName] }))
  }
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: "memory-test",
    opsetImport: [onnx.OperatorSetIdProto.create({ domain: "", version: 17 })],
    graph: onnx.GraphProto.create({
      name: "tiny_sentence_encoder",
      node: nodes,
      initializer: inits,
      input: inputNames.map((n) => valueInfo(n, I64, ["batch", "seq"])),
      output: [valueInfo(outName, F32, outDims)]
    })
  })
  return onnx.ModelProto.encode(model).finish()
}

let counter = 0
const modelFile = (spec: ModelSpec = {}): string => writeFile(`model${counter++}.onnx`, buildModel(spec))
const MODEL = modelFile()

/** The reference: mean of the embedding rows of the tokens (plus a token-type row), L2-normalized, in float64. */
const reference = (ids: ReadonlyArray<number>, opts: { typeRow?: boolean; normalize?: boolean } = {}): Array<number> => {
  const v = new Array<number>(D).fill(0)
  for (const id of ids) for (let d = 0; d < D; d++) v[d] += EMB[id * D + d] + (opts.typeRow === true ? TYPES[d] : 0)
  for (let d = 0; d < D; d++) v[d] /= Math.max(ids.length, 1)
  if (opts.normalize === false) return v
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0))
  return n > 0 ? v.map((x) => x / n) : v
}
const expectClose = (got: Float32Array, want: ReadonlyArray<number>, tol = 1e-6) => {
  expect(got.length).toBe(want.length)
  for (let d = 0; d < want.length; d++) expect(Math.abs(got[d] - want[d])).toBeLessThan(tol)
}

const embed = <E>(layer: Layer.Layer<Embedder.Embedder, E>, texts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const e = yield* Embedder.Embedder
    return { dimension: e.dimension, model: e.model, vectors: yield* e.embed(texts) }
  }).pipe(Effect.provide(layer))

const loadError = <E>(layer: Layer.Layer<Embedder.Embedder, E>) =>
  Effect.flip(embed(layer, ["open the door"]))

const TEXTS = ["Open the door", "the dog barks", "kitchen kettle open open the", "zebra door", "DOG"]

describe("OnnxEmbedder.layerOnnx", () => {
  it("reads the embedding table's rows from the graph", () => {
    expect(OrtSession.embeddingRows(buildModel())).toBe(V)
    expect(OrtSession.embeddingRows(buildModel({ rows: 5 }))).toBe(5)
    expect(OrtSession.embeddingRows(buildModel(), "nope")).toBeUndefined()
  })

  it.effect("mean-pools the token vectors over the mask and L2-normalizes (= an independent computation)", () =>
    Effect.gen(function*() {
      const out = yield* embed(OnnxEmbedder.layerOnnx({ modelPath: MODEL, tokenizerPath: TOKENIZER }), TEXTS)
      expect(out.dimension).toBe(D)
      expect(out.model).toMatch(/^onnx:model\d+\.onnx$/)
      expect(out.vectors).toHaveLength(TEXTS.length)
      TEXTS.forEach((t, i) => {
        expectClose(out.vectors[i], reference(idsOf(t)))
        expect(Math.hypot(...out.vectors[i])).toBeCloseTo(1, 6)
      })
      // Unknown words map to [UNK] (a row like any other).
      expect(idsOf("zebra door")).toEqual([1, 4])
    }))

  it.effect("is batch-independent: padding and batch size do not change a text's vector", () =>
    Effect.gen(function*() {
      const layer = (batchSize: number) => OnnxEmbedder.layerOnnx({ modelPath: MODEL, tokenizerPath: TOKENIZER, batchSize })
      const together = (yield* embed(layer(32), TEXTS)).vectors
      const pairs = (yield* embed(layer(2), TEXTS)).vectors
      for (let i = 0; i < TEXTS.length; i++) {
        const alone = (yield* embed(layer(32), [TEXTS[i]])).vectors[0]
        expect(Array.from(together[i])).toEqual(Array.from(alone))
        expect(Array.from(pairs[i])).toEqual(Array.from(alone))
      }
      expect((yield* embed(layer(32), [])).vectors).toEqual([])
    }))

  it.effect("feeds token_type_ids when the model declares them; cls pooling; normalize: false; maxLength", () =>
    Effect.gen(function*() {
      const typed = modelFile({ tokenTypes: true })
      const a = (yield* embed(OnnxEmbedder.layerOnnx({ modelPath: typed, tokenizerPath: TOKENIZER }), TEXTS)).vectors
      TEXTS.forEach((t, i) => expectClose(a[i], reference(idsOf(t), { typeRow: true })))

      const raw = (yield* embed(
        OnnxEmbedder.layerOnnx({ modelPath: MODEL, tokenizerPath: TOKENIZER, normalize: false }),
        TEXTS
      )).vectors
      TEXTS.forEach((t, i) => expectClose(raw[i], reference(idsOf(t), { normalize: false })))

      const cls = (yield* embed(
        OnnxEmbedder.layerOnnx({ modelPath: MODEL, tokenizerPath: TOKENIZER, pooling: "cls", normalize: false }),
        TEXTS
      )).vectors
      TEXTS.forEach((t, i) => expectClose(cls[i], Array.from(EMB.subarray(idsOf(t)[0] * D, idsOf(t)[0] * D + D))))

      const short = (yield* embed(
        OnnxEmbedder.layerOnnx({ modelPath: MODEL, tokenizerPath: TOKENIZER, maxLength: 2 }),
        ["open the door"]
      )).vectors
      expectClose(short[0], reference([2, 3]))

      // With a [SEP] post-processor, truncation keeps the final special token.
      const sep = (yield* embed(
        OnnxEmbedder.layerOnnx({ modelPath: MODEL, tokenizerPath: TOKENIZER_SEP, maxLength: 3 }),
        ["open the door", "dog"]
      )).vectors
      expectClose(sep[0], reference([2, 3, 11]))
      expectClose(sep[1], reference([9, 11]))
    }))

  it.effect("a missing or corrupted model or tokenizer is EmbedderLoadError", () =>
    Effect.gen(function*() {
      const missing = yield* loadError(
        OnnxEmbedder.layerOnnx({ modelPath: join(dir, "nope.onnx"), tokenizerPath: TOKENIZER })
      )
      expect(missing).toMatchObject({ _tag: "EmbedderLoadError", kind: "missing" })
      const garbage = writeFile("garbage.onnx", new Uint8Array([1, 2, 3, 4, 5, 250, 251, 252]))
      const corrupted = yield* loadError(OnnxEmbedder.layerOnnx({ modelPath: garbage, tokenizerPath: TOKENIZER }))
      expect(corrupted).toMatchObject({ _tag: "EmbedderLoadError", kind: "corrupted" })
      const empty = yield* loadError(
        OnnxEmbedder.layerOnnx({ modelPath: writeFile("empty.onnx", ""), tokenizerPath: TOKENIZER })
      )
      expect(empty).toMatchObject({ _tag: "EmbedderLoadError", kind: "corrupted" })
      const noTok = yield* loadError(OnnxEmbedder.layerOnnx({ modelPath: MODEL, tokenizerPath: join(dir, "none.json") }))
      expect(noTok).toMatchObject({ _tag: "EmbedderLoadError", kind: "tokenizer" })
      const badTok = yield* loadError(
        OnnxEmbedder.layerOnnx({ modelPath: MODEL, tokenizerPath: writeFile("bad-tokenizer.json", "{\"x\": 1}") })
      )
      expect(badTok).toMatchObject({ _tag: "EmbedderLoadError", kind: "tokenizer" })
    }))

  it.effect("a tokenizer whose vocabulary exceeds the embedding table is EmbedderTokenizerMismatchError", () =>
    Effect.gen(function*() {
      const small = modelFile({ rows: 5 })
      const e = yield* loadError(OnnxEmbedder.layerOnnx({ modelPath: small, tokenizerPath: TOKENIZER }))
      expect(e).toMatchObject({
        _tag: "EmbedderTokenizerMismatchError",
        tokenizerVocabSize: V,
        modelVocabSize: 5
      })
      // A larger table than the tokenizer needs is fine.
      const big = modelFile({ rows: V + 4, emb: table(V + 4, 7) })
      const ok = yield* embed(OnnxEmbedder.layerOnnx({ modelPath: big, tokenizerPath: TOKENIZER }), ["dog"])
      expect(ok.vectors).toHaveLength(1)
    }))

  it.effect("mismatched input names, unusable outputs and a wrong dimension are EmbedderLoadError", () =>
    Effect.gen(function*() {
      const noIds = yield* loadError(
        OnnxEmbedder.layerOnnx({ modelPath: modelFile({ idsName: "ids" }), tokenizerPath: TOKENIZER })
      )
      expect(noIds).toMatchObject({ _tag: "EmbedderLoadError", kind: "inputs" })
      expect(noIds.message).toContain("input_ids")
      const extra = yield* loadError(
        OnnxEmbedder.layerOnnx({
          modelPath: modelFile({ inputs: ["input_ids", "attention_mask", "position_ids"] }),
          tokenizerPath: TOKENIZER
        })
      )
      expect(extra).toMatchObject({ _tag: "EmbedderLoadError", kind: "inputs" })
      expect(extra.message).toContain("position_ids")
      const rank4 = yield* loadError(
        OnnxEmbedder.layerOnnx({ modelPath: modelFile({ out: "rank4" }), tokenizerPath: TOKENIZER })
      )
      expect(rank4).toMatchObject({ _tag: "EmbedderLoadError", kind: "outputs" })
      const dim = yield* loadError(OnnxEmbedder.layerOnnx({ modelPath: MODEL, tokenizerPath: TOKENIZER, dimension: D + 1 }))
      expect(dim).toMatchObject({ _tag: "EmbedderLoadError", kind: "outputs" })
      const named = yield* loadError(OnnxEmbedder.layerOnnx({ modelPath: MODEL, tokenizerPath: TOKENIZER, output: "pooled" }))
      expect(named).toMatchObject({ _tag: "EmbedderLoadError", kind: "outputs" })
      // Only an input_ids input (no attention_mask) is fine.
      const idsOnly = yield* embed(
        OnnxEmbedder.layerOnnx({ modelPath: modelFile({ inputs: ["input_ids"] }), tokenizerPath: TOKENIZER }),
        ["the dog"]
      )
      expectClose(idsOnly.vectors[0], reference(idsOf("the dog")))
    }))

  it.effect("an output of the wrong shape fails the load; a NaN fails embed with EmbedderError", () =>
    Effect.gen(function*() {
      // A wrong shape shows in the load's probe run (two texts, one padded) ...
      const reduced = OnnxEmbedder.layerOnnx({ modelPath: modelFile({ out: "reduced" }), tokenizerPath: TOKENIZER })
      const shape = yield* loadError(reduced)
      expect(shape).toMatchObject({ _tag: "EmbedderLoadError", kind: "outputs" })
      expect(shape.message).toContain("shape [2, 1, 6]")
      expect((shape as { cause?: unknown }).cause).toMatchObject({ _tag: "EmbedderError" })
      const nanTable = Float32Array.from(EMB)
      nanTable[VOCAB["kettle"] * D + 2] = Number.NaN
      const nan = OnnxEmbedder.layerOnnx({ modelPath: modelFile({ emb: nanTable }), tokenizerPath: TOKENIZER })
      expect((yield* embed(nan, ["open the door"])).vectors).toHaveLength(1)
      const bad = yield* Effect.flip(embed(nan, ["open the door", "the kettle"]))
      expect(bad._tag).toBe("EmbedderError")
      expect(bad.message).toContain("non-finite")
    }))

  it.effect("the session is released with the layer's scope", () =>
    Effect.gen(function*() {
      const service = yield* Effect.scoped(
        Effect.map(
          Layer.build(OnnxEmbedder.layerOnnx({ modelPath: MODEL, tokenizerPath: TOKENIZER })),
          (ctx) => Context.get(ctx, Embedder.Embedder)
        )
      )
      const e = yield* Effect.flip(service.embed(["dog"]))
      expect(e).toMatchObject({ _tag: "EmbedderError" })
      expect(e.message).toContain("released")
    }))

  it.effect("the experience store retrieves the nearest record with it", () =>
    Effect.gen(function*() {
      const store = yield* ExperienceStore
      yield* store.putMany([
        Records.tip("open the door", { task: "onnx" }),
        Records.tip("the dog barks", { task: "onnx" }),
        Records.tip("kitchen kettle", { task: "onnx" })
      ])
      const docs = ["open the door", "the dog barks", "kitchen kettle"]
      for (const [q, want] of [["open door", 0], ["dog barks", 1], ["the kettle in the kitchen", 2]] as const) {
        // The expected nearest by the independent reference.
        const rq = reference(idsOf(q))
        const sims = docs.map((d) => reference(idsOf(d)).reduce((s, x, k) => s + x * rq[k], 0))
        expect(sims.indexOf(Math.max(...sims))).toBe(want)
        const hits = yield* store.query({
          text: q,
          mode: "vector", // the embedder's ranking alone
          filters: { task: "onnx" },
          weights: { relevance: 1, recency: 0, importance: 0 }
        })
        expect(hits[0].record.text).toBe(docs[want])
        expect(hits[0].relevance).toBeGreaterThan(hits[1].relevance)
      }
    }).pipe(
      Effect.provide(
        layerMemory().pipe(Layer.provide(OnnxEmbedder.layerOnnx({ modelPath: MODEL, tokenizerPath: TOKENIZER })))
      )
    ))
})
