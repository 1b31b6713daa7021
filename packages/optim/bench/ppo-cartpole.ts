/**
 * Wall-clock seconds and environment steps for PPO (CleanRL defaults) to reach a mean return of 475 over the last
 * 100 episodes on CartPole-v1, for seeds 1, 2, 3 (or the seeds given as arguments).
 *
 *   npx tsx --conditions=@autodidact/source packages/optim/bench/ppo-cartpole.ts [seed ...]
 *
 * CleanRL's `ppo.py` on the same 2-core CPU takes more than 80 s for this.
 */
import { makeVec } from "@autodidact/envs"
import { Effect } from "effect"
import { Ppo } from "../src/index.js"

const seeds = process.argv.slice(2).map(Number)
const rows: Array<{ seed: number; solved: boolean; seconds: number; steps: number; episodes: number; updates: number }> = []
for (const seed of seeds.length > 0 ? seeds : [1, 2, 3]) {
  const env = makeVec("CartPole-v1", 4, { autoresetMode: "SameStep" })
  const t0 = performance.now()
  const result = await Effect.runPromise(Ppo.train(env, { seed, stopWhen: { meanReturn: 475 } }))
  const seconds = (performance.now() - t0) / 1000
  env.close()
  rows.push({ seed, solved: result.stopReason === "solved", seconds, steps: result.globalStep, episodes: result.episodes, updates: result.state.iteration })
  console.log(`seed ${seed}: ${result.stopReason} after ${result.globalStep} steps, ${seconds.toFixed(1)} s, mean return ${result.meanRecentReturn.toFixed(1)}`)
}
console.log("\n| seed | solved (mean return ≥ 475 over 100 episodes) | wall-clock s | env steps | episodes | updates |")
console.log("|-----:|:-----|-----:|-----:|-----:|-----:|")
for (const r of rows) console.log(`| ${r.seed} | ${r.solved ? "yes" : "no"} | ${r.seconds.toFixed(1)} | ${r.steps} | ${r.episodes} | ${r.updates} |`)
const solved = rows.filter((r) => r.solved)
if (solved.length > 0) console.log(`\nmean over solved seeds: ${(solved.reduce((a, r) => a + r.seconds, 0) / solved.length).toFixed(1)} s`)
