import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Categorical } from "../src/index.js"
import { Backend } from "../src/tfjs.js"
import { thrown } from "./helpers.js"

describe("Categorical", () => {
  it("inverse CDF with given uniforms (hand-computed): p = [0.25, 0.75]", () => {
    const input = { batch: 3, numActions: 2, logits: [0, Math.log(3), 0, Math.log(3), 0, Math.log(3)], uniforms: [0.1, 0.25, 0.9] }
    const r = Categorical.fromUniformsSync(input)
    expect(Array.from(r.actions)).toEqual([0, 1, 1])
    expect(r.logProbs[0]).toBeCloseTo(Math.log(0.25), 6)
  })

  it("seeded: the same seed gives the same actions; masked actions are never drawn; frequencies match", () => {
    const B = 20000
    const logits = new Float32Array(B * 4)
    const mask = new Float32Array(B * 4)
    for (let b = 0; b < B; b++) {
      logits.set([0, Math.log(2), Math.log(3), 10], b * 4)
      mask.set([1, 1, 1, 0], b * 4)
    }
    const a = Categorical.sampleSync(Rng.make(42), { batch: B, numActions: 4, logits, mask })
    const b = Categorical.sampleSync(Rng.make(42), { batch: B, numActions: 4, logits, mask })
    expect(Array.from(a.actions)).toEqual(Array.from(b.actions))
    const counts = [0, 0, 0, 0]
    for (const x of a.actions) counts[x]++
    expect(counts[3]).toBe(0)
    // p = [1/6, 2/6, 3/6]; 5 standard errors at n = 20000 is < 0.02
    for (const [k, p] of [[0, 1 / 6], [1, 2 / 6], [2, 3 / 6]] as const) expect(Math.abs(counts[k]! / B - p)).toBeLessThan(0.02)
  })

  it.effect("sample on the wasm backend draws the same actions as the reference for a seed", () =>
    Effect.gen(function* () {
      const rng = Rng.make(3)
      const input = { batch: 50, numActions: 5, logits: Float32Array.from({ length: 250 }, () => rng.normal()) }
      const onWasm = yield* Categorical.sample(Rng.make(9), input, { engine: "tfjs" })
      expect(onWasm.implementation).toBe("tfjs")
      expect(Array.from(onWasm.output.actions)).toEqual(Array.from(Categorical.sampleSync(Rng.make(9), input).actions))
      const byDefault = yield* Categorical.sample(Rng.make(9), input)
      expect(byDefault.backendName).toBe("wasm-simd")
      expect(Array.from(byDefault.output.actions)).toEqual(Array.from(Categorical.sampleSync(Rng.make(9), input).actions))
    }).pipe(Effect.provide(Backend.layerWith({ force: "wasm" }))))

  it("bad input: uniforms out of [0, 1), wrong length", () => {
    expect(thrown(() => Categorical.fromUniformsSync({ batch: 1, numActions: 2, logits: [0, 0], uniforms: [1] })).detail).toBe("expected [0, 1), got 1 at index 0")
    expect(thrown(() => Categorical.fromUniformsSync({ batch: 2, numActions: 2, logits: [0, 0, 0, 0], uniforms: [0.5] })).input).toBe("uniforms")
    for (const bad of [Number.NaN, -Infinity, Infinity]) {
      const e = thrown(() => Categorical.fromUniformsSync({ batch: 1, numActions: 2, logits: [0, bad], uniforms: [0.5] }))
      expect([e.kernel, e.input, e.reason]).toEqual(["Categorical", "logits", "non-finite"])
    }
    const empty = thrown(() => Categorical.fromUniformsSync({ batch: 1, numActions: 2, logits: [0, 0], mask: [0, 0], uniforms: [0.5] }))
    expect(empty.reason).toBe("empty-segment")
  })
})
