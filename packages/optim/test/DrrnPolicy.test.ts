import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as DrrnPolicy from "../src/text/DrrnPolicy.js"
import { maxRelativeError } from "./gradientCheck.js"

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
    expect(check.length).toBeGreaterThan(80)
    expect(maxRelativeError(p.params, grad, loss, check, 1e-2)).toBeLessThan(1e-3)
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

describe("DrrnPolicy implementations", () => {
  const household = {
    task: "Your task is to: put a clean mug in coffeemachine.",
    observation: "You arrive at countertop 1. On the countertop 1, you see a mug 1, and a knife 2.",
    admissible: ["take mug 1 from countertop 1", "take knife 2 from countertop 1", "go to sinkbasin 1", "go to coffeemachine 1", "look", "inventory"],
    history: [{ observation: "You are in the middle of a room.", action: "go to countertop 1" }]
  }
  const withImpl = (impl: Partial<DrrnPolicy.Implementation>, seed = 11) => {
    const p = DrrnPolicy.make({ buckets: 256, hidden: 7, embed: 5, rng: Rng.make(seed) })
    // a larger action output layer, so the action tower's second layer matters in the comparison
    const l2 = p.layout.find((l) => l.name === "action.w2")!
    for (let k = 0; k < l2.size; k++) p.params[l2.offset + k] = p.params[l2.offset + k]! * 30
    DrrnPolicy.setImplementation(p, impl)
    return p
  }
  const dLogits = [0.3, -1.1, 0.25, 0, 0.9, -0.35]

  it("the factored kernel gives the reference kernel's scores, entropy and gradient (to rounding)", () => {
    const ref = withImpl({ kernel: "reference", encodingCache: 0 })
    const fac = withImpl({ kernel: "factored" })
    const enc = DrrnPolicy.encode(ref, household)
    const hRef = DrrnPolicy.forward(ref, enc)
    const hFac = DrrnPolicy.forward(fac, enc)
    expect(hFac).toBeCloseTo(hRef, 12)
    const k = household.admissible.length
    const lr = Array.from(DrrnPolicy.logitsOf(ref).subarray(0, k))
    const lf = Array.from(DrrnPolicy.logitsOf(fac).subarray(0, k))
    expect(Math.max(...lr.map((x) => Math.abs(x)))).toBeGreaterThan(0.05) // scores are not all ≈ 0
    for (let a = 0; a < k; a++) expect(lf[a]!).toBeCloseTo(lr[a]!, 12)
    const gRef = new Float64Array(ref.params.length)
    const gFac = new Float64Array(fac.params.length)
    const gDef = new Float64Array(fac.params.length)
    DrrnPolicy.backward(ref, enc, dLogits, gRef)
    DrrnPolicy.backward(fac, enc, dLogits, gFac)
    DrrnPolicy.backward(fac, enc, dLogits, gDef, true)
    DrrnPolicy.backward(fac, enc, dLogits, gDef, true) // the same step twice: one pending slot per action vector
    DrrnPolicy.flushActionGradient(fac, gDef)
    let maxDiff = 0
    let maxDefDiff = 0
    let nonZero = 0
    for (let i = 0; i < gRef.length; i++) {
      if (gRef[i] !== 0) nonZero++
      maxDiff = Math.max(maxDiff, Math.abs(gFac[i]! - gRef[i]!))
      maxDefDiff = Math.max(maxDefDiff, Math.abs(gDef[i]! - 2 * gRef[i]!))
    }
    expect(nonZero).toBeGreaterThan(500)
    expect(maxDiff).toBeLessThan(1e-12)
    expect(maxDefDiff).toBeLessThan(1e-12)
    // flushed: a second flush adds nothing
    const before = Float64Array.from(gDef)
    DrrnPolicy.flushActionGradient(fac, gDef)
    expect(gDef).toEqual(before)
  })

  it("the encoding cache returns identical features (and the same vector on a hit)", () => {
    const cached = withImpl({ encodingCache: 7 })
    const tiny = withImpl({ encodingCache: 1 })
    const plain = withImpl({ encodingCache: 0 })
    const a = DrrnPolicy.encode(cached, household)
    const b = DrrnPolicy.encode(cached, household)
    const c = DrrnPolicy.encode(plain, household)
    expect(b.actions[0]).toBe(a.actions[0]) // hit: the 7-entry LRU holds the state and the 6 actions
    const t1 = DrrnPolicy.encode(tiny, household)
    const t2 = DrrnPolicy.encode(tiny, household)
    expect(t2.actions[0]).not.toBe(t1.actions[0]) // evicted from the 1-entry LRU, computed again: equal
    expect(Array.from(t2.actions[0]!.values)).toEqual(Array.from(c.actions[0]!.values))
    for (const [x, y] of [[a.state, c.state], ...a.actions.map((v, i) => [v, c.actions[i]!] as const)] as const) {
      expect(Array.from(x.indices)).toEqual(Array.from(y.indices))
      expect(Array.from(x.values)).toEqual(Array.from(y.values))
    }
    // another history is another state: no stale hit
    const d = DrrnPolicy.encode(cached, { ...household, history: [{ observation: "You open the fridge 1.", action: "open fridge 1" }] })
    const e = DrrnPolicy.encode(plain, { ...household, history: [{ observation: "You open the fridge 1.", action: "open fridge 1" }] })
    expect(Array.from(d.state.indices)).toEqual(Array.from(e.state.indices))
    expect(Array.from(d.state.indices)).not.toEqual(Array.from(a.state.indices))
    // another task delexicalizes other words ("mug" is no longer the task object): no stale delexicalization
    const other = { ...household, task: "Your task is to: put a hot knife in countertop." }
    for (const input of [other, household, other]) {
      const x = DrrnPolicy.encode(cached, input)
      const y = DrrnPolicy.encode(plain, input)
      expect(Array.from(x.state.indices)).toEqual(Array.from(y.state.indices))
      expect(x.actions.map((v) => Array.from(v.indices))).toEqual(y.actions.map((v) => Array.from(v.indices)))
    }
    expect(Array.from(DrrnPolicy.encode(plain, other).actions[0]!.indices)).not.toEqual(Array.from(c.actions[0]!.indices))
  })

  it("the action memo is bit-identical while the parameters stand and forgets them after paramsChanged", () => {
    const memo = withImpl({ actionMemo: true })
    const plain = withImpl({ actionMemo: false })
    const enc = DrrnPolicy.encode(plain, household)
    const k = household.admissible.length
    const logits = (p: DrrnPolicy.Drrn) => (DrrnPolicy.forward(p, enc), Array.from(DrrnPolicy.logitsOf(p).subarray(0, k)))
    const first = logits(memo)
    expect(logits(memo)).toEqual(first) // served from the memo
    expect(logits(plain)).toEqual(first)
    const w1 = memo.layout.find((l) => l.name === "action.w1")!
    const row = enc.actions[0]!.indices[0]!
    for (const p of [memo, plain]) p.params[w1.offset + row * 7] = p.params[w1.offset + row * 7]! + 3
    DrrnPolicy.paramsChanged(memo)
    const after = logits(memo)
    expect(after).toEqual(logits(plain))
    expect(after[0]).not.toBe(first[0])
  })

  it("setImplementation rejects an unknown kernel and a bad cache size", () => {
    const p = small()
    expect(() => DrrnPolicy.setImplementation(p, { kernel: "fast" as never })).toThrow(/kernel must be factored or reference, got fast/)
    expect(() => DrrnPolicy.setImplementation(p, { encodingCache: -1 })).toThrow(/encodingCache must be a non-negative integer, got -1/)
    expect(DrrnPolicy.implementationOf(p)).toEqual(DrrnPolicy.implementationDefaults)
  })
})
