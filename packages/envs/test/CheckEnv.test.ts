import { Rng, Space } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as CartPole from "../src/classic/CartPole.js"
import * as CheckEnv from "../src/checks/CheckEnv.js"
import type { StepResult } from "../src/Env.js"
import * as FrozenLake from "../src/toytext/FrozenLake.js"
import * as Registry from "../src/Registry.js"
import { CountingEnv } from "./fixtures.js"

/** Breaks the contract four ways: unseeded randomness, an observation outside the space, NaN reward, info null. */
class BrokenEnv extends CountingEnv {
  override reset() {
    this.t = 0
    return { observation: new Float32Array([Math.random(), 0]), info: {} }
  }
  override step(_action: number): StepResult<Float32Array> {
    this.t++
    return {
      observation: new Float32Array([5000, 0]),
      reward: Number.NaN,
      terminated: this.t >= 3,
      truncated: "no" as unknown as boolean,
      info: null as never
    }
  }
}

describe("CheckEnv", () => {
  it("CartPole and FrozenLake pass (bare and through make)", () => {
    expect(CheckEnv.checkEnv(new CartPole.CartPoleEnv())).toEqual([])
    expect(CheckEnv.checkEnv(Registry.make("CartPole-v1"))).toEqual([])
    expect(CheckEnv.checkEnv(new FrozenLake.FrozenLakeEnv())).toEqual([])
    expect(CheckEnv.checkEnv(Registry.make("FrozenLake8x8-v1"))).toEqual([])
  })

  it("a broken env fails with EnvCheckError listing each problem", () => {
    let err: CheckEnv.EnvCheckError | undefined
    try {
      CheckEnv.checkEnv(new BrokenEnv())
    } catch (e) {
      err = e as CheckEnv.EnvCheckError
    }
    expect(err).toBeInstanceOf(CheckEnv.EnvCheckError)
    const text = err!.findings.join("\n")
    expect(text).toContain("observation outside Box(-1000, 1000, (2,), float32)")
    expect(text).toContain("reward is not finite")
    expect(text).toContain("truncated is not a boolean")
    expect(text).toContain("info is not an object")
    expect(err!.message).toContain("failed the environment check")
  })

  it("detects nondeterminism under a fixed seed", () => {
    class Drifting extends CountingEnv {
      private calls = 0
      override step(action: number) {
        const r = super.step(action)
        this.calls++
        return { ...r, reward: this.calls > 5 ? 1 : 0 }
      }
    }
    const findings = CheckEnv.collectFindings(new Drifting({ length: 5 }))
    expect(findings.filter((f) => f.check === "determinism").length).toBe(1)
    const rng = Rng.make(0)
    class SeedIgnoring extends CountingEnv {
      override reset() {
        return { observation: new Float32Array([rng.integers(10), 0]), info: {} }
      }
    }
    expect(CheckEnv.collectFindings(new SeedIgnoring()).map((f) => f.check)).toContain("determinism")
  })

  it("rejects invalid spaces and throwing renders", () => {
    class BadSpace extends CountingEnv {
      override readonly actionSpace = { _tag: "Discrete", n: 1.5 } as unknown as Space.Discrete
    }
    expect(CheckEnv.collectFindings(new BadSpace()).map((f) => f.check)).toEqual(["spaces"])
    class BadRender extends CountingEnv {
      override render(): string {
        throw new Error("boom")
      }
    }
    const f = CheckEnv.collectFindings(new BadRender())
    expect(f).toEqual([{ level: "error", check: "render", message: "render() threw: boom" }])
    expect(CheckEnv.collectFindings(new BadRender(), { skipRenderCheck: true })).toEqual([])
  })

  it.effect("check is the Effect form", () =>
    Effect.gen(function*() {
      expect(yield* CheckEnv.check(new CartPole.CartPoleEnv())).toEqual([])
      const exit = yield* Effect.exit(CheckEnv.check(new BrokenEnv()))
      expect(Exit.isFailure(exit)).toBe(true)
    })
  )
})
