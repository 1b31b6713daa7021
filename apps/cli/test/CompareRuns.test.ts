/**
 * `compare --runs`: existing run directories compared without training. Five tiny run directories written here
 * (config.json + metrics.jsonl with hand-chosen evaluation rows) and every figure checked against a value computed by
 * hand: the variant labels, success at --at (last evaluation at or before it, or the final one of a run whose budget
 * ends by then), steps to the threshold per seed (— when never), the paired difference from the baseline, wall
 * seconds per 100k steps; the typed errors for a directory that is no run, two runs of one variant and seed, runs
 * that stop before --at, and an unknown --baseline. In process (test/inproc.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { stripVTControlCharacters } from "node:util"
import { variantLabel } from "../src/commands/Compare.js"
import { cli } from "./inproc.js"

/** Student's t 0.975 quantile with 1 degree of freedom (tables: 12.7062). */
const T1 = 12.706204736

interface Eval {
  readonly step: number
  readonly success: number
  readonly wall: number
}

const writeRun = (dir: string, config: Record<string, unknown>, evals: ReadonlyArray<Eval>) => {
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify({ command: "train", env: "TextHousehold-v0", groupSize: 8, difficulty: "default", ...config }))
  const rows: Array<Record<string, unknown>> = [{ kind: "episode", globalStep: 50, episodeReturn: 0, episodeLength: 50, wallSeconds: 0.1, success: false }]
  for (const e of evals) {
    // an episode row with success above every threshold: only evaluation rows count
    rows.push({ kind: "episode", globalStep: e.step - 1, wallSeconds: e.wall, success: true, successRate: 1 })
    rows.push({ kind: "evaluation", globalStep: e.step, wallSeconds: e.wall, successRate: e.success, episodeReturn: e.success, split: "test" })
  }
  // what `autodidact eval` appends afterwards: no globalStep, left out
  rows.push({ kind: "evaluation", run: ".", episodes: 1000, successRate: 0, meanReturn: 0 })
  fs.writeFileSync(path.join(dir, "metrics.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n")
}

const multiTurn = (more: Record<string, unknown> = {}) => ({ algo: "gigpo", groupSize: 8, zeroAdvantageGroups: "keep", entropyBalancedClip: false, annealLr: false, ...more })

/** The five runs: gigpo s1, s2 (budget 1000); gigpo + paprika s1, s2 (budget 2000); one spa run with every option. */
const fixture = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-cmp-runs-"))
  const dirs = { a1: path.join(root, "base-s1"), a2: path.join(root, "base-s2"), b1: path.join(root, "paprika-s1"), b2: path.join(root, "paprika-s2"), c1: path.join(root, "spa-s1") }
  writeRun(dirs.a1, { algo: "gigpo", seed: 1, totalSteps: 1000, multiTurn: multiTurn() }, [
    { step: 300, success: 0.2, wall: 3 }, { step: 600, success: 0.9, wall: 6 }, { step: 1010, success: 0.8, wall: 20.2 }
  ])
  writeRun(dirs.a2, { algo: "gigpo", seed: 2, totalSteps: 1000, multiTurn: multiTurn() }, [
    { step: 300, success: 0.1, wall: 3 }, { step: 700, success: 0.5, wall: 7 }, { step: 1020, success: 0.6, wall: 10.2 }
  ])
  writeRun(dirs.b1, { algo: "gigpo", seed: 1, totalSteps: 2000, curriculum: "paprika", multiTurn: multiTurn({ taskSampler: "paprika" }) }, [
    { step: 400, success: 0.5, wall: 4 }, { step: 800, success: 0.95, wall: 8 }, { step: 1200, success: 1, wall: 12 }, { step: 2000, success: 1, wall: 60 }
  ])
  writeRun(dirs.b2, { algo: "gigpo", seed: 2, totalSteps: 2000, curriculum: "paprika", multiTurn: multiTurn({ taskSampler: "paprika" }) }, [
    { step: 500, success: 0.9, wall: 5 }, { step: 1000, success: 0.7, wall: 10 }, { step: 2010, success: 1, wall: 20.1 }
  ])
  writeRun(dirs.c1, {
    algo: "spa", seed: 1, totalSteps: 1000, groupSize: 4, difficulty: "hard",
    multiTurn: multiTurn({ algo: "spa", groupSize: 4, zeroAdvantageGroups: "resample", epo: {}, annealLr: true })
  }, [{ step: 1000, success: 0.3, wall: 5 }])
  return { root, dirs, all: Object.values(dirs).join(",") }
}

const SPA = "spa + zero-advantage=resample + epo + anneal-lr + difficulty=hard + group-size=4"

