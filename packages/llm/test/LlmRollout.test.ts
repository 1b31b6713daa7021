import { Rng, TextEpisode } from "@autodidact/core"
import { TextFrozenLake } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { AiError } from "effect/ai"
import type { GroupRollout } from "@autodidact/optim"
import * as LlmPolicy from "../src/LlmPolicy.js"
import * as LlmRollout from "../src/LlmRollout.js"
import { HINT, learner, MAP, messageText, scripted } from "./fixtures/ScriptedModel.js"

const makeEnv = () => new TextFrozenLake.TextFrozenLake({ desc: MAP, isSlippery: false })
const cfg = (o: Partial<LlmPolicy.Config> = {}) => LlmPolicy.config({ baseDelayMs: 0, ...o })

describe("LlmRollout.collectGroup", () => {
  it.effect("records steps, usage, history and success like GroupRollout", () =>
    Effect.gen(function* () {
      // Down Down Right Right walks S→G on the 3x3 map
      const m = scripted(["Thought: a\nAction: Down", "Thought: b\nAction: down", "Action: Right", "Action: Right"])
      const g = yield* LlmRollout.collectGroup([makeEnv()], cfg(), { seed: 0 }, Rng.make(1), { groupSize: 1 }).pipe(Effect.provide(m.layer))
      const tr = g.trajectories[0]!
      expect(g.failures).toEqual([])
      expect(tr.success).toBe(true)
      expect(tr.return).toBe(1)
      expect(tr.steps.map((s) => s.action)).toEqual(["Down", "Down", "Right", "Right"])
      expect(tr.steps[1]!.encoded.match).toBe("case-insensitive")
      expect(tr.steps.map((s) => s.actionIndex)).toEqual([1, 1, 2, 2])
      expect(tr.steps.every((s) => s.logProb === 0 && !s.invalid)).toBe(true)
      const u = LlmRollout.usageOf(tr.steps)
      expect(u.modelCalls).toBe(4)
      expect(u.inputTokens).toBeGreaterThan(0)
      // the 3rd prompt holds the first two steps as chat turns
      const third = m.prompts[2]!.content
      expect(third.map((x) => x.role)).toEqual(["system", "user", "assistant", "user", "assistant", "user"])
      expect(messageText(third[2]!)).toBe("Thought: a\nAction: Down")
      expect(LlmRollout.renderTrajectory(tr)).toContain("Outcome: success, return 1, 4 steps")
      // the env's rules (its chat view's system turn) open the system prompt
      expect(messageText(third[0]!)).toContain(TextFrozenLake.SYSTEM_PROMPT)
    }))

  it.effect("records a model failure after retries as a lost trajectory, keeping its steps", () =>
    Effect.gen(function* () {
      const m = scripted(["Action: Down", { fail: new AiError.AuthenticationError({ kind: "InvalidKey" }) }])
      const g = yield* LlmRollout.collectGroup([makeEnv()], cfg(), { seed: 0 }, Rng.make(1), { groupSize: 2 }).pipe(Effect.provide(m.layer))
      expect(g.trajectories).toEqual([])
      expect(g.failures.map((f) => [f.trajectory, f.step])).toEqual([[0, 1], [1, 0]])
      expect(g.failures[0]!.steps.map((s) => s.action)).toEqual(["Down"])
      expect((g.failures[0]!.error as { _tag: string })._tag).toBe("ModelCallError")
    }))

  it.effect("an env that throws loses only its trajectory", () =>
    Effect.gen(function* () {
      const env = makeEnv()
      let resets = 0
      const flaky: GroupRollout.TextEnv = {
        get task() {
          return env.task
        },
        spec: undefined,
        reset: (o) => {
          if (resets++ === 1) throw new Error("boom")
          return env.reset(o)
        },
        step: (a) => env.step(a),
        admissibleActions: () => env.admissibleActions(),
        stateKey: () => env.stateKey()
      }
      const g = yield* LlmRollout.collectGroup([flaky], cfg(), { seed: 0 }, Rng.make(1), { groupSize: 3, maxSteps: 2 }).pipe(
        Effect.provide(scripted(["Action: Up"]).layer)
      )
      expect(g.trajectories.length).toBe(2)
      expect(g.failures.map((f) => [f.trajectory, f.step])).toEqual([[1, -1]])
    }))

  it.effect("the invalid fallback steps the raw answer; penalized by the rollout when the env does not", () =>
    Effect.gen(function* () {
      const g = yield* LlmRollout.collectGroup([makeEnv()], cfg({ fallback: "invalid" }), { seed: 0 }, Rng.make(1), { groupSize: 1, maxSteps: 1, invalidActionPenalty: 0.25 }).pipe(
        Effect.provide(scripted(["Action: jump"]).layer)
      )
      const s = g.trajectories[0]!.steps[0]!
      expect(s.action).toBe("jump")
      expect(s.invalid).toBe(true)
      // TextFrozenLake penalizes invalid actions itself (info.invalidAction, penalty 0): no extra penalty
      expect(s.reward).toBe(0)
      expect(s.truncated).toBe(true)
    }))

  it.effect("envs in parallel give the same trajectories as one env (a prompt-determined model)", () =>
    Effect.gen(function* () {
      const hinted = cfg({ experiences: HINT })
      const one = yield* LlmRollout.collectGroup([makeEnv()], hinted, { seed: 0 }, Rng.make(9), { groupSize: 4, maxSteps: 8 }).pipe(
        Effect.provide(learner({ seed: 1 }).layer)
      )
      const par = yield* LlmRollout.collectGroup([makeEnv(), makeEnv()], hinted, { seed: 0 }, Rng.make(9), { groupSize: 4, maxSteps: 8, concurrency: 2 }).pipe(
        Effect.provide(learner({ seed: 1 }).layer)
      )
      expect(par.trajectories.map((t) => t.steps.map((s) => s.action))).toEqual(one.trajectories.map((t) => t.steps.map((s) => s.action)))
      expect(one.trajectories.map((t) => t.steps.map((s) => s.action).join(" "))).toEqual(Array(4).fill("Down Down Right Right"))
    }))

  it.effect("rejects no envs and bad sizes", () =>
    Effect.gen(function* () {
      const bad = yield* Effect.flip(LlmRollout.collectGroup([], cfg(), { seed: 0 }, Rng.make(9)).pipe(Effect.provide(learner().layer)))
      expect(bad._tag).toBe("InvalidOptionError")
      const bad2 = yield* Effect.flip(LlmRollout.collectGroup([makeEnv()], cfg(), { seed: 0 }, Rng.make(9), { groupSize: 0 }).pipe(Effect.provide(learner().layer)))
      expect(bad2._tag).toBe("InvalidOptionError")
    }))
})

