/**
 * Wall-clock seconds and environment steps for PPO (CleanRL defaults) to reach a mean return of 475 over the last
 * 100 episodes on CartPole-v1, for seeds 1, 2, 3 (or the seeds given as arguments), on the default engine. The
 * measuring code is `PpoBenchmark` of `@autodidact/optim/node`; `autodidact bench ppo` prints the full comparison
 * (previous engine, CleanRL's recorded figure, network passes against TensorFlow.js).
 *
 *   npx tsx --conditions=@autodidact/source packages/optim/bench/ppo-cartpole.ts [seed ...]
 */
import { PpoBenchmark } from "../src/node.js"

const seeds = process.argv.slice(2).map(Number)
const report = await PpoBenchmark.run({
  seeds: seeds.length > 0 ? seeds : [1, 2, 3],
  baselineSeeds: [],
  network: false,
  onRow: (r) => r.kind === "solve" && console.error(`seed ${r.seed}: ${r.solved ? "solved" : "not solved"} after ${r.envSteps} steps, ${r.wallSeconds.toFixed(1)} s`)
})
console.log(PpoBenchmark.markdown(report))
