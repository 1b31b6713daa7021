/**
 * Multi-turn agent RL benchmark: train the DRRN policy with a group-relative estimator on a text environment, then
 * evaluate the success rate on held-out tasks; prints a table with the random-policy baseline.
 *
 *   npx tsx --conditions=@autodidact/source packages/optim/bench/multiturn.ts \
 *     --env TextHousehold-v0 --algo gigpo --steps 200000 --seed 1 [--algo grpo,rloo,random] [--eval-episodes 200]
 *
 * Environments: `TextHousehold-v0` (train split → evaluation on `unseen`, ALFWorld's valid_unseen),
 * `Sokoban-6x6-1box-v0` (text Sokoban; train levels are seeds < 10^6, test levels seeds ≥ 10^6), `TextFrozenLake`.
 * Options: `--group-size 8 --tasks-per-batch 8 --lr 1e-3 --epochs 2 --minibatches 4 --ent-coef 0.01 --max-steps N
 * --difficulty easy|default --eval-difficulty easy|default (TextHousehold: also evaluate the trained policy on unseen
 * tasks of that difficulty) --eval-every 0 --eval-greedy --history 2 --relational false --relational-weight 2
 * --verbose --implementation baseline`; an algo may carry `+epo` (EPO entropy smoothing) and `+clip` (AEPO's entropy-balanced
 * clipping), e.g. `--algo gigpo,aepo,gigpo+epo`; every estimator registered by the package entry is available (the unoptimized DRRN path, {@link MultiTurnBenchmark.implementations}; `autodidact
 * bench multiturn` times both in one run). The table reports the success rate of sampled actions and of greedy (argmax) actions, on the same tasks.
 */
import { Rng } from "@autodidact/core"
import { Effect } from "effect"
import * as os from "node:os"
import "../src/index.js" // registers the estimators of src/estimators (flow-grpo, spa, oprl, igpo, aepo)
import * as GroupRollout from "../src/text/GroupRollout.js"
import * as MultiTurnTrainer from "../src/text/MultiTurnTrainer.js"
import * as MultiTurnBenchmark from "../src/node/MultiTurnBenchmark.js"
import * as TextTasks from "../src/text/TextTasks.js"

const args = new Map<string, string>()
const argv = process.argv.slice(2)
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]!
  if (!a.startsWith("--")) continue
  const next = argv[i + 1]
  if (next === undefined || next.startsWith("--")) args.set(a.slice(2), "true")
  else {
    args.set(a.slice(2), next)
    i++
  }
}
const envId = args.get("env") ?? "TextHousehold-v0"
const algos = (args.get("algo") ?? "gigpo").split(",")
const steps = Number(args.get("steps") ?? 100_000)
const seed = Number(args.get("seed") ?? 1)
const evalEpisodes = Number(args.get("eval-episodes") ?? 200)
const num = (k: string, d: number) => (args.has(k) ? Number(args.get(k)) : d)

const setup = async (): Promise<TextTasks.Setup> => {
  const id = envId === "TextSokoban" ? "Sokoban-6x6-1box-v0" : envId === "TextFrozenLake" ? "TextFrozenLake-v1" : envId
  const maxSteps = args.has("max-steps") ? num("max-steps", 0) : undefined
  return TextTasks.setupFor(id, { difficulty: args.get("difficulty") ?? "default", maxSteps })
}