describe("LlmRollout.evaluate", () => {
  it.effect("reports episode and evaluation rows with usage", () =>
    Effect.gen(function* () {
      const episodes: Array<LlmRollout.EpisodeRow> = []
      const evals: Array<LlmRollout.EvaluationRow> = []
      // task 1 wins in 4 steps, task 2 falls into the hole in 2 steps (Right, Down)
      const m = scripted(["Action: Down", "Action: Down", "Action: Right", "Action: Right", "Action: Right", "Action: Down"])
      const r = yield* LlmRollout.evaluate([makeEnv()], cfg(), [{ seed: 1 }, { seed: 2 }], { maxSteps: 8 }, {
        onEpisode: (row) => episodes.push(row),
        onEvaluation: (row) => evals.push(row)
      }).pipe(Effect.provide(m.layer))
      expect(episodes.map((e) => [e.success, e.episodeLength])).toEqual([[true, 4], [false, 2]])
      expect(evals).toHaveLength(1)
      expect(r.row).toMatchObject({ episodes: 2, successRate: 0.5, episodeReturn: 0.5, episodeLength: 3, failures: 0, modelCalls: 6, steps: 6 })
      expect(r.taskSuccess).toEqual([1, 0])
      const e = yield* Effect.flip(LlmRollout.evaluate([makeEnv()], cfg(), []).pipe(Effect.provide(m.layer)))
      expect(e._tag).toBe("InvalidOptionError")
    }))
})

describe("LlmPolicy.validate through the rollout", () => {
  it.effect("a bad policy config is an InvalidOptionError, not a crash", () =>
    Effect.gen(function* () {
      for (const bad of [{ fuzzyThreshold: 0 }, { retries: -1 }, { fallback: "guess" as never }, { temperature: Number.NaN }, { baseDelayMs: Number.POSITIVE_INFINITY }]) {
        const e = yield* Effect.flip(LlmRollout.collectGroup([makeEnv()], cfg(bad), { seed: 0 }, Rng.make(1)).pipe(Effect.provide(scripted(["Action: Up"]).layer)))
        expect(e._tag).toBe("InvalidOptionError")
      }
    }))
})

describe("LlmRollout.toTextEpisode", () => {
  it.effect("a rollout as core's TextEpisode: the steps' text, rewards and flags, thoughts as dashboard notes", () =>
    Effect.gen(function* () {
      // Down Down Right Right walks S→G; the third decision answers Jump twice (re-asked, then the "invalid" fallback
      // steps it as is)
      const m = scripted(["Thought: a\nAction: Down", "Thought: b\nAction: down", "Action: Jump", "Thought: c\nAction: Jump", "Action: Right", "Action: Right"])
      const g = yield* LlmRollout.collectGroup([makeEnv()], cfg({ fallback: "invalid", retries: 0 }), { seed: 0 }, Rng.make(1), { groupSize: 1, policyVersion: 2 }).pipe(Effect.provide(m.layer))
      const tr = g.trajectories[0]!
      const ep = LlmRollout.toTextEpisode(tr, { task: "walk to G [stream 0]", extras: (s, k) => (k === 0 ? { exemplar: "Down, Down" } : {}) })
      expect(ep.envId).toBe(tr.envId)
      expect([ep.seed, ep.task, ep.policyVersion, ep.success, ep.finalObservation]).toEqual([0, "walk to G [stream 0]", 2, true, tr.finalObservation])
      expect(ep.steps.map((s) => s.action)).toEqual(tr.steps.map((s) => s.action))
      expect(ep.steps.map((s) => s.observation)).toEqual(tr.steps.map((s) => s.observation))
      expect(ep.steps.map((s) => [s.reward, s.terminated, s.truncated])).toEqual(tr.steps.map((s) => [s.reward, s.terminated, s.truncated]))
      expect([ep.return, ep.length]).toEqual([tr.return, tr.length])
      expect(tr.steps[2]!.invalid).toBe(true)
      expect(ep.steps.map((s) => s.info?.["notes"])).toEqual([
        ["Thought: a"],
        ["Thought: b"],
        ["Thought: c", "inadmissible action", "fallback: invalid", "re-asked: \"Jump\" is not one of the admissible actions"],
        undefined,
        undefined
      ])
      expect(ep.steps[0]!.info?.["exemplar"]).toBe("Down, Down")
      // the row round-trips through core's schema
      expect(TextEpisode.decode(JSON.parse(TextEpisode.toJsonLine(ep)))).toEqual(ep)
    }))
})
