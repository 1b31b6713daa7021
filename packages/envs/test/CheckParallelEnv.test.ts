import { describe, expect, it } from "@effect/vitest"
import { InvalidOptionError, Space } from "@autodidact/core"
import { Effect, Exit } from "effect"
import * as CheckParallelEnv from "../src/checks/CheckParallelEnv.js"
import type { Info } from "../src/Env.js"
import * as GameRegistry from "../src/multiagent/GameRegistry.js"
import * as MultiAgent from "../src/multiagent/MultiAgent.js"

type Par = MultiAgent.ParallelEnv<MultiAgent.MaskedObservation, number>
type StepOut = MultiAgent.ParallelStepResult<MultiAgent.MaskedObservation>

/** A parallel env forwarding to `env`, with some members replaced. */
const delegate = (env: Par, over: Partial<Par>): Par => {
  const base: Par = {
    metadata: env.metadata,
    possibleAgents: env.possibleAgents,
    get agents() {
      return env.agents
    },
    observationSpace: (a) => env.observationSpace(a),
    actionSpace: (a) => env.actionSpace(a),
    reset: (o) => env.reset(o),
    step: (a) => env.step(a),
    close: () => env.close()
  }
  return Object.defineProperties(base, Object.getOwnPropertyDescriptors(over)) as Par
}

/** The findings of a check that must fail. */
const findingsOf = (env: Par): Array<string> => {
  try {
    CheckParallelEnv.checkParallelEnv(env, { numCycles: 30 })
  } catch (e) {
    expect(e).toBeInstanceOf(CheckParallelEnv.ParallelEnvCheckError)
    const err = e as CheckParallelEnv.ParallelEnvCheckError
    expect(err.message).toContain(err.findings[0])
    return [...err.findings]
  }
  return expect.unreachable("checkParallelEnv accepted a broken env")
}

const game = (name: string): Par => MultiAgent.gameToParallel(GameRegistry.loadGame(name))
const mapStep = (env: Par, f: (r: StepOut) => StepOut): Partial<Par> => ({ step: (a) => f(env.step(a)) })

