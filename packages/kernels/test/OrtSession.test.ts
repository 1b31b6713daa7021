import { MissingPeerError } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import onnxProto from "onnx-proto"
import { OrtSession } from "../src/ort.js"
import { resolvedBy } from "./resolved.js"

const { onnx } = onnxProto
const F32 = onnx.TensorProto.DataType.FLOAT
const I64 = onnx.TensorProto.DataType.INT64
const I32 = onnx.TensorProto.DataType.INT32

const V = 7
const D = 3
/** Row r of the table is [r, 10 r, 100 r]: the expected output of a lookup is written down from the ids alone. */
const TABLE = Float32Array.from({ length: V * D }, (_, i) => Math.floor(i / D) * 10 ** (i % D))

const valueInfo = (name: string, elemType: number, dims: ReadonlyArray<number | string>) =>
  onnx.ValueInfoProto.create({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) } } }
  })

/** `out = table[input_ids]` ([batch, seq] int64 → [batch, seq, D] float32), optionally through a Cast to int32. */
const lookupModel = (opts: { readonly cast?: boolean; readonly rows?: number } = {}): Uint8Array => {
  const rows = opts.rows ?? V
  const nodes = opts.cast === true
    ? [
      onnx.NodeProto.create({ opType: "Cast", input: ["input_ids"], output: ["ids32"], attribute: [{ name: "to", type: onnx.AttributeProto.AttributeType.INT, i: I32 }] }),
      onnx.NodeProto.create({ opType: "Gather", input: ["table", "ids32"], output: ["out"] })
    ]
    : [onnx.NodeProto.create({ opType: "Gather", input: ["table", "input_ids"], output: ["out"] })]
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: "kernels-test",
    opsetImport: [{ domain: "", version: 17 }],
    graph: onnx.GraphProto.create({
      name: "lookup",
      node: nodes,
      initializer: [onnx.TensorProto.create({ name: "table", dims: [rows, D], dataType: F32, floatData: Array.from(TABLE.subarray(0, rows * D)) })],
      input: [valueInfo("input_ids", I64, ["batch", "seq"])],
      output: [valueInfo("out", F32, ["batch", "seq", D])]
    })
  })
  return onnx.ModelProto.encode(model).finish()
}

const dir = mkdtempSync(join(tmpdir(), "kernels-ort-"))
const file = (name: string, bytes: Uint8Array | string): string => {
  const p = join(dir, name)
  writeFileSync(p, bytes)
  return p
}
const ids = (s: OrtSession.OrtSession, values: ReadonlyArray<number>, dims: ReadonlyArray<number>) =>
  new s.runtime.Tensor("int64", BigInt64Array.from(values.map(BigInt)), dims)

describe("@autodidact/kernels/ort", () => {
  it("without onnxruntime-node: OrtLoadError kind unavailable whose cause is a MissingPeerError naming it and the entry point", async () => {
    const missing = "onnxruntime-node-not-installed"
    const error = await OrtSession.loadRuntimeWith(() => import(missing), missing).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(OrtSession.OrtLoadError)
    expect(error).toMatchObject({ kind: "unavailable", model: missing })
    const cause = (error as OrtSession.OrtLoadError).cause
    expect(cause).toBeInstanceOf(MissingPeerError)
    expect(cause).toMatchObject({ peer: missing, entryPoint: "@autodidact/kernels/ort", install: `npm install ${missing}@^1.30.0` })
    expect((error as OrtSession.OrtLoadError).reason).toBe((cause as MissingPeerError).message)
  })

  it("imports onnxruntime-node only when the first session is created, and never TensorFlow.js", () => {
    const { stdout, urls } = resolvedBy(`const { OrtSession } = await import("@autodidact/kernels/ort")
console.log("imported")
await OrtSession.loadRuntime()
console.log("loaded")`)
    expect(stdout.trim().split("\n")).toEqual(["imported", "loaded"])
    const entry = urls.findIndex((u) => u.endsWith("/kernels/src/ort.ts"))
    const ort = urls.findIndex((u) => /onnxruntime-node/.test(u))
    expect(entry).toBeGreaterThanOrEqual(0)
    expect(ort).toBeGreaterThan(entry)
    // the runtime is resolved by the dynamic import alone: nothing between the entry and it pulls TF.js or the kernels index
    expect(urls.filter((u) => /tensorflow|kernels\/src\/index\.ts/.test(u))).toEqual([])
  }, 60_000)
})

