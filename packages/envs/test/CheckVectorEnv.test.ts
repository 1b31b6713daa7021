import { describe, expect, it } from "@effect/vitest"
import { InvalidOptionError, Space } from "@autodidact/core"
import { Effect, Exit } from "effect"
import * as CheckVectorEnv from "../src/checks/CheckVectorEnv.js"
import * as Registry from "../src/Registry.js"
import type { AutoresetMode, Batch, VectorEnv, VectorStepResult } from "../src/vector/VectorEnv.js"

const MODES: ReadonlyArray<AutoresetMode> = ["NextStep", "SameStep", "Disabled"]

/** A vector env forwarding to `env`, with the members `over(env)` replaced. */
const delegate = (env: VectorEnv, over: (env: VectorEnv) => Partial<VectorEnv>): VectorEnv => {
  const base: VectorEnv = {
    numEnvs: env.numEnvs,
    singleObservationSpace: env.singleObservationSpace,
    singleActionSpace: env.singleActionSpace,
    autoresetMode: env.autoresetMode,
    reset: (o) => env.reset(o),
    step: (a) => env.step(a),
    close: () => env.close()
  }
  return Object.defineProperties(base, Object.getOwnPropertyDescriptors(over(env))) as VectorEnv
}

const cartPole = (mode: AutoresetMode, n = 2): VectorEnv => Registry.makeVec("CartPole-v1", n, { autoresetMode: mode })
const mapStep = (f: (r: VectorStepResult, env: VectorEnv) => VectorStepResult) => (env: VectorEnv): Partial<VectorEnv> => ({
  step: (a: Batch) => f(env.step(a), env)
})

/** The findings of a check that must fail. */
const findingsOf = (target: VectorEnv | CheckVectorEnv.VectorEnvFactory, modes?: ReadonlyArray<AutoresetMode>): Array<string> => {
  try {
    CheckVectorEnv.checkVectorEnv(target, { modes, steps: 100 })
  } catch (e) {
    expect(e).toBeInstanceOf(CheckVectorEnv.VectorEnvCheckError)
    const err = e as CheckVectorEnv.VectorEnvCheckError
    expect(err.message).toContain(err.findings[0])
    return [...err.findings]
  }
  return expect.unreachable("checkVectorEnv accepted a broken vector env")
}

