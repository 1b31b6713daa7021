/**
 * Deep CFR's TensorFlow.js engine (`@autodidact/solvers/tfjs`, cpu backend): its first trained network equals the
 * `simd` engine's on the same memory (same initialization and batches, float32 rounding apart), a few Kuhn iterations
 * give a valid average policy whose NashConv is far below the uniform policy's 11/12 (Kuhn's known value), and engine
 * names other than simd/tfjs are refused with a typed error naming the value.
 */
import { InvalidOptionError } from "@autodidact/core"
import { KuhnPoker } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as DeepCfr from "../src/deep/DeepCfr.js"
import * as DeepCfrBenchmark from "../src/deep/DeepCfrBenchmark.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as GameTree from "../src/tree/GameTree.js"
import { DeepCfrTf } from "../src/tfjs.js"

const engine = await DeepCfrTf.loadEngine("tfjs", { force: "cpu" })
const options: DeepCfr.Options = { traversals: 100, trainSteps: 40, batchSize: 64, hidden: 16, learningRate: 3e-2, schedule: "linear", dedup: true, seed: 1 }

describe("DeepCfrTf (TF.js engine, cpu backend)", () => {
  it("player 0's first network equals the simd engine's (same memory, initialization and batches)", () => {
    expect(engine.name).toBe("tfjs (cpu)")
    const game = KuhnPoker.make()
    const tf = DeepCfr.make(game, { ...options, engine })
    const simd = DeepCfr.make(game, options)
    expect([tf.config.engine, simd.config.engine]).toEqual(["tfjs (cpu)", "simd"])
    tf.step()
    simd.step()
    const a = tf.policy.iterates[0]![0]!
    const b = simd.policy.iterates[0]![0]!
    expect(a.length).toBe(b.length)
    let maxDiff = 0
    let moved = 0
    for (let k = 0; k < a.length; k++) maxDiff = Math.max(maxDiff, Math.abs(a[k]! - b[k]!))
    for (let k = 0; k < a.length; k++) moved = Math.max(moved, Math.abs(b[k]!))
    expect(maxDiff).toBeLessThan(1e-5)
    expect(moved).toBeGreaterThan(0.1)
  })

  it("Kuhn: 8 iterations give a valid average policy with NashConv far below uniform's 11/12", () => {
    const game = KuhnPoker.make()
    const tree = GameTree.compile(game)
    const uniform = Exploitability.nashConvOnTree(tree, new Float64Array(tree.numSlots).map((_, s) => {
      for (let i = 0; i < tree.numInfoStates; i++) if (s >= tree.infoOffset[i]! && s < tree.infoOffset[i + 1]!) return 1 / (tree.infoOffset[i + 1]! - tree.infoOffset[i]!)
      return 0
    }))
    expect(uniform).toBeCloseTo(11 / 12, 12)
    const solver = DeepCfr.make(game, { ...options, engine })
    for (let t = 0; t < 8; t++) solver.step()
    const probs = DeepCfr.averagePolicyOnTree(DeepCfr.treeAverage(game, tree), solver.policy)
    for (let i = 0; i < tree.numInfoStates; i++) {
      let sum = 0
      for (let s = tree.infoOffset[i]!; s < tree.infoOffset[i + 1]!; s++) {
        expect(probs[s]).toBeGreaterThanOrEqual(0)
        sum += probs[s]!
      }
      expect(sum).toBeCloseTo(1, 12)
    }
    expect(Exploitability.nashConvOnTree(tree, probs)).toBeLessThan(0.35)
  })

  it("the benchmark runs simd and tfjs side by side, each to the target (0.5), with its own CFR+ row and a seconds-to-NashConv table", () => {
    const report = DeepCfrBenchmark.run({ ...DeepCfrBenchmark.quickOptions, target: 0.5, cfrRepeats: 1, engines: [DeepCfr.simdEngine, engine] })
    expect(report.runs.map((r) => [r.config.engine, r.reached])).toEqual([["simd", true], ["tfjs (cpu)", true]])
    for (const r of report.runs) {
      expect(r.curve[r.curve.length - 1]).toBe(r.deepCfr.nashConv)
      expect(r.seconds.length).toBe(r.curve.length)
      expect(DeepCfrBenchmark.secondsTo(r, 0.5)).toBe(r.deepCfr.seconds)
    }
    expect(DeepCfrBenchmark.rows(report).map((r) => r.engine)).toEqual(["simd", "", "tfjs (cpu)", ""])
    const md = DeepCfrBenchmark.markdown(report)
    expect(md).toContain("| solver seconds to NashConv | simd | tfjs (cpu) | tfjs (cpu) / simd |")
    expect(md).toContain("NashConv every 10 iterations (tfjs (cpu)): ")
  })

  it("the main entry's static import graph reaches no TensorFlow.js module; this entry's does", () => {
    const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src")
    const reached = (entry: string): Set<string> => {
      const seen = new Set<string>()
      const visit = (file: string) => {
        if (seen.has(file)) return
        seen.add(file)
        const text = readFileSync(file, "utf8")
        for (const m of [...text.matchAll(/^(?:import|export)\s[^"']*?from\s+"([^"]+)"/gm), ...text.matchAll(/\bimport\(\s*"([^"]+)"/g)]) {
          const spec = m[1]!
          if (spec.startsWith(".")) visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts")))
          else seen.add(spec)
        }
      }
      visit(path.join(src, entry))
      return seen
    }
    const main = [...reached("index.ts")]
    expect(main.length).toBeGreaterThan(30)
    expect(main.filter((s) => /tensorflow|kernels\/tfjs|src\/tfjs\.ts|DeepCfrTf/.test(s))).toEqual([])
    expect([...reached("tfjs.ts")]).toContain("@autodidact/kernels/tfjs")
  })

  it("bad input: an unknown engine name is a typed error naming the value", async () => {
    const e = await DeepCfrTf.loadEngine("gpu").then(() => undefined, (err: unknown) => err)
    expect(e).toBeInstanceOf(InvalidOptionError)
    expect([(e as InvalidOptionError).option, (e as InvalidOptionError).value]).toEqual(["engine", "gpu"])
    expect(await DeepCfrTf.loadEngine("simd")).toBe(DeepCfr.simdEngine)
    // the main entry does not load TF.js: the string "tfjs" is refused there, pointing to this entry point
    let main: unknown
    try {
      DeepCfr.make(KuhnPoker.make(), { engine: "tfjs" as "simd" })
    } catch (err) {
      main = err
    }
    expect(main).toBeInstanceOf(InvalidOptionError)
    expect((main as InvalidOptionError).value).toBe("tfjs")
    expect((main as InvalidOptionError).message).toContain("@autodidact/solvers/tfjs")
  })
})
