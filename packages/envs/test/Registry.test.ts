import { InvalidActionError, InvalidOptionError, NonFiniteValueError, ResetNeededError } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as CartPole from "../src/classic/CartPole.js"
import * as FrozenLake from "../src/toytext/FrozenLake.js"
import { asyncVectorEnv, installAsyncVectorEnv } from "../src/internal/AsyncVectorHook.js"
import * as Registry from "../src/Registry.js"
import { SyncVectorEnv } from "../src/vector/SyncVectorEnv.js"
import * as Wrappers from "../src/wrappers/Wrappers.js"
import { CountingEnv } from "./fixtures.js"

describe("Registry", () => {
  it("registers the built-in ids with Gymnasium's specs", () => {
    expect(Registry.ids()).toEqual(expect.arrayContaining(["CartPole-v1", "FrozenLake-v1", "FrozenLake8x8-v1"]))
    expect(Registry.spec("CartPole-v1")).toMatchObject({ id: "CartPole-v1", maxEpisodeSteps: 500, rewardThreshold: 475 })
    expect(Registry.spec("FrozenLake-v1")).toMatchObject({ maxEpisodeSteps: 100, rewardThreshold: 0.7, kwargs: { mapName: "4x4" } })
    expect(Registry.spec("FrozenLake8x8-v1")).toMatchObject({ maxEpisodeSteps: 200, rewardThreshold: 0.85, kwargs: { mapName: "8x8" } })
  })

  it("make wraps in Gymnasium's order: TimeLimit(Checked(env)) and sets the spec", () => {
    const env = Registry.make("CartPole-v1")
    expect(env).toBeInstanceOf(Wrappers.TimeLimit)
    expect((env as Wrappers.TimeLimit).env).toBeInstanceOf(Wrappers.Checked)
    expect(env.unwrapped).toBeInstanceOf(CartPole.CartPoleEnv)
    expect(env.spec?.id).toBe("CartPole-v1")
    expect(env.unwrapped.spec?.maxEpisodeSteps).toBe(500)
    const fl = Registry.make("FrozenLake8x8-v1", { isSlippery: false })
    expect((fl.unwrapped as FrozenLake.FrozenLakeEnv).nrow).toBe(8)
    expect(fl.spec?.kwargs).toEqual({ mapName: "8x8", isSlippery: false })
  })

  it("the checker refuses misuse with typed errors", () => {
    const env = Registry.make("CartPole-v1")
    expect(() => env.step(0)).toThrow(ResetNeededError)
    env.reset({ seed: 0 })
    try {
      env.step(2)
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidActionError)
      const err = e as InvalidActionError
      expect(err.envId).toBe("CartPole-v1")
      expect(err.space).toBe("Discrete(2)")
      expect(err.message).toContain("action 2")
    }
    expect(() => env.step(0.5)).toThrow(InvalidActionError)
    expect(() => env.step("1" as unknown as number)).toThrow(InvalidActionError)
    // truncation by TimeLimit, then step without reset
    const short = Registry.make("CartPole-v1", {}, { maxEpisodeSteps: 3 })
    short.reset({ options: { state: [0, 0, 0, 0] } })
    expect([short.step(0).truncated, short.step(1).truncated, short.step(0).truncated]).toEqual([false, false, true])
    expect(() => short.step(0)).toThrow(ResetNeededError)
    short.reset()
    expect(short.step(0).truncated).toBe(false)
  })

  it("NaN in observations or rewards is a NonFiniteValueError", () => {
    Registry.register({ id: "TestCounting-v0", entryPoint: (k) => new CountingEnv(k as never), maxEpisodeSteps: 50 })
    const a = Registry.make("TestCounting-v0", { nanObsAt: 2 })
    a.reset()
    a.step(0)
    expect(() => a.step(0)).toThrow(NonFiniteValueError)
    const b = Registry.make("TestCounting-v0", { nanRewardAt: 1 })
    b.reset()
    expect(() => b.step(0)).toThrow(NonFiniteValueError)
    // terminated ends the episode for the checker too
    const c = Registry.make("TestCounting-v0", { length: 1 })
    c.reset()
    expect(c.step(1).terminated).toBe(true)
    expect(() => c.step(1)).toThrow(ResetNeededError)
  })

  it("unknown ids fail with the known versions or close names", () => {
    const attempt = (id: string) => {
      try {
        Registry.make(id)
      } catch (e) {
        return e as Registry.UnknownEnvError
      }
      throw new Error("expected a failure")
    }
    const v9 = attempt("CartPole-v9")
    expect(v9).toBeInstanceOf(Registry.UnknownEnvError)
    expect(v9.suggestions).toEqual(["CartPole-v1"])
    expect(v9.message).toContain("v9")
    expect(attempt("CartPole").suggestions).toEqual(["CartPole-v1"])
    expect(attempt("Cartpole-v1").suggestions).toContain("CartPole-v1")
    expect(attempt("FrozenLak-v1").suggestions[0]).toBe("FrozenLake-v1")
    const far = attempt("Zzzzzzzzzzzz-v0")
    expect(far.suggestions).toEqual([])
    // the full id as typed (version included), and the registered ids to choose from
    expect(far.message).toMatch(/^Environment Zzzzzzzzzzzz-v0 doesn't exist; registered: .*CartPole-v1/)
    expect(attempt("Nonexistent-v3").message).toContain("Environment Nonexistent-v3 doesn't exist")
    expect(() => Registry.spec("Nope-v1")).toThrow(Registry.UnknownEnvError)
    expect(Registry.parseId("ns/Name-v3")).toEqual({ namespace: "ns", name: "Name", version: 3 })
  })

  it("makeVec builds a SyncVectorEnv by default", () => {
    const envs = Registry.makeVec("CartPole-v1", 4, { autoresetMode: "SameStep" })
    expect(envs).toBeInstanceOf(SyncVectorEnv)
    expect(envs.numEnvs).toBe(4)
    expect(envs.autoresetMode).toBe("SameStep")
    const { observations } = envs.reset({ seed: 42 })
    expect(observations).toBeInstanceOf(Float32Array)
    expect(observations.length).toBe(16)
    expect(() => Registry.makeVec("CartPole-v1", 0)).toThrow()
    envs.close()
  })

  it("makeVec async without @autodidact/envs/node fails naming that entry", () => {
    // Test files share a process (isolate: false): another file may have loaded the node entry, which installs the
    // async constructor; clear it for this test and put it back after.
    const installed = asyncVectorEnv()
    installAsyncVectorEnv(undefined)
    let error: unknown
    try {
      Registry.makeVec("CartPole-v1", 2, { vectorizationMode: "async" })
    } catch (e) {
      error = e
    } finally {
      installAsyncVectorEnv(installed)
    }
    expect(error).toBeInstanceOf(InvalidOptionError)
    expect((error as InvalidOptionError).option).toBe("vectorizationMode")
    expect((error as InvalidOptionError).reason).toContain("@autodidact/envs/node")
  })
})
