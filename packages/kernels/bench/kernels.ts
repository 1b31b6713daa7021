/**
 * `npx tsx --conditions=@autodidact/source bench/kernels.ts [--quick] [--backends=typed-array,wasm,onnxruntime] [kernel-prefix ...]`: the kernel
 * benchmark table (what `autodidact bench kernels` prints), typed-array, TensorFlow.js backends and the ONNX Runtime
 * engine against NumPy in the same run.
 */
import { Effect } from "effect"
import { Benchmark } from "../src/bench.js"

const quick = process.argv.includes("--quick")
const only = process.argv.slice(2).filter((a) => !a.startsWith("--"))
const backendsArg = process.argv.find((a) => a.startsWith("--backends="))
const backends = backendsArg?.slice("--backends=".length).split(",") as Benchmark.BenchOptions["backends"]
const rows = await Effect.runPromise(
  Benchmark.runKernelBenchmarks({
    quick,
    ...(backends !== undefined ? { backends } : {}),
    ...(only.length > 0 ? { kernels: only } : {}),
    onRow: (r) => console.error(`${r.kernel} ${r.size} ${r.backend}: ${r.ourMs.toFixed(3)} ms`)
  })
)
console.log(Benchmark.formatTable(rows))
console.log("\nDefault engine per case:\n")
console.log(Benchmark.formatDefaults(rows))
