/**
 * End-to-end test of `autodidact runner --cluster` and `autodidact train --cluster`: two runner processes and a
 * trainer, all the real bin, against a private PostgreSQL server (tools/postgres-test-server.sh). Skipped with a
 * message when PostgreSQL's binaries are missing, except in CI (`CI=true`), where that is a failure.
 */
import { Runs } from "@autodidact/dashboard"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { freePort, pgMissing, type Proc, run, start, startPrivatePg, stop } from "./procs.js"

const missing = pgMissing()
if (missing !== undefined && process.env["CI"] === "true") throw new Error(`cluster CLI tests need PostgreSQL in CI: ${missing}`)
if (missing !== undefined) console.warn(`skipping the cluster CLI tests: ${missing}`)

describe.skipIf(missing !== undefined)("autodidact runner + train --cluster", () => {
  it("two runners collect CartPole episodes for train --cluster; metrics.jsonl gets episode, update and runner rows", async () => {
    const pg = startPrivatePg()
    const runners: Array<Proc> = []
    try {
      for (let i = 0; i < 2; i++) runners.push(start(["runner", "--cluster", pg.url, "--port", String(await freePort())]))
      await Promise.all(runners.map((r) => r.waitFor((l) => l.includes(": listening"), 40_000)))

      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-cli-cluster-")), "run")
      const budget = 1200
      const r = await run(["train", "--env", "CartPole-v1", "--cluster", pg.url, "--seed", "5", "--total-steps", String(budget), "--out", out, "--json"], 50_000)
      expect(r.code, r.stderr).toBe(0)
      const summary = JSON.parse(r.stdout.trim().split("\n").at(-1)!)
      expect(summary).toMatchObject({ env: "CartPole-v1", algo: "ppo", seed: 5, stopReason: "budget" })
      expect(summary.globalStep).toBeGreaterThanOrEqual(budget)
      expect(fs.existsSync(path.join(out, "checkpoints", "policy.bin"))).toBe(true)
      expect(JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))).toMatchObject({ command: "train", cluster: pg.url })

      const rows = fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
      const episodes = rows.filter((x) => x.kind === "episode")
      const updates = rows.filter((x) => x.kind === "update")
      const runnerRows = rows.filter((x) => x.kind === "runner")
      // update k consumes 2 × num-envs (default 4) = 8 whole episodes, ids 8k .. 8k + 7, each exactly once (rows in
      // arrival order within the batch), collected with a policy version no newer than k
      expect(episodes).toHaveLength(8 * updates.length)
      for (let k = 0; k < updates.length; k++) {
        const batch = episodes.slice(8 * k, 8 * k + 8)
        expect(batch.map((e) => e.episodeId).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => 8 * k + i))
        for (const e of batch) expect(e.policyVersion).toBeLessThanOrEqual(k)
      }
      for (const e of episodes) expect(e.episodeReturn).toBe(e.episodeLength) // CartPole: +1 per step
      expect(episodes.reduce((n, e) => n + e.episodeLength, 0)).toBe(summary.globalStep)
      expect(rows.at(-1)).toMatchObject({ kind: "summary", stopReason: "budget" })

      // runner rows: after each update one per runner seen so far, named host:port, counting what it produced
      const names = new Set(runnerRows.map((x) => x.runner))
      expect(names.size).toBeGreaterThanOrEqual(1)
      expect(names.size).toBeLessThanOrEqual(2)
      for (const n of names) expect(n).toMatch(/^127\.0\.0\.1:\d+$/)
      expect(new Set(episodes.map((e) => e.runner))).toEqual(names)
      const lastStep = updates.at(-1)!.globalStep
      const final = runnerRows.filter((x) => x.globalStep === lastStep)
      expect(final.map((x) => x.runner).sort()).toEqual([...names].sort())
      expect(final.reduce((n, x) => n + x.episodes, 0)).toBe(episodes.length)
      expect(final.reduce((n, x) => n + x.steps, 0)).toBe(summary.globalStep)
      for (const x of final) {
        expect(x.episodes).toBe(episodes.filter((e) => e.runner === x.runner).length)
        expect(x.episodesPerSecond).toBeGreaterThan(0)
        expect(x.stepsPerSecond).toBeGreaterThan(x.episodesPerSecond) // every CartPole episode lasts ≥ 8 steps
        expect(x.meanPolicyLag).toBeGreaterThanOrEqual(0)
        expect(x.maxPolicyLag).toBeGreaterThanOrEqual(x.meanPolicyLag)
        expect(x.failures).toBe(0)
        expect(x.duplicatesDropped).toBe(0)
      }
      // the dashboard reads the same rows: its runners table is the final row of each runner
      const store = await Effect.runPromise(Runs.load(path.dirname(out)))
      const view = store.runners("run")!
      expect(view.runners.map((x) => [x.runner, x.episodes, x.steps])).toEqual(final.sort((a, b) => a.runner.localeCompare(b.runner)).map((x) => [x.runner, x.episodes, x.steps]))
      expect(view.total).toMatchObject({ episodes: episodes.length, steps: summary.globalStep, failures: 0 })
      expect(store.summaries()[0]).toMatchObject({ name: "run", runners: names.size, episodes: episodes.length, status: "finished" })

      // the runners logged what they collected
      expect(runners.some((p) => p.lines.some((l) => l.includes(": collected ")))).toBe(true)
    } finally {
      await Promise.all(runners.map((p) => stop(p, 15_000)))
      pg.stop()
    }
    // SIGINT ends a runner cleanly (interrupted: exit code 130, not the SIGKILL fallback; no error line)
    for (const p of runners) {
      expect(await p.exited, p.stderr()).toEqual({ code: 130, signal: null })
      expect(p.stderr()).not.toMatch(/^error:/m)
    }
  }, 60_000)

  it("train --cluster with no runner says it waits (and how to start one) and fails after --timeout", async () => {
    const pg = startPrivatePg()
    try {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-cli-cluster-")), "run")
      const r = await run(["train", "--env", "CartPole-v1", "--cluster", pg.url, "--total-steps", "512", "--timeout", "3", "--out", out, "--json"], 50_000)
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(`waiting for runners: start one with \`autodidact runner --cluster ${pg.url}\``)
      expect(r.stderr).toMatch(/^error: RunnerWaitTimeoutError: no runner sent an episode within --timeout 3 s/m)
      expect(r.stdout).toBe("") // no summary: nothing was trained
    } finally {
      pg.stop()
    }
  }, 60_000)

  it("a malformed --cluster URL is refused with a typed error", async () => {
    const r = await run(["runner", "--cluster", "mysql://x@127.0.0.1/db", "--port", "34999"])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error: RunnerConfigError: --cluster "mysql:\/\/x@127\.0\.0\.1\/db": must be a postgres:\/\/ URL/m)
  }, 60_000)
})
