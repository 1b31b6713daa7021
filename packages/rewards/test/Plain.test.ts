import { MissingPeerError, Rng } from "@autodidact/core"
import { build } from "esbuild"
import { Effect, Exit } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { createEnsemble, createRules, EmptyBatchError, InferenceError, InputMismatchError, JudgeUnreachableError, LlmJudge, ModelLoadError, RewardModel } from "../src/index.js"
import { loadTokenizers, loadOnnxProto, loadTfCore } from "../src/internal/peers.js"
import { loadRewardModel, OnnxRewardModel, TextTokenizer } from "../src/onnx.js"
import { Training, trainRewardModel } from "../src/train.js"

/** The error an Effect fails with (its first typed failure). */
const failure = async <A, E>(effect: Effect.Effect<A, E>): Promise<unknown> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return undefined
  const r = exit.cause.reasons[0]
  return r?._tag === "Fail" ? r.error : undefined
}
const rejection = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e)

describe("plain face: the same implementation and the same tagged errors as the Effect face", () => {
  it("rules and ensembles: scores, and an empty batch is EmptyBatchError from both faces", async () => {
    const exact = createRules("exact", { outcome: (c) => (c.response === "42" ? 1 : 0), step: (s) => s.action.length })
    expect(await exact.score([{ response: "42" }, { response: "41" }])).toEqual([1, 0])
    expect(await exact.scoreSteps([{ steps: [{ state: "s", action: "ab" }, { state: "s", action: "abc" }] }])).toEqual([[2, 3]])
    const both = createEnsemble("both", [exact, RewardModel.rules("len", { outcome: (c) => c.response!.length })], { _tag: "weighted", weights: [2, 1] })
    expect(await both.score([{ response: "42" }, { response: "7" }])).toEqual([4, 1])

    const plain = await rejection(exact.score([]))
    const effect = await failure(exact.model.scoreOutcome([]))
    expect(plain).toBeInstanceOf(EmptyBatchError)
    expect(effect).toBeInstanceOf(EmptyBatchError)
    expect((plain as EmptyBatchError)._tag).toBe((effect as EmptyBatchError)._tag)
    expect(plain).toEqual(effect)
  })

  it("loadRewardModel: a missing file is ModelLoadError from both faces", async () => {
    const path = "/nonexistent/rm.onnx"
    const plain = await rejection(loadRewardModel(path))
    const effect = await failure(Effect.scoped(OnnxRewardModel.feature(path)))
    expect(plain).toBeInstanceOf(ModelLoadError)
    expect(effect).toBeInstanceOf(ModelLoadError)
    expect((plain as ModelLoadError)._tag).toBe("ModelLoadError")
    expect((plain as ModelLoadError).message).toBe((effect as ModelLoadError).message)
  })

  it("trainRewardModel → toOnnx → loadRewardModel: the ONNX scores match TF.js; wrong lengths and a closed model are typed errors", async () => {
    const dim = 4, n = 256
    const rng = Rng.make(5)
    const w = [1, -1, 0.5, 0]
    const chosen = new Float32Array(n * dim), rejected = new Float32Array(n * dim)
    for (let i = 0; i < n; i++) {
      const a = Array.from({ length: dim }, () => rng.normal()), b = Array.from({ length: dim }, () => rng.normal())
      const ua = a.reduce((s, x, j) => s + w[j]! * x, 0), ub = b.reduce((s, x, j) => s + w[j]! * x, 0)
      chosen.set(ua >= ub ? a : b, i * dim)
      rejected.set(ua >= ub ? b : a, i * dim)
    }
    const trained = await trainRewardModel({ data: { n, dim, chosen, rejected }, hidden: [8], epochs: 10, learningRate: 1e-2, seed: 1, backend: "wasm" })
    expect(trained.backend).toBe("wasm")
    expect(trained.losses).toHaveLength(10)
    expect(trained.losses.at(-1)!).toBeLessThan(trained.losses[0]! * 0.5)
    const rows = chosen.subarray(0, 3 * dim)
    const tfScores = trained.predict(rows, 3)
    expect(await trained.scorer.score([0, 1, 2].map((i) => ({ features: rows.subarray(i * dim, i * dim + dim) })))).toEqual(Array.from(tfScores))

    const rm = await loadRewardModel(trained.toOnnx(), { name: "trained" })
    const onnxScores = await rm.score([0, 1, 2].map((i) => ({ features: rows.subarray(i * dim, i * dim + dim) })))
    for (let i = 0; i < 3; i++) expect(Math.abs(onnxScores[i]! - tfScores[i]!)).toBeLessThan(1e-5)
    // a vector of another length: the same InputMismatchError from the plain and the Effect call
    const wrong = [{ features: [1, 2, 3] }]
    const plain = await rejection(rm.score(wrong))
    const effect = await failure(rm.model.scoreOutcome(wrong))
    expect(plain).toBeInstanceOf(InputMismatchError)
    expect(plain).toEqual(effect)
    await rm.close()
    await rm.close() // idempotent
    expect(await rejection(rm.score([{ features: [0, 0, 0, 0] }]))).toBeInstanceOf(InferenceError)

    // wrong shapes are rejected by Training itself, so both faces throw the same error
    const bad = { n: 3, dim, chosen: new Float32Array(5), rejected: new Float32Array(3 * dim) }
    const viaPlain = await rejection(trainRewardModel({ data: bad, backend: "wasm" }))
    let viaTraining: unknown
    try {
      Training.trainPairwise(trained.mlp, bad, { rng })
    } catch (e) {
      viaTraining = e
    }
    expect(viaPlain).toBeInstanceOf(InputMismatchError)
    expect(viaPlain).toEqual(viaTraining)
    trained.dispose()
  })

  it("loadTokenizer: a missing file is ModelLoadError from both faces", async () => {
    const plain = await rejection(TextTokenizer.loadTokenizer("/nonexistent/tokenizer.json"))
    const effect = await failure(TextTokenizer.load("/nonexistent/tokenizer.json"))
    expect(plain).toBeInstanceOf(ModelLoadError)
    expect(plain).toEqual(effect)
  })

  it("LlmJudge.create: a closed port is JudgeUnreachableError, as from LlmJudge.make", async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const config = { baseUrl: `http://127.0.0.1:${port}/v1`, model: "m", retries: 0 }
    const plain = await rejection(LlmJudge.create(config).score([{ prompt: "p", response: "r" }]))
    const judge = LlmJudge.create(config).model
    const effect = await failure(judge.scoreOutcome([{ prompt: "p", response: "r" }]))
    expect(plain).toBeInstanceOf(JudgeUnreachableError)
    expect((plain as JudgeUnreachableError)._tag).toBe((effect as JudgeUnreachableError)._tag)
    expect((plain as JudgeUnreachableError).url).toBe(`http://127.0.0.1:${port}/v1/chat/completions`)
  })
})

