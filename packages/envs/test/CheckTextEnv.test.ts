import { describe, expect, it } from "@effect/vitest"
import { InvalidOptionError, Space } from "@autodidact/core"
import { Effect, Exit } from "effect"
import * as CheckTextEnv from "../src/checks/CheckTextEnv.js"
import type { Env } from "../src/Env.js"
import * as Registry from "../src/Registry.js"
import * as TextEnv from "../src/text/TextEnv.js"
import { TextFrozenLake, type TextFrozenLakeOptions } from "../src/text/TextFrozenLake.js"
import { TextHousehold } from "../src/text/TextHousehold.js"

type Probe = TextEnv.TextEnv & {
  readonly invalidActionPolicy: TextEnv.InvalidActionPolicy
  readonly invalidActionPenalty: number
  readonly maxSteps: number
}

/** A text env forwarding to a small TextFrozenLake (10 steps), with the members `over(inner)` replaced. */
const delegate = (over: Partial<Probe> | ((inner: TextFrozenLake) => Partial<Probe>), options: TextFrozenLakeOptions = {}): Probe => {
  const inner = new TextFrozenLake({ maxSteps: 10, ...options })
  const base: Probe = {
    get observationSpace() {
      return inner.observationSpace
    },
    get actionSpace() {
      return inner.actionSpace
    },
    metadata: inner.metadata,
    spec: undefined,
    get npRandom() {
      return inner.npRandom
    },
    get unwrapped(): Env<unknown, unknown> {
      return base as Env<unknown, unknown>
    },
    get task() {
      return inner.task
    },
    invalidActionPolicy: inner.invalidActionPolicy,
    invalidActionPenalty: inner.invalidActionPenalty,
    maxSteps: inner.maxSteps,
    admissibleActions: () => inner.admissibleActions(),
    stateKey: () => inner.stateKey(),
    toMessages: (t) => inner.toMessages(t),
    reset: (o) => inner.reset(o),
    step: (a) => inner.step(a),
    render: () => inner.render(),
    close: () => inner.close()
  }
  return Object.defineProperties(base, Object.getOwnPropertyDescriptors(typeof over === "function" ? over(inner) : over)) as Probe
}

/** The findings of a check that must fail. */
const findingsOf = (env: Env<unknown, unknown> | TextEnv.TextEnv): Array<string> => {
  try {
    CheckTextEnv.checkTextEnv(env, { steps: 6 })
  } catch (e) {
    expect(e).toBeInstanceOf(CheckTextEnv.TextEnvCheckError)
    const err = e as CheckTextEnv.TextEnvCheckError
    expect(err.message).toContain(err.findings[0])
    return [...err.findings]
  }
  return expect.unreachable("checkTextEnv accepted a broken env")
}

/** Every registered id whose env is a text env (through `make`'s wrappers). */
const textIds = Registry.ids().filter((id) => TextEnv.isTextEnv(Registry.make(id).unwrapped))