describe("OrtSession.embeddingRows", () => {
  it("reads the row count of the table that input_ids gathers from, directly or through a Cast", () => {
    expect(OrtSession.embeddingRows(lookupModel())).toBe(V)
    expect(OrtSession.embeddingRows(lookupModel({ cast: true, rows: 5 }))).toBe(5)
    expect(OrtSession.embeddingRows(lookupModel(), "nope")).toBeUndefined()
  })
})

describe("OrtSession", () => {
  it.effect("opens a model from a path and from bytes; runs a lookup equal to the table rows; inputs and outputs declared", () =>
    Effect.scoped(Effect.gen(function* () {
      for (const source of [file("lookup.onnx", lookupModel()), lookupModel({ cast: true })]) {
        const s = yield* OrtSession.open(source, { executionProviders: ["cpu"], expectInputs: [{ name: "input_ids", type: "int64", shape: ["batch", "seq"] }], expectOutputs: ["out"] })
        expect(s.name).toBe(typeof source === "string" ? source : "<bytes>")
        expect(s.inputs).toEqual([{ name: "input_ids", type: "int64", shape: ["batch", "seq"] }])
        expect(s.outputs).toEqual([{ name: "out", type: "float32", shape: ["batch", "seq", D] }])
        expect(s.executionProviders).toEqual(["cpu"])
        const out = yield* OrtSession.run(s, { input_ids: ids(s, [6, 0, 2, 2], [2, 2]) })
        expect(out["out"]!.dims).toEqual([2, 2, D])
        expect(Array.from(out["out"]!.data as Float32Array)).toEqual([6, 60, 600, 0, 0, 0, 2, 20, 200, 2, 20, 200])
      }
    })))

  it.effect("feeds with a wrong name, element type, rank or shared symbolic dimension are OrtInputError naming the input", () =>
    Effect.scoped(Effect.gen(function* () {
      const s = yield* OrtSession.open(lookupModel(), { executionProviders: ["cpu"] })
      const T = s.runtime.Tensor
      const wrongName = yield* Effect.flip(OrtSession.run(s, { ids: ids(s, [1], [1, 1]) }))
      expect(wrongName).toMatchObject({ _tag: "OrtInputError", input: "ids", actual: "an unknown input \"ids\"" })
      const missing = yield* Effect.flip(OrtSession.run(s, {}))
      expect(missing).toMatchObject({ _tag: "OrtInputError", input: "input_ids", actual: "no feed" })
      const wrongType = yield* Effect.flip(OrtSession.run(s, { input_ids: new T("int32", Int32Array.of(1), [1, 1]) }))
      expect(wrongType).toMatchObject({ _tag: "OrtInputError", input: "input_ids", expected: "element type int64", actual: "element type int32" })
      const wrongRank = yield* Effect.flip(OrtSession.run(s, { input_ids: ids(s, [1, 2], [2]) }))
      expect(wrongRank).toMatchObject({ _tag: "OrtInputError", input: "input_ids", expected: "rank 2 (declared [batch, seq])", actual: "rank 1 [2]" })
      // a pure check: two inputs sharing "batch" must agree; a fixed dimension must match
      const specs = [{ name: "a", type: "float32", shape: ["batch", 4] }, { name: "b", type: "float32", shape: ["batch"] }]
      expect(OrtSession.checkFeeds("m", specs, { a: { type: "float32", dims: [2, 4] }, b: { type: "float32", dims: [2] } })).toBeUndefined()
      expect(OrtSession.checkFeeds("m", specs, { a: { type: "float32", dims: [2, 4] }, b: { type: "float32", dims: [3] } })).toMatchObject({ input: "b", expected: "dimension \"batch\" = 2 as in the other inputs" })
      expect(OrtSession.checkFeeds("m", specs, { a: { type: "float32", dims: [2, 5] }, b: { type: "float32", dims: [2] } })).toMatchObject({ input: "a", expected: "[2, 4] (declared [batch, 4])", actual: "[2, 5]" })
      // before a tensor is built: the data's length against the dimensions (ONNX Runtime's own error is untyped)
      expect(OrtSession.checkDims("m", specs[0]!, [2, 4], 7)).toMatchObject({ input: "a", expected: "[2, 4] (8 values; declared [batch, 4])", actual: "7 values" })
      expect(OrtSession.checkDims("m", specs[0]!, [2, 4], 6)).toMatchObject({ expected: "[2, 4] (8 values; declared [batch, 4])", actual: "[2, 3] (6 values)" })
      expect(OrtSession.checkDims("m", specs[0]!, [1.5, 4], 6)).toMatchObject({ expected: "non-negative integer dimensions (declared [batch, 4])", actual: "[1.5, 4]" })
      expect(OrtSession.checkDims("m", specs[0]!, [3, 4], 12)).toBeUndefined()
    })))

  it.effect("release: the scope closing releases the session; running after it is OrtRunError", () =>
    Effect.gen(function* () {
      const s = yield* Effect.scoped(OrtSession.open(lookupModel(), { executionProviders: ["cpu"] }))
      expect(s.released).toBe(true)
      const e = yield* Effect.flip(OrtSession.run(s, { input_ids: ids(s, [1], [1, 1]) }))
      expect(e._tag).toBe("OrtRunError")
      expect(e.message).toContain("released")
      // the plain face: create / release (idempotent)
      const p = yield* Effect.promise(() => OrtSession.create(lookupModel(), { executionProviders: ["cpu"] }))
      expect(p.released).toBe(false)
      yield* Effect.promise(() => p.release())
      yield* Effect.promise(() => p.release())
      expect(p.released).toBe(true)
    }))

  it.effect("load failures are OrtLoadError naming the model and the kind", () =>
    Effect.gen(function* () {
      const load = (source: string | Uint8Array, options: OrtSession.OpenOptions = {}) => Effect.flip(Effect.scoped(OrtSession.open(source, { executionProviders: ["cpu"], ...options })))
      const missing = yield* load(join(dir, "nope.onnx"))
      expect(missing).toMatchObject({ _tag: "OrtLoadError", kind: "missing", model: join(dir, "nope.onnx") })
      expect(missing.reason).toContain("file not found")
      const empty = yield* load(file("empty.onnx", ""))
      expect(empty).toMatchObject({ kind: "corrupted", reason: `the model file is empty: ${join(dir, "empty.onnx")}` })
      const garbage = yield* load(file("garbage.onnx", new Uint8Array([1, 2, 3, 4, 5, 250, 251, 252])))
      expect(garbage).toMatchObject({ kind: "corrupted" })
      expect(garbage.reason).toContain("not a loadable ONNX model")
      const truncated = yield* load(lookupModel().subarray(0, 40), { name: "truncated" })
      expect(truncated).toMatchObject({ kind: "corrupted", model: "truncated" })
      const noInput = yield* load(lookupModel(), { expectInputs: [{ name: "attention_mask", type: "int64", shape: ["batch", "seq"] }] })
      expect(noInput).toMatchObject({ kind: "graph", reason: "the model has no input \"attention_mask\" (inputs: input_ids)" })
      const badType = yield* load(lookupModel(), { expectInputs: [{ name: "input_ids", type: "float32", shape: ["batch", "seq"] }] })
      expect(badType.reason).toBe("input \"input_ids\" has element type int64, expected float32")
      const noOutput = yield* load(lookupModel(), { expectOutputs: ["logits"] })
      expect(noOutput.reason).toBe("the model has no output \"logits\" (outputs: out)")
    }))

  it("detectProviders: CUDA first exactly when the build bundles it", async () => {
    const ort = await OrtSession.loadRuntime()
    const cuda = ort.listSupportedBackends().some((b) => b.name === "cuda" && b.bundled)
    const d = OrtSession.detectProviders(ort)
    expect(d.providers).toEqual(cuda ? ["cuda", "cpu"] : ["cpu"])
    expect(d.reason).toContain(cuda ? "cuda first" : "cpu only")
  })
})

