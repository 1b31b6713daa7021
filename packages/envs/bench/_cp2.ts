import { CartPoleEnv } from "../src/classic/CartPole.js"
import { Rng } from "@autodidact/core"
const env = new CartPoleEnv()
const rng = Rng.make(0)
const acts = Array.from({ length: 4096 }, () => rng.integers(2))
const run = (n: number) => { let eps = 0; for (let i = 0; i < n; i++) { const r = env.step(acts[i & 4095]!); if (r.terminated) { env.reset(); eps++ } } return eps }
env.reset({ seed: 0 })
run(200000)
for (let k = 0; k < 3; k++) {
  const t = performance.now(); const eps = run(3_000_000); const s = (performance.now() - t) / 1000
  console.log((3 / s).toFixed(2), "M/s", (s * 1e9 / 3e6).toFixed(1), "ns/step", (3e6 / eps).toFixed(1), "steps/episode")
}
// reset cost
const t = performance.now(); for (let i = 0; i < 300000; i++) env.reset(); console.log("reset", ((performance.now() - t) * 1e6 / 300000).toFixed(1), "ns")