const s = await setup()
const envs = [s.makeEnv()]
const rows: Array<{ algo: string; steps: number; seconds: number; success: number; ret: number; len: number; trainSuccess: number; other: number }> = []
for (const algo of algos) {
  const t0 = performance.now()
  const [estimator, ...mods] = algo.split("+") as [string, ...Array<string>]
  if (algo === "random") {
    const r = MultiTurnTrainer.evaluate(envs, GroupRollout.randomPolicy, s.evalTask, evalEpisodes, Rng.make([seed, 1]), { maxSteps: s.maxSteps })
    rows.push({ algo, steps: 0, seconds: (performance.now() - t0) / 1000, success: r.successRate, ret: r.episodeReturn, len: r.episodeLength, trainSuccess: Number.NaN, other: Number.NaN })
    console.log(`random: success ${r.successRate.toFixed(3)}`)
    continue
  }
  let lastTrain = Number.NaN
  const result = await Effect.runPromise(
    MultiTurnTrainer.train(
      envs,
      {
        algo: estimator,
        ...(mods.includes("epo") ? { epo: {} } : {}),
        ...(mods.includes("clip") ? { entropyBalancedClip: true } : {}),
        seed,
        totalEnvSteps: steps,
        groupSize: num("group-size", 8),
        tasksPerBatch: num("tasks-per-batch", 8),
        learningRate: num("lr", 1e-3),
        epochs: num("epochs", 2),
        entCoef: num("ent-coef", 0.01),
        klCoef: num("kl-coef", 0),
        maxSteps: s.maxSteps,
        evalEvery: num("eval-every", 0),
        evalEpisodes,
        evalGreedy: args.get("eval-greedy") === "true",
        minibatches: num("minibatches", MultiTurnTrainer.defaults.minibatches),
        policy: {
          grid: s.grid,
          buckets: num("buckets", 8192),
          hidden: num("hidden", 64),
          embed: num("embed", 32),
          history: num("history", 2),
          relational: args.get("relational") !== "false",
          relationalWeight: num("relational-weight", 2)
        },
        tasks: { train: s.trainTask, eval: s.evalTask },
        implementation: args.get("implementation") === "baseline" ? MultiTurnBenchmark.implementations.baseline : undefined
      },
      {
        onUpdate: (u) => {
          lastTrain = u.successRate
          if (args.get("verbose") === "true") {
            console.log(JSON.stringify({ step: u.globalStep, s: +u.wallSeconds.toFixed(1), trainSuccess: +u.successRate.toFixed(3), entropy: +u.entropy!.toFixed(3), approxKl: +u.approxKl!.toFixed(4), clip: +u.clipFraction!.toFixed(3), anchorShare: +u.anchorGroupShare.toFixed(3) }))
          }
        },
        onEvaluation: (e) => console.log(`${algo} eval @${e.globalStep}: success ${e.successRate.toFixed(3)} (${e.wallSeconds.toFixed(0)} s)`)
      }
    )
  )
  const seconds = (performance.now() - t0) / 1000
  // the other evaluation mode on the same tasks (greedy when the trainer sampled, sampled when it was greedy)
  const other = MultiTurnTrainer.evaluate(envs, MultiTurnTrainer.drrnTextPolicy(result.policy), s.evalTask, evalEpisodes, Rng.make([seed, 0x5eed]), {
    maxSteps: s.maxSteps,
    greedy: args.get("eval-greedy") !== "true"
  })
  rows.push({ algo, steps: result.globalStep, seconds, success: result.final.successRate, ret: result.final.episodeReturn, len: result.final.episodeLength, trainSuccess: lastTrain, other: other.successRate })
  console.log(`${algo}: success ${result.final.successRate.toFixed(3)}, other mode ${other.successRate.toFixed(3)}, ${seconds.toFixed(0)} s`)
  const evalDifficulty = args.get("eval-difficulty")
  if (envId === "TextHousehold-v0" && evalDifficulty !== undefined) {
    // transfer: the policy trained at --difficulty, evaluated on unseen tasks at --eval-difficulty
    const evalEnvs = [TextTasks.setupFor(envId, { difficulty: evalDifficulty }).makeEnv()]
    const pol = MultiTurnTrainer.drrnTextPolicy(result.policy)
    for (const greedy of [false, true]) {
      const r = MultiTurnTrainer.evaluate(evalEnvs, pol, s.evalTask, evalEpisodes, Rng.make([seed, 0x5eed]), { maxSteps: s.maxSteps, greedy })
      console.log(`${algo} transfer to difficulty ${evalDifficulty} (${s.evalName}, ${greedy ? "greedy" : "sampled"}): success ${r.successRate.toFixed(3)}, mean length ${r.episodeLength.toFixed(1)}`)
    }
  }
}
console.log(`\nload average (1, 5, 15 min) at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(", ")} on ${os.cpus().length} cores`)
console.log(`\n${envId}, seed ${seed}, evaluation: ${evalEpisodes} episodes on ${s.evalName} (sampled actions${args.get("eval-greedy") === "true" ? ", greedy" : ""})`)
const greedy = args.get("eval-greedy") === "true"
console.log(`| algo | env steps | wall s (train + eval) | steps/s | success (${greedy ? "greedy" : "sampled"}) | success (${greedy ? "sampled" : "greedy"}) | mean return | mean length | last batch train success |`)
console.log("|:--|--:|--:|--:|--:|--:|--:|--:|--:|")
for (const r of rows) {
  console.log(`| ${r.algo} | ${r.steps} | ${r.seconds.toFixed(1)} | ${r.steps === 0 ? "-" : (r.steps / r.seconds).toFixed(0)} | ${r.success.toFixed(3)} | ${Number.isNaN(r.other) ? "-" : r.other.toFixed(3)} | ${r.ret.toFixed(3)} | ${r.len.toFixed(1)} | ${Number.isNaN(r.trainSuccess) ? "-" : r.trainSuccess.toFixed(3)} |`)
}
