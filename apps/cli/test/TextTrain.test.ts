/**
 * `train --save-trajectories N` on a text environment (in process, a tiny budget): `trajectories/eval.jsonl` holds N
 * episodes of the trained policy as core `TextEpisode` lines (`{envId, seed, task, success, steps: [{observation,
 * action, reward, terminated, truncated}], return, length}`, what the dashboard's viewer reads; before, the flag was
 * silently ignored for text envs).
 */
import { describe, expect, it } from "@effect/vitest"
import { TextEpisode } from "@autodidact/core"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { trainText } from "../src/commands/TextTrain.js"
import { cli } from "./inproc.js"

describe("trainText --save-trajectories", () => {
  it.effect("writes N TextHousehold-v0 evaluation episodes in the TextEpisode shape", () =>
    Effect.gen(function* () {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-text-")), "run")
      const summary = yield* trainText({
        env: "TextHousehold-v0", algo: "grpo", seed: 3, totalSteps: 60, out, groupSize: 2, difficulty: "easy", overwrite: false, json: true, saveTrajectories: 3, evalEpisodes: 2
      })
      const file = path.join(out, "trajectories", "eval.jsonl")
      expect(summary.trajectories).toBe(file)
      const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0)
      expect(lines).toHaveLength(3)
      const seeds = new Set<number>()
      for (const line of lines) {
        const raw = JSON.parse(line)
        expect(Object.keys(raw).sort()).toEqual(["envId", "length", "return", "seed", "steps", "success", "task"])
        const ep = TextEpisode.decode(raw)
        expect(ep.envId).toBe("TextHousehold-v0")
        expect(ep.length).toBe(ep.steps.length)
        expect(typeof ep.task).toBe("string")
        seeds.add(ep.seed!)
        expect(ep.steps.length).toBeGreaterThan(0)
        for (const st of ep.steps) {
          expect(Object.keys(st).sort()).toEqual(["action", "observation", "reward", "terminated", "truncated"])
          expect(st.observation.length).toBeGreaterThan(0)
          expect(st.action.length).toBeGreaterThan(0)
        }
        const last = ep.steps.at(-1)!
        expect(last.terminated || last.truncated).toBe(true)
        for (const st of ep.steps.slice(0, -1)) expect(st.terminated || st.truncated).toBe(false)
        expect(ep.return).toBeCloseTo(ep.steps.reduce((a, st) => a + st.reward, 0), 12)
      }
      expect(seeds.size).toBe(3) // three different evaluation tasks
    }), 60_000)

  it.effect("--curriculum: the sampler chooses the tasks (TextHousehold families as arms), recorded in config.json; an unknown one fails naming it", () =>
    Effect.gen(function* () {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-text-")), "run")
      const summary = yield* trainText({
        env: "TextHousehold-v0", algo: "grpo", seed: 3, totalSteps: 120, out, groupSize: 2, difficulty: "easy", overwrite: false, json: true, evalEpisodes: 2, curriculum: "paprika"
      })
      expect(summary.stopReason).toBe("budget")
      const config = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
      expect(config.curriculum).toBe("paprika")
      expect(config.multiTurn.taskSampler).toBe("paprika")
      const bad = yield* Effect.flip(trainText({
        env: "TextHousehold-v0", algo: "grpo", seed: 3, totalSteps: 60, out: `${out}-bad`, groupSize: 2, difficulty: "easy", overwrite: false, json: true, curriculum: "random"
      }))
      expect(bad).toMatchObject({ _tag: "InvalidOptionError", option: "curriculum", value: "random" })
    }), 60_000)

  it.effect("--algo oprl with --epo and --entropy-balanced-clip: the new estimator and regularizers reach the trainer (config.json)", () =>
    Effect.gen(function* () {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-text-")), "run")
      const summary = yield* trainText({
        env: "TextHousehold-v0", algo: "oprl", seed: 3, totalSteps: 60, out, groupSize: 2, difficulty: "easy", overwrite: false, json: true, evalEpisodes: 2, epo: true, entropyBalancedClip: true
      })
      expect(summary.stopReason).toBe("budget")
      const config = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
      expect(config.multiTurn).toMatchObject({ algo: "oprl", epo: {}, entropyBalancedClip: true })
      const igpo = yield* Effect.flip(trainText({
        env: "TextHousehold-v0", algo: "igpo", seed: 3, totalSteps: 60, out: `${out}-igpo`, groupSize: 2, difficulty: "easy", overwrite: false, json: true
      }))
      expect(igpo).toMatchObject({ _tag: "GoalLogProbUnavailableError", estimator: "igpo" })
    }), 60_000)

  it("--epo is refused outside the local text trainer, naming the flag", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-text-"))
    const cartpole = await cli(["train", "--env", "CartPole-v1", "--epo", "--out", path.join(dir, "a")])
    expect(cartpole.code).toBe(1)
    expect(cartpole.stderr).toContain("TrainConfigError: --epo true: applies to the text envs, not CartPole-v1")
  }, 60_000)

  it("--learning-rate and --target-kl: the hard house's measured rate unless given, and envgen's promotion threshold (config.json); refused outside the text envs and below 0", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-text-"))
    const base = ["train", "--env", "TextHousehold-v0", "--algo", "grpo", "--group-size", "2", "--total-steps", "60", "--eval-episodes", "1", "--json"]
    const configOf = (run: string) => JSON.parse(fs.readFileSync(path.join(dir, run, "config.json"), "utf8"))
    const hard = await cli([...base, "--difficulty", "hard", "--out", path.join(dir, "hard")])
    expect(hard.code, hard.stderr).toBe(0)
    expect(configOf("hard").multiTurn.learningRate).toBe(1.5e-3)
    expect(configOf("hard").multiTurn.targetKl).toBeUndefined()
    // envgen records its promotion threshold (TextTasks.ENVGEN_PROMOTE_ABOVE) on every ladder
    for (const [difficulty, promote] of [["hard", 0.5], ["default", 0.5]] as const) {
      const run = await cli([...base, "--difficulty", difficulty, "--curriculum", "envgen", "--out", path.join(dir, `envgen-${difficulty}`)])
      expect(run.code, run.stderr).toBe(0)
      expect(configOf(`envgen-${difficulty}`).promoteAbove).toBe(promote)
    }
    const given = await cli([...base, "--learning-rate", "0.0007", "--target-kl", "0.02", "--out", path.join(dir, "given")])
    expect(given.code, given.stderr).toBe(0)
    const givenConfig = configOf("given")
    expect(givenConfig.multiTurn.learningRate).toBe(0.0007)
    expect(givenConfig.multiTurn.targetKl).toBe(0.02)
    const rows = fs.readFileSync(path.join(dir, "given", "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    const updates = rows.filter((r) => r.kind === "update")
    expect(updates.length).toBeGreaterThan(0)
    for (const u of updates) expect(u.optimizerSteps).toBeGreaterThanOrEqual(1) // 1 to epochs × minibatches
    const cartpoleKl = await cli(["train", "--env", "CartPole-v1", "--target-kl", "0.02", "--out", path.join(dir, "b")])
    expect(cartpoleKl.code).toBe(1)
    expect(cartpoleKl.stderr).toContain("TrainConfigError: --target-kl 0.02: applies to the text envs, not CartPole-v1")
    const cartpole = await cli(["train", "--env", "CartPole-v1", "--learning-rate", "0.001", "--out", path.join(dir, "a")])
    expect(cartpole.code).toBe(1)
    expect(cartpole.stderr).toContain("TrainConfigError: --learning-rate 0.001: applies to the text envs, not CartPole-v1")
    const negative = await cli([...base, "--learning-rate", "-1", "--out", path.join(dir, "neg")])
    expect(negative.code).not.toBe(0)
    expect(negative.stderr).toContain("learning-rate")
    expect(fs.existsSync(path.join(dir, "neg"))).toBe(false)
  }, 120_000)

  it("--curriculum and --zero-advantage-groups are refused outside the local text trainer, naming the flag", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-text-"))
    const cartpole = await cli(["train", "--env", "CartPole-v1", "--curriculum", "paprika", "--out", path.join(dir, "a")])
    expect(cartpole.code).toBe(1)
    expect(cartpole.stderr).toContain("TrainConfigError: --curriculum \"paprika\": applies to the text envs, not CartPole-v1")
    const cluster = await cli(["train", "--env", "TextHousehold-v0", "--zero-advantage-groups", "skip", "--cluster", "postgres://x@127.0.0.1:1/db", "--out", path.join(dir, "b")])
    expect(cluster.stderr).toContain("TrainConfigError: --zero-advantage-groups \"skip\": not supported with --cluster yet")
  }, 60_000)
})
