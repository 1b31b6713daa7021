/**
 * Prints environment throughput (steps per second) for CartPole-v1 and FrozenLake-v1: bare, through `make`, and in
 * a `SyncVectorEnv` of 64, with the vector/raw ratio per env step.
 *
 *   cd packages/envs && npx tsx --conditions=@autodidact/source bench/throughput.ts [steps]
 */
import { formatTable, measureThroughput, type ThroughputResult } from "../src/checks/Throughput.js"
import "../src/node.js" // worker-thread vector envs for --async

const steps = Number(process.argv[2] ?? 2_000_000)
const results: Array<ThroughputResult> = []
for (const envId of ["CartPole-v1", "FrozenLake-v1"]) {
  for (const mode of ["raw", "make", "vector"] as const) {
    results.push(measureThroughput({ envId, mode, steps, seed: 0 }))
  }
}
if (process.argv.includes("--async")) {
  results.push(measureThroughput({ envId: "CartPole-v1", mode: "vector", vectorizationMode: "async", steps, seed: 0 }))
}
console.log(formatTable(results))
for (const envId of ["CartPole-v1", "FrozenLake-v1"]) {
  const by = (m: string) => results.find((r) => r.envId === envId && r.mode === m && r.vectorizationMode !== "async")!
  console.log(
    `${envId}: make/raw = ${(by("make").stepsPerSecond / by("raw").stepsPerSecond).toFixed(2)}, ` +
      `vector/raw = ${(by("vector").stepsPerSecond / by("raw").stepsPerSecond).toFixed(2)} (per env step)`
  )
}
