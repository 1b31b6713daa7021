/**
 * The gateway under load (issue 21): 200 concurrent streaming clients against a scripted upstream that, seeded,
 * answers 429 / 500 / 503, resets connections mid-stream or before answering. Every exchange must be recorded
 * exactly once with its final status; the index of exchange ids stays bounded. Latency and heap figures are printed,
 * not asserted (the larger run with the latency table is `bench/gateway-load.ts`).
 */
import { Gateway, Recorder } from "@autodidact/llm"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { type ClientResult, outcomeOf, quantile, startLoadUpstream, streamOnce, wordsOf } from "./LoadUpstream.js"

const SEED = 21
const CLIENTS = 200

const heapMb = () => {
  ;(globalThis as { gc?: () => void }).gc?.()
  return process.memoryUsage().heapUsed / 2 ** 20
}

describe("Gateway under load (issue 21)", () => {
  it.live(`${CLIENTS} concurrent streaming clients, seeded 429/5xx/resets: each exchange recorded once with its final status`, () =>
    Effect.gen(function*() {
      const up = yield* Effect.promise(() => startLoadUpstream({ seed: SEED }))
      yield* Effect.addFinalizer(() => Effect.promise(() => up.close()))
      const g = yield* Gateway.start({ upstream: up.url, maxIndexedExchanges: 50 })
      const recorder = yield* Recorder.Recorder
      const indices = Array.from({ length: CLIENTS }, (_, i) => i)
      const fates = indices.map((i) => outcomeOf(SEED, i))
      // every kind of fate is in the mix
      expect(new Set(fates.map((o) => (o.kind === "status" ? `${o.status}` : o.kind)))).toEqual(new Set(["ok", "429", "500", "503", "reset", "refuse"]))

      const heapBefore = heapMb()
      const direct: Array<ClientResult> = yield* Effect.promise(() => Promise.all(indices.map((i) => streamOnce(up.url, i))))
      const viaGateway: Array<ClientResult> = yield* Effect.promise(() => Promise.all(indices.map((i) => streamOnce(`${g.url}/v1`, i))))
      // rows of streams are written as the stream ends: wait until all are in (bounded)
      const exchanges = Effect.map(recorder.read(), (rs) => rs.filter((r): r is Recorder.Exchange => r.type === "exchange"))
      for (let t = 0; t < 100 && (yield* exchanges).length < CLIENTS; t++) yield* Effect.sleep("50 millis")
      yield* Effect.sleep("100 millis") // and nothing more arrives
      const rows = yield* exchanges
      const heapAfter = heapMb()

      // exactly once: one row per client, matched by the exchange id each client got
      expect(rows.length).toBe(CLIENTS)
      expect(new Set(rows.map((r) => r.id)).size).toBe(CLIENTS)
      const byId = new Map(rows.map((r) => [r.id, r]))
      for (const c of viaGateway) {
        const fate = fates[c.index]!
        const row = byId.get(c.exchangeId ?? "")
        expect(row, `client ${c.index} (${JSON.stringify(fate)}) has no row`).toBeDefined()
        const got = { status: row!.status, error: row!.error?.kind, clientStatus: c.status }
        if (fate.kind === "ok") {
          expect(got).toEqual({ status: 200, error: undefined, clientStatus: 200 })
          expect(row!.response!.content).toBe(wordsOf(c.index, fate.chunks).join(" "))
          expect(c.content).toBe(row!.response!.content)
          expect(row!.usage?.completion_tokens).toBe(fate.chunks)
        } else if (fate.kind === "status") {
          expect(got).toEqual({ status: fate.status, error: "upstream-status", clientStatus: fate.status })
          expect(row!.error!.status).toBe(fate.status)
        } else if (fate.kind === "reset") {
          expect(got).toEqual({ status: 200, error: "stream-broken", clientStatus: 200 })
          expect(c.error).toBe("stream_broken") // the client got the SSE error event
          const full = wordsOf(c.index, fate.chunks).join(" ")
          expect(full.startsWith(row!.response!.content ?? "")).toBe(true)
        } else {
          expect(got).toEqual({ status: 502, error: "upstream-unreachable", clientStatus: 502 })
        }
      }
      // the direct calls saw the same fates (the upstream is deterministic)
      expect(direct.filter((c) => c.status === 200 && c.error === undefined).length).toBe(fates.filter((o) => o.kind === "ok").length)

      // bounded memory: only the last 50 exchange ids are kept to resolve rewards by exchange id alone
      const reward = (exchangeId: string) =>
        Effect.promise(() => fetch(`${g.url}/v1/rewards`, { method: "POST", body: JSON.stringify({ exchange_id: exchangeId, reward: 1 }) }).then((r) => r.status))
      const order = [...rows].sort((a, b) => a.startedAt + a.latencyMs - (b.startedAt + b.latencyMs))
      expect(yield* reward(order[0]!.id)).toBe(404)
      expect(yield* reward(order.at(-1)!.id)).toBe(200)

      const ok = (xs: Array<ClientResult>) => xs.filter((c) => fates[c.index]!.kind === "ok").map((c) => c.totalMs)
      const [d99, g99] = [quantile(ok(direct), 0.99), quantile(ok(viaGateway), 0.99)]
      const [d50, g50] = [quantile(ok(direct), 0.5), quantile(ok(viaGateway), 0.5)]
      console.log(
        `gateway load (${CLIENTS} concurrent streams, seed ${SEED}): completed streams p50 direct ${d50.toFixed(1)} ms / via gateway ${g50.toFixed(1)} ms, ` +
          `p99 ${d99.toFixed(1)} / ${g99.toFixed(1)} ms (added p99 ${(g99 - d99).toFixed(1)} ms); heapUsed ${heapBefore.toFixed(1)} -> ${heapAfter.toFixed(1)} MB` +
          `${(globalThis as { gc?: unknown }).gc === undefined ? " (no --expose-gc)" : " (after gc)"}`
      )
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(Recorder.layerMemory, FetchHttpClient.layer))), 60_000)

  it.live("maxIndexedExchanges is checked", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(Gateway.start({ upstream: "http://127.0.0.1:1/v1", maxIndexedExchanges: -1 }))
      expect([e._tag, e._tag === "LlmConfigError" && e.option]).toEqual(["LlmConfigError", "maxIndexedExchanges"])
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(Recorder.layerMemory, FetchHttpClient.layer))))
})
