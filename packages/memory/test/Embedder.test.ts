import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import * as Embedder from "../src/embedders/Embedder.js"
import { cosine } from "../src/store/Retrieval.js"

const embed = (layer: Layer.Layer<Embedder.Embedder>, texts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const e = yield* Embedder.Embedder
    return yield* e.embed(texts)
  }).pipe(Effect.provide(layer))

/** A local OpenAI-compatible endpoint: embeds with the hashed embedder of dimension 8, records requests. */
const withServer = <A, E>(
  f: (baseUrl: string, requests: Array<{ auth: string | undefined; body: any }>) => Effect.Effect<A, E>,
  respond?: (body: any) => { status: number; json: unknown }
) =>
  Effect.acquireUseRelease(
    Effect.promise(() =>
      new Promise<{ server: Http.Server; requests: Array<{ auth: string | undefined; body: any }> }>((resolve) => {
        const requests: Array<{ auth: string | undefined; body: any }> = []
        const server = Http.createServer((req, res) => {
          let data = ""
          req.on("data", (c) => (data += String(c)))
          req.on("end", () => {
            const body = JSON.parse(data)
            requests.push({ auth: req.headers.authorization, body })
            const out = respond?.(body) ?? {
              status: 200,
              json: {
                object: "list",
                data: (body.input as Array<string>).map((t, index) => ({
                  object: "embedding",
                  index,
                  embedding: Array.from(Embedder.hashedEmbedding(t, 8))
                }))
              }
            }
            res.writeHead(out.status, { "content-type": "application/json" })
            res.end(JSON.stringify(out.json))
          })
        })
        server.listen(0, "127.0.0.1", () => resolve({ server, requests }))
      })
    ),
    ({ requests, server }) => f(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests),
    ({ server }) => Effect.promise(() => new Promise<void>((r) => server.close(() => r())))
  )

describe("Embedder", () => {
  it.effect("hashed embeddings are deterministic, unit-norm and lexical", () =>
    Effect.gen(function*() {
      const [a, b, c, empty] = yield* embed(Embedder.layerHashed(), [
        "Open the fridge",
        "open the fridge door",
        "Quantum chromodynamics",
        "  !! "
      ])
      expect(a.length).toBe(256)
      let n = 0
      for (const x of a) n += x * x
      expect(n).toBeCloseTo(1, 5)
      expect(Array.from(a)).toEqual(Array.from(Embedder.hashedEmbedding("Open the fridge", 256)))
      expect(cosine(a, b)).toBeGreaterThan(0.5)
      expect(Math.abs(cosine(a, c))).toBeLessThan(0.3)
      expect(Array.from(empty).every((x) => x === 0)).toBe(true)
      // FNV-1a reference values (offset 0x811c9dc5, prime 0x01000193) on bytes "a" then 0: known constant check.
      expect(Embedder.fnv1a("")).toBe(0x811c9dc5)
      expect(Embedder.features("Hi there")).toEqual([
        "w:hi", "b:hi there", "c:^hi", "c:hi$", "w:there", "c:^th", "c:the", "c:her", "c:ere", "c:re$"
      ])
    }))

  it.effect("OpenAI-compatible endpoint: batches, bearer token, dimension check", () =>
    withServer((baseUrl, requests) =>
      Effect.gen(function*() {
        const layer = Embedder.layerOpenAi({ baseUrl, model: "test-embed", dimension: 8, apiKey: "sk-test", batchSize: 2 })
          .pipe(Layer.provide(FetchHttpClient.layer))
        const out = yield* embed(layer, ["a b", "c d", "e f"])
        expect(out.map((v) => Array.from(v))).toEqual(
          ["a b", "c d", "e f"].map((t) => Array.from(Embedder.hashedEmbedding(t, 8)))
        )
        expect(requests.map((r) => r.body.input)).toEqual([["a b", "c d"], ["e f"]])
        expect(requests[0].auth).toBe("Bearer sk-test")
        expect(requests[0].body.model).toBe("test-embed")
        const wrong = Embedder.layerOpenAi({ baseUrl, model: "m", dimension: 4 }).pipe(
          Layer.provide(FetchHttpClient.layer)
        )
        const err = yield* Effect.flip(embed(wrong, ["x"]))
        expect(err).toMatchObject({ _tag: "EmbedderError", model: "m" })
        expect(err.message).toContain("dimension 8, expected 4")
      })
    ))

  it.effect("OpenAI-compatible endpoint: an error status is a typed EmbedderError", () =>
    withServer(
      (baseUrl) =>
        Effect.gen(function*() {
          const layer = Embedder.layerOpenAi({ baseUrl, model: "m", dimension: 8 }).pipe(
            Layer.provide(FetchHttpClient.layer)
          )
          const err = yield* Effect.flip(embed(layer, ["x"]))
          expect(err).toMatchObject({ _tag: "EmbedderError", status: 429 })
        }),
      () => ({ status: 429, json: { error: { message: "rate limited" } } })
    ))
})
