import { measureThroughput } from "../src/checks/Throughput.js"
import { Rng } from "@autodidact/core"
import * as SokobanGenerator from "../src/sokoban/SokobanGenerator.js"
const levels = Array.from({ length: 16 }, (_, i) => SokobanGenerator.generate(Rng.make(i), { id: String(i) }))
for (let k = 0; k < 2; k++) {
  for (const [envId, kwargs] of [["CartPole-v1", {}], ["FrozenLake-v1", {}], ["Sokoban-v0", { levels }]] as const) {
    const r = measureThroughput({ envId, mode: "vector", vectorizationMode: "batched", numEnvs: 1024, steps: 10_000_000, seed: 0, kwargs })
    const r2 = measureThroughput({ envId, mode: "raw", steps: 2_000_000, seed: 0, kwargs })
    console.log(envId, "batched", (r.stepsPerSecond / 1e6).toFixed(2), "M/s", "raw", (r2.stepsPerSecond / 1e6).toFixed(2))
  }
}
