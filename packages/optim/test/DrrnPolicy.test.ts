import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as DrrnPolicy from "../src/DrrnPolicy.js"

const small = (seed = 0) => DrrnPolicy.make({ buckets: 64, hidden: 5, embed: 4, grid: true, rng: Rng.make(seed) })
const input = { task: "put a clean mug in the coffeemachine", observation: "You see a mug 1.\n#.@\n# $", admissible: ["take mug 1", "go to sinkbasin 1", "look"] }

describe("DrrnPolicy features", () => {
  it("are deterministic, unit-norm and within the buckets", () => {
    const p = small()
    const a = DrrnPolicy.featurizeState(p.config, input.task, input.observation)
    const b = DrrnPolicy.featurizeState(p.config, input.task, input.observation)
    expect(Array.from(a.indices)).toEqual(Array.from(b.indices))
    let n = 0
    for (const v of a.values) n += v * v
    expect(n).toBeCloseTo(1, 5)
    expect(Array.from(a.indices).every((i) => i >= 0 && i < 64)).toBe(true)
    expect(new Set(a.indices).size).toBe(a.indices.length)
  })
  it("grid features distinguish positions of the same characters; words alone do not", () => {
    const c = { ...DrrnPolicy.defaults, positional: false }
    const w1 = DrrnPolicy.featurizeState(c, "t", "#\n@")
    const w2 = DrrnPolicy.featurizeState(c, "t", "@\n#")
    const g1 = DrrnPolicy.featurizeState({ ...c, grid: true }, "t", "#\n@")
    const g2 = DrrnPolicy.featurizeState({ ...c, grid: true }, "t", "@\n#")
    expect(new Set(w1.indices)).toEqual(new Set(w2.indices))
    expect(new Set(g1.indices)).not.toEqual(new Set(g2.indices))
  })
  it("tokenize lower-cases words and keeps symbols", () => {
    expect(DrrnPolicy.tokenize("Take Mug 1, #@")).toEqual(["take", "mug", "1", ",", "#", "@"])
  })
})

describe("DrrnPolicy forward", () => {
  it("the same seed gives the same weights", () => {
    expect(Array.from(small(3).params.subarray(0, 50))).toEqual(Array.from(small(3).params.subarray(0, 50)))
    expect(small(3).params[0]).not.toBe(small(4).params[0])
  })
  it("a softmax over the admissible actions, nearly uniform at init (entropy ≈ ln 3)", () => {
    const p = DrrnPolicy.make({ rng: Rng.make(1) })
    const enc = DrrnPolicy.encode(p, input)
    const h = DrrnPolicy.forward(p, enc)
    const probs = Array.from(DrrnPolicy.probsOf(p).subarray(0, 3))
    expect(probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
    expect(h).toBeGreaterThan(Math.log(3) - 0.05)
    expect(h).toBeLessThanOrEqual(Math.log(3) + 1e-12)
    for (let a = 0; a < 3; a++) expect(DrrnPolicy.logProbAt(p, 3, a)).toBeCloseTo(Math.log(probs[a]!), 10)
  })
  it("greedy sampling takes the most probable action; sampling follows the probabilities", () => {
    const p = small(2)
    const enc = DrrnPolicy.encode(p, input)
    DrrnPolicy.forward(p, enc)
    const probs = Array.from(DrrnPolicy.probsOf(p).subarray(0, 3))
    const best = probs.indexOf(Math.max(...probs))
    expect(DrrnPolicy.sample(p, enc, Rng.make(0), true).index).toBe(best)
    const rng = Rng.make(5)
    const counts = [0, 0, 0]
    for (let i = 0; i < 4000; i++) counts[DrrnPolicy.sample(p, enc, rng).index]!++
    for (let a = 0; a < 3; a++) expect(counts[a]! / 4000).toBeCloseTo(probs[a]!, 1)
  })
})

describe("DrrnPolicy backward", () => {
  it("matches central finite differences of L = Σ_a c_a · score_a", () => {
    const p = small(7)
    // make the action tower's output layer larger so every path carries gradient
    const l2 = p.layout.find((l) => l.name === "action.w2")!
    for (let k = 0; k < l2.size; k++) p.params[l2.offset + k] = p.params[l2.offset + k]! * 10
    const enc = DrrnPolicy.encode(p, input)
    const c = [0.7, -1.3, 0.4]
    const loss = () => {
      DrrnPolicy.forward(p, enc)
      const s = DrrnPolicy.logitsOf(p)
      return c[0]! * s[0]! + c[1]! * s[1]! + c[2]! * s[2]!
    }
    const grad = new Float64Array(p.params.length)
    loss()
    DrrnPolicy.backward(p, enc, c, grad)
    // every parameter the input touches: non-zero W1 rows, biases, W2
    const check: Array<number> = []
    for (const l of p.layout) {
      if (l.name.endsWith("w1")) {
        const rows = l.name.startsWith("state") ? enc.state.indices : enc.actions[1]!.indices
        for (const r of Array.from(rows).slice(0, 3)) for (let j = 0; j < 5; j++) check.push(l.offset + r * 5 + j)
      } else for (let k = 0; k < l.size; k++) check.push(l.offset + k)
    }
    let maxErr = 0
    for (const k of check) {
      const old = p.params[k]!
      const h = 1e-2
      p.params[k] = old + h
      const up = loss()
      p.params[k] = old - h
      const down = loss()
      p.params[k] = old
      const fd = (up - down) / (Math.fround(old + h) - Math.fround(old - h))
      maxErr = Math.max(maxErr, Math.abs(fd - grad[k]!) / Math.max(1e-3, Math.abs(fd) + Math.abs(grad[k]!)))
    }
    expect(check.length).toBeGreaterThan(80)
    expect(maxErr).toBeLessThan(1e-3)
  })
  it("untouched W1 rows get zero gradient (sparse input)", () => {
    const p = small(1)
    const enc = DrrnPolicy.encode(p, input)
    const grad = new Float64Array(p.params.length)
    DrrnPolicy.forward(p, enc)
    DrrnPolicy.backward(p, enc, [1, -1, 0.5], grad)
    const w1 = p.layout.find((l) => l.name === "state.w1")!
    const used = new Set(enc.state.indices)
    const unused = Array.from({ length: 64 }, (_, r) => r).find((r) => !used.has(r))!
    expect(Array.from(grad.subarray(w1.offset + unused * 5, w1.offset + unused * 5 + 5))).toEqual([0, 0, 0, 0, 0])
    const r0 = enc.state.indices[0]!
    expect(Array.from(grad.subarray(w1.offset + r0 * 5, w1.offset + r0 * 5 + 5)).some((g) => g !== 0)).toBe(true)
  })
})