describe("checkTextEnv (the TextEnv contract)", () => {
  it("snapshot: a restore that does not restore is reported; a working one passes", () => {
    class NoRestore extends TextHousehold {
      override restore(): void {}
    }
    expect(() => CheckTextEnv.checkTextEnv(new NoRestore({ difficulty: "easy" }))).toThrow(/snapshot: after restore the same actions diverged/)
    expect(CheckTextEnv.checkTextEnv(new TextHousehold({ difficulty: "easy" })).steps).toBeGreaterThan(0)
  })

  it("finds the built-in text envs in the registry", () => {
    expect(textIds).toEqual(expect.arrayContaining(["TextHousehold-v0", "TextFrozenLake-v1", "Sokoban-6x6-1box-v0"]))
  })

  for (const id of textIds) {
    it(`passes on ${id}: through make, bare, and under both invalid-action policies`, () => {
      const made = CheckTextEnv.checkTextEnv(Registry.make(id))
      expect(made.steps).toBeGreaterThan(0)
      expect(made.invalidAction).toBe("penalize")
      expect(made.invalidSteps).toBe(Registry.spec(id).maxEpisodeSteps)
      const bare = Registry.make(id).unwrapped
      expect(CheckTextEnv.checkTextEnv(bare, { steps: 5 }).invalidAction).toBe("penalize")
      const strict = CheckTextEnv.checkTextEnv(Registry.make(id, { invalidActionPolicy: "error" }), { steps: 5 })
      expect(strict).toMatchObject({ invalidAction: "error", invalidSteps: 0 })
    })
  }

  it("is an Effect too, failing with the tagged error", () => {
    expect(Effect.runSync(CheckTextEnv.check(Registry.make("TextFrozenLake-v1"), { steps: 3 })).steps).toBeGreaterThan(0)
    expect(Exit.isFailure(Effect.runSyncExit(CheckTextEnv.check(Registry.make("CartPole-v1"))))).toBe(true)
  })

  it("refuses bad options with InvalidOptionError", () => {
    expect(() => CheckTextEnv.checkTextEnv(Registry.make("TextFrozenLake-v1"), { steps: 1.5 })).toThrow(InvalidOptionError)
    expect(() => CheckTextEnv.checkTextEnv(Registry.make("TextFrozenLake-v1"), { seed: -3 })).toThrow(/Invalid seed = -3/)
  })

  describe("rejects a broken env, naming the property", () => {
    it("contract", () => {
      expect(findingsOf(Registry.make("CartPole-v1"))).toEqual([
        "contract: neither the env nor its unwrapped env has task, admissibleActions, stateKey and toMessages"
      ])
    })
    it("spaces", () => {
      expect(findingsOf(delegate({ observationSpace: Space.discrete(16) }))).toEqual([
        "spaces: observationSpace is not a Text space: {\"_tag\":\"Discrete\",\"n\":16,\"start\":0}"
      ])
    })
    it("reset", () => {
      expect(findingsOf(delegate({ task: "" }))).toContain("reset: rollout 1: task is not a non-empty string: \"\"")
    })
    it("observation", () => {
      const f = findingsOf(delegate((env) => ({ reset: (o) => ({ ...env.reset(o), observation: 7 as unknown as string }) })))
      expect(f).toContain("observation: rollout 1: reset: observation is not a string: 7")
    })
    it("admissibleActions", () => {
      expect(findingsOf(delegate({ admissibleActions: () => [] })))
        .toContain("admissibleActions: rollout 1: after reset: expected a non-empty array of commands, got []")
      expect(findingsOf(delegate({ admissibleActions: () => ["Left", ""] })))
        .toContain("admissibleActions: rollout 1: after reset: \"\" is not a non-empty string in Text(0, 256)")
    })
    it("step", () => {
      const f = findingsOf(delegate((env) => ({ step: (a) => ({ ...env.step(a), info: { invalidAction: true } }) })))
      expect(f.join("\n")).toMatch(/step: rollout 1: step 0: the admissible action "\w+" was flagged info.invalidAction/)
      const g = findingsOf(delegate({ step: () => { throw new Error("boom") } }))
      expect(g[0]).toMatch(/^step: rollout 1: step 0 with admissible action "\w+" threw: boom$/)
    })
    it("reward", () => {
      const f = findingsOf(delegate((env) => ({ step: (a) => ({ ...env.step(a), reward: Number.POSITIVE_INFINITY }) })))
      expect(f).toContain("reward: rollout 1: step 0: reward is not a finite number: null")
    })
    it("flags", () => {
      const f = findingsOf(delegate((env) => ({ step: (a) => ({ ...env.step(a), terminated: "no" as unknown as boolean }) })))
      expect(f).toContain("flags: rollout 1: step 0: terminated is not a boolean: \"no\"")
    })
    it("info", () => {
      const f = findingsOf(delegate((env) => ({ reset: (o) => ({ ...env.reset(o), info: null as unknown as object as never }) })))
      expect(f).toContain("info: rollout 1: reset info is not an object: null")
    })
    it("stateKey", () => {
      let n = 0
      expect(findingsOf(delegate((env) => ({ stateKey: () => `${env.stateKey()}#${n++}` }))).join("\n"))
        .toMatch(/stateKey: two resets with seed 123 gave different state keys: "0#\d+" vs "0#\d+"/)
      expect(findingsOf(delegate({ stateKey: () => 42 as unknown as string })))
        .toContain("stateKey: rollout 1: after reset: stateKey() is not a string: 42")
    })
    it("unexpected", () => {
      const f = findingsOf(delegate({
        get task(): string {
          throw new Error("no task")
        }
      }))
      expect(f).toEqual(["unexpected: the env threw outside the calls the check guards: no task"])
    })
    it("determinism", () => {
      let calls = 0
      const f = findingsOf(delegate((env) => ({ reset: (o = {}) => env.reset({ ...o, seed: (o.seed ?? 0) + 7919 * calls++ }) })))
      expect(f[0]).toMatch(/^determinism: the same seed and admissible actions diverged at step \d+/)
    })
    it("invalidAction", () => {
      // "penalize": the state changes (the invalid command moves the agent right).
      const moves = findingsOf(delegate((env) => ({ step: (a) => env.step(env.admissibleActions().includes(a) ? a : "Right") }), { isSlippery: false }))
      expect(moves.join("\n")).toMatch(/invalidAction: step\("xyzzy plugh"\) changed the state key from "0" to "\d+"/)
      // "penalize" with a reward other than invalidActionPenalty (0).
      const paid = findingsOf(delegate((env) => ({ step: (a) => ({ ...env.step(a), reward: env.admissibleActions().includes(a) ? 0 : 1 }) })))
      expect(paid).toContain("invalidAction: step(\"xyzzy plugh\") gave reward 1, expected invalidActionPenalty 0")
      // "penalize" without info.invalidAction.
      const silent = findingsOf(delegate((env) => ({ step: (a) => ({ ...env.step(a), info: {} }) })))
      expect(silent).toContain("invalidAction: step(\"xyzzy plugh\"): info.invalidAction is undefined, expected true")
      // Invalid steps that do not count toward maxSteps (10).
      const free = delegate({ maxSteps: 5 })
      expect(findingsOf(free)).toContain("invalidAction: 6 invalid steps ended with truncated false; expected truncation at step maxSteps = 5 (invalid steps count)")
      // "error" that throws something else, and "error" that does not throw.
      const strict = delegate({}, { invalidActionPolicy: "error" })
      const crash = findingsOf(delegate({ invalidActionPolicy: "error", step: (a) => { if (!strict.admissibleActions().includes(a)) throw new Error("no"); return strict.step(a) }, reset: (o) => strict.reset(o) }))
      expect(crash).toContain("invalidAction: step(\"xyzzy plugh\") threw no, not InvalidActionError")
      expect(findingsOf(delegate({ invalidActionPolicy: "error" }))).toContain("invalidAction: step(\"xyzzy plugh\") did not throw InvalidActionError under invalidActionPolicy \"error\"")
    })
    it("toMessages", () => {
      const f = findingsOf(delegate((env) => ({ toMessages: (t) => env.toMessages(t).map((m) => ({ ...m, role: "user" as const })) })))
      expect(f.join("\n")).toMatch(/toMessages: turn 0 is not a system turn that contains the task "reach the goal G without falling into a hole."/)
      const g = findingsOf(delegate((env) => ({ toMessages: (t) => env.toMessages(t).slice(0, 1) })))
      expect(g[0]).toMatch(/^toMessages: expected \d+ turns \(system, then user\/assistant per step\), got 1$/)
    })
  })
})
