/**
 * Agent Q's loop on TextHousehold-v0 (Putta et al. 2024, arXiv:2408.07199): a DRRN policy trained by
 * `autodidact train` searches training tasks with MCTS (PUCT, its own prior, rollouts of itself), the trees' sibling
 * actions become step-level preference pairs (`Preferences.fromTree`), DPO trains the policy on them against a frozen
 * copy (`Dpo.fit`), and the greedy policy is evaluated on unseen tasks before and after. The only environment signal
 * DPO sees is what the searches spent (reported as env steps).
 *
 *   npx tsx --conditions=@autodidact/source bench/agentQ.ts --run DIR [--tasks 50] [--budget 200] [--eval 100]
 *     [--seed 1] [--beta 0.1] [--lr 0.001] [--epochs 4] [--margin 0.05] [--min-visits 2] [--max-depth D] [--rounds 1]
 *     [--behaviour search|greedy] [--rollout sample|greedy] [--nll 0]
 *
 * The searches spend their whole budget (no stop at a found goal: fuller trees, more sibling comparisons).
 * Leaf values come from rollouts that sample the policy (`--rollout sample`, default; as `autodidact eval --search
 * mcts` by default) or take its argmax. `--max-depth 0` keeps only the pairs at each search's root (the real decisions); `--rounds R` iterates Agent Q's
 * loop: each round searches fresh training tasks with the current policy (prior and rollouts) and fits DPO against
 * the policy at the round's start; a row per round (env steps cumulative). `--behaviour greedy` acts with the greedy
 * policy instead of the search's choice (the search still runs at every visited state and gives the pairs): the
 * pairs then sit on the states the greedy policy reaches, as DAgger's data (Ross et al. 2011, arXiv:1011.0686).
 *
 * `--nll α` adds RPO's negative log-likelihood of each pair's chosen command to DPO's loss (`Dpo.fit`'s `nllWeight`;
 * Pang et al. 2024, arXiv:2404.19733): the policy is pulled toward the tree's best sibling, not only away from the worse.
 *
 * A benchmark script, not a test: the figures depend on the run, the budget and the machine.
 */
import { Rng } from "@autodidact/core"
import { TextEnv } from "@autodidact/envs"
import { Dpo, DrrnPolicy, MultiTurnTrainer, TextTasks } from "@autodidact/optim"
import { DrrnPolicyFile } from "@autodidact/optim/node"
import * as fs from "node:fs"
import * as path from "node:path"
import { Drrn, Preferences, SearchPolicy } from "../src/index.js"

const args = new Map<string, string>()
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1]!)
const num = (k: string, d: number) => (args.has(k) ? Number(args.get(k)) : d)
const run = args.get("run")
if (run === undefined) throw new Error("--run DIR (a TextHousehold-v0 run of autodidact train) is required")
const tasks = num("tasks", 50), budget = num("budget", 200), evalEpisodes = num("eval", 100), seed = num("seed", 1)
const dpo = { beta: num("beta", 0.1), learningRate: num("lr", 0.001), epochs: num("epochs", 4), nllWeight: num("nll", 0) }
const margin = num("margin", 0.05), minVisits = num("min-visits", 2), rounds = num("rounds", 1)
const maxDepth = args.has("max-depth") ? num("max-depth", 0) : undefined
const behaviour = args.get("behaviour") ?? "search"
const rollout = args.get("rollout") ?? "sample"
if (rollout !== "sample" && rollout !== "greedy") throw new Error(`--rollout must be sample or greedy, got ${rollout}`)
if (behaviour !== "search" && behaviour !== "greedy") throw new Error(`--behaviour must be search or greedy, got ${behaviour}`)

/** Searches at every state (the pairs) but acts with the greedy policy. */
class GreedyBehaviour extends SearchPolicy.SearchPolicy {
  override act(env: Parameters<SearchPolicy.SearchPolicy["act"]>[0], input: Parameters<SearchPolicy.SearchPolicy["act"]>[1], rng: Rng, stepsLeft = Infinity): string {
    super.act(env, input, rng, stepsLeft)
    return this.options.policy(input, rng)
  }
}

const policy = DrrnPolicyFile.loadSync(DrrnPolicyFile.policyPath(run))
const config = JSON.parse(fs.readFileSync(path.join(run, "config.json"), "utf8")) as Record<string, unknown>
const setup = TextTasks.setupFor(String(config["env"]), { difficulty: typeof config["difficulty"] === "string" ? config["difficulty"] : undefined })

const greedy = (p: DrrnPolicy.Drrn) =>
  MultiTurnTrainer.evaluate([setup.makeEnv()], MultiTurnTrainer.drrnTextPolicy(p), setup.evalTask, evalEpisodes, Rng.make([seed, 0x5eed]), { maxSteps: setup.maxSteps, greedy: true }).successRate

const before = greedy(policy)
const env = setup.makeEnv()
if (!TextEnv.isRestorableTextEnv(env)) throw new Error(`${setup.envId} has no snapshot()/restore()`)
const rng = Rng.make([seed, 7])
let searchEnvSteps = 0
let realEnvSteps = 0
for (let round = 1; round <= rounds; round++) {
  const pairs: Array<Preferences.TreePair> = []
  const searcher = new (behaviour === "greedy" ? GreedyBehaviour : SearchPolicy.SearchPolicy)({
    search: { kind: "mcts", selection: "puct", budget: { envSteps: budget }, prior: Drrn.prior(policy), value: Drrn.rolloutValue(policy, { depth: setup.maxSteps, greedy: rollout === "greedy" }), stopAtGoal: false, seed: seed + 1000 * (round - 1) },
    policy: Drrn.policy(policy),
    followPlan: false,
    onSearch: (result, input) => {
      pairs.push(...Preferences.fromTree(result.store, { task: input.task, margin, minVisits, maxDepth }))
    }
  })
  const trainTasks = Array.from({ length: tasks }, () => setup.trainTask(rng))
  const t0 = performance.now()
  const searched = SearchPolicy.evaluate(env, searcher, trainTasks, { maxSteps: setup.maxSteps, seed })
  const searchSeconds = (performance.now() - t0) / 1000
  searchEnvSteps += searched.searchEnvSteps
  realEnvSteps += Math.round(searched.meanLength * tasks)
  const t1 = performance.now()
  const report = Dpo.fit(policy, pairs, dpo)
  const dpoSeconds = (performance.now() - t1) / 1000
  const after = greedy(policy)
  const row = {
    run, seed, round, tasks, budget, margin, minVisits, maxDepth: maxDepth ?? null, behaviour, rollout, ...dpo,
    searchSuccess: searched.successRate,
    searchEnvSteps,
    realEnvSteps,
    pairs: pairs.length,
    dpoFinalAccuracy: report.finalAccuracy,
    greedyUnseenBefore: before,
    greedyUnseenAfter: after,
    gainPoints: Number((100 * (after - before)).toFixed(1)),
    searchSeconds: Number(searchSeconds.toFixed(1)),
    dpoSeconds: Number(dpoSeconds.toFixed(1)),
    load: fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")
  }
  console.log(JSON.stringify(row))
}
