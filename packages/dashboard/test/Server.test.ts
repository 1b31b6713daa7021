import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { serve } from "../src/Server.js"
import { cartPoleConfig, learningRows, tempDir, writeRun } from "./fixtures.js"

const status = async (url: string) => (await fetch(url)).status

describe("Server", () => {
  it("serves runs, series, static files; refuses traversal; closes with its scope", async () => {
    const root = tempDir()
    writeRun(root, { name: "a", config: cartPoleConfig(1), rows: learningRows(50, 1) })
    const outside = tempDir("outside-")
    fs.writeFileSync(path.join(outside, "secret.txt"), "secret")
    writeRun(outside, { name: "b", config: cartPoleConfig(1), rows: learningRows(5, 1) })
    fs.mkdirSync(path.join(root, "a", "trajectories"))
    fs.writeFileSync(path.join(root, "a", "trajectories", "eval.jsonl"), JSON.stringify({ envId: "FrozenLake-v1", steps: [{ observation: 0, action: 1, reward: 0, terminated: false, truncated: false }], return: 0, length: 1 }) + "\n")
    const url = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const d = yield* serve({ runsDir: root, port: 0, pollMs: 50 })
          expect(d.host).toBe("127.0.0.1")
          const u = d.url
          const body = yield* Effect.promise(async () => (await fetch(u + "api/runs")).json() as Promise<{ runs: Array<{ name: string }> }>)
          expect(body.runs.map((r) => r.name)).toEqual(["a"])
          const series = yield* Effect.promise(async () => (await fetch(u + "api/series?metric=episodeReturn&run=a&maxPoints=10")).json() as Promise<{ series: Array<{ x: Array<number> }> }>)
          expect(series.series[0]!.x.length).toBe(10)
          const codes = yield* Effect.promise(() =>
            Promise.all([
              status(u + "api/series?run=" + encodeURIComponent("../" + path.basename(outside) + "/b")),
              status(u + "api/series?run=" + encodeURIComponent(path.join(outside, "b"))),
              status(u + "api/trajectories?run=..%2F..%2Fetc"),
              status(u + "api/trajectory?run=a&file=" + encodeURIComponent("../../metrics.jsonl")),
              status(u + "ui/..%2f..%2fpackage.json"),
              status(u + "ui/%2e%2e%2f%2e%2e%2fpackage.json"),
              status(u + "api/series?run=missing"),
              status(u + "api/library?run=..%2F..%2Fetc"),
              status(u + "api/library?run=missing")
            ])
          )
          for (const c of codes) expect(c).toBeGreaterThanOrEqual(400)
          for (const c of codes) expect(c).toBeLessThan(500)
          expect(yield* Effect.promise(() => status(u + "api/trajectory?run=a&file=eval.jsonl&index=0"))).toBe(200)
          expect(yield* Effect.promise(() => status(u + "vendor/uPlot.iife.min.js"))).toBe(200)
          const lib = yield* Effect.promise(async () => (await fetch(u + "api/library?run=a")).json())
          expect(lib).toEqual({ skills: null, memory: null })
          expect(yield* Effect.promise(() => status(u))).toBe(200)
          // an SSE client is connected when the scope closes: closing must not hang
          yield* Effect.promise(async () => {
            const res = await fetch(u + "api/events")
            const reader = res.body!.getReader()
            await reader.read()
            void reader.read().catch(() => undefined)
          })
          return u
        })
      )
    )
    await expect(fetch(url + "api/runs")).rejects.toThrow()
  })

  it("fails with a DashboardError for a missing runs directory", async () => {
    const exit = await Effect.runPromiseExit(Effect.scoped(serve({ runsDir: "/nonexistent/runs", port: 0 })))
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toContain("DashboardError")
  })
})
