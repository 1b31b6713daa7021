import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as LexicalIndex from "../src/store/LexicalIndex.js"
import { Bm25 } from "./fixtures/Bm25.js"
import { generate } from "./fixtures/Dialogues.js"

/** The oracle's ranking of the documents alive, as [id, score] (BM25 scored from scratch). */
const oracle = (alive: ReadonlyArray<{ id: string; text: string }>, query: string) => {
  const bm = new Bm25(alive.map((d) => d.id), alive.map((d) => d.text))
  return bm.scored(query).map(([i, s]) => [alive[i].id, s] as const)
}

describe("LexicalIndex (resident BM25)", () => {
  it("a hand-computed case: IDF, saturation and length normalization", () => {
    const index = LexicalIndex.make()
    index.add(["a", "b", "c"], ["kettle kettle on the stove", "the kettle", "a mug on the shelf"])
    const r = index.search("Kettle?", 10)
    // N = 3, df(kettle) = 2: idf = ln(1 + 1.5 / 2.5); lengths 3 (kettle, kettle, stove), 1, 2 (mug, shelf): avg 2
    const idf = Math.log(1 + 1.5 / 2.5)
    const score = (tf: number, len: number) => idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / 2))
    // the short document wins: score(1, 1) = 1.257 idf > score(2, 3) = 1.205 idf
    expect(r.hits.map((h) => h.id)).toEqual(["b", "a"])
    expect(r.hits[0].score).toBeCloseTo(score(1, 1), 12)
    expect(r.hits[1].score).toBeCloseTo(score(2, 3), 12)
    expect([r.scoreOf("c"), r.scoreOf("nope")]).toEqual([0, 0])
    expect(index.search("the on a", 10).hits).toEqual([]) // stop words only
  })

  it("equals BM25 scored from scratch through adds, removals and compactions, with and without allowed ids", () => {
    const d = generate({ seed: 3, conversations: 12 })
    const docs = d.turns.map((t) => ({ id: t.id, text: t.text }))
    const rng = Rng.make(11)
    const index = LexicalIndex.make()
    const alive: Array<{ id: string; text: string }> = []
    let next = 0
    const questions = d.questions.slice(0, 6).map((q) => q.text)
    for (let round = 0; round < 8; round++) {
      const add = docs.slice(next, next + 400)
      next += add.length
      index.add(add.map((x) => x.id), add.map((x) => x.text))
      alive.push(...add)
      // remove a random ~30% (past the compaction threshold after a few rounds)
      const gone = alive.filter(() => rng.random() < 0.3).map((x) => x.id)
      index.remove(gone)
      const goneSet = new Set(gone)
      for (let i = alive.length - 1; i >= 0; i--) if (goneSet.has(alive[i].id)) alive.splice(i, 1)
      expect(index.size).toBe(alive.length)
      const allowed = new Set(alive.filter((_, i) => i % 3 === 0).map((x) => x.id))
      for (const q of questions) {
        const want = oracle(alive, q)
        const got = index.search(q, 20)
        expect(got.hits.map((h) => h.id), `round ${round}: ${q}`).toEqual(want.slice(0, 20).map(([id]) => id))
        got.hits.forEach((h, i) => expect(h.score).toBeCloseTo(want[i][1], 9))
        for (const [id, s] of want.slice(20, 40)) expect(got.scoreOf(id)).toBeCloseTo(s, 9)
        const filtered = index.search(q, 5, allowed)
        expect(filtered.hits.map((h) => h.id)).toEqual(want.filter(([id]) => allowed.has(id)).slice(0, 5).map(([id]) => id))
      }
    }
  })
})
