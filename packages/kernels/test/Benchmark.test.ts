import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Benchmark } from "../src/bench.js"
import { available as numpyAvailable, runNumpy } from "../src/bench/Numpy.js"

/** A "NumPy script" that exits at once without reading its input (run by node, standing in for python3). */
const exitEarly = (() => {
  const dir = mkdtempSync(join(tmpdir(), "kernels-bench-"))
  writeFileSync(join(dir, "exit_early.mjs"), "process.exit(0)\n")
  return join(dir, "exit_early.mjs")
})()

/** Whether the `python3` on PATH imports NumPy (.ci/run installs Debian's python3-numpy, so CI must have it). */
const hasNumpy = numpyAvailable()

describe("Benchmark", () => {
  it.effect("quick run: rows per implementation with NumPy ratios in the same run, and a table", () =>
    Effect.gen(function* () {
      const rows = yield* Benchmark.runKernelBenchmarks({ quick: true, kernels: ["gae", "kl"], backends: ["typed-array", "wasm"], minTimeMs: 5 })
      expect(rows.map((r) => `${r.kernel} ${r.backend}`)).toEqual(["gae typed-array", "gae wasm", "kl k3 typed-array", "kl k3 wasm"])
      if (process.env["CI"] === "true") expect(hasNumpy, "CI installs python3-numpy").toBe(true)
      for (const r of rows) {
        expect(r.ourMs).toBeGreaterThan(0)
        if (hasNumpy) {
          expect(r.numpyMs).toBeGreaterThan(0)
          expect(r.ratio).toBeCloseTo(r.ourMs / r.numpyMs!, 9)
        } else {
          expect(r.numpyMs).toBeNull()
          expect(r.ratio).toBeNull()
        }
      }
      // the default dispatch picks the typed-array GAE scan and the wasm-simd KL kernel (KernelRegistry.defaultEngines);
      // TensorFlow.js on wasm is never the default
      expect(rows.map((r) => r.isDefault)).toEqual([true, false, false, false])
      const table = Benchmark.formatTable(rows)
      expect(table.split("\n")[0]).toBe("| kernel | size | backend | default | ours (ms) | NumPy (ms) | ours / NumPy |")
      expect(table.split("\n")).toHaveLength(6)
      expect(table.split("\n")[2]).toContain("| gae | [128, 64] | typed-array | default |")
      const defaults = Benchmark.formatDefaults(rows)
      expect(defaults.split("\n")).toHaveLength(3)
      expect(defaults.split("\n")[2]).toMatch(/^\| gae \| \[128, 64\] \| typed-array \| /)
    }), 60_000)

  it("a baseline that exits before reading its input is unavailable, not an uncaught EPIPE", async () => {
    // 4 MB of spec: far more than a pipe buffer, so the write is still pending when the child exits (EPIPE)
    const spec = [{ id: "big", kernel: "gae", params: { padding: "x".repeat(4 << 20) } }]
    const result = await runNumpy(process.execPath, spec, exitEarly)
    expect("error" in result).toBe(true)
    expect((result as { error: string }).error).toContain("exit_early.mjs")
  })

  it.effect("bench with a baseline that exits early: the table says unavailable and the run goes on", () =>
    Effect.gen(function* () {
      const rows = yield* Benchmark.runKernelBenchmarks({ quick: true, kernels: ["gae", "kl"], backends: ["typed-array"], minTimeMs: 5, python: process.execPath, numpyScript: exitEarly })
      expect(rows.map((r) => `${r.kernel} ${r.backend}`)).toEqual(["gae typed-array", "kl k3 typed-array"])
      for (const r of rows) {
        expect(r.ourMs).toBeGreaterThan(0)
        expect(r.numpyMs).toBeNull()
        expect(r.ratio).toBeNull()
      }
      const table = Benchmark.formatTable(rows).split("\n")
      expect(table[2]).toMatch(/^\| gae \| \[128, 64\] \| typed-array \| default \| [0-9.]+ \| unavailable \| n\/a \|$/)
      expect(table[3]).toContain("| unavailable | n/a |")
      expect(Benchmark.formatDefaults(rows)).toContain("unavailable")
    }), 60_000)

  it.effect("the default engine row per kernel: wasm-simd for KL, typed-array for RLOO (never TensorFlow.js on wasm)", () =>
    Effect.gen(function* () {
      const rows = yield* Benchmark.runKernelBenchmarks({ quick: true, kernels: ["kl", "rloo"], backends: ["typed-array", "wasm-simd", "wasm"], minTimeMs: 5, python: null })
      expect(rows.filter((r) => r.isDefault).map((r) => `${r.kernelName} ${r.backend}`)).toEqual(["Kl wasm-simd", "Rloo typed-array"])
      expect(Benchmark.defaultRowLabel("Kl", "tensorflow")).toBe("tensorflow")
    }), 60_000)

  it.effect("onnxruntime rows: the ONNX Runtime engine's kernels (top-k in both matrix modes)", () =>
    Effect.gen(function* () {
      const rows = yield* Benchmark.runKernelBenchmarks({ quick: true, kernels: ["kl", "logsoftmax", "topk-dot"], backends: ["onnxruntime"], minTimeMs: 5, python: null })
      expect(rows.map((r) => `${r.kernel} ${r.backend}`)).toEqual([
        "logsoftmax (masked) onnxruntime",
        "kl k3 onnxruntime",
        "top-10 dot onnxruntime",
        "top-10 dot onnxruntime (baked)"
      ])
      // top-k's default engine is onnxruntime (matrix fed as an input tensor); log-softmax's and KL's are not
      expect(rows.map((r) => r.isDefault)).toEqual([false, false, true, false])
      for (const r of rows) expect(r.ourMs).toBeGreaterThan(0)
    }), 60_000)

  it.effect("wasm-simd top-k rows: per call and resident", () =>
    Effect.gen(function* () {
      const rows = yield* Benchmark.runKernelBenchmarks({ quick: true, kernels: ["topk-dot-1x"], backends: ["wasm-simd"], minTimeMs: 5, python: null })
      expect(rows.map((r) => r.backend)).toEqual(["wasm-simd", "wasm-simd (resident)"])
      expect(rows.map((r) => r.isDefault)).toEqual([false, false]) // the default top-k engine is onnxruntime
      for (const r of rows) expect(r.ourMs).toBeGreaterThan(0)
    }), 60_000)

  it.effect("without python the NumPy columns are null", () =>
    Effect.gen(function* () {
      const rows = yield* Benchmark.runKernelBenchmarks({ quick: true, kernels: ["sumtree-sample"], backends: ["typed-array"], minTimeMs: 5, python: "/nonexistent/python3" })
      expect(rows).toHaveLength(1)
      expect([rows[0]!.numpyMs, rows[0]!.ratio]).toEqual([null, null])
      expect(Benchmark.formatTable(rows)).toContain("| unavailable | n/a |")
    }))
})
