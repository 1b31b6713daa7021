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

  it("answers 404 for every path outside the runs directory, a symlink in trajectories/ to a file outside included", async () => {
    const root = tempDir()
    writeRun(root, { name: "a", config: cartPoleConfig(1), rows: learningRows(5, 1) })
    const outside = tempDir("outside-")
    fs.writeFileSync(path.join(outside, "secret.jsonl"), JSON.stringify({ secret: "do not serve" }) + "\n")
    writeRun(outside, { name: "b", config: cartPoleConfig(1), rows: learningRows(5, 1) })
    const traj = path.join(root, "a", "trajectories")
    fs.mkdirSync(traj)
    fs.writeFileSync(path.join(traj, "eval.jsonl"), JSON.stringify({ envId: "FrozenLake-v1", steps: [], return: 0, length: 0 }) + "\n")
    fs.symlinkSync(path.join(outside, "secret.jsonl"), path.join(traj, "leak.jsonl"))
    // a run directory that is itself a symlink to a run outside
    fs.symlinkSync(path.join(outside, "b"), path.join(root, "linked"))
    const out = path.basename(outside)
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const d = yield* serve({ runsDir: root, port: 0, pollMs: 50 })
          const u = d.url
          const responses = yield* Effect.promise(() =>
            Promise.all(
              [
                "api/trajectory?run=a&file=leak.jsonl&index=0",
                "api/trajectory?run=a&file=" + encodeURIComponent("../../metrics.jsonl"),
                "api/trajectory?run=a&file=..%2F..%2Fmetrics.jsonl",
                "api/trajectory?run=a&file=%2e%2e%2f%2e%2e%2fmetrics.jsonl",
                "api/trajectory?run=a&file=" + encodeURIComponent(path.join(outside, "secret.jsonl")),
                "api/trajectory?run=a&file=..%5C..%5Cmetrics.jsonl",
                "api/trajectory?run=a&file=eval.jsonl%00.jsonl",
                "api/series?run=" + encodeURIComponent(`../${out}/b`),
                "api/series?run=%2e%2e%2f" + out + "%2fb",
                "api/series?run=" + encodeURIComponent(path.join(outside, "b")),
                "api/series?run=a%5C..%5C..%5C" + out,
                "api/series?run=a%00",
                "api/series?run=linked",
                "api/trajectories?run=..%2F..%2Fetc",
                "api/trajectories?run=linked",
                "api/runners?run=%2e%2e",
                "api/library?run=..%2F..%2Fetc",
                "ui/..%2f..%2fpackage.json",
                "ui/%2e%2e%2f%2e%2e%2fpackage.json",
                "ui/..%5C..%5Cpackage.json",
                "ui/%2Fetc%2Fpasswd",
                "ui/index.html%00",
                "ui/%E0%A4%A",
                "vendor/..%2f..%2fpackage.json"
              ].map(async (p) => {
                const res = await fetch(u + p)
                return { p, status: res.status, body: await res.text() }
              })
            )
          )
          for (const r of responses) {
            expect(r.status, r.p).toBe(404)
            expect(r.body, r.p).not.toContain("do not serve")
          }
          // the listing leaves the symlinked file out; the real file is still served
          const files = yield* Effect.promise(async () => (await fetch(u + "api/trajectories?run=a")).json() as Promise<{ files: Array<{ file: string }> }>)
          expect(files.files.map((f) => f.file)).toEqual(["eval.jsonl"])
          expect(yield* Effect.promise(() => status(u + "api/trajectory?run=a&file=eval.jsonl&index=0"))).toBe(200)
          expect(yield* Effect.promise(() => status(u + "ui/style.css"))).toBe(200)
        })
      )
    )
  })

  it("binds 127.0.0.1 by default and the host option widens it", async () => {
    const root = tempDir()
    writeRun(root, { name: "a", config: cartPoleConfig(1), rows: learningRows(5, 1) })
    const hosts = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const local = yield* serve({ runsDir: root, port: 0 })
          const wide = yield* serve({ runsDir: root, port: 0, host: "0.0.0.0" })
          return [local.host, local.url, wide.host]
        })
      )
    )
    expect(hosts[0]).toBe("127.0.0.1")
    expect(hosts[1]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    expect(hosts[2]).toBe("0.0.0.0")
  })

  it("reports a malformed metrics.jsonl line with its line number and still loads the other rows", async () => {
    const root = tempDir()
    writeRun(root, {
      name: "a",
      config: cartPoleConfig(1),
      rows: [
        { kind: "episode", globalStep: 10, episodeReturn: 5, episodeLength: 5, wallSeconds: 0.1 },
        { kind: "episode", globalStep: 20, episodeReturn: 7, episodeLength: 7, wallSeconds: 0.2 }
      ],
      tail: '{"kind":"episode","globalStep":30,"episodeRet\n{"kind":"episode","globalStep":40,"episodeReturn":9,"episodeLength":9,"wallSeconds":0.4}\n'
    })
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const d = yield* serve({ runsDir: root, port: 0 })
          const res = yield* Effect.promise(() => fetch(d.url + "api/runs"))
          expect(res.status).toBe(200)
          const body = yield* Effect.promise(() => res.json() as Promise<{ runs: Array<{ name: string; episodes: number; lastReturn: number; warnings: Array<string> }> }>)
          expect(body.runs).toHaveLength(1)
          expect(body.runs[0]).toMatchObject({ name: "a", episodes: 3, lastReturn: 9 })
          expect(body.runs[0]!.warnings).toContain("metrics.jsonl line 3 is not a JSON object; skipped")
          const series = yield* Effect.promise(async () => (await fetch(d.url + "api/series?metric=episodeReturn&run=a")).json() as Promise<{ series: Array<{ y: Array<number> }> }>)
          expect(series.series[0]!.y).toEqual([5, 7, 9])
        })
      )
    )
  })

  it("fails with a DashboardError for a missing runs directory", async () => {
    const exit = await Effect.runPromiseExit(Effect.scoped(serve({ runsDir: "/nonexistent/runs", port: 0 })))
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toContain("DashboardError")
  })
})
