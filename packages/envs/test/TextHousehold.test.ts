import { InvalidActionError, InvalidOptionError, ResetNeededError, Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { checkEnv } from "../src/checks/CheckEnv.js"
import * as Registry from "../src/Registry.js"
import { isTextEnv } from "../src/text/TextEnv.js"
import * as TextHousehold from "../src/text/TextHousehold.js"
import * as World from "../src/text/TextHouseholdWorld.js"

const N = 200

/** `f()` throws InvalidOptionError naming `option` and `value`. */
const bad = (f: () => unknown, option: string, value: unknown) => {
  try {
    f()
    expect.unreachable()
  } catch (e) {
    expect(e).toMatchObject({ _tag: "InvalidOptionError", option, value })
  }
}

const runExpert = (env: TextHousehold.TextHousehold) => {
  let steps = 0
  for (;;) {
    const a = env.expertAction()
    expect(env.admissibleActions()).toContain(a)
    const r = env.step(a)
    steps++
    expect(r.observation).not.toBe("Nothing happens.")
    if (r.terminated || r.truncated) return { won: r.terminated && r.reward === 1, steps }
  }
}

describe("TextHousehold", () => {
  for (const split of World.SPLITS) {
    it(`the expert solves ${N} generated ${split} tasks within 50 steps, every task type`, () => {
      const env = new TextHousehold.TextHousehold({ split })
      let total = 0
      const byType = new Map<string, number>()
      for (let k = 0; k < N; k++) {
        env.reset({ seed: 1000 + k })
        const { won, steps } = runExpert(env)
        expect(won, `${split} task ${k}: ${env.task}`).toBe(true)
        expect(steps).toBeLessThanOrEqual(50)
        total += steps
        byType.set(env.world!.taskType, (byType.get(env.world!.taskType) ?? 0) + 1)
      }
      expect([...byType.keys()].sort()).toEqual([...World.TASK_TYPES].sort())
      console.log(`TextHousehold expert, ${split}: ${N}/${N} solved, mean ${(total / N).toFixed(2)} steps`)
    })
  }

  it("the expert also solves the easy configuration and recovers from random detours", () => {
    const env = new TextHousehold.TextHousehold({ difficulty: "easy" })
    const rng = Rng.make(7)
    for (let k = 0; k < 100; k++) {
      env.reset({ seed: k })
      // 10 random admissible actions first (may pick up a wrong object, open things, ...)
      let ended = false
      for (let i = 0; i < 10 && !ended; i++) {
        const acts = env.admissibleActions()
        const r = env.step(acts[rng.integers(acts.length)]!)
        ended = r.terminated || r.truncated
      }
      if (ended) continue
      expect(runExpert(env).won).toBe(true)
    }
  })

  it("a random admissible-action policy rarely succeeds", () => {
    const env = new TextHousehold.TextHousehold({})
    const rng = Rng.make(0)
    let wins = 0
    const episodes = 300
    for (let k = 0; k < episodes; k++) {
      env.reset({ seed: k })
      for (;;) {
        const acts = env.admissibleActions()
        const r = env.step(acts[rng.integers(acts.length)]!)
        if (r.terminated || r.truncated) {
          if (r.terminated) wins++
          break
        }
      }
    }
    console.log(`TextHousehold random admissible policy: ${wins}/${episodes} = ${(wins / episodes).toFixed(3)} success`)
    expect(wins / episodes).toBeLessThan(0.15)
  })

  it("reset is reproducible: same seed and options give the same task, observation, state and admissible actions", () => {
    const a = new TextHousehold.TextHousehold({})
    const b = new TextHousehold.TextHousehold({})
    for (const split of World.SPLITS) {
      for (let s = 0; s < 20; s++) {
        const ra = a.reset({ seed: s, options: { split } })
        const rb = b.reset({ seed: s, options: { split } })
        expect(rb.observation).toBe(ra.observation)
        expect(b.task).toBe(a.task)
        expect(b.stateKey()).toBe(a.stateKey())
        expect(b.admissibleActions()).toEqual(a.admissibleActions())
        expect(b.render()).toBe(a.render())
        // a few identical steps stay identical
        for (let i = 0; i < 5; i++) {
          const act = a.expertAction()
          const sa = a.step(act)
          expect(b.step(act).observation).toBe(sa.observation)
          expect(b.stateKey()).toBe(a.stateKey())
          if (sa.terminated) break
        }
      }
    }
    // taskIndex names a task independently of the seed; splits give different tasks
    const t1 = a.reset({ seed: 1, options: { taskIndex: 5 } }).observation
    const t2 = a.reset({ seed: 2, options: { taskIndex: 5 } }).observation
    expect(t2).toBe(t1)
    const t3 = a.reset({ seed: 1, options: { taskIndex: 5, split: "seen" } }).observation
    expect(t3).not.toBe(t1)
  })

  it("splits are disjoint: train/seen never contain unseen layouts or unseen (object, receptacle) pairs", () => {
    const env = new TextHousehold.TextHousehold({})
    const trainLayouts = new Set<string>()
    const trainGoals = new Set<string>()
    for (const split of ["train", "seen"] as const) {
      for (let k = 0; k < 1500; k++) {
        env.reset({ options: { split, taskIndex: k } })
        const w = env.world!
        expect(World.isUnseenLayout(w.room, w.layoutVariant)).toBe(false)
        expect(World.isUnseenPair(w.goalObject, w.goalReceptacle)).toBe(false)
        trainLayouts.add(`${w.room}|${w.layoutVariant}`)
        trainGoals.add(`${w.goalObject}|${w.goalReceptacle}`)
        // initial placements avoid unseen pairs too
        for (let o = 0; o < w.objectNames.length; o++) {
          const t = w.objectTypes[o]!
          if (t < 0) continue
          const rt = World.RECEPTACLE_TYPES[w.receptacleTypes[w.objectLocations[o]!]!]!.name
          expect(World.isUnseenPair(World.OBJECT_TYPES[t]!.name, rt)).toBe(false)
        }
      }
    }
    let unseenCount = 0
    for (let k = 0; k < 1500; k++) {
      env.reset({ options: { split: "unseen", taskIndex: k } })
      const w = env.world!
      expect(World.isUnseenLayout(w.room, w.layoutVariant)).toBe(true)
      expect(World.isUnseenPair(w.goalObject, w.goalReceptacle)).toBe(true)
      expect(trainLayouts.has(`${w.room}|${w.layoutVariant}`)).toBe(false)
      expect(trainGoals.has(`${w.goalObject}|${w.goalReceptacle}`)).toBe(false)
      unseenCount++
    }
    expect(unseenCount).toBe(1500)
  })

  it("admissible actions are exactly the valid ones", () => {
    const env = new TextHousehold.TextHousehold({ numDistractors: 6 })
    const rng = Rng.make(3)
    const bogus = ["jump", "go to moon 1", "take unicorn 1 from bed 1", "open sofa 1", "", "put mug 1 in/on sinkbasin 1"]
    for (let k = 0; k < 40; k++) {
      env.reset({ seed: k })
      for (let i = 0; i < 30; i++) {
        const acts = env.admissibleActions()
        expect([...acts].sort()).toEqual(acts)
        expect(new Set(acts).size).toBe(acts.length)
        const w = env.world!
        // candidates that are syntactically fine but maybe not valid now
        const candidates: Array<string> = [...bogus]
        for (const r of w.receptacleNames) {
          candidates.push(`go to ${r}`, `open ${r}`, `close ${r}`, `examine ${r}`)
          for (const o of w.objectNames) {
            candidates.push(`take ${o} from ${r}`, `move ${o} to ${r}`, `heat ${o} with ${r}`, `cool ${o} with ${r}`, `clean ${o} with ${r}`)
          }
        }
        for (const o of w.objectNames) candidates.push(`use ${o}`, `examine ${o}`)
        for (let j = 0; j < 8; j++) {
          const c = candidates[rng.integers(candidates.length)]!
          const key = env.stateKey()
          if (!acts.includes(c)) {
            const r = env.step(c)
            expect(r.observation).toBe("Nothing happens.")
            expect(r.info["invalidAction"]).toBe(true)
            expect(r.reward).toBe(0)
            expect(env.stateKey()).toBe(key)
            if (r.truncated) break
          }
        }
        if (!env.admissibleActions().length || env.elapsedSteps >= 50) break
        const a = acts[rng.integers(acts.length)]!
        const r = env.step(a)
        expect(r.observation).not.toBe("Nothing happens.")
        expect(r.info["invalidAction"]).toBe(false)
        if (r.terminated || r.truncated) break
      }
    }
  })

  it("matching ignores case and extra whitespace", () => {
    const env = new TextHousehold.TextHousehold({})
    env.reset({ seed: 0 })
    const a = env.admissibleActions().find((x) => x.startsWith("go to"))!
    const r = env.step(`  ${a.toUpperCase().replace(" ", "   ")} \n`)
    expect(r.info["invalidAction"]).toBe(false)
    expect(r.observation.startsWith("You arrive at")).toBe(true)
  })

  it("invalid actions: penalize (custom penalty, counted step, truncation at 50) or error", () => {
    const env = new TextHousehold.TextHousehold({ invalidActionPenalty: -0.1 })
    env.reset({ seed: 0 })
    for (let i = 1; i <= 50; i++) {
      const r = env.step("dance")
      expect(r.reward).toBe(-0.1)
      expect(r.truncated).toBe(i === 50)
      expect(r.terminated).toBe(false)
    }
    expect(() => env.step("look")).toThrow(ResetNeededError)
    const strict = new TextHousehold.TextHousehold({ invalidActionPolicy: "error" })
    expect(() => strict.step("look")).toThrow(ResetNeededError)
    strict.reset({ seed: 0 })
    expect(() => strict.step("dance")).toThrow(InvalidActionError)
    expect(strict.step("look").reward).toBe(0)
    expect(() => new TextHousehold.TextHousehold({ split: "test" as never })).toThrow(InvalidOptionError)
    expect(() => new TextHousehold.TextHousehold({ numDistractors: -1 })).toThrow(InvalidOptionError)
    expect(() => env.reset({ options: { taskIndex: -1 } })).toThrow(InvalidOptionError)
  })

  it("stateKey: equal for equal states reached by different paths, different otherwise", () => {
    const env = new TextHousehold.TextHousehold({})
    for (let k = 0; k < 30; k++) {
      env.reset({ seed: k })
      const k0 = env.stateKey()
      const w = env.world!
      const r0 = w.receptacleNames[0]!
      const r1 = w.receptacleNames[1]!
      env.step(`go to ${r0}`)
      const atR0 = env.stateKey()
      expect(atR0).not.toBe(k0)
      env.step(`go to ${r1}`)
      env.step("look")
      env.step("inventory")
      env.step(`go to ${r0}`)
      expect(env.stateKey()).toBe(atR0)
      // open then close is the same state
      const openable = w.receptacleNames.findIndex((_, i) => World.RECEPTACLE_TYPES[w.receptacleTypes[i]!]!.openable)
      if (openable >= 0) {
        env.step(`go to ${w.receptacleNames[openable]}`)
        const before = env.stateKey()
        env.step(`open ${w.receptacleNames[openable]}`)
        expect(env.stateKey()).not.toBe(before)
        env.step(`close ${w.receptacleNames[openable]}`)
        expect(env.stateKey()).toBe(before)
      }
    }
  })

  it("take then move back restores the state key; heat marks the object", () => {
    const env = new TextHousehold.TextHousehold({ taskTypes: ["pick_heat_then_place_in_recep"] })
    env.reset({ seed: 3 })
    const w = env.world!
    const o = w.objectTypes.findIndex((t) => t >= 0 && World.OBJECT_TYPES[t]!.name === w.goalObject)
    const r = w.receptacleNames[w.objectLocations[o]!]!
    const on = w.objectNames[o]!
    env.step(`go to ${r}`)
    if (env.admissibleActions().includes(`open ${r}`)) env.step(`open ${r}`)
    const before = env.stateKey()
    expect(env.step(`take ${on} from ${r}`).observation).toBe(`You pick up the ${on} from the ${r}.`)
    expect(env.step("inventory").observation).toBe(`You are carrying: a ${on}.`)
    expect(env.step(`move ${on} to ${r}`).observation).toBe(`You move the ${on} to the ${r}.`)
    expect(env.stateKey()).toBe(before)
    env.step(`take ${on} from ${r}`)
    const mw = w.receptacleNames.find((n) => n.startsWith("microwave"))!
    expect(env.step(`go to ${mw}`).observation).toBe(`You arrive at ${mw}. The ${mw} is closed.`)
    expect(env.step(`heat ${on} with ${mw}`).observation).toBe(`You heat the ${on} using the ${mw}.`)
    expect(env.step(`examine ${on}`).observation).toBe(`This is a hot ${on}.`)
  })

  it("observations follow ALFWorld's texts", () => {
    const env = new TextHousehold.TextHousehold({})
    const { observation, info } = env.reset({ seed: 0 })
    expect(observation).toMatch(/^-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room\. Looking quickly around you, you see a .+, and a .+\.\n\nYour task is to: .+\.$/)
    expect(info["admissibleActions"]).toEqual(env.admissibleActions())
    expect(env.step("inventory").observation).toBe("You are not carrying anything.")
    expect(env.step("look").observation).toMatch(/^You are in the middle of a room\./)
  })

  it("registers through make (TimeLimit 50) and passes checkEnv; toMessages renders chat turns", () => {
    const env = Registry.make<string, string>("TextHousehold-v0")
    expect(isTextEnv(env.unwrapped)).toBe(true)
    expect(checkEnv(env)).toEqual([])
    const inner = env.unwrapped as TextHousehold.TextHousehold
    const first = env.reset({ seed: 4 })
    const steps = []
    let obs = first.observation
    for (;;) {
      const action = inner.expertAction()
      const r = env.step(action)
      steps.push({ observation: obs, action, reward: r.reward, terminated: r.terminated, truncated: r.truncated, info: r.info })
      obs = r.observation
      if (r.terminated || r.truncated) break
    }
    const msgs = inner.toMessages({ envId: "TextHousehold-v0", task: inner.task, steps, return: 1, length: steps.length })
    expect(msgs[0]!.role).toBe("system")
    expect(msgs[0]!.content).toContain(inner.task)
    expect(msgs.length).toBe(1 + 2 * steps.length)
    expect(msgs[1]!.content).toContain("Your admissible actions of the current situation are: [")
    expect(msgs[2]).toEqual({ role: "assistant", content: steps[0]!.action })
  })

  describe("difficulty hard (a house of rooms joined by doorways)", () => {
    it("the expert solves every one of 200 hard tasks (train and unseen), taking at least twice the default's mean steps on the same task indices; it recovers from detours", () => {
      const rng = Rng.make(11)
      for (const split of ["train", "unseen"] as const) {
        const mean = (difficulty: "default" | "hard") => {
          const env = new TextHousehold.TextHousehold({ split, difficulty, maxSteps: 1000 })
          let total = 0
          for (let k = 0; k < N; k++) {
            env.reset({ seed: 0, options: { taskIndex: k } })
            const { won, steps } = runExpert(env)
            expect(won, `${difficulty} ${split} task ${k}: ${env.task}`).toBe(true)
            total += steps
          }
          return total / N
        }
        const base = mean("default")
        const hard = mean("hard")
        console.log(`TextHousehold expert, ${split}: default ${base.toFixed(2)} steps, hard ${hard.toFixed(2)} (${(hard / base).toFixed(2)}x)`)
        expect(hard).toBeGreaterThanOrEqual(2 * base)
      }
      const env = new TextHousehold.TextHousehold({ difficulty: "hard", maxSteps: 1000 })
      for (let k = 0; k < 40; k++) {
        env.reset({ seed: k })
        for (let i = 0; i < 15; i++) {
          const acts = env.admissibleActions()
          env.step(acts[rng.integers(acts.length)]!)
          if (env.won) break
        }
        if (!env.won) expect(runExpert(env).won).toBe(true)
      }
    })

    it("go to reaches the current room's receptacles and its doorways; walking through one changes the room, its listing and the state key", () => {
      const env = new TextHousehold.TextHousehold({ difficulty: "hard" })
      const { observation } = env.reset({ seed: 3 })
      const house = env.world!.house!
      expect(house.rooms).toHaveLength(World.HARD_ROOMS)
      expect(new Set(house.rooms).size).toBe(World.HARD_ROOMS)
      const names = env.world!.receptacleNames
      const inRoom = (room: number) => names.filter((_, r) => house.receptacleRooms[r] === room)
      const doorways = (room: number) => [room - 1, room + 1].filter((j) => j >= 0 && j < house.rooms.length).map((j) => house.rooms[j]!)
      const gotos = (room: number) => [...inRoom(room), ...doorways(room)].map((n) => `go to ${n}`).sort()
      expect(env.admissibleActions().filter((a) => a.startsWith("go to "))).toEqual(gotos(house.start))
      expect(observation).toContain(`You are in the middle of the ${house.rooms[house.start]}`)
      for (const d of doorways(house.start)) expect(observation).toContain(`a doorway to the ${d}`)
      const key = env.stateKey()
      expect(key.startsWith(`${house.start}:-1|`)).toBe(true)
      const next = house.start === 0 ? 1 : house.start - 1
      const r = env.step(`go to ${house.rooms[next]}`)
      expect(r.observation).toContain(`You walk through the doorway into the ${house.rooms[next]}.`)
      expect(env.admissibleActions().filter((a) => a.startsWith("go to "))).toEqual(gotos(next))
      expect(env.stateKey()).toBe(`${next}:${key.slice(key.indexOf(":") + 1)}`)
      // a receptacle of another room is not admissible from here
      const elsewhere = names.find((_, i) => house.receptacleRooms[i] !== next)!
      expect(env.step(`go to ${elsewhere}`).info["invalidAction"]).toBe(true)
    })

    it("houseRooms is a ladder: 1 to HARD_ROOMS rooms per reset, the expert solving every task and needing more steps as rooms are added; the default equals HARD_ROOMS; bad values are typed errors", () => {
      const env = new TextHousehold.TextHousehold({ split: "unseen", difficulty: "hard", maxSteps: 1000 })
      const means: Array<number> = []
      for (let rooms = 1; rooms <= World.HARD_ROOMS; rooms++) {
        let total = 0
        for (let k = 0; k < 40; k++) {
          env.reset({ seed: 0, options: { taskIndex: k, houseRooms: rooms } })
          expect(env.world!.house!.rooms).toHaveLength(rooms)
          expect(new Set(env.world!.house!.rooms).size).toBe(rooms)
          const { won, steps } = runExpert(env)
          expect(won, `${rooms} rooms, task ${k}: ${env.task}`).toBe(true)
          total += steps
        }
        means.push(total / 40)
      }
      for (let i = 1; i < means.length; i++) expect(means[i]!, `expert mean steps by rooms: ${means.join(", ")}`).toBeGreaterThan(means[i - 1]!)
      // the default house is the HARD_ROOMS one: same world under the same task index
      const other = new TextHousehold.TextHousehold({ split: "unseen", difficulty: "hard", houseRooms: World.HARD_ROOMS })
      env.reset({ seed: 0, options: { taskIndex: 7 } })
      other.reset({ seed: 0, options: { taskIndex: 7 } })
      expect(other.world).toEqual(env.world)
      // numDistractors per reset: more objects
      env.reset({ seed: 0, options: { taskIndex: 7, numDistractors: 0 } })
      const few = env.world!.objectNames.length
      env.reset({ seed: 0, options: { taskIndex: 7, numDistractors: 40 } })
      expect(env.world!.objectNames.length).toBeGreaterThan(few + 20)
      bad(() => env.reset({ options: { houseRooms: 0 } }), "options.houseRooms", 0)
      bad(() => env.reset({ options: { houseRooms: World.HARD_ROOMS + 1 } }), "options.houseRooms", World.HARD_ROOMS + 1)
      bad(() => env.reset({ options: { houseRooms: 2.5 } }), "options.houseRooms", 2.5)
      bad(() => env.reset({ options: { numDistractors: -1 } }), "options.numDistractors", -1)
      bad(() => new TextHousehold.TextHousehold({ houseRooms: 2 }), "houseRooms", 2)
      bad(() => new TextHousehold.TextHousehold({ difficulty: "default" }).reset({ options: { houseRooms: 2 } }), "options.houseRooms", 2)
    })

    it("difficulty per reset: an episode plays as on an env built with that difficulty (room size and house, its distractors and rooms), the next reset without it returns to the constructor's; bad values are typed errors", () => {
      const built = (difficulty: World.Difficulty) => new TextHousehold.TextHousehold({ split: "unseen", difficulty })
      const play = (env: TextHousehold.TextHousehold, k: number, options: Record<string, unknown>) => {
        const first = env.reset({ seed: k, options: { taskIndex: k, ...options } })
        const trace: Array<unknown> = [first.observation, first.info["admissibleActions"], env.world]
        for (let i = 0; i < 6; i++) {
          const r = env.step(env.expertAction())
          trace.push(r.observation, r.reward, r.terminated, env.stateKey(), env.admissibleActions())
          if (r.terminated) break
        }
        return trace
      }
      const cases: ReadonlyArray<[World.Difficulty, World.Difficulty, Record<string, unknown>]> = [
        ["default", "easy", {}],
        ["default", "hard", { houseRooms: 2 }],
        ["hard", "default", {}],
        ["hard", "easy", { numDistractors: 5 }],
        ["easy", "default", {}]
      ]
      for (const [own, other, extra] of cases) {
        const env = built(own)
        const twin = built(other)
        for (let k = 0; k < 8; k++) {
          expect(play(env, k, { difficulty: other, ...extra }), `${own} env, ${other} episode, task ${k}`).toEqual(play(twin, k, extra))
          expect(play(env, k, {}), `${own} env back to its own difficulty, task ${k}`).toEqual(play(built(own), k, {}))
        }
      }
      // the easy room is smaller than the default room of the same task index
      const env = built("default")
      env.reset({ seed: 0, options: { taskIndex: 3, difficulty: "easy" } })
      const small = env.world!.receptacleNames.length
      env.reset({ seed: 0, options: { taskIndex: 3 } })
      expect(env.world!.receptacleNames.length).toBeGreaterThan(small)
      bad(() => env.reset({ options: { difficulty: "medium" } }), "options.difficulty", "medium")
      bad(() => built("hard").reset({ options: { difficulty: "default", houseRooms: 2 } }), "options.houseRooms", 2)
    })

    it("most task objects start hidden in closed receptacles; unseen houses use only unseen layouts, train houses none; a wandering policy hits the 50-step limit", () => {
      let hidden = 0
      let objects = 0
      for (const split of ["train", "unseen"] as const) {
        const env = new TextHousehold.TextHousehold({ split, difficulty: "hard" })
        for (let k = 0; k < 60; k++) {
          env.reset({ seed: k })
          const w = env.world!
          w.house!.rooms.forEach((room, i) => expect(World.isUnseenLayout(room, w.house!.layoutVariants[i]!)).toBe(split === "unseen"))
          w.objectTypes.forEach((t, o) => {
            if (t < 0) return
            objects++
            if (World.RECEPTACLE_TYPES[w.receptacleTypes[w.objectLocations[o]!]!]!.openable) hidden++
          })
        }
      }
      expect(hidden / objects).toBeGreaterThan(0.5)
      const env = new TextHousehold.TextHousehold({ difficulty: "hard" })
      const rng = Rng.make(5)
      let lengths = 0
      let wins = 0
      for (let k = 0; k < 30; k++) {
        env.reset({ seed: k })
        let r
        do {
          const acts = env.admissibleActions()
          r = env.step(acts[rng.integers(acts.length)]!)
        } while (!r.terminated && !r.truncated)
        lengths += env.elapsedSteps
        if (r.terminated) wins++
      }
      expect(wins).toBeLessThanOrEqual(1)
      expect(lengths / 30).toBeGreaterThan(49)
    })
  })
})
