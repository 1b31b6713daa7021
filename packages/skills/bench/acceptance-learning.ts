/**
 * Issue 6's acceptance for a *learning* agent at the budget where the full experiment shows the effect, on the seeds
 * it was first seen on (moved here from `test/AcceptanceLearning.test.ts`, which took minutes; the test is now a
 * small-budget smoke run of the same protocol). Protocol: `experiment.ts` with the bench's settings (discovery from
 * 100 expert episodes, 30 held out, the 4 best macros, 3 groundings each, at most 2 skill commands per state; GiGPO +
 * DRRN with the trainer's defaults; greedy evaluation on the first 100 unseen easy TextHousehold-v0 tasks).
 *
 * Published figure (README): at 30k primitive steps, seeds 1–4, success with skills 23/14/16/12% vs 8/5/14/6%
 * without, 65 vs 33 wins of 400 episodes, fewer decisions per episode with skills. Runs are deterministic (same
 * seeds, same code → same numbers). The script prints the per-seed table and whether the acceptance claim held
 * (more wins with skills in every seed, fewer decisions per episode, total wins with skills > 1.5× without) and
 * exits 1 when it did not.
 *
 * Run: `cd packages/skills && node --import tsx --conditions=@autodidact/source bench/acceptance-learning.ts
 *   [--budget 30000] [--seeds 1,2,3,4] [--eval-episodes 100]`
 */
import { Embedder } from "@autodidact/memory"
import { Effect, Layer } from "effect"
import { Sandbox } from "../src/index.js"
import * as Experiment from "./experiment.js"

const args = new Map<string, string>()
const argv = process.argv.slice(2)
for (let i = 0; i < argv.length; i += 2) args.set(argv[i]!.replace(/^--/, ""), argv[i + 1] ?? "")
const budget = Number(args.get("budget") ?? 30_000)
const evalEpisodes = Number(args.get("eval-episodes") ?? 100)
const seeds = (args.get("seeds") ?? "1,2,3,4").split(",").map(Number)

const result = await Effect.runPromise(
  Experiment.learningAcceptance(Experiment.learningSettings(budget, evalEpisodes), seeds).pipe(
    Effect.provide(Layer.mergeAll(Sandbox.layer({ timeoutMs: 10_000, poolSize: 2 }), Embedder.layerHashed()))
  )
)
console.log(`\neasy TextHousehold-v0, ${budget} primitive steps per run, greedy evaluation on ${evalEpisodes} unseen tasks, seeds ${seeds.join(",")}`)
console.log("\n| seed | success, primitives | success, + skills | decisions/ep, primitives | decisions/ep, + skills | train primitive steps (prim / skills) |\n|--:|--:|--:|--:|--:|--:|")
for (const s of result.seeds) {
  console.log(
    `| ${s.seed} | ${(100 * s.primitives.successRate).toFixed(0)}% | ${(100 * s.skills.successRate).toFixed(0)}% | ${s.primitives.decisions.toFixed(1)} | ${s.skills.decisions.toFixed(1)} | ${s.primitives.trainPrimitiveSteps} / ${s.skills.trainPrimitiveSteps} |`
  )
}
console.log(`\nwins: ${result.winsSkills} with skills vs ${result.winsPrimitives} without (published: 65 vs 33 at 30k, seeds 1-4)`)
console.log(`acceptance (more wins with skills in every seed, fewer decisions, total > 1.5x): ${result.holds ? "HOLDS" : "DOES NOT HOLD"}`)
if (!result.holds) process.exitCode = 1
