import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as GroupRollout from "../src/text/GroupRollout.js"
import { DoorsEnv } from "./fixtures/DoorsEnv.js"

/** Always answers `action` (admissible or not). */
const fixed = (action: string): GroupRollout.TextPolicy<null> => ({
  encode: () => null,
  act: (_e, input) => ({ action, index: input.admissible.indexOf(action), logProb: -1 })
})

describe("GroupRollout.collectGroup", () => {
  it("N trajectories from the identical initial state, with text, action, logProb, stateKey and admissible actions", () => {
    const envs = [new DoorsEnv(), new DoorsEnv()]
    const g = GroupRollout.collectGroup(envs, GroupRollout.randomPolicy, { seed: 11 }, Rng.make(0), { groupSize: 5, maxSteps: 6 })
    expect(g.trajectories.length).toBe(5)
    expect(g.failures).toEqual([])
    const first = g.trajectories.map((t) => t.steps[0]!)
    expect(new Set(first.map((s) => s.stateKey)).size).toBe(1)
    expect(new Set(g.trajectories.map((t) => t.task)).size).toBe(1)
    const s = first[0]!
    expect(s.observation).toContain("junction 0")
    expect(s.admissible).toEqual(["open red door", "open blue door", "open green door", "wait"])
    expect(s.logProb).toBeCloseTo(-Math.log(4), 12)
    expect(s.admissible[s.actionIndex]).toBe(s.action)
    for (const t of g.trajectories) {
      expect(t.length).toBe(t.steps.length)
      expect(t.return).toBeCloseTo(t.steps.reduce((a, x) => a + x.reward, 0), 12)
      expect(t.seed).toBe(11)
      expect(t.envId).toBe("Doors-v0")
    }
  })

  it("different samples of a group take different paths (sampling, not copies)", () => {
    const g = GroupRollout.collectGroup([new DoorsEnv()], GroupRollout.randomPolicy, { seed: 3 }, Rng.make(1), { groupSize: 8, maxSteps: 6 })
    expect(new Set(g.trajectories.map((t) => t.steps.map((s) => s.action).join("|"))).size).toBeGreaterThan(1)
  })

  it("an env that throws loses only its trajectories; the failure is recorded", () => {
    const bad = new DoorsEnv()
    bad.failOnReset = () => true
    const g = GroupRollout.collectGroup([new DoorsEnv(), bad], GroupRollout.randomPolicy, { seed: 2 }, Rng.make(0), { groupSize: 4, maxSteps: 3 })
    expect(g.trajectories.length).toBe(2)
    expect(g.failures.map((f) => f.trajectory)).toEqual([1, 3])
    expect(g.failures[0]!.step).toBe(-1)
    expect(String(g.failures[0]!.error)).toContain("boom")
  })

  it("maxSteps truncates: 'wait' forever gives maxSteps steps, the last truncated, no success", () => {
    const g = GroupRollout.collectGroup([new DoorsEnv()], fixed("wait"), { seed: 0 }, Rng.make(0), { groupSize: 1, maxSteps: 4 })
    const t = g.trajectories[0]!
    expect(t.length).toBe(4)
    expect(t.steps[3]!.truncated).toBe(true)
    expect(t.steps[2]!.truncated).toBe(false)
    expect(t.success).toBe(false)
  })

  it("inadmissible actions: flagged; no second penalty when the env penalized (info.invalidAction)", () => {
    const g = GroupRollout.collectGroup([new DoorsEnv()], fixed("fly"), { seed: 0 }, Rng.make(0), { groupSize: 1, maxSteps: 2 })
    const s = g.trajectories[0]!.steps[0]!
    expect(s.invalid).toBe(true)
    expect(s.actionIndex).toBe(-1)
    expect(s.reward).toBeCloseTo(-0.1, 12) // the env's own −0.1 only
  })

  it("inadmissible actions an env accepts silently get the invalidActionPenalty", () => {
    class Lenient extends DoorsEnv {
      override step(action: string) {
        const out = super.step(action)
        return { ...out, reward: 0, info: {} }
      }
    }
    const g = GroupRollout.collectGroup([new Lenient()], fixed("fly"), { seed: 0 }, Rng.make(0), { groupSize: 1, maxSteps: 2, invalidActionPenalty: 0.25 })
    expect(g.trajectories[0]!.steps[0]!.reward).toBe(-0.25)
  })

  it("success follows the env's info.success: the right colour three times", () => {
    const env = new DoorsEnv()
    env.reset({ seed: 5 })
    const colour = env.task.split(" ")[2]!
    const g = GroupRollout.collectGroup([env], fixed(`open ${colour} door`), { seed: 5 }, Rng.make(0), { groupSize: 2 })
    for (const t of g.trajectories) {
      expect(t.success).toBe(true)
      expect(t.length).toBe(3)
      expect(t.steps[2]!.terminated).toBe(true)
    }
  })
})
