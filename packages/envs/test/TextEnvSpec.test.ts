/**
 * Text environments compiled from declarative specs (`TextEnvSpec`): the two reference specs are step-for-step equal
 * to their hand-written twins under the same seeds and commands, snapshots are exact, and broken specs fail at load
 * time with `SpecError` naming what is wrong.
 */
import { Rng } from "@autodidact/core"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as ReferenceSpecs from "../src/text/spec/ReferenceSpecs.js"
import * as TextEnvSpec from "../src/text/spec/TextEnvSpec.js"
import * as TextFrozenLake from "../src/text/TextFrozenLake.js"
import * as TextSokoban from "../src/text/TextSokoban.js"
import type { TextEnv } from "../src/text/TextEnv.js"

/** Play `episodes` seeded episodes of random commands (an invalid one now and then) in both envs; compare every step. */
const lockstep = (hand: TextEnv, spec: TextEnv, episodes: number, steps: number) => {
  const pick = Rng.make(99)
  let compared = 0
  for (let e = 0; e < episodes; e++) {
    const a = hand.reset({ seed: 1000 + e })
    const b = spec.reset({ seed: 1000 + e })
    expect(b.observation).toBe(a.observation)
    expect(spec.stateKey()).toBe(hand.stateKey())
    expect(spec.task).toBe(hand.task)
    for (let t = 0; t < steps; t++) {
      const commands = hand.admissibleActions()
      expect(spec.admissibleActions()).toEqual(commands)
      const command = pick.random() < 0.05 ? "dance" : commands[pick.integers(commands.length)]!
      const x = hand.step(command)
      const y = spec.step(command)
      expect([y.observation, y.reward, y.terminated, y.truncated, spec.stateKey()]).toEqual([x.observation, x.reward, x.terminated, x.truncated, hand.stateKey()])
      expect(y.info["invalidAction"]).toBe(x.info["invalidAction"])
      compared++
      if (x.terminated || x.truncated) break
    }
  }
  return compared
}

describe("TextEnvSpec", () => {
  it("FrozenLake spec = TextFrozenLake-v1 step for step (slippery 4x4 and 8x8: the compiler samples as Gymnasium)", () => {
    for (const mapName of ["4x4", "8x8"] as const) {
      const n = lockstep(new TextFrozenLake.TextFrozenLake({ mapName }), TextEnvSpec.compile(ReferenceSpecs.frozenLakeSpec({ mapName })), 40, 120)
      expect(n).toBeGreaterThan(200)
    }
    // truncation at maxSteps, reached on a map without holes
    const desc = ["SF", "FG"]
    const hand = new TextFrozenLake.TextFrozenLake({ desc, isSlippery: false, maxSteps: 3 })
    const spec = TextEnvSpec.compile(ReferenceSpecs.frozenLakeSpec({ desc, isSlippery: false, maxSteps: 3 }))
    hand.reset({ seed: 0 })
    spec.reset({ seed: 0 })
    for (const c of ["Up", "Left", "Up"]) expect(spec.step(c).truncated).toBe(hand.step(c).truncated)
  })

  it("Sokoban spec = Sokoban-6x6-1box-v0 step for step (same generated levels, push rule and rewards)", () => {
    const n = lockstep(new TextSokoban.TextSokoban(), TextEnvSpec.compile(ReferenceSpecs.sokobanSpec(), { maxStates: 20_000 }), 40, 60)
    expect(n).toBeGreaterThan(1000)
  })

  it("snapshot/restore is exact: the same commands reproduce the same future, stochastic draws included", () => {
    const env = TextEnvSpec.compile(ReferenceSpecs.frozenLakeSpec({ mapName: "8x8" }), { validateSeeds: [] })
    env.reset({ seed: 5 })
    env.step("Right")
    const snap = env.snapshot()
    const future = () => ["Down", "Right", "Down", "Right", "Down"].map((c) => {
      const r = env.step(c)
      return [r.observation, r.reward, r.terminated, env.stateKey()]
    })
    const first = future()
    env.restore(snap)
    expect(future()).toEqual(first)
    const other = TextEnvSpec.compile(ReferenceSpecs.sokobanSpec(), { validateSeeds: [] })
    other.reset({ seed: 1 })
    expect(() => env.restore(other.snapshot())).toThrow(/Sokoban-spec-v0/)
  })

  it("broken specs fail at load time with SpecError naming the problem", () => {
    const base = ReferenceSpecs.frozenLakeSpec()
    const kind = (spec: TextEnvSpec.TextEnvSpec<any>) => {
      try {
        TextEnvSpec.compile(spec)
        return "compiled"
      } catch (e) {
        expect(e).toBeInstanceOf(TextEnvSpec.SpecError)
        return `${(e as TextEnvSpec.SpecError).kind}: ${(e as TextEnvSpec.SpecError).message}`
      }
    }
    // the goal walled off by holes: unreachable
    expect(kind(ReferenceSpecs.frozenLakeSpec({ desc: ["SFH", "FHF", "HFG"] }))).toMatch(/^unreachable-goal: .*level seed 0/)
    // a transition that leaves the schema (a negative cell)
    expect(kind({ ...base, transition: (s) => ({ ...s, cell: -1 }) })).toMatch(/^schema: .*state 0, command "Left"/)
    // probabilities that do not sum to 1
    expect(kind({ ...base, transition: (s) => [[0.5, s], [0.4, s]] })).toMatch(/^distribution: .*sum to 0.9/)
    // a non-finite reward
    expect(kind({ ...base, reward: () => Number.NaN })).toMatch(/^reward: .*NaN/)
    // a state that offers no command
    expect(kind({ ...base, actions: (s: ReferenceSpecs.FrozenLakeState) => (s.cell === 0 ? [] : ["Left"]) })).toMatch(/^dead-end: .*state 0/)
    expect(kind(base)).toBe("compiled")
    // a schema the initial state violates
    expect(kind({ ...base, state: Schema.Struct({ desc: Schema.Array(Schema.String), cell: Schema.String }) as never })).toMatch(/^schema: .*initial state/)
  })
})