/** `../shared/data/onnx` from the repository root (never copied into the project). */
const ONNX_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../shared/data/onnx")
const hasShared = existsSync(join(ONNX_DIR, "reference_outputs.json"))

describe.skipIf(!hasShared)("OrtSession on a PyTorch-exported model (../shared/data/onnx)", () => {
  it.effect("feature_rm.onnx reproduces reference_outputs.json within 1e-6", () =>
    Effect.scoped(Effect.gen(function* () {
      const ref = JSON.parse(readFileSync(join(ONNX_DIR, "reference_outputs.json"), "utf8"))["feature_rm.onnx"] as {
        inputs: Record<string, { dims: Array<number>; data: Array<number> }>
        outputs: Record<string, { data: Array<number> }>
      }
      const x = ref.inputs["features"]!
      const s = yield* OrtSession.open(join(ONNX_DIR, "feature_rm.onnx"))
      const out = yield* OrtSession.run(s, { features: new s.runtime.Tensor("float32", Float32Array.from(x.data), x.dims) })
      const got = out["reward"]!.data as Float32Array
      const want = ref.outputs["reward"]!.data
      expect(got.length).toBe(want.length)
      for (let i = 0; i < want.length; i++) expect(Math.abs(got[i]! - want[i]!)).toBeLessThan(1e-6)
    })))
})