describe("checkParallelEnv (PettingZoo's parallel_api_test)", () => {
  // Every registered game, as gameToParallel and through the AEC round trip aecToParallel(parallelToAec(...)).
  for (const name of GameRegistry.gameNames()) {
    it(`passes on ${name} (gameToParallel and the AEC round trip)`, () => {
      const report = CheckParallelEnv.checkParallelEnv(game(name), { numCycles: 100 })
      expect(report.steps).toBe(100)
      expect(report.episodes).toBeGreaterThan(1)
      expect(report.agentActions).toBe(report.steps * (name.startsWith("matrix_") ? 2 : 1))
      const rt = MultiAgent.aecToParallel(MultiAgent.parallelToAec(game(name)))
      expect(CheckParallelEnv.checkParallelEnv(rt, { numCycles: 60 }).episodes).toBeGreaterThan(1)
    })
  }

  it("is an Effect too, failing with the tagged error", () => {
    expect(Effect.runSync(CheckParallelEnv.check(game("matrix_pd"), { numCycles: 4 })).steps).toBe(4)
    const broken = delegate(game("matrix_pd"), { possibleAgents: [] })
    const exit = Effect.runSyncExit(CheckParallelEnv.check(broken))
    expect(Exit.isFailure(exit)).toBe(true)
  })

  it("refuses bad options with InvalidOptionError", () => {
    expect(() => CheckParallelEnv.checkParallelEnv(game("matrix_pd"), { numCycles: -1 })).toThrow(InvalidOptionError)
    expect(() => CheckParallelEnv.checkParallelEnv(game("matrix_pd"), { seed: 0.5 })).toThrow(/Invalid seed = 0.5/)
  })

  describe("rejects a broken env, naming the property", () => {
    it("possibleAgents", () => {
      expect(findingsOf(delegate(game("matrix_pd"), { possibleAgents: [] }))).toEqual(["possibleAgents: expected a non-empty list, got []"])
      expect(findingsOf(delegate(game("matrix_pd"), { possibleAgents: ["player_0", "player_0"] }))[0]).toMatch(/^possibleAgents: has duplicates/)
    })
    it("spaces", () => {
      const env = game("matrix_pd")
      const f = findingsOf(delegate(env, { actionSpace: () => ({ _tag: "Discrete", n: "three" }) as unknown as Space.Space }))
      expect(f[0]).toMatch(/^spaces: actionSpace\(player_0\) is not a valid space: .*three/)
    })
    it("reset", () => {
      const env = game("kuhn_poker")
      const f = findingsOf(delegate(env, { reset: (o) => ({ observations: { player_0: env.reset(o).observations["player_0"]! }, infos: { player_0: {}, player_1: {} } }) }))
      expect(f).toContain("reset: observations keys [player_0] differ from agents [player_0,player_1]")
    })
    it("agents", () => {
      const env = game("matrix_pd")
      const f = findingsOf(delegate(env, {
        get agents() {
          return env.agents.length > 0 ? [...env.agents, "ghost"] : []
        }
      }))
      expect(f.join("\n")).toMatch(/agents: after reset: agent ghost is not in possibleAgents \[player_0, player_1\]/)
    })
    it("observation", () => {
      const env = game("tic_tac_toe")
      const f = findingsOf(delegate(env, mapStep(env, (r) => ({ ...r, observations: { ...r.observations, player_1: { observation: "\u0007", action_mask: new Uint8Array(9) } } }))))
      expect(f.join("\n")).toMatch(/observation: step 0: observation of player_1 is not in Dict.*\\u0007/)
    })
    it("actionMask", () => {
      const env = game("tic_tac_toe")
      const zero = (o: MultiAgent.MaskedObservation) => ({ ...o, action_mask: new Uint8Array(9) })
      const f = findingsOf(delegate(env, {
        reset: (o) => {
          const r = env.reset(o)
          return { ...r, observations: Object.fromEntries(Object.entries(r.observations).map(([a, x]) => [a, zero(x)])) }
        }
      }))
      expect(f).toContain("actionMask: every live agent [player_0, player_1] has an all-zero action_mask: no agent can act")
      const short = findingsOf(delegate(env, {
        reset: (o) => {
          const r = env.reset(o)
          return { ...r, observations: Object.fromEntries(Object.entries(r.observations).map(([a, x]) => [a, { ...x, action_mask: x.action_mask.subarray(0, 4) }])) }
        }
      }))
      expect(short.join("\n")).toMatch(/actionMask: action_mask of player_0 has 4 entries for Discrete\(9\)/)
    })
    it("step", () => {
      const env = game("matrix_pd")
      const f = findingsOf(delegate(env, { step: () => { throw new Error("boom") } }))
      expect(f[0]).toMatch(/^step: step 0 with actions \{"player_0":\d,"player_1":\d\} threw: boom$/)
    })
    it("keys", () => {
      const env = game("matrix_pd")
      const f = findingsOf(delegate(env, mapStep(env, (r) => ({ ...r, rewards: { ...r.rewards, ghost: 0 } }))))
      expect(f).toContain("keys: step 0: rewards keys [ghost,player_0,player_1] differ from the agents that acted [player_0,player_1]")
    })
    it("reward", () => {
      const env = game("matrix_pd")
      const f = findingsOf(delegate(env, mapStep(env, (r) => ({ ...r, rewards: { ...r.rewards, player_1: Number.NaN } }))))
      expect(f).toContain("reward: step 0: reward of player_1 is not a finite number: null")
    })
    it("flags", () => {
      const env = game("matrix_pd")
      const f = findingsOf(delegate(env, mapStep(env, (r) => ({ ...r, truncations: { ...r.truncations, player_0: 0 as unknown as boolean } }))))
      expect(f).toContain("flags: step 0: truncations of player_0 is not a boolean: 0")
    })
    it("info", () => {
      const env = game("matrix_pd")
      const f = findingsOf(delegate(env, mapStep(env, (r) => ({ ...r, infos: { ...r.infos, player_0: [] as unknown as Info } }))))
      expect(f).toContain("info: step 0: info of player_0 is not an object: []")
    })
    it("agentRemoval", () => {
      const env = game("matrix_pd")
      // Agents stay in `agents` after they terminated.
      let keep: ReadonlyArray<string> = []
      const sticky = delegate(env, {
        get agents() {
          return keep
        },
        reset: (o) => {
          const r = env.reset(o)
          keep = env.agents
          return r
        }
      })
      expect(findingsOf(sticky)).toContain("agentRemoval: step 0: player_0 terminated or was truncated but is still in agents [player_0, player_1]")
      // An agent leaves without a flag.
      const f = findingsOf(delegate(env, mapStep(env, (r) => ({ ...r, terminations: { ...r.terminations, player_1: false } }))))
      expect(f).toContain("agentRemoval: step 0: player_1 left agents without terminating or being truncated")
    })
    it("episodeEnd", () => {
      const env = game("kuhn_poker")
      // The episode ends with no agent flagged: both leave silently.
      const f = findingsOf(delegate(env, mapStep(env, (r) => ({ ...r, terminations: { player_0: false, player_1: false } }))))
      expect(f.join("\n")).toMatch(/episodeEnd: agents is empty but \[player_0, player_1\] never terminated or were truncated/)
    })
    it("unexpected", () => {
      const env = game("matrix_pd")
      let calls = 0
      const f = findingsOf(delegate(env, {
        get agents(): ReadonlyArray<string> {
          if (++calls > 3) throw new Error("agents is gone")
          return env.agents
        }
      }))
      expect(f).toContain("unexpected: the env threw outside the calls the check guards: agents is gone")
    })
    it("determinism", () => {
      const env = game("kuhn_poker")
      let calls = 0
      const f = findingsOf(delegate(env, { reset: (o = {}) => env.reset({ ...o, seed: (o.seed ?? 0) + 1000 * calls++ }) }))
      expect(f[0]).toMatch(/^determinism: two rollouts from reset\(\{ seed: 43 \}\) with the same actions differ at record \d+: /)
    })
  })
})