describe("checkVectorEnv (Gymnasium's vector API and autoreset modes)", () => {
  // Box, Discrete and Text observations, every mode (SyncVectorEnv through makeVec).
  for (const id of ["CartPole-v1", "FrozenLake-v1", "TextFrozenLake-v1"]) {
    it(`passes on makeVec(${id}) in every autoreset mode, compared across modes`, () => {
      const report = CheckVectorEnv.checkVectorEnv((autoresetMode) => Registry.makeVec(id, 3, { autoresetMode }), { envId: id })
      expect(report.numEnvs).toBe(3)
      expect(report.modes.map((m) => m.mode)).toEqual(MODES)
      for (const m of report.modes) expect(m.episodesEnded).toBeGreaterThanOrEqual(3)
    })
  }

  // AsyncVectorEnv: test/AsyncVectorEnv.integration.test.ts runs this check on its workers in each mode.

  it("is an Effect too, failing with the tagged error", () => {
    expect(Effect.runSync(CheckVectorEnv.check(cartPole("SameStep"))).modes[0]!.mode).toBe("SameStep")
    const broken = delegate(cartPole("NextStep"), () => ({ reset: () => { throw new Error("no") } }))
    expect(Exit.isFailure(Effect.runSyncExit(CheckVectorEnv.check(broken)))).toBe(true)
  })

  it("refuses bad options with InvalidOptionError", () => {
    const factory = (mode: AutoresetMode) => cartPole(mode)
    expect(() => CheckVectorEnv.checkVectorEnv(factory, { steps: Number.NaN })).toThrow(InvalidOptionError)
    expect(() => CheckVectorEnv.checkVectorEnv(factory, { modes: ["Sometimes" as AutoresetMode] })).toThrow(/Invalid modes = \["Sometimes"\]/)
  })

  describe("rejects a broken vector env, naming the property", () => {
    it("spaces", () => {
      const f = findingsOf((mode) => delegate(cartPole(mode), () => ({ autoresetMode: "NextStep" })), ["SameStep"])
      expect(f[0]).toBe("spaces: SameStep: autoresetMode is \"NextStep\", but the factory was asked for SameStep")
      expect(findingsOf(delegate(cartPole("NextStep"), () => ({ autoresetMode: "Sometimes" as AutoresetMode }))))
        .toEqual(["spaces: Sometimes: autoresetMode \"Sometimes\" is not one of NextStep, SameStep, Disabled"])
      expect(findingsOf(delegate(cartPole("NextStep"), () => ({ singleActionSpace: { _tag: "Discrete" } as Space.Space })))[0])
        .toBe("spaces: NextStep: singleActionSpace is not a valid space: {\"_tag\":\"Discrete\"}")
    })
    it("reset", () => {
      expect(findingsOf(delegate(cartPole("NextStep"), () => ({ reset: () => { throw new Error("no") } })))[0])
        .toBe("reset: NextStep: reset({ seed: 0 }) threw: no")
    })
    it("observation", () => {
      const f = findingsOf(delegate(cartPole("NextStep"), mapStep((r) => ({ ...r, observations: Array.from(r.observations) }))))
      expect(f[0]).toMatch(/^observation: NextStep: step 0: observations are not a Float32Array of 8 elements: \[/)
      const g = findingsOf(delegate(cartPole("NextStep"), (env) => ({ reset: (o) => {
        const r = env.reset(o)
        ;(r.observations as Float32Array)[5] = Number.NaN
        return r
      } })))
      expect(g[0]).toMatch(/^observation: NextStep: reset\(\{ seed: 0 \}\): row 1 is not in Box/)
    })
    it("step", () => {
      expect(findingsOf(delegate(cartPole("NextStep"), () => ({ step: () => { throw new Error("boom") } })))[0])
        .toBe("step: NextStep: step 0 threw: boom")
    })
    it("reward", () => {
      const f = findingsOf(delegate(cartPole("NextStep"), mapStep((r) => ({ ...r, rewards: Float64Array.from([1, Number.NaN]) }))))
      expect(f[0]).toBe("reward: NextStep: step 0: reward of sub-env 1 is not finite: NaN")
      const g = findingsOf(delegate(cartPole("NextStep"), mapStep((r) => ({ ...r, rewards: [1, 1] as unknown as Float64Array }))))
      expect(g[0]).toBe("reward: NextStep: step 0: rewards are not a Float64Array(2): [1,1]")
    })
    it("flags", () => {
      const f = findingsOf(delegate(cartPole("NextStep"), mapStep((r) => ({ ...r, truncations: Uint8Array.from([0, 2]) }))))
      expect(f[0]).toBe("flags: NextStep: step 0: truncations are not a Uint8Array(2) of 0/1: [0,2]")
    })
    it("info", () => {
      const f = findingsOf(delegate(cartPole("NextStep"), mapStep((r) => ({ ...r, infos: { infos: r.infos.infos.slice(1) } }))))
      expect(f[0]).toBe("info: NextStep: step 0: infos.infos is not an array of 2 objects: [{}]")
    })
    it("seeding", () => {
      // Every sub-env gets the same seed instead of seed + i.
      const f = findingsOf(delegate(cartPole("NextStep"), (env) => ({ reset: (o = {}) => env.reset(typeof o.seed === "number" ? { ...o, seed: [o.seed, o.seed] } : o) })))
      expect(f[0]).toMatch(/^seeding: NextStep: reset\(\{ seed: 0 \}\) and reset\(\{ seed: \[0, 1, \.\.\.\] \}\) differ/)
    })
    it("determinism", () => {
      // Sub-env 0's action depends on how many resets happened.
      let resets = 0
      const f = findingsOf(delegate(cartPole("SameStep"), (env) => ({
        reset: (o) => ((resets += 1), env.reset(o)),
        step: (a: Batch) => env.step(Int32Array.from([resets % 2, (a as Int32Array)[1]!]))
      })))
      expect(f[0]).toMatch(/^determinism: SameStep: the same seed and actions gave a different step 0: /)
    })
    it("autoreset: NextStep (reset step with reward 0, action ignored)", () => {
      // SameStep behaviour under the name NextStep: the step after an end is an ordinary step with reward 1.
      const same = findingsOf((mode) => delegate(cartPole("SameStep"), () => ({ autoresetMode: mode })), ["NextStep"])
      expect(same[0]).toMatch(/^autoreset: NextStep: step \d+: sub-env \d ended at step \d+, so this is its reset step, but reward is 1, terminated 0, truncated 0 \(expected 0, 0, 0\)$/)
      // Reward and flags zeroed after an end, but the sub-env is stepped with the action (not reset).
      const stepped = findingsOf((mode) => delegate(cartPole("SameStep"), (env) => {
        let ended = new Uint8Array(2)
        return {
          autoresetMode: mode,
          step: (a: Batch) => {
            const r = env.step(a)
            const zero = Uint8Array.from(ended)
            ended = Uint8Array.from(r.terminations, (x, i) => x | r.truncations[i]!)
            const rewards = Float64Array.from(r.rewards, (x, i) => (zero[i] ? 0 : x))
            const mask = (f: Uint8Array) => Uint8Array.from(f, (x, i) => (zero[i] ? 0 : x))
            return { observations: r.observations, rewards, terminations: mask(r.terminations), truncations: mask(r.truncations), infos: { infos: r.infos.infos } }
          }
        }
      }), ["NextStep"])
      expect(stepped.join("\n")).toMatch(/autoreset: NextStep: step \d+: sub-env \d ended at step \d+; its reset step must ignore the action, but another action gave a different result/)
    })
    it("autoreset: SameStep (final observations)", () => {
      const f = findingsOf((mode) => delegate(cartPole("NextStep"), () => ({ autoresetMode: mode })), ["SameStep"])
      expect(f[0]).toMatch(/^autoreset: SameStep: step \d+: sub-env \d ended but infos.finalObservation\[\d\] is not an observation in Box/)
    })
    it("autoreset: Disabled (throws until a masked reset, which resets only the marked rows)", () => {
      const lax = findingsOf((mode) => delegate(cartPole("NextStep"), () => ({ autoresetMode: mode })), ["Disabled"])
      expect(lax).toEqual([expect.stringMatching(/^autoreset: Disabled: step \d+: sub-env \d ended at step \d+ and was not reset, but step did not throw ResetNeededError$/)])
      const all = findingsOf(delegate(cartPole("Disabled"), (env) => ({ reset: (o = {}) => env.reset({ seed: o.seed }) })))
      expect(all.join("\n")).toMatch(/autoreset: Disabled: step \d+: the masked reset changed row \d, which was not in resetMask \[/)
    })
    it("autoreset: across modes (final and reset observations agree)", () => {
      // SameStep reports the reset observation as the final one.
      const f = findingsOf((mode) => {
        const env = cartPole(mode)
        if (mode !== "SameStep") return env
        return delegate(env, mapStep((r) => {
          if (r.infos.finalObservation === undefined) return r
          const finalObservation = r.infos.finalObservation.map((o, i) => (o === undefined ? o : r.observations.slice(4 * i, 4 * i + 4)))
          return { ...r, infos: { ...r.infos, finalObservation } }
        }))
      })
      expect(f[0]).toMatch(/^autoreset: sub-env \d at step \d+ \(before or at its first end\): NextStep gave \[.*\], SameStep gave \[/)
    })
    it("unexpected", () => {
      const f = findingsOf(delegate(cartPole("SameStep"), mapStep((r) => Object.defineProperty({ ...r }, "infos", {
        get() {
          throw new Error("no infos")
        }
      }))))
      expect(f).toContain("unexpected: SameStep: the vector env threw outside the calls the check guards: no infos")
    })
    it("close", () => {
      const env = cartPole("NextStep")
      const f = findingsOf(delegate(env, () => ({ close: () => {} })))
      expect(f).toEqual(["close: NextStep: step after close() did not throw"])
      env.close()
    })
  })
})
