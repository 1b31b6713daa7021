import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Gae, KernelInputError, Returns } from "../src/index.js"
import { Backend } from "../src/tfjs.js"
import { close, thrown } from "./helpers.js"

describe("Returns.discountedReturnsSync (hand-computed)", () => {
  it("γ = 0.5 without and with a bootstrap", () => {
    // R2 = 1, R1 = 1 + 0.5·1 = 1.5, R0 = 1 + 0.5·1.5 = 1.75
    close(Returns.discountedReturnsSync({ numSteps: 3, numEnvs: 1, gamma: 0.5, rewards: [1, 1, 1], dones: [0, 0, 0] }), [1.75, 1.5, 1])
    // bootstrap nextValue 4: R2 = 1 + 2 = 3, R1 = 2.5, R0 = 2.25; nextDone = 1 cancels it
    close(Returns.discountedReturnsSync({ numSteps: 3, numEnvs: 1, gamma: 0.5, rewards: [1, 1, 1], dones: [0, 0, 0], nextValue: [4] }), [2.25, 2.5, 3])
    close(Returns.discountedReturnsSync({ numSteps: 3, numEnvs: 1, gamma: 0.5, rewards: [1, 1, 1], dones: [0, 0, 0], nextValue: [4], nextDone: [1] }), [1.75, 1.5, 1])
  })

  it("dones[t] = 1 starts a new episode at t; two envs interleaved", () => {
    // env 0: dones[2] = 1 → R1 = r1 = 2, R0 = 1 + 0.5·2 = 2, R2 = 3; env 1: rewards 0, 0, 8 → 2, 4, 8
    close(
      Returns.discountedReturnsSync({ numSteps: 3, numEnvs: 2, gamma: 0.5, rewards: [1, 0, 2, 0, 3, 8], dones: [0, 0, 0, 0, 1, 0] }),
      [2, 2, 2, 4, 3, 8]
    )
  })

  it("equals GAE with λ = 1 and zero values", () => {
    const rewards = [0.5, -1, 2, 0.25, 3, -2]
    const dones = [0, 0, 1, 0, 0, 1]
    const r = Returns.discountedReturnsSync({ numSteps: 3, numEnvs: 2, gamma: 0.9, rewards, dones, nextValue: [1, 2], nextDone: [0, 1] })
    const g = Gae.computeSync({ numSteps: 3, numEnvs: 2, gamma: 0.9, lambda: 1, rewards, values: [0, 0, 0, 0, 0, 0], dones, nextValue: [1, 2], nextDone: [0, 1] })
    close(r, g.advantages)
  })

  it("bad input: shape, NaN, range, 0/1 flags", () => {
    const base = { numSteps: 2, numEnvs: 2, gamma: 0.9, rewards: [1, 2, 3, 4], dones: [0, 0, 0, 0] }
    const shape = thrown(() => Returns.discountedReturnsSync({ ...base, rewards: [1, 2, 3] }))
    expect(shape).toBeInstanceOf(KernelInputError)
    expect(shape.message).toBe("Returns on typed-array: input rewards [3]: shape: expected [2, 2] (4 elements), got 3 elements")
    const nan = thrown(() => Returns.discountedReturnsSync({ ...base, rewards: [1, Number.NaN, 3, 4] }))
    expect([nan.reason, nan.shape, nan.detail]).toEqual(["non-finite", "[2, 2]", "NaN at flat index 1"])
    expect(thrown(() => Returns.discountedReturnsSync({ ...base, gamma: 1.5 })).reason).toBe("range")
    expect(thrown(() => Returns.discountedReturnsSync({ ...base, dones: [0, 0.5, 0, 0] })).input).toBe("dones")
  })

  it.effect("discountedReturns: the default dispatch runs the typed-array scan (fastest here); engine tfjs the TensorFlow.js one", () =>
    Effect.gen(function* () {
      const input = { numSteps: 3, numEnvs: 1, gamma: 0.5, rewards: [1, 1, 1], dones: [0, 0, 0] }
      const byDefault = yield* Returns.discountedReturns(input)
      expect([byDefault.implementation, byDefault.backendName]).toEqual(["typed-array", "typed-array"])
      close(byDefault.output, [1.75, 1.5, 1])
      const onWasm = yield* Returns.discountedReturns(input, { engine: "tfjs" })
      expect([onWasm.implementation, onWasm.backendName]).toEqual(["tfjs", "wasm"])
      close(onWasm.output, [1.75, 1.5, 1])
      const error = yield* Effect.flip(Returns.discountedReturns({ ...input, rewards: [1, Infinity, 1] }, { engine: "tfjs" }))
      expect([error._tag, error.kernel, error.backend]).toEqual(["KernelInputError", "Returns", "wasm"])
    }).pipe(Effect.provide(Backend.layerWith({ force: "wasm" }))))
})
