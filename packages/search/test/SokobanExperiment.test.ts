import { InvalidOptionError, Rng } from "@autodidact/core"
import { SokobanLevel, TextSokoban } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { BestFirst, SokobanExperiment } from "@autodidact/search"
import { sokobanValue } from "./fixtures.js"

// 5x5: the box is right of the player, the target right of the box: "Right" solves in one push.
const ONE_PUSH = SokobanLevel.fromRows(["#####", "#@$.#", "#   #", "#   #", "#####"])
// a 6x6 one-box level whose solution needs a detour (16 steps); greedy one-step lookahead on the hand value oscillates
const LEVEL_F = SokobanLevel.fromRows(["######", "#@   #", "#  $ #", "## # #", "#.   #", "######"])

const at = (level: SokobanLevel.Level) => {
  const env = new TextSokoban.TextSokoban({ size: level.width, maxSteps: Infinity })
  const { observation } = env.reset({ options: { level } })
  return { env, observation }
}

const always = (action: string): SokobanExperiment.Method["policy"] => () => action

describe("SokobanExperiment", () => {
  it("best-first with a hand value solves a level that the greedy policy on the same value fails within the same budget", () => {
    const { env, observation } = at(LEVEL_F)
    // greedy policy: one-step lookahead on the hand value (a model of the env: it restores after looking)
    const greedy: SokobanExperiment.Method = {
      name: "greedy on the value",
      kind: "greedy",
      policy: (input) => {
        const snap = env.snapshot()
        let best = input.admissible[0]!
        let bestV = -Infinity
        for (const a of input.admissible) {
          env.restore(snap)
          const s = env.step(a)
          const v = s.terminated ? Infinity : sokobanValue(s.observation)
          if (v > bestV) {
            bestV = v
            best = a
          }
        }
        env.restore(snap)
        return best
      }
    }
    const g = SokobanExperiment.solve(env, observation, greedy, 500, 500, 0)
    expect(g.solved).toBe(false)
    expect(g.envSteps).toBe(500)
    const { env: e2, observation: o2 } = at(LEVEL_F)
    const b = SokobanExperiment.solve(e2, o2, { name: "bf", kind: "best-first", value: () => (input) => sokobanValue(input.observation) }, 500, 500, 0)
    expect(b.solved).toBe(true)
    expect(b.envSteps).toBeLessThanOrEqual(500)
    // the box-distance heuristic (from the state key) also solves it; breadth-first needs more than 60 steps
    const { env: e3, observation: o3 } = at(LEVEL_F)
    expect(SokobanExperiment.solve(e3, o3, { name: "h", kind: "best-first", value: SokobanExperiment.boxDistanceValue }, 500, 500, 0).solved).toBe(true)
    const { env: e4, observation: o4 } = at(LEVEL_F)
    expect(SokobanExperiment.solve(e4, o4, { name: "bfs", kind: "best-first", value: () => SokobanExperiment.constantValue() }, 60, 60, 0).solved).toBe(false)
  })

  it("counts env steps exactly (hand cases): every step of every attempt and every expansion, restores apart", () => {
    const { env, observation } = at(ONE_PUSH)
    // the policy "Right" solves with its first step
    expect(SokobanExperiment.solve(env, observation, { name: "r", kind: "greedy", policy: always("Right") }, 10, 10, 0)).toEqual({ solved: true, envSteps: 1, restores: 0 })
    // "Left" bumps the wall forever: attempts of 2 steps, budget 5 -> steps 2 + 2 + 1, two restarts
    env.reset({ options: { level: ONE_PUSH } })
    expect(SokobanExperiment.solve(env, observation, { name: "l", kind: "sampled", policy: always("Left") }, 5, 2, 0)).toEqual({ solved: false, envSteps: 5, restores: 2 })
    // best-first expands the root's edges Up (wall), Down, Left (wall), Right (goal): 4 steps; with 3 it fails
    const bfs: SokobanExperiment.Method = { name: "bfs", kind: "best-first", value: () => SokobanExperiment.constantValue() }
    env.reset({ options: { level: ONE_PUSH } })
    expect(SokobanExperiment.solve(env, observation, bfs, 100, 1, 0)).toMatchObject({ solved: true, envSteps: 4 })
    env.reset({ options: { level: ONE_PUSH } })
    expect(SokobanExperiment.solve(env, observation, bfs, 3, 1, 0)).toMatchObject({ solved: false, envSteps: 3 })
    // run() plays each method once with the largest budget and reads smaller budgets off the solving step
    const rows = SokobanExperiment.run([{ name: "one push", make: () => new TextSokoban.TextSokoban({ size: 5, maxSteps: Infinity }), levels: [{ options: { level: ONE_PUSH } }], attemptSteps: 2 }], [bfs], [3, 4])
    expect(rows.map((r) => [r.budget, r.solved, r.medianStepsToSolve])).toEqual([[3, 0, Number.NaN], [4, 1, 4]])
    expect(SokobanExperiment.formatMarkdown(rows, "load 0")).toContain("| one push | bfs | 0/1 | 1/1 | 4 |")
  })

  it("bad budgets and attempt lengths are typed errors naming the field", () => {
    const { env, observation } = at(ONE_PUSH)
    for (const method of [{ name: "g", kind: "greedy", policy: always("Right") }, { name: "b", kind: "best-first", value: () => SokobanExperiment.constantValue() }] as const) {
      for (const budget of [0, Number.NaN, -3, 1.5, Infinity]) {
        let err: unknown
        try {
          SokobanExperiment.solve(env, observation, method, budget, 10, 0)
        } catch (e) {
          err = e
        }
        expect(err).toBeInstanceOf(InvalidOptionError)
        expect((err as InvalidOptionError).option).toBe("budget.envSteps")
      }
    }
    expect(() => SokobanExperiment.solve(env, observation, { name: "s", kind: "sampled", policy: always("Right") }, 10, 0, 0)).toThrow(/attemptSteps/)
    expect(() => SokobanExperiment.solve(env, observation, { name: "s", kind: "sampled" }, 10, 5, 0)).toThrow(InvalidOptionError)
  })

  it("box-distance value and Monte Carlo samples, by hand", () => {
    const { env } = at(LEVEL_F)
    // box at (row 2, col 3), goal at (4, 1): distance 2 + 2
    expect(SokobanExperiment.boxDistanceValue(env)({ task: "", observation: "", admissible: [], history: [] }, env.stateKey())).toBe(-4)
    // "Down" then "Up" then "Right" on ONE_PUSH: rewards -0.1, -0.1, -0.1 + 1 + 10 -> returns-to-go 10.7, 10.8, 10.9
    const script = ["Down", "Up", "Right"]
    const samples = SokobanExperiment.collectSamples(new TextSokoban.TextSokoban({ size: 5 }), [{ options: { level: ONE_PUSH } }], (input) => script[input.history.length]!, { episodes: 2, maxSteps: 10, rng: Rng.make(0) })
    expect(samples.map((s) => s.target)).toEqual([10.7, 10.8, 10.9, 10.7, 10.8, 10.9].map((x) => expect.closeTo(x, 12)))
    expect(samples[2]!.input.history?.map((h) => h.action)).toEqual(["Down", "Up"])
    // a plain best-first run from the same start agrees with solve's count
    const { env: e2, observation: o2 } = at(ONE_PUSH)
    expect(BestFirst.bestFirst(e2, o2, { budget: { envSteps: 100 }, value: () => 0 }).stats.envSteps).toBe(4)
  })
})
