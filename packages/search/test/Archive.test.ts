import { InvalidOptionError } from "@autodidact/core"
import { Archive } from "@autodidact/search"
import { ArchiveFile } from "@autodidact/search/node"
import { Schema } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "vitest"

// A configuration is a skill level x in [0, 1]; task k (of 20) is solved iff x > (k + 0.5) / 20, so a node's
// success rate is its x rounded down to a twentieth: the best configurations are the largest x.
const TASKS = Array.from({ length: 20 }, (_, k) => `t${k}`)
const evaluate = (x: number, ids: ReadonlyArray<string>) => ids.map((id) => ({ taskId: id, success: x > (Number(id.slice(1)) + 0.5) / 20 }))
const mutate = (x: number, rng: { normal(): number }) => Math.min(1, Math.max(0, x + 0.15 * rng.normal()))
const base = { initial: 0.1, mutate, evaluate, tasks: TASKS, seed: 3 }

const node = (id: number, parent: number, wins: number, n: number, children: Array<number> = []): Archive.ArchiveNode<number> => ({
  id,
  parent,
  config: 0,
  results: Array.from({ length: n }, (_, k) => ({ taskId: `t${k}`, success: k < wins })),
  children,
  createdAt: 0
})

describe("Archive (DGM, HGM, random; release-gated best; resumable)", () => {
  it("DGM parent weights s·h and HGM clade counts, by hand", () => {
    const nodes = [node(0, -1, 5, 10, [1, 2]), node(1, 0, 9, 10, [3]), node(2, 0, 0, 10), node(3, 1, 2, 4)]
    const w = Archive.dgmWeights(nodes)
    const s = (a: number) => 1 / (1 + Math.exp(-10 * (a - 0.5)))
    expect(w[0]).toBeCloseTo(s(0.5) / 3, 12) // α 0.5, 2 children
    expect(w[1]).toBeCloseTo(s(0.9) / 2, 12)
    expect(w[2]).toBeCloseTo(s(0) / 1, 12)
    expect(w[3]).toBeCloseTo(s(0.5) / 1, 12)
    // clade of 0: everything (5+9+0+2 = 16 successes, 34 − 16 = 18 failures); clade of 1: nodes 1 and 3
    expect(Archive.cladeCounts(nodes)).toEqual([[16, 18], [11, 3], [0, 10], [2, 2]])
  })

  it("every policy improves on the initial configuration within 30 steps; HGM and DGM find a better best than random on average", async () => {
    const bestRate = async (selection: "dgm" | "hgm" | "random", seed: number) => {
      const state = await Archive.run({ ...base, seed, selection, steps: 30, evaluationSize: 20, batchSize: 5 })
      const best = state.nodes[state.best]!
      expect(best.results.every((r, k) => r.taskId === TASKS[k])).toBe(true)
      return best.results.filter((r) => r.success).length / best.results.length
    }
    const mean = async (selection: "dgm" | "hgm" | "random") => {
      let t = 0
      for (const seed of [1, 2, 3]) t += await bestRate(selection, seed)
      return t / 3
    }
    const [dgm, hgm, random] = [await mean("dgm"), await mean("hgm"), await mean("random")]
    for (const r of [dgm, hgm, random]) expect(r).toBeGreaterThan(0.1)
    expect(Math.max(dgm, hgm)).toBeGreaterThanOrEqual(random)
  })

  it("promotion goes through the release gate: a candidate that breaks as much as it fixes is refused", async () => {
    // two tasks; the initial solves t0 only; every child solves t1 only: fixed 1, broken 1, net 0 < margin 1
    const state = await Archive.run({
      initial: "a",
      mutate: () => "b",
      evaluate: (c, ids) => ids.map((id) => ({ taskId: id, success: (c === "a") === (id === "t0") })),
      tasks: ["t0", "t1"],
      selection: "random",
      steps: 3
    })
    expect(state.best).toBe(0)
    expect(state.promotions).toEqual([]) // equal lower bounds: no comparison needed
    const better = await Archive.run({
      initial: "a",
      mutate: () => "b",
      evaluate: (c, ids) => ids.map((id) => ({ taskId: id, success: c === "b" || id === "t0" })),
      tasks: ["t0", "t1"],
      selection: "random",
      steps: 1
    })
    expect(better.best).toBe(1)
    expect(better.promotions).toMatchObject([{ candidate: 1, incumbent: 0, accepted: true }])
  })

  it("an interrupted search resumes from its archive file exactly (20 steps = 12 saved + 8 resumed)", async () => {
    const file = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "autodidact-archive-")), "archive.json")
    const options = { ...base, selection: "hgm" as const, batchSize: 5 }
    const straight = await Archive.run({ ...options, steps: 20 })
    await Archive.run({ ...options, steps: 12, onStep: (s) => ArchiveFile.save(file, s) })
    const resumed = await Archive.run({ ...options, steps: 20, resume: ArchiveFile.load(file, Schema.Number) })
    expect(JSON.parse(JSON.stringify(resumed))).toEqual(JSON.parse(JSON.stringify(straight)))
    Fs.writeFileSync(file, JSON.stringify({ format: "autodidact-archive-v1", nodes: [{ id: "x" }] }))
    expect(() => ArchiveFile.load(file, Schema.Number)).toThrow(/id/)
  })

  it("an invalid child is rejected with InvalidConfigError's message and the search goes on; bad options are typed errors", async () => {
    const state = await Archive.run({
      ...base,
      mutate: (x: number) => (x > 0.05 ? -1 : x),
      validate: (x: number) => {
        if (x < 0) throw new Error(`skill ${x} is negative`)
      },
      selection: "random",
      steps: 3
    })
    expect(state.nodes).toHaveLength(1)
    expect(state.rejected.map((r) => r.reason)).toEqual(Array(3).fill("invalid configuration (mutation of node 0): skill -1 is negative"))
    await expect(Archive.run({ ...base, initial: -1, validate: (x: number) => { if (x < 0) throw new Error("negative") }, selection: "dgm", steps: 1 })).rejects.toThrow(Archive.InvalidConfigError)
    await expect(Archive.run({ ...base, selection: "dgm", steps: 0 })).rejects.toThrow(InvalidOptionError)
    await expect(Archive.run({ ...base, selection: "hgm", steps: 2, evaluate: () => [] })).rejects.toThrow(/no result for this task/)
    await expect(Archive.run({ ...base, selection: "dgm", steps: 1, gate: { margin: 0.5 } })).rejects.toThrow(/margin/)
  })

  it("shouldStop is asked before each step with what it would do (HGM: expand while nodes < √steps, else evaluate) and ends the search", async () => {
    const asked: Array<string> = []
    const state = await Archive.run({
      ...base,
      selection: "hgm",
      steps: 100,
      batchSize: 5,
      shouldStop: (s, next) => {
        asked.push(next)
        return s.step === 6
      }
    })
    // step 1: 1 node, 1 < √1 false → evaluate; 2: 1 < √2 → expand; 3, 4: 2 < √3, √4 false → evaluate;
    // 5: 2 < √5 → expand; 6: 3 < √6 false → evaluate; then asked once more and stopped after step 6
    expect(asked).toEqual(["evaluate", "expand", "evaluate", "evaluate", "expand", "evaluate", "evaluate"])
    expect(state.step).toBe(6)
    expect(state.nodes.length).toBe(3)
    const dgm: Array<string> = []
    const d = await Archive.run({ ...base, selection: "dgm", steps: 3, shouldStop: (_s, next) => (dgm.push(next), false) })
    expect(dgm).toEqual(["expand", "expand", "expand"])
    expect(d.step).toBe(3)
  })
})
