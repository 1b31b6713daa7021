import { ResetNeededError, Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { SnapshotMismatchError } from "../src/Snapshot.js"
import * as Snapshot from "../src/Snapshot.js"
import * as Sokoban from "../src/sokoban/Sokoban.js"
import * as SokobanLevel from "../src/sokoban/SokobanLevel.js"
import * as FrozenLake from "../src/toytext/FrozenLake.js"
import { isRestorableTextEnv, type RestorableTextEnv, type TextEnv } from "../src/text/TextEnv.js"
import * as TextFrozenLake from "../src/text/TextFrozenLake.js"
import * as TextHousehold from "../src/text/TextHousehold.js"
import * as TextSokoban from "../src/text/TextSokoban.js"

/** One step's observable outcome. */
interface Seen {
  readonly action: string
  readonly observation: string
  readonly reward: number
  readonly terminated: boolean
  readonly truncated: boolean
  readonly stateKey: string
  readonly admissible: string
}

/**
 * `n` steps with actions picked by `Rng.make(pickSeed)` from the admissible list (one in 8 an invalid "dance");
 * after an episode ends, a reset WITHOUT a seed (which draws from the env's generator: task, level or map) and on.
 */
const play = (env: TextEnv, n: number, pickSeed: number): Array<Seen> => {
  const pick = Rng.make(pickSeed)
  const out: Array<Seen> = []
  for (let i = 0; i < n; i++) {
    const adm = env.admissibleActions()
    const u = pick.integers(8 * adm.length)
    const action = u % 8 === 7 ? "dance" : adm[Math.floor(u / 8)]!
    const r = env.step(action)
    out.push({
      action,
      observation: r.observation,
      reward: r.reward,
      terminated: r.terminated,
      truncated: r.truncated,
      stateKey: env.stateKey(),
      admissible: env.admissibleActions().join("|")
    })
    if (r.terminated || r.truncated) {
      const reset = env.reset()
      out.push({ action: "(reset)", observation: reset.observation, reward: 0, terminated: false, truncated: false, stateKey: env.stateKey(), admissible: env.admissibleActions().join("|") })
    }
  }
  return out
}

const cases: ReadonlyArray<readonly [string, () => RestorableTextEnv, number]> = [
  ["TextHousehold-v0 (easy, 12 steps/episode)", () => new TextHousehold.TextHousehold({ difficulty: "easy", maxSteps: 12 }), 3],
  ["TextHousehold-v0 (default)", () => new TextHousehold.TextHousehold({ maxSteps: 15 }), 5],
  ["TextHousehold-v0 (hard: rooms and doorways)", () => new TextHousehold.TextHousehold({ difficulty: "hard", maxSteps: 15 }), 17],
  ["Sokoban-6x6-1box-v0 (10 steps/episode)", () => new TextSokoban.TextSokoban({ maxSteps: 10 }), 7],
  ["TextFrozenLake-v1 (slippery 4x4)", () => new TextFrozenLake.TextFrozenLake({ maxSteps: 20 }), 11],
  ["TextFrozenLake-v1 (random maps)", () => new TextFrozenLake.TextFrozenLake({ randomMap: { size: 4, p: 0.8 }, maxSteps: 8 }), 13]
]

describe("Snapshot: snapshot()/restore() of the text envs", () => {
  for (const [name, makeEnv, seed] of cases) {
    it(`${name}: after restore the same actions reproduce the same future (generator included), snapshots stay independent`, () => {
      const env = makeEnv()
      expect(isRestorableTextEnv(env)).toBe(true)
      env.reset({ seed })
      play(env, 9, seed + 100)
      const snap = env.snapshot()
      const keyAtSnap = env.stateKey()
      const future = play(env, 60, seed + 200)
      // the 60 steps crossed episode boundaries, so resets drew from the generator
      expect(future.some((s) => s.action === "(reset)")).toBe(true)
      // mutate: more steps, a reset with another seed, then restore twice
      play(env, 25, seed + 300)
      env.reset({ seed: seed + 1 })
      play(env, 5, seed + 400)
      env.restore(snap)
      expect(env.stateKey()).toBe(keyAtSnap)
      expect(play(env, 60, seed + 200)).toEqual(future)
      env.restore(snap)
      expect(play(env, 60, seed + 200)).toEqual(future)
      // a snapshot taken later does not disturb the earlier one
      const later = env.snapshot()
      const laterFuture = play(env, 20, seed + 500)
      env.restore(snap)
      expect(play(env, 60, seed + 200)).toEqual(future)
      env.restore(later)
      expect(play(env, 20, seed + 500)).toEqual(laterFuture)
    })
  }

  it("a different action from the restored state changes the future (the check can fail)", () => {
    const env = new TextFrozenLake.TextFrozenLake({ isSlippery: false, maxSteps: 50 })
    env.reset({ seed: 0 })
    const snap = env.snapshot()
    const right = env.step("Right").observation
    env.restore(snap)
    expect(env.step("Down").observation).not.toBe(right)
    env.restore(snap)
    expect(env.step("Right").observation).toBe(right)
  })

  it("restoring a finished episode's snapshot makes the env steppable again; an ended one stays ended", () => {
    const env = new TextSokoban.TextSokoban({ maxSteps: 3 })
    env.reset({ seed: 4 })
    const running = env.snapshot()
    env.step("Up")
    env.step("Up")
    expect(env.step("Up").truncated).toBe(true)
    const ended = env.snapshot()
    expect(() => env.step("Up")).toThrow(ResetNeededError)
    env.restore(running)
    expect(env.step("Left").truncated).toBe(false)
    env.restore(ended)
    expect(() => env.step("Up")).toThrow(ResetNeededError)
  })

  it("restoring a snapshot of another instance or another kind: SnapshotMismatchError naming both", () => {
    const a = new TextHousehold.TextHousehold({ difficulty: "easy" })
    const b = new TextHousehold.TextHousehold({ difficulty: "easy" })
    const s = new TextSokoban.TextSokoban()
    a.reset({ seed: 1 })
    b.reset({ seed: 1 })
    s.reset({ seed: 1 })
    const fromA = a.snapshot()
    expect(fromA.envId).toBe("TextHousehold-v0")
    const err = (() => {
      try {
        b.restore(fromA)
      } catch (e) {
        return e
      }
    })()
    expect(err).toBeInstanceOf(SnapshotMismatchError)
    expect((err as SnapshotMismatchError).message).toContain("different instance")
    expect(() => s.restore(fromA)).toThrow(/TextHousehold-v0 snapshot into Sokoban-6x6-1box-v0/)
    expect(() => a.restore(s.snapshot())).toThrow(SnapshotMismatchError)
    expect(() => a.restore({ envId: "TextHousehold-v0" })).toThrow(/not a snapshot returned by snapshot\(\)/)
    expect(() => a.restore(null as never)).toThrow(/\(not a snapshot\)/)
  })

  it("snapshot() before the first reset throws ResetNeededError", () => {
    expect(() => new TextHousehold.TextHousehold().snapshot()).toThrow(ResetNeededError)
    expect(() => new TextSokoban.TextSokoban().snapshot()).toThrow(ResetNeededError)
    expect(() => new TextFrozenLake.TextFrozenLake().snapshot()).toThrow(ResetNeededError)
  })

  it("Sokoban-v0 and FrozenLake-v1 (the inner envs) restore too; isRestorable", () => {
    const level = SokobanLevel.fromRows(["######", "#@$ .#", "######"])
    const sok = new Sokoban.Sokoban({ level })
    sok.reset({ seed: 0 })
    expect(Snapshot.isRestorable(sok)).toBe(true)
    expect(Snapshot.isRestorable({})).toBe(false)
    const s0 = sok.snapshot()
    expect(sok.step(4).reward).toBeCloseTo(-0.1, 12)
    expect(sok.step(4).reward).toBeCloseTo(10.9, 12)
    sok.restore(s0)
    expect(sok.render()).toBe("######\n#@$ .#\n######")
    expect(sok.step(4).reward).toBeCloseTo(-0.1, 12)
    const fl = new FrozenLake.FrozenLakeEnv({ mapName: "8x8" })
    fl.reset({ seed: 3 })
    const f0 = fl.snapshot()
    const walk = (): Array<number> => {
      const cells: Array<number> = []
      for (let i = 0; i < 12; i++) {
        const r = fl.step((i * 3) % 4)
        cells.push(r.observation)
        if (r.terminated) break
      }
      return cells
    }
    const path = walk()
    fl.restore(f0)
    expect(walk()).toEqual(path)
  })
})