describe("compare --runs", () => {
  it("labels a learning rate and a promotion threshold only where they differ from what train uses today; a target KL", () => {
    const run = (difficulty: string, learningRate: number) =>
      variantLabel({ env: "TextHousehold-v0", algo: "gigpo", difficulty, multiTurn: multiTurn({ learningRate }) })
    expect(run("hard", 1.5e-3)).toBe("gigpo + difficulty=hard")
    expect(run("hard", 5e-3)).toBe("gigpo + lr=0.005 + difficulty=hard")
    expect(run("default", 5e-3)).toBe("gigpo")
    expect(run("default", 1e-3)).toBe("gigpo + lr=0.001")
    expect(variantLabel({ env: "TextHousehold-v0", algo: "gigpo", curriculum: "envgen", multiTurn: multiTurn({ learningRate: 5e-3, targetKl: 0.2 }) }))
      .toBe("gigpo + envgen + target-kl=0.2")
    // envgen's promotion threshold (config.json promoteAbove) only where it differs from today's
    const envgen = (promoteAbove: number) => variantLabel({ env: "TextHousehold-v0", algo: "gigpo", curriculum: "envgen", promoteAbove, multiTurn: multiTurn() })
    expect(envgen(0.5)).toBe("gigpo + envgen")
    expect(envgen(0.3)).toBe("gigpo + envgen + promote=0.3")
  })

  it("labels variants from config.json and computes each figure as by hand", async () => {
    const { root, dirs, all } = fixture()
    const out = path.join(root, "out")
    const r = await cli(["compare", "--runs", all, "--out", out, "--json"])
    expect(r.code, r.stderr).toBe(0)
    const rows = r.json()
    expect(rows.map((row) => row["variant"])).toEqual(["gigpo", "gigpo + paprika", SPA])
    const [gigpo, paprika, spa] = rows as [Record<string, any>, Record<string, any>, Record<string, any>]
    expect(gigpo["runs"]).toEqual([dirs.a1, dirs.a2])
    expect(gigpo["seeds"]).toEqual([1, 2])
    // --at defaults to the smallest budget, 1000; gigpo's budgets end there: their final evaluations (0.8, 0.6)
    expect(gigpo["at"]).toBe(1000)
    expect(gigpo["successPerSeed"]).toEqual([0.8, 0.6])
    expect(gigpo["evalStepPerSeed"]).toEqual([1010, 1020])
    // mean 0.7, s = 0.1414, t(0.975, 1)·s/√2 = 12.706·0.1
    expect(gigpo["success"]["estimate"]).toBeCloseTo(0.7, 12)
    expect(gigpo["success"]["high"] - 0.7).toBeCloseTo(T1 * 0.1, 6)
    expect(gigpo["stepsToThreshold"]).toEqual([600, null]) // seed 2 never reaches 0.9
    expect(gigpo["meanStepsToThreshold"]).toBeNull()
    expect(gigpo["vsBaseline"]).toBeNull()
    // 20.2 s / 1010 steps and 10.2 s / 1020 steps: 2000 and 1000 s per 100k
    expect(gigpo["wallSecondsPer100k"]).toBeCloseTo(1500, 9)

    // paprika's budget (2000) goes past 1000: the last evaluation at ≤ 1000 (800 → 0.95, 1000 → 0.7)
    expect(paprika["successPerSeed"]).toEqual([0.95, 0.7])
    expect(paprika["evalStepPerSeed"]).toEqual([800, 1000])
    expect(paprika["stepsToThreshold"]).toEqual([800, 500])
    expect(paprika["meanStepsToThreshold"]).toBe(650)
    // paired: 0.95 − 0.8 = 0.15, 0.7 − 0.6 = 0.1: mean 0.125, s = 0.035355, half-width 12.706·0.025
    expect(paprika["vsBaseline"]["estimate"]).toBeCloseTo(0.125, 12)
    expect(paprika["vsBaseline"]["high"] - 0.125).toBeCloseTo(T1 * 0.025, 6)
    expect(paprika["vsBaseline"]).toMatchObject({ seeds: 2, ahead: 2 })
    expect(paprika["wallSecondsPer100k"]).toBeCloseTo((3000 + 1000) / 2, 9)

    // one common seed (1): 0.3 − 0.8, a point
    expect(spa["vsBaseline"]["estimate"]).toBeCloseTo(-0.5, 12)
    expect(spa["vsBaseline"]).toMatchObject({ seeds: 1, ahead: 0 })
    expect(spa["vsBaseline"]["low"]).toBe(spa["vsBaseline"]["high"])
    expect(spa["stepsToThreshold"]).toEqual([null])

    const md = fs.readFileSync(path.join(out, "compare.md"), "utf8")
    expect(md).toContain("| gigpo | 1,2 | 0.700 [")
    expect(md).toContain("| 0.80, 0.60 | 600, — | — | — | — | 1500.0 |")
    expect(md).toContain("| gigpo + paprika | 1,2 | 0.825 [")
    expect(md).toContain("| 800, 500 | 650 | +0.125 [")
    expect(md).toContain("| 2/2 | 2000.0 |")
    // one chart per variant against the baseline, linked from compare.md
    for (const [file, label] of [["compare-gigpo-paprika.svg", "gigpo + paprika"], ["compare-spa-zero-advantage-resample-epo-anneal-lr-difficulty-hard-group-size-4.svg", SPA]] as const) {
      expect(md).toContain(`](${file})`)
      const svg = fs.readFileSync(path.join(out, file), "utf8")
      expect(svg.match(/<polyline /g)).toHaveLength(2)
      expect(svg).toContain("gigpo (n=2)")
      expect(svg).toContain(`${label} (n=${label === SPA ? 1 : 2})`)
    }

    // --baseline and --at: at 600, paprika reads 0.5 (s1, at 400) and 0.9 (s2, at 500); gigpo 0.9 and 0.1
    const r2 = await cli(["compare", "--runs", [dirs.a1, dirs.a2, dirs.b1, dirs.b2].join(","), "--out", out, "--at", "600", "--threshold", "0.95", "--baseline", "gigpo + paprika", "--json"])
    expect(r2.code, r2.stderr).toBe(0)
    const [p2, g2] = r2.json() as [Record<string, any>, Record<string, any>]
    expect(p2["variant"]).toBe("gigpo + paprika")
    expect(p2["successPerSeed"]).toEqual([0.5, 0.9])
    expect(g2["successPerSeed"]).toEqual([0.9, 0.1])
    expect(g2["vsBaseline"]["estimate"]).toBeCloseTo((0.4 - 0.8) / 2, 12)
    expect(g2["vsBaseline"]).toMatchObject({ seeds: 2, ahead: 1 })
    expect(p2["stepsToThreshold"]).toEqual([800, 2010])
    expect(g2["stepsToThreshold"]).toEqual([null, null])

    // --window 2: success at 1000 is the mean of the last two evaluations at ≤ 1000 (gigpo: (0.9 + 0.8) / 2, (0.5 + 0.6) / 2;
    // paprika: (0.5 + 0.95) / 2 and (0.9 + 0.7) / 2); spa has one evaluation: itself
    const r3 = await cli(["compare", "--runs", all, "--out", out, "--window", "2", "--json"])
    const [g3, p3, s3] = r3.json() as [Record<string, any>, Record<string, any>, Record<string, any>]
    expect(g3["successPerSeed"].map((x: number) => x.toFixed(12))).toEqual([0.85, 0.55].map((x) => x.toFixed(12)))
    expect(p3["successPerSeed"].map((x: number) => x.toFixed(12))).toEqual([0.725, 0.8].map((x) => x.toFixed(12)))
    expect(s3["successPerSeed"]).toEqual([0.3])
    expect(fs.readFileSync(path.join(out, "compare.md"), "utf8")).toContain("averaged with the 1 before it")

    // the table on stdout
    const table = stripVTControlCharacters((await cli(["compare", "--runs", all, "--out", out])).stdout)
    expect(table).toContain("Comparison at 1,000 env steps")
    expect(table).toMatch(/gigpo \+ paprika\s*│ 1,2\s*│ 0\.825 \[/)
  })

  it("refuses a directory that is no run, two runs of one variant and seed, runs that stop before --at, an unknown baseline", async () => {
    const { root, dirs } = fixture()
    const out = path.join(root, "out")
    const error = async (args: ReadonlyArray<string>) => {
      const r = await cli(["compare", ...args, "--out", out])
      expect(r.code).toBe(1)
      return stripVTControlCharacters(r.stderr)
    }
    const missing = path.join(root, "nope")
    expect(await error(["--runs", `${dirs.a1},${missing}`])).toContain(`TrainConfigError: --runs "${missing}": not a run directory: no config.json`)
    fs.mkdirSync(path.join(root, "half"))
    fs.writeFileSync(path.join(root, "half", "config.json"), "{}")
    expect(await error(["--runs", path.join(root, "half")])).toContain("no metrics.jsonl")
    // a copy of base-s1: same variant and seed
    const twin = path.join(root, "copy")
    fs.cpSync(dirs.a1, twin, { recursive: true })
    const dup = await error(["--runs", `${dirs.a1},${dirs.a2},${twin}`])
    expect(dup).toContain(`--runs "${twin}": same variant (gigpo) and seed (1) as ${dirs.a1}`)
    // gigpo's evaluations stop at 1010 < 0.9 · 2000
    expect(await error(["--runs", `${dirs.a1},${dirs.b1}`, "--at", "2000"])).toContain(`--runs "${dirs.a1}": its evaluations stop at env step 1010`)
    expect(await error(["--runs", `${dirs.a1},${dirs.b1}`, "--baseline", "grpo"])).toContain(`--baseline "grpo": not one of the variants: gigpo, gigpo + paprika`)
    expect(fs.existsSync(path.join(out, "compare.md"))).toBe(false)
  })
})
