import { describe, expect, it } from "@effect/vitest"
import { Space } from "@autodidact/core"
import { IllegalActionError } from "../src/multiagent/Game.js"
import * as CheckAecEnv from "../src/checks/CheckAecEnv.js"
import * as GameRegistry from "../src/multiagent/GameRegistry.js"
import * as MultiAgent from "../src/multiagent/MultiAgent.js"
import * as TicTacToe from "../src/multiagent/TicTacToe.js"
import * as TreeGame from "../src/multiagent/TreeGame.js"

describe("MultiAgent AEC", () => {
  it("plays tic-tac-toe: turns, masks, cumulative rewards and dead steps", () => {
    const env = MultiAgent.gameToAec(GameRegistry.loadGame("tic_tac_toe"))
    env.reset({ seed: 0 })
    expect(env.possibleAgents).toEqual(["player_0", "player_1"])
    expect(env.agents).toEqual(["player_0", "player_1"])
    const moves = [0, 3, 1, 4, 2] // x wins on the top row
    const order: Array<string> = []
    for (const m of moves) {
      order.push(env.agentSelection)
      const last = env.last()
      expect(last.termination).toBe(false)
      expect(last.observation.action_mask[m]).toBe(1)
      expect(Space.contains(env.observationSpace(env.agentSelection), last.observation)).toBe(true)
      // the agent not to act sees an all-zero mask
      const other = env.agentSelection === "player_0" ? "player_1" : "player_0"
      expect(env.observe(other).action_mask.every((v) => v === 0)).toBe(true)
      env.step(m)
    }
    expect(order).toEqual(["player_0", "player_1", "player_0", "player_1", "player_0"])
    expect(env.rewards).toEqual({ player_0: 1, player_1: -1 })
    expect(env.terminations).toEqual({ player_0: true, player_1: true })
    // o is selected next and sees its -1, then x sees its +1; both must be stepped with null.
    expect(env.agentSelection).toBe("player_1")
    expect(env.last()).toMatchObject({ reward: -1, termination: true })
    expect(() => env.step(5)).toThrow()
    env.step(null)
    expect(env.agents).toEqual(["player_0"])
    expect(env.last()).toMatchObject({ reward: 1, termination: true })
    env.step(null)
    expect(env.agents).toEqual([])
  })

  it("plays Kuhn poker with chance sampled from the seed, deterministically", () => {
    const run = (seed: number) => {
      const env = MultiAgent.gameToAec(GameRegistry.loadGame("kuhn_poker"))
      env.reset({ seed })
      const seen: Array<string> = []
      while (env.agents.length > 0) {
        const { observation, termination, reward } = env.last()
        seen.push(`${env.agentSelection}:${observation.observation}:${reward}`)
        env.step(termination ? null : 1)
      }
      return seen
    }
    const a = run(3)
    expect(run(3)).toEqual(a)
    // always bet: bet, call, then showdown; the two dead steps show +-2
    expect(a).toHaveLength(4)
    expect(a[0]).toMatch(/^player_0:\d:0$/)
    expect(a[1]).toMatch(/^player_1:\db:0$/)
    const finals = a.slice(2).map((x) => Number(x.split(":")[2]))
    expect(finals.sort()).toEqual([-2, 2])
    // the dealt cards differ across seeds at least once
    const deals = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((s) => run(s)[0]!.split(":")[1]))
    expect(deals.size).toBeGreaterThan(1)
  })

  it("rejects illegal and null actions from live agents", () => {
    const env = MultiAgent.gameToAec(TicTacToe.make())
    env.reset()
    env.step(4)
    expect(() => env.step(4)).toThrow(IllegalActionError)
    expect(() => env.step(null)).toThrow()
  })

  it("encodes observations as tensors when asked", () => {
    const env = MultiAgent.gameToAec(TicTacToe.make(), {
      encode: { shape: [27], fn: (s, _p, out) => (s as TicTacToe.TicTacToeState).observationTensor(out) }
    })
    env.reset()
    env.step(4)
    const obs = env.observe("player_1").observation as Float32Array
    expect(obs[2 * 9 + 4]).toBe(1)
    expect(CheckAecEnv.checkAecEnv(env, { numCycles: 50 }).steps).toBe(100)
  })
})