describe("entry points and their optional peers", () => {
  const notFound = (pkg: string) => () => Promise.reject(Object.assign(new Error(`Cannot find package '${pkg}' imported from /app/x.js`), { code: "ERR_MODULE_NOT_FOUND" }))
  const cases = [
    ["@huggingface/tokenizers", "@autodidact/rewards/onnx", loadTokenizers, "^0.2.0"],
    ["onnx-proto", "@autodidact/rewards/train", loadOnnxProto, "^8.0.1"],
    ["@tensorflow/tfjs-core", "@autodidact/rewards/train", loadTfCore, "^4.22.0"]
  ] as const
  for (const [peer, entryPoint, loader, range] of cases) {
    it(`${entryPoint} without ${peer}: MissingPeerError naming the package and the install command`, async () => {
      const e = await rejection((loader as (importer: () => Promise<never>) => Promise<unknown>)(notFound(peer)))
      expect(e).toBeInstanceOf(MissingPeerError)
      expect(e).toMatchObject({ _tag: "MissingPeerError", peer, entryPoint, install: `npm install ${peer}@${range}` })
    })
    it(`${entryPoint}: an error thrown while ${peer} loads is not a missing peer`, async () => {
      const broken = new Error("boom")
      expect(await rejection((loader as (importer: () => Promise<never>) => Promise<unknown>)(() => Promise.reject(broken)))).toBe(broken)
    })
  }

  it("the main entry's import graph holds no heavy backend (ONNX Runtime, TF.js, tokenizers, protobuf)", async () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), "..")
    const inputs = async (entry: string) => {
      const r = await build({
        entryPoints: [join(root, "src", entry)],
        bundle: true,
        write: false,
        metafile: true,
        platform: "node",
        format: "esm",
        conditions: ["@autodidact/source"],
        // kernels' subpath entries (./ort, ./tfjs) are checked by kernels; its main entry is part of the graph checked here
        external: ["@autodidact/kernels/*"],
        logLevel: "silent"
      })
      return Object.keys(r.metafile.inputs).join("\n")
    }
    const heavy = /onnxruntime|@tensorflow|@huggingface[/+]tokenizers|onnx-proto|protobufjs/
    expect(await inputs("index.ts")).not.toMatch(heavy)
    expect(await inputs("onnx.ts")).toMatch(/@huggingface[/+]tokenizers/)
    expect(await inputs("train.ts")).toMatch(/onnx-proto/)
  }, 60_000)
})
