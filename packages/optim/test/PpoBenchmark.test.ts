/**
 * `PpoBenchmark`'s arithmetic and tables on hand-made rows (no timing is asserted: speed lives in the benchmark).
 */
import { describe, expect, it } from "@effect/vitest"
import { PpoBenchmark } from "../src/node.js"

const solve = (engine: "wasm-simd" | "typed-array", seed: number, wallSeconds: number, envSteps: number, solved = true): PpoBenchmark.SolveRow => ({
  kind: "solve",
  engine,
  seed,
  solved,
  wallSeconds,
  envSteps,
  episodes: Math.round(envSteps / 250),
  updates: Math.round(envSteps / 512),
  meanReturn: solved ? 476 : 300
})

describe("PpoBenchmark", () => {
  it("ratios: each seed against the typed-array run of the same seed; medians per engine and against CleanRL's 76 s", () => {
    const rows = [
      solve("wasm-simd", 1, 4, 260_000),
      solve("wasm-simd", 2, 3, 200_000),
      solve("wasm-simd", 3, 5, 300_000, false),
      solve("typed-array", 1, 32, 262_000),
      solve("typed-array", 2, 24, 210_000)
    ]
    expect(PpoBenchmark.ratioToTypedArray(rows[0]!, rows)).toBe(4 / 32)
    expect(PpoBenchmark.ratioToTypedArray(rows[2]!, rows)).toBeNull()
    const [fast, ref] = PpoBenchmark.medians(rows)
    expect(fast).toEqual({ engine: "wasm-simd", seeds: 3, solved: 2, wallSeconds: 4, envSteps: 260_000, episodes: 1040, ratioToTypedArray: (4 / 32 + 3 / 24) / 2, ratioToCleanRl: 4 / 76 })
    expect(ref!.wallSeconds).toBe(28)
    expect(ref!.ratioToTypedArray).toBe(1)
  })

  it("markdown: one line per run, a median line per engine, the labelled CleanRL line, the load and the network rows", () => {
    const text = PpoBenchmark.markdown({
      solves: [solve("wasm-simd", 1, 4, 260_000), solve("typed-array", 1, 32, 262_000)],
      network: [
        { kind: "network", engine: "typed-array", pass: "forward, 4 rows (rollout step)", microseconds: 30, ratioToTypedArray: 1 },
        { kind: "network", engine: "tfjs-wasm", pass: "forward, 4 rows (rollout step)", microseconds: null, ratioToTypedArray: null, note: "TensorFlow.js unavailable: x" }
      ],
      loadBefore: [1.5, 1, 0.5],
      loadAfter: [2, 1, 0.5],
      cpus: 2,
      node: "v20.0.0"
    })
    const lines = text.split("\n")
    expect(lines[0]).toContain("loadavg 1.50 1.00 0.50 before, 2.00 1.00 0.50 after")
    expect(lines).toContain("| wasm-simd | 1 | yes | 4.00 | 260 000 | 1040 | 508 | 0.125 | 0.053 |")
    expect(lines).toContain("| **wasm-simd** | **median of 1** | 1/1 | **4.00** | 260 000 | 1 040 | | 0.125 | **0.053** |")
    expect(lines).toContain(`| ${PpoBenchmark.CLEANRL_LABEL} | | yes | 76 | | | | | 1 |`)
    expect(PpoBenchmark.CLEANRL_LABEL).toContain("recorded, earlier session, no PyTorch here")
    expect(lines).toContain("| tfjs-wasm | forward, 4 rows (rollout step) | – | – | TensorFlow.js unavailable: x |")
  })
})