describe("MultiAgent Parallel", () => {
  it("requires an action from the agent to act", () => {
    const env = MultiAgent.gameToParallel(TicTacToe.make())
    const { observations } = env.reset({ seed: 1 })
    expect(Object.keys(observations)).toEqual(["player_0", "player_1"])
    expect(() => env.step({ player_1: 3 })).toThrow(/an action for player_0/)
  })

  it("plays a scripted tic-tac-toe game to a win", () => {
    const env = MultiAgent.gameToParallel(TicTacToe.make())
    env.reset()
    const moves = [0, 3, 1, 4, 2]
    let r: MultiAgent.ParallelStepResult<MultiAgent.MaskedObservation> | undefined
    for (let i = 0; i < moves.length; i++) {
      const agent = i % 2 === 0 ? "player_0" : "player_1"
      r = env.step({ [agent]: moves[i]! })
    }
    expect(r!.rewards).toEqual({ player_0: 1, player_1: -1 })
    expect(r!.terminations).toEqual({ player_0: true, player_1: true })
    expect(env.agents).toEqual([])
  })

  it("plays Kuhn poker and matrix games (all players move in one step)", () => {
    const kuhn = MultiAgent.gameToParallel(GameRegistry.loadGame("kuhn_poker"))
    kuhn.reset({ seed: 2 })
    kuhn.step({ player_0: 0, player_1: null })
    const r = kuhn.step({ player_0: null, player_1: 0 })
    expect(Object.values(r.rewards).sort()).toEqual([-1, 1])
    expect(kuhn.agents).toEqual([])
    const rps = MultiAgent.gameToParallel(GameRegistry.loadGame("matrix_rps"))
    rps.reset()
    const out = rps.step({ player_0: 1, player_1: 0 })
    expect(out.rewards).toEqual({ player_0: 1, player_1: -1 })
    expect(rps.agents).toEqual([])
  })

  it("converts parallel -> AEC -> parallel with PettingZoo's semantics", () => {
    const aec = MultiAgent.parallelToAec(MultiAgent.gameToParallel(GameRegistry.loadGame("matrix_pd")))
    aec.reset({ seed: 0 })
    expect(aec.agentSelection).toBe("player_0")
    aec.step(1)
    expect(aec.rewards).toEqual({ player_0: 0, player_1: 0 })
    expect(aec.agentSelection).toBe("player_1")
    aec.step(0)
    expect(aec.rewards).toEqual({ player_0: 10, player_1: 0 })
    expect(aec.terminations).toEqual({ player_0: true, player_1: true })
    expect(aec.last().reward).toBe(10) // player_0 is the first dead agent
    aec.step(null)
    aec.step(null)
    expect(aec.agents).toEqual([])
    const par = MultiAgent.aecToParallel(MultiAgent.parallelToAec(MultiAgent.gameToParallel(GameRegistry.loadGame("matrix_pd"))))
    par.reset({ seed: 0 })
    const r = par.step({ player_0: 0, player_1: 1 })
    expect(r.rewards).toEqual({ player_0: 0, player_1: 10 })
    expect(r.terminations).toEqual({ player_0: true, player_1: true })
    expect(par.agents).toEqual([])
  })

  it("aecToParallel refuses an AEC env whose agents do not act in cycles", () => {
    const par = MultiAgent.aecToParallel(MultiAgent.gameToAec(GameRegistry.loadGame("kuhn_poker(players=3)")))
    par.reset({ seed: 0 })
    // p0 checks, p1 bets, p2 calls; then p0 calls and the hand ends mid-cycle, before p1 and p2 act again.
    par.step({ player_0: 0, player_1: 1, player_2: 1 })
    // PettingZoo then dead-steps player_1 with its (non-null) action, which is refused.
    expect(() => par.step({ player_0: 1, player_1: 0, player_2: 0 })).toThrow(/null \(the agent is dead\)/)
    // A game where player 0 moves twice in a row breaks the cycle.
    const leaf = { terminal: [0, 0] }
    const twice = TreeGame.fromTree("twice", {
      player: 0,
      infoSet: "a",
      actions: [{ label: "x", child: { player: 0, infoSet: "b", actions: [{ label: "y", child: { player: 1, infoSet: "c", actions: [{ label: "z", child: leaf }] } }] } }]
    })
    const par2 = MultiAgent.aecToParallel(MultiAgent.gameToAec(twice))
    par2.reset({ seed: 0 })
    expect(() => par2.step({ player_0: 0, player_1: 0 })).toThrow(/expected agent player_1 got agent player_0/)
  })
})

