/**
 * `train` in process (the handler behind `autodidact train`, without a child process per run): resuming an
 * interrupted run cuts metrics.jsonl back to the checkpoint, so steps never go back and no row is duplicated, and a
 * resume with another seed is refused with a typed error naming it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { train, type TrainRequest } from "../src/commands/Train.js"

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-train-"))

const request = (out: string, over: Partial<TrainRequest> = {}): TrainRequest => ({
  env: "CartPole-v1",
  algo: "ppo",
  seed: 4,
  totalSteps: 1024,
  out,
  untilSolved: false,
  numEnvs: 4,
  resume: false,
  overwrite: false,
  json: true,
  ...over
})

describe("train --resume", () => {
  it.effect("after an interruption: rows past the checkpoint are dropped, steps never go back; another seed is refused", () =>
    Effect.gen(function* () {
      const out = path.join(tmp(), "run")
      yield* train(request(out))
      const metrics = path.join(out, "metrics.jsonl")
      const read = () => fs.readFileSync(metrics, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, number | string>)
      // an interrupted run: rows written after the last checkpoint (step 1024), and a line torn by the kill
      const checkpointed = read().filter((r) => r["kind"] !== "summary")
      fs.appendFileSync(
        metrics,
        [1100, 1300].map((g) => JSON.stringify({ kind: "episode", globalStep: g, episodeReturn: 99, episodeLength: 99, wallSeconds: 9 }) + "\n").join("") +
          `{"kind":"update","globalStep":1536,"wallS`
      )

      const wrongSeed = yield* Effect.flip(train(request(out, { seed: 5, totalSteps: 2048, resume: true })))
      expect(wrongSeed).toMatchObject({ _tag: "ResumeConfigError", keys: ["seed"] })
      expect((wrongSeed as Error).message).toContain("differs in seed (4 in config.json, 5 now)")

      const summary = yield* train(request(out, { totalSteps: 2048, resume: true }))
      expect(summary).toMatchObject({ globalStep: 2048, stopReason: "budget" })
      const rows = read()
      // what the first run wrote up to its checkpoint is kept as it was
      expect(rows.slice(0, checkpointed.length)).toEqual(checkpointed)
      expect(rows.some((x) => x["episodeReturn"] === 99)).toBe(false)
      const steps = (kind: string) => rows.filter((x) => x["kind"] === kind).map((x) => x["globalStep"] as number)
      // 128 steps x 4 envs per update: each update once; episode steps never go back (envs ending on one step share it)
      expect(steps("update")).toEqual([512, 1024, 1536, 2048])
      const episodes = steps("episode")
      for (let i = 1; i < episodes.length; i++) expect(episodes[i]!).toBeGreaterThanOrEqual(episodes[i - 1]!)
      expect(episodes.at(-1)!).toBeLessThanOrEqual(2048)
      expect(steps("summary")).toEqual([1024, 2048])
      const config = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
      expect(config).toMatchObject({ seed: 4, totalSteps: 2048 })
      expect(config.resumes).toMatchObject([{ step: 1024, droppedRows: 3 }])
      expect(config.resumes[0].resumeOverride).toBeUndefined()

      // --resume-override: the other seed is used and recorded
      yield* train(request(out, { seed: 5, totalSteps: 2560, resume: true, resumeOverride: true }))
      const after = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
      expect(after.seed).toBe(5)
      expect(after.resumes[1]).toMatchObject({ step: 2048, resumeOverride: true, differences: [{ key: "seed", was: 4, now: 5 }] })
    }), 60_000)
})
