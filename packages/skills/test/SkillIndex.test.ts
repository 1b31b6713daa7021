import { describe, expect, it } from "@effect/vitest"
import { WasmSimd } from "@autodidact/kernels"
import { SkillIndex } from "../src/index.js"

/** Seeded uniform [0, 1). */
const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6D2B79F5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The reference: every vector scored in doubles (index order), sorted by score desc then name asc, first k. */
const brute = (vectors: Map<string, Float32Array>, q: Float32Array, k: number, accept?: (name: string) => boolean) => {
  const all: Array<{ name: string; score: number }> = []
  for (const [name, v] of vectors) {
    if (accept !== undefined && !accept(name)) continue
    let s = 0
    for (let i = 0; i < v.length; i++) s += v[i]! * q[i]!
    all.push({ name, score: s })
  }
  all.sort((a, b) => (a.score !== b.score ? b.score - a.score : a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return k > 0 ? all.slice(0, Math.floor(k)) : []
}

/**
 * Random vectors with exact ties (duplicated rows under other names), near-ties (a row nudged by one float32 ulp in
 * one coordinate) and coarse values (many equal scores), L2-normalized like memory's embedders (or not).
 */
const randomVectors = (rng: () => number, n: number, dim: number, normalize: boolean): Map<string, Float32Array> => {
  const out = new Map<string, Float32Array>()
  const made: Array<Float32Array> = []
  for (let j = 0; j < n; j++) {
    const name = `s${Math.floor(rng() * 1e6).toString(36)}-${j}`
    const u = rng()
    let v: Float32Array
    if (u < 0.15 && made.length > 0) v = Float32Array.from(made[Math.floor(rng() * made.length)]!) // exact duplicate
    else if (u < 0.3 && made.length > 0) {
      v = Float32Array.from(made[Math.floor(rng() * made.length)]!)
      const i = Math.floor(rng() * dim)
      const b = new Float32Array([v[i]!])
      const bits = new Int32Array(b.buffer)
      bits[0] = bits[0]! + ((bits[0]! & 0x7fffffff) === 0 || rng() < 0.5 ? 1 : -1) // ±0 only moves away from 0 (never NaN)
      v[i] = b[0]! // one ulp away: the float32 and double orders may disagree
    } else if (u < 0.5) v = Float32Array.from({ length: dim }, () => Math.round(rng() * 4 - 2) / 4) // coarse: ties
    else {
      v = Float32Array.from({ length: dim }, () => rng() * 2 - 1)
      if (normalize) {
        let s = 0
        for (const x of v) s += x * x
        for (let i = 0; i < dim; i++) v[i] = v[i]! / Math.sqrt(s)
      }
    }
    made.push(v)
    out.set(name, v)
  }
  return out
}

const fill = (index: SkillIndex.SkillIndex, vectors: Map<string, Float32Array>) => {
  for (const [name, v] of vectors) index.set(name, v)
}

const queriesFor = (rng: () => number, vectors: Map<string, Float32Array>, dim: number, count: number) => {
  const rows = [...vectors.values()]
  return Array.from({ length: count }, (_, i) =>
    i % 3 === 0 ? Float32Array.from(rows[Math.floor(rng() * rows.length)]!) // a stored vector: its duplicates tie at the top
    : i % 3 === 1 ? Float32Array.from({ length: dim }, () => Math.round(rng() * 4 - 2) / 2)
    : Float32Array.from({ length: dim }, () => rng() * 2 - 1))
}

const withEnv = <A>(value: string | undefined, f: () => A): A => {
  const prev = process.env[WasmSimd.ENV_VAR]
  if (value === undefined) delete process.env[WasmSimd.ENV_VAR]
  else process.env[WasmSimd.ENV_VAR] = value
  try {
    return f()
  } finally {
    if (prev === undefined) delete process.env[WasmSimd.ENV_VAR]
    else process.env[WasmSimd.ENV_VAR] = prev
  }
}

describe("SkillIndex", () => {
  it("wasm SIMD is available here (else the kernel-path tests below would only test the scan)", () => {
    expect(withEnv(undefined, () => WasmSimd.load())).toEqual({ ok: true })
  })

  it("hand-computed: scores in doubles, ties by name, k edge cases", () => {
    const index = new SkillIndex.SkillIndex()
    index.set("c", Float32Array.of(1, 0))
    index.set("a", Float32Array.of(1, 0)) // ties c
    index.set("b", Float32Array.of(0.6, 0.8))
    index.set("d", Float32Array.of(-1, 0))
    const q = Float32Array.of(1, 0.5)
    // a, c: 1; b: 0.6 + 0.4 = 1 in doubles? 0.6f * 1 + 0.8f * 0.5 — float32 0.6 and 0.8 are not exact, so compute:
    const b = Math.fround(0.6) + Math.fround(0.8) * 0.5
    const expected = [{ name: "a", score: 1 }, { name: "c", score: 1 }, { name: "b", score: b }, { name: "d", score: -1 }]
      .sort((x, y) => y.score - x.score || (x.name < y.name ? -1 : 1))
    expect(index.search(q, 4)).toEqual(expected)
    expect(index.search(q, 10)).toEqual(expected)
    expect(index.search(q, 2.7)).toEqual(expected.slice(0, 2))
    expect(index.search(q, 0)).toEqual([])
    expect(index.search(q, -3)).toEqual([])
    expect(index.search(q, Number.NaN)).toEqual([])
    expect(index.search(q, 1, (n) => n !== "a")).toEqual(expected.filter((h) => h.name !== "a").slice(0, 1))
    expect(() => index.search(Float32Array.of(1, 2, 3), 1)).toThrow(SkillIndex.SkillIndexDimensionError)
    expect(() => index.set("e", Float32Array.of(1))).toThrow(/has length 1, expected 2/)
    expect(new SkillIndex.SkillIndex().search(q, 3)).toEqual([])
    index.dispose()
  })

  it("set overwrites, delete swaps the last row in, get returns copies", () => {
    const index = new SkillIndex.SkillIndex()
    for (let i = 0; i < 40; i++) index.set(`n${i}`, Float32Array.of(i, 1)) // grows past the first capacity (16)
    index.set("n3", Float32Array.of(100, 0))
    expect(index.delete("n0")).toBe(true)
    expect(index.delete("n0")).toBe(false)
    expect(index.size).toBe(39)
    expect([...index.get("n39")!]).toEqual([39, 1])
    expect([...index.get("n3")!]).toEqual([100, 0])
    expect(index.get("n0")).toBeUndefined()
    expect(index.search(Float32Array.of(1, 0), 3).map((h) => h.name)).toEqual(["n3", "n39", "n38"])
    index.dispose()
  })

  for (const [dim, n, normalize] of [[3, 400, false], [17, 300, true], [64, 600, true], [256, 500, true], [300, 250, false]] as const) {
    it(`equals the double-precision brute force on random vectors (dim ${dim}, ${n} rows), kernel and scan`, () => {
      const rng = mulberry32(dim * 1000 + n)
      const vectors = randomVectors(rng, n, dim, normalize)
      const kernel = new SkillIndex.SkillIndex()
      const scan = new SkillIndex.SkillIndex({ engine: "scan" })
      fill(kernel, vectors)
      fill(scan, vectors)
      const check = () => {
        for (const q of queriesFor(rng, vectors, dim, 9)) {
          for (const k of [1, 5, 17, vectors.size - 1, vectors.size, vectors.size + 3]) {
            const want = brute(vectors, q, k)
            expect(kernel.search(q, k)).toEqual(want)
            expect(scan.search(q, k)).toEqual(want)
          }
          const accept = (name: string) => name.charCodeAt(name.length - 1) % 3 !== 0
          expect(kernel.search(q, 7, accept)).toEqual(brute(vectors, q, 7, accept))
        }
      }
      check()
      expect(kernel.stats.kernelSearches).toBeGreaterThan(0)
      expect(kernel.stats.rebuilds).toBe(1)
      expect(scan.stats.kernelSearches).toBe(0)
      // change rows in place (same size: refresh), then delete and add (new size: rebuild)
      const names = [...vectors.keys()]
      for (let i = 0; i < 20; i++) {
        const name = names[Math.floor(rng() * names.length)]!
        const v = Float32Array.from({ length: dim }, () => rng() - 0.5)
        vectors.set(name, v)
        kernel.set(name, v)
        scan.set(name, v)
      }
      check()
      expect(kernel.stats.refreshes).toBe(1)
      for (let i = 0; i < 30; i++) {
        const name = names[Math.floor(rng() * names.length)]!
        vectors.delete(name)
        kernel.delete(name)
        scan.delete(name)
      }
      const extra = randomVectors(rng, 25, dim, normalize)
      for (const [name, v] of extra) {
        vectors.set(`x-${name}`, v)
        kernel.set(`x-${name}`, v)
        scan.set(`x-${name}`, v)
      }
      check()
      expect(kernel.stats.rebuilds).toBe(2)
      kernel.dispose()
      expect(kernel.resident).toBe(false)
      check() // rebuilt on demand after dispose
      expect(kernel.resident).toBe(true)
      kernel.dispose()
    })
  }

  it("exact ties across the candidate boundary widen the kernel search and keep the name order", () => {
    const rng = mulberry32(9)
    const dim = 32
    const vectors = new Map<string, Float32Array>()
    const index = new SkillIndex.SkillIndex()
    const dup = Float32Array.from({ length: dim }, () => rng() - 0.5)
    for (let j = 0; j < 400; j++) {
      // 100 identical rows under names whose order differs from the insertion (row) order
      const v = j % 4 === 0 ? dup : Float32Array.from({ length: dim }, () => (rng() - 0.5) / 4)
      const name = `t${(j * 7919) % 400}`
      vectors.set(name, v)
      index.set(name, v)
    }
    for (const k of [1, 5, 40]) expect(index.search(dup, k)).toEqual(brute(vectors, dup, k))
    expect(index.stats.widenings).toBeGreaterThan(0)
    expect(index.stats.kernelSearches).toBe(3)
    expect(index.search(dup, 3).map((h) => h.name)).toEqual(["t0", "t100", "t104"]) // the first dup names, by string order
    index.dispose()
  })

  it("one-ulp neighbours: the kernel's float32 top-1 is often not the double top-1; the rescored answer is", () => {
    const rng = mulberry32(3)
    const dim = 64
    let disagreements = 0
    for (let t = 0; t < 20; t++) {
      // 10 one-ulp neighbours of `base` (3 coordinates nudged) among 290 unrelated shorter rows; query = base
      const base = Float32Array.from({ length: dim }, () => rng() - 0.5)
      const vectors = new Map<string, Float32Array>()
      const matrix = new Float32Array(300 * dim)
      for (let j = 0; j < 300; j++) {
        const v = j % 30 === 0 ? Float32Array.from(base) : Float32Array.from({ length: dim }, () => (rng() - 0.5) / 2)
        if (j % 30 === 0) {
          for (let u = 0; u < 3; u++) {
            const i = Math.floor(rng() * dim)
            const b = new Float32Array([v[i]!])
            const bits = new Int32Array(b.buffer)
            bits[0] = bits[0]! + ((bits[0]! & 0x7fffffff) === 0 || rng() < 0.5 ? 1 : -1)
            v[i] = b[0]!
          }
        }
        vectors.set(`r${j}`, v)
        matrix.set(v, j * dim)
      }
      const raw = WasmSimd.makeTopKIndex(matrix, 300, dim)
      const kernelTop = `r${raw.search(base, 1, 1, "dot").indices[0]}`
      raw.dispose()
      const want = brute(vectors, base, 3)
      if (kernelTop !== want[0]!.name) disagreements++
      const index = new SkillIndex.SkillIndex()
      fill(index, vectors)
      expect(index.search(base, 3)).toEqual(want)
      expect(index.lastEngine).toBe("wasm-simd")
      index.dispose()
    }
    expect(disagreements).toBeGreaterThan(5) // 17 of 20 when written
  })

  it("large cancellations: the float32 order differs from the double order, the bound forces a wider search", () => {
    const dim = 8
    const index = new SkillIndex.SkillIndex()
    const vectors = new Map<string, Float32Array>()
    const rng = mulberry32(5)
    for (let j = 0; j < 200; j++) {
      // 2^24 + small - 2^24: float32 partial sums lose the small part, doubles keep it
      const v = Float32Array.from({ length: dim }, () => Math.round(rng() * 8) / 8)
      v[0] = 2 ** 24
      v[4] = -(2 ** 24)
      vectors.set(`c${j}`, v)
      index.set(`c${j}`, v)
    }
    const q = Float32Array.from({ length: dim }, () => 1)
    for (const k of [1, 3, 10]) expect(index.search(q, k)).toEqual(brute(vectors, q, k))
    expect(index.stats.kernelSearches).toBe(0) // the error bound (~‖q‖·2^24·γ) never certifies: the scan answers
    expect(index.stats.scans).toBe(3)
    index.dispose()
  })

  it("the fallback (AUTODIDACT_WASM_SIMD=0) returns identical results", () => {
    const rng = mulberry32(77)
    const dim = 48
    const vectors = randomVectors(rng, 700, dim, true)
    const index = new SkillIndex.SkillIndex()
    fill(index, vectors)
    for (const q of queriesFor(rng, vectors, dim, 6)) {
      const fast = withEnv(undefined, () => index.search(q, 5))
      expect(index.lastEngine).toBe("wasm-simd")
      const slow = withEnv("0", () => index.search(q, 5))
      expect(index.lastEngine).toBe("scan")
      expect(fast).toEqual(slow)
      expect(fast).toEqual(brute(vectors, q, 5))
    }
    index.dispose()
  })

  it("a non-finite vector does not crash: NaN ranks last", () => {
    const index = new SkillIndex.SkillIndex()
    index.set("bad", Float32Array.of(Number.NaN, 0))
    index.set("ok", Float32Array.of(1, 0))
    index.set("neg", Float32Array.of(-1, 0))
    const hits = index.search(Float32Array.of(1, 1), 3)
    expect(hits.map((h) => h.name)).toEqual(["ok", "neg", "bad"])
    expect(hits[2]!.score).toBeNaN()
    expect(index.search(Float32Array.of(1, 1), 1)).toEqual([{ name: "ok", score: 1 }])
    index.dispose()
  })
})