/** An AEC env forwarding to `env`, with some members replaced. */
const delegate = <O, A>(env: MultiAgent.AecEnv<O, A>, over: Partial<MultiAgent.AecEnv<O, A>>): MultiAgent.AecEnv<O, A> => {
  const base: MultiAgent.AecEnv<O, A> = {
    metadata: env.metadata,
    possibleAgents: env.possibleAgents,
    get agents() {
      return env.agents
    },
    get agentSelection() {
      return env.agentSelection
    },
    get rewards() {
      return env.rewards
    },
    get terminations() {
      return env.terminations
    },
    get truncations() {
      return env.truncations
    },
    get infos() {
      return env.infos
    },
    observationSpace: (a) => env.observationSpace(a),
    actionSpace: (a) => env.actionSpace(a),
    reset: (o) => env.reset(o),
    observe: (a) => env.observe(a),
    last: () => env.last(),
    step: (a) => env.step(a),
    close: () => env.close()
  }
  return Object.defineProperties(base, Object.getOwnPropertyDescriptors(over)) as MultiAgent.AecEnv<O, A>
}

describe("checkAecEnv (PettingZoo's api_test)", () => {
  it("is also MultiAgent.checkAecEnv, and MultiAgent.apiTest is its deprecated alias", () => {
    expect(MultiAgent.checkAecEnv).toBe(CheckAecEnv.checkAecEnv)
    expect(MultiAgent.apiTest).toBe(CheckAecEnv.checkAecEnv)
    expect(CheckAecEnv.apiTest).toBe(CheckAecEnv.checkAecEnv)
  })

  it("passes on the game adapters and converters", () => {
    for (const name of ["kuhn_poker", "kuhn_poker(players=3)", "leduc_poker", "tic_tac_toe", "liars_dice", "matrix_rps"]) {
      const report = CheckAecEnv.checkAecEnv(MultiAgent.gameToAec(GameRegistry.loadGame(name)), { numCycles: 100 })
      expect(report.episodes).toBeGreaterThan(1)
    }
    const rt = MultiAgent.parallelToAec(MultiAgent.gameToParallel(GameRegistry.loadGame("matrix_shapleys_game")))
    expect(CheckAecEnv.checkAecEnv(rt, { numCycles: 50 }).episodes).toBe(25) // 100 agent steps: 2 moves + 2 dead steps per episode
  })

  it("fails on a broken env, listing the findings", () => {
    const env = MultiAgent.gameToAec(TicTacToe.make())
    // Break it: observations outside the space and a reward key for an agent that does not exist.
    const broken = delegate(env, {
      get rewards() {
        return { ...env.rewards, ghost: 0 }
      },
      observe: (a: string) => ({ ...env.observe(a), observation: "\u0007bell" }),
      last: () => ({ ...env.last(), observation: { ...env.last().observation, observation: "\u0007bell" } })
    })
    try {
      CheckAecEnv.checkAecEnv(broken, { numCycles: 10 })
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(MultiAgent.ApiTestError)
      const findings = (e as MultiAgent.ApiTestError).findings.join("\n")
      expect(findings).toMatch(/observation of player_0 is not in Dict/)
      expect(findings).toMatch(/rewards keys \[ghost,player_0,player_1\] differ from agents/)
    }
  })

  it("catches a reset that ignores the seed", () => {
    const env = MultiAgent.gameToAec(GameRegistry.loadGame("kuhn_poker"))
    let calls = 0
    const sloppy = delegate(env, { reset: (o: MultiAgent.ResetOptions = {}) => env.reset({ ...o, seed: (o.seed ?? 0) + calls++ }) })
    try {
      CheckAecEnv.checkAecEnv(sloppy, { numCycles: 20 })
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(MultiAgent.ApiTestError)
      expect((e as MultiAgent.ApiTestError).findings.join("\n")).toMatch(/two rollouts with seed 43 differ/)
    }
  })

  it("catches a dead agent that accepts an action", () => {
    const env = MultiAgent.gameToAec(TicTacToe.make())
    const lax = delegate(env, { step: (a: number | null) => env.step(env.terminations[env.agentSelection] === true ? null : a) })
    expect(() => CheckAecEnv.checkAecEnv(lax, { numCycles: 20 })).toThrow(/stepping dead agent player_\d with a non-null action did not throw/)
  })
})
