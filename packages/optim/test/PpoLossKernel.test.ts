/**
 * PPO's loss kernel choice (`AUTODIDACT_PPO_LOSS_KERNEL`): the `wasm-simd` kernel (`WasmSimd.ppoLossInto`, float32 per
 * element) against the double-precision reference on real actor-critic minibatches (loss parts to ~1e-6 relative,
 * backpropagated parameter gradients to 1e-4 of their scale), and a short CartPole run that uses it: reproducible,
 * near the reference run, but not bit-identical (so the kernel was really used).
 */
import { Rng } from "@autodidact/core"
import { makeVec } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ActorCritic, Ppo } from "../src/index.js"

const minibatchFor = (rng: Rng, rows: number, obsDim: number, numActions: number): Ppo.Minibatch => ({
  obs: Float64Array.from({ length: rows * obsDim }, () => rng.normal()),
  actions: Int32Array.from({ length: rows }, () => rng.integers(numActions)),
  logprobs: Float64Array.from({ length: rows }, () => -Math.log(numActions) + rng.normal(0, 0.3)),
  advantages: Float64Array.from({ length: rows }, () => rng.normal()),
  returns: Float64Array.from({ length: rows }, () => rng.normal()),
  values: Float64Array.from({ length: rows }, () => rng.normal()),
  indices: Int32Array.from({ length: rows }, (_, k) => (k * 7) % rows),
  start: 0,
  size: rows
})

const scratchFor = (net: ActorCritic.ActorCritic, B: number, A: number): Ppo.LossScratch => ({
  mbAdv: new Float64Array(B),
  dLogits: new Float64Array(B * A),
  dValues: new Float64Array(B),
  grad: new Float64Array(net.params.length)
})

describe("Ppo loss kernel selection", () => {
  it("lossKernelFromEnv: unset or unknown → reference; wasm-simd → wasm-simd (WebAssembly SIMD is available here)", () => {
    expect(Ppo.lossKernelFromEnv({})).toBe("reference")
    expect(Ppo.lossKernelFromEnv({ AUTODIDACT_PPO_LOSS_KERNEL: "fast" })).toBe("reference")
    expect(Ppo.lossKernelFromEnv({ AUTODIDACT_PPO_LOSS_KERNEL: "reference" })).toBe("reference")
    expect(Ppo.lossKernelFromEnv({ AUTODIDACT_PPO_LOSS_KERNEL: "wasm-simd" })).toBe("wasm-simd")
  })

  for (const [B, A] of [[128, 2], [64, 6], [33, 17]] as const) {
    it(`wasm-simd equals the reference within float32 tolerance on a real minibatch [${B}, ${A}]`, () => {
      const rng = Rng.make(B + A)
      const net = ActorCritic.make({ obsDim: 4, numActions: A, hidden: 16, rng })
      const mb = minibatchFor(rng, B, 4, A)
      const o = { clipCoef: 0.2, normAdv: true, clipVloss: true, entCoef: 0.01, vfCoef: 0.5 }
      const s1 = scratchFor(net, B, A)
      const s2 = scratchFor(net, B, A)
      const ref = Ppo.lossAndGradient(net, o, mb, s1, "reference")
      const simd = Ppo.lossAndGradient(net, o, mb, s2, "wasm-simd")
      for (const k of ["loss", "policyLoss", "valueLoss", "entropy", "approxKl", "clipFraction"] as const) {
        expect(Math.abs(simd[k] - ref[k]), k).toBeLessThanOrEqual(2e-6 * Math.max(1, Math.abs(ref[k])))
      }
      const scale = Math.max(...Array.from(s1.grad, Math.abs))
      expect(scale).toBeGreaterThan(1e-3)
      let worst = 0
      for (let k = 0; k < s1.grad.length; k++) worst = Math.max(worst, Math.abs(s2.grad[k]! - s1.grad[k]!))
      expect(worst).toBeLessThan(1e-4 * scale)
      // different arithmetic really ran (float32 inside), yet the default stays the double-precision reference
      expect(Array.from(s2.dLogits)).not.toEqual(Array.from(s1.dLogits))
      const s3 = scratchFor(net, B, A)
      Ppo.lossAndGradient(net, o, mb, s3)
      expect(Array.from(s3.grad)).toEqual(Array.from(s1.grad))
    })
  }

  it.effect("train with AUTODIDACT_PPO_LOSS_KERNEL=wasm-simd: reproducible, within 1e-4 of the reference run's weights", () =>
    Effect.gen(function* () {
      const go = (kernel: string | undefined) =>
        Effect.acquireUseRelease(
          Effect.sync(() => {
            const before = process.env["AUTODIDACT_PPO_LOSS_KERNEL"]
            if (kernel === undefined) delete process.env["AUTODIDACT_PPO_LOSS_KERNEL"]
            else process.env["AUTODIDACT_PPO_LOSS_KERNEL"] = kernel
            return before
          }),
          () => Ppo.train(makeVec("CartPole-v1", 4, { autoresetMode: "SameStep" }), { seed: 3, totalTimesteps: 1024 }),
          (before) =>
            Effect.sync(() => {
              if (before === undefined) delete process.env["AUTODIDACT_PPO_LOSS_KERNEL"]
              else process.env["AUTODIDACT_PPO_LOSS_KERNEL"] = before
            })
        )
      const ref = yield* go(undefined)
      const a = yield* go("wasm-simd")
      const b = yield* go("wasm-simd")
      expect(a.state.iteration).toBe(2)
      expect(Array.from(a.agent.params)).toEqual(Array.from(b.agent.params))
      let worst = 0
      for (let k = 0; k < ref.agent.params.length; k++) worst = Math.max(worst, Math.abs(a.agent.params[k]! - ref.agent.params[k]!))
      expect(worst).toBeGreaterThan(0)
      expect(worst).toBeLessThan(1e-4)
    }), 60_000)
})
