/**
 * The recording gateway under load: `--requests` streaming chat completions, `--clients` at a time, against the
 * seeded scripted upstream of `test/LoadUpstream.ts` (3-8 SSE chunks `--chunk-delay` ms apart; with faults on, 8%
 * 429, 4% 500, 4% 503, 10% reset mid-stream, 4% reset before answering), first straight to the upstream, then
 * through the gateway (recording in memory, then to JSONL files with an fsync per row). Prints, for the completed
 * streams, time to headers and to the last byte at p50 / p90 / p99, direct and through the gateway, the latency the
 * gateway adds (gateway − direct at the same quantile), throughput, and checks that every exchange was recorded
 * exactly once with its final status; the process's CPU time per request (the gateway's share is the difference to
 * the direct run: a figure that CPU contention from other processes does not inflate, unlike the latencies); heap
 * (`heapUsed`, after a full GC when run with `--expose-gc`) before and after.
 *
 *   npx tsx --expose-gc --conditions=@autodidact/source packages/llm/bench/gateway-load.ts [--requests 2000] [--clients 200] [--chunk-delay 2] [--seed 21] [--no-faults]
 *
 * Everything runs in one process (clients, gateway, upstream share one event loop), so the added latency includes
 * the clients' and the upstream's share of the loop: an upper bound on what a gateway on its own core adds.
 */
import { Gateway, Recorder } from "@autodidact/llm"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { FetchHttpClient } from "effect/http"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type ClientResult, defaultFaults, noFaults, outcomeOf, quantile, startLoadUpstream, streamOnce } from "../test/LoadUpstream.js"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const REQUESTS = arg("requests", 2000)
const CLIENTS = arg("clients", 200)
const CHUNK_DELAY = arg("chunk-delay", 2)
const SEED = arg("seed", 21)
const FAULTS = process.argv.includes("--no-faults") ? noFaults : defaultFaults

const gc = (globalThis as { gc?: () => void }).gc
const heapMb = () => {
  gc?.()
  return process.memoryUsage().heapUsed / 2 ** 20
}

/** `REQUESTS` calls, `CLIENTS` at a time (each client sends its next request when the last one ends). */
const run = async (baseUrl: string): Promise<{ results: Array<ClientResult>; seconds: number; cpuMsPerRequest: number }> => {
  const results: Array<ClientResult> = []
  let next = 0
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < REQUESTS) results.push(await streamOnce(baseUrl, next++))
  }))
  const cpu = process.cpuUsage(cpu0)
  return { results, seconds: (performance.now() - t0) / 1000, cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / REQUESTS }
}

const startGateway = async (upstream: string, layer: Layer.Layer<Recorder.Recorder, unknown>) => {
  const scope = Effect.runSync(Scope.make())
  const services = await Effect.runPromise(Layer.buildWithScope(Layer.mergeAll(layer, FetchHttpClient.layer), scope))
  const gw = await Effect.runPromise(Gateway.start({ upstream }).pipe(Effect.provideService(Scope.Scope, scope), Effect.provide(services)))
  const recorder = Context.get(services, Recorder.Recorder)
  return { url: `${gw.url}/v1`, recorder, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const fmt = (x: number) => x.toFixed(1)
const rows: Array<string> = []
const upstream = await startLoadUpstream({ seed: SEED, faults: FAULTS, chunkDelayMs: CHUNK_DELAY })
const fates = Array.from({ length: REQUESTS }, (_, i) => outcomeOf(SEED, i, FAULTS))
const completed = (rs: Array<ClientResult>) => rs.filter((r) => fates[r.index]!.kind === "ok")

// warm up both paths (connection pools, JIT), not measured
await run(upstream.url)
const direct = await run(upstream.url)
const dirOk = completed(direct.results)
const q = (rs: Array<ClientResult>, key: "headersMs" | "totalMs", p: number) => quantile(rs.map((r) => r[key]), p)
rows.push(`| direct | - | ${fmt(q(dirOk, "headersMs", 0.5))} / ${fmt(q(dirOk, "headersMs", 0.99))} | ${fmt(q(dirOk, "totalMs", 0.5))} / ${fmt(q(dirOk, "totalMs", 0.9))} / ${fmt(q(dirOk, "totalMs", 0.99))} | - | ${fmt(REQUESTS / direct.seconds)} | ${direct.cpuMsPerRequest.toFixed(2)} (clients + upstream) | - | - |`)

for (const kind of ["memory", "jsonl"] as const) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-load-"))
  const gw = await startGateway(upstream.url, kind === "memory" ? Recorder.layerMemory : Recorder.layerJsonl(dir))
  await run(gw.url) // warm-up (recorded too)
  const heapBefore = heapMb()
  const via = await run(gw.url)
  await new Promise((r) => setTimeout(r, 200))
  const all = (await Effect.runPromise(gw.recorder.read())).filter((r): r is Recorder.Exchange => r.type === "exchange")
  const ids = new Set(via.results.map((r) => r.exchangeId))
  const mine = all.filter((r) => ids.has(r.id))
  const expectedStatus = (i: number) => {
    const f = fates[i]!
    return f.kind === "status" ? f.status : f.kind === "refuse" ? 502 : 200
  }
  const byId = new Map(mine.map((r) => [r.id, r]))
  const wrong = via.results.filter((r) => byId.get(r.exchangeId ?? "")?.status !== expectedStatus(r.index)).length
  const once = mine.length === REQUESTS && ids.size === REQUESTS && all.length === 2 * REQUESTS ? "yes" : `NO (${mine.length} rows for ${ids.size} ids)`
  const heapAfter = heapMb()
  const ok = completed(via.results)
  const added = (p: number) => fmt(q(ok, "totalMs", p) - q(dirOk, "totalMs", p))
  rows.push(
    `| gateway (${kind}) | ${once}, ${wrong} wrong status | ${fmt(q(ok, "headersMs", 0.5))} / ${fmt(q(ok, "headersMs", 0.99))} | ${fmt(q(ok, "totalMs", 0.5))} / ${fmt(q(ok, "totalMs", 0.9))} / ${fmt(q(ok, "totalMs", 0.99))} | ` +
      `${added(0.5)} / ${added(0.99)} | ${fmt(REQUESTS / via.seconds)} | ${via.cpuMsPerRequest.toFixed(2)} (+${(via.cpuMsPerRequest - direct.cpuMsPerRequest).toFixed(2)} gateway) | ${fmt(heapBefore)} → ${fmt(heapAfter)} | ${kind === "memory" ? `${2 * REQUESTS} rows kept in memory` : "rows on disk"} |`
  )
  await gw.close()
  fs.rmSync(dir, { recursive: true, force: true })
}
await upstream.close()

const kinds = fates.reduce<Record<string, number>>((m, f) => ({ ...m, [f.kind === "status" ? String(f.status) : f.kind]: (m[f.kind === "status" ? String(f.status) : f.kind] ?? 0) + 1 }), {})
console.log(`\n${REQUESTS} streaming requests, ${CLIENTS} concurrent clients, chunks ${CHUNK_DELAY} ms apart, seed ${SEED}; fates ${JSON.stringify(kinds)}`)
console.log(`node ${process.version}, ${os.cpus().length} cpus, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}${gc === undefined ? ", heap without --expose-gc" : ", heap after gc"}\n`)
console.log("| path | recorded exactly once | headers ms p50 / p99 | last byte ms p50 / p90 / p99 | added ms p50 / p99 | req/s | CPU ms / request | heapUsed MB before → after | note |")
console.log("|---|---|---|---|---|---|---|---|---|")
for (const r of rows) console.log(r)
