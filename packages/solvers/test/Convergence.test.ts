/**
 * The convergence table: rows per checkpoint with NashConv equal to a direct Cfr run's, skipped rows for an algorithm
 * that does not apply, the budget cut, and the markdown layout.
 */
import { InvalidOptionError } from "@autodidact/core"
import { KuhnPoker } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import * as Convergence from "../src/regret/Convergence.js"
import * as Cfr from "../src/regret/Cfr.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as GameTree from "../src/tree/GameTree.js"

describe("Convergence", () => {
  it("measures NashConv at each checkpoint, equal to a direct run; CFR-BR on three players is a skipped row", () => {
    const rows = Convergence.run({ games: ["kuhn_poker", "kuhn_poker(players=3)"], algorithms: ["cfr+", "cfr-br"], checkpoints: [5, 20] })
    const kuhn = GameTree.compile(KuhnPoker.make())
    const direct = Cfr.make(kuhn, { variant: "cfr+" })
    direct.run(20)
    const cfrPlus = rows.filter((r) => r.game === "kuhn_poker" && r.algo === "cfr+")
    expect(cfrPlus.map((r) => r.iteration)).toEqual([5, 20])
    expect(cfrPlus[1]!.nashConv).toBe(Exploitability.nashConvOnTree(kuhn, direct.averageProbabilities()))
    expect(cfrPlus[1]!.seconds).toBeGreaterThanOrEqual(cfrPlus[0]!.seconds)
    const skipped = rows.filter((r) => r.game === "kuhn_poker(players=3)" && r.algo === "cfr-br")
    expect(skipped).toHaveLength(1)
    expect(skipped[0]!.skipped).toContain("two-player")
    const table = Convergence.markdown(rows).split("\n")
    expect(table[0]).toBe("| game | algorithm | NashConv @5 | NashConv @20 | seconds |")
    expect(table).toHaveLength(2 + 4)
    expect(table.find((l) => l.includes("players=3) | cfr-br"))).toContain("n/a | n/a")
  })

  it("stops a run once maxSeconds is spent, leaving out the checkpoints it did not reach; rejects bad checkpoints", () => {
    const rows = Convergence.run({ games: ["kuhn_poker"], algorithms: ["cfr"], checkpoints: [1, 2, 3], maxSeconds: 1e-12 })
    expect(rows.map((r) => r.iteration)).toEqual([1]) // below 16 iterations the budget is only checked at checkpoints
    // a million Kuhn iterations would take minutes: the run stops after 16 and reports nothing
    expect(Convergence.run({ games: ["kuhn_poker"], algorithms: ["cfr"], checkpoints: [1_000_000], maxSeconds: 1e-12 })).toEqual([])
    expect(() => Convergence.run({ checkpoints: [10, 5] })).toThrow(InvalidOptionError)
    expect(() => Convergence.run({ checkpoints: [] })).toThrow(InvalidOptionError)
  })
})
