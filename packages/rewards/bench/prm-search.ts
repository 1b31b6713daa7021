/**
 * Acceptance (a): on TextHousehold-v0 (difficulty "easy"), a PRM trained from Monte Carlo targets of a random-admissible
 * policy raises that policy's success by Best-of-N and by step-level beam search, at comparable policy samples.
 * Run: `cd packages/rewards && npx tsx bench/prm-search.ts` (env: TRAIN_TASKS, EVAL_TASKS, K, N).
 */
import { Rng } from "@autodidact/core"
import { TextHousehold } from "@autodidact/envs"
import { Backend } from "@autodidact/kernels/tfjs"
import { Effect } from "effect"
import { ProcessReward, Search } from "../src/index.js"
import { ProcessRewardModel } from "../src/train.js"

const num = (k: string, d: number) => (process.env[k] === undefined ? d : Number(process.env[k]))
const TRAIN = num("TRAIN_TASKS", 60), EVAL = num("EVAL_TASKS", 100), K = num("K", 4), N = num("N", 8), MAX = num("MAX_STEPS", 30)
const BEAM = num("BEAM", 2), EXP = num("EXPANSIONS", 4), P_EXPERT = num("P_EXPERT", 0.25)

const program = Effect.gen(function* () {
  const { tf, name } = yield* Backend.Backend
  const env = new TextHousehold.TextHousehold({ difficulty: "easy", maxSteps: MAX })
  // the weak policy: the scripted expert's action with probability P_EXPERT, else a random admissible action
  // (a stand-in for a lightly trained policy; P_EXPERT=0 is the random-admissible policy)
  const weak: Search.Policy = (input, r) => (r.random() < P_EXPERT ? env.expertAction() : Search.randomPolicy(input, r))
  const rng = Rng.make(0)
  const task = (k: number): Search.Task => ({ seed: k, options: { taskIndex: k } })
  const t0 = performance.now()
  const targets: Array<ProcessReward.StepTarget> = []
  let trainSuccess = 0
  for (let k = 0; k < TRAIN; k++) {
    for (let rep = 0; rep < 2; rep++) {
      const r = ProcessReward.monteCarloTargets(env, task(k), weak, { k: K, maxSteps: MAX, rng })
      targets.push(...r.targets)
      if (r.episode.success) trainSuccess++
    }
  }
  const tTargets = (performance.now() - t0) / 1000
  const prm = ProcessRewardModel.train(tf, targets, { epochs: 10, batchSize: 128, learningRate: 2e-3, rng, dim: 1024, hidden: [64] })
  const rm = ProcessRewardModel.model(prm.mlp, prm.dim)
  const tTrain = (performance.now() - t0) / 1000 - tTargets
  let base = 0, bonRandom = 0, bon = 0, beam = 0, oracle = 0, bonSamples = 0, beamSamples = 0, baseSamples = 0
  for (let k = 0; k < EVAL; k++) {
    const tk = task(100000 + k)
    const single = Search.rollout(env, tk, weak, rng, MAX)
    base += single.success ? 1 : 0
    baseSamples += single.actions.length
    const eps = Array.from({ length: N }, () => Search.rollout(env, tk, weak, rng, MAX))
    bonRandom += eps[rng.integers(N)]!.success ? 1 : 0
    oracle += eps.some((e) => e.success) ? 1 : 0
    const b = yield* Search.bestOfN(env, tk, weak, rm, { n: N, maxSteps: MAX, rng, aggregate: "last" })
    bon += b.best.success ? 1 : 0
    bonSamples += b.policySamples
    const s = yield* Search.beamSearch(env, tk, weak, rm, { beamWidth: BEAM, expansions: EXP, maxSteps: MAX, rng })
    beam += s.best.success ? 1 : 0
    beamSamples += s.policySamples
  }
  const pct = (x: number) => `${((100 * x) / EVAL).toFixed(1)}%`
  console.log(`TextHousehold-v0 difficulty=easy maxSteps=${MAX}; weak policy = expert w.p. ${P_EXPERT} else random admissible; tf backend ${name}`)
  console.log(`MC targets: ${TRAIN} train tasks x 2 trajectories, K=${K}: ${targets.length} steps, train-trajectory success ${(trainSuccess / (2 * TRAIN) * 100).toFixed(1)}%, ${tTargets.toFixed(1)} s; PRM training ${tTrain.toFixed(1)} s, loss ${prm.result.losses[0]!.toFixed(4)} -> ${prm.result.losses.at(-1)!.toFixed(4)}`)
  console.log(`held-out tasks: ${EVAL}`)
  console.log(`weak policy, 1 episode:                    success ${pct(base)}  (policy samples/task ${(baseSamples / EVAL).toFixed(1)})`)
  console.log(`weak policy, N=${N} episodes, pick at random: success ${pct(bonRandom)}`)
  console.log(`Best-of-${N} by PRM (last-step score):        success ${pct(bon)}  (policy samples/task ${(bonSamples / EVAL).toFixed(1)})`)
  console.log(`beam search by PRM (width ${BEAM}, ${EXP} proposals/beam): success ${pct(beam)}  (policy samples/task ${(beamSamples / EVAL).toFixed(1)})`)
  console.log(`oracle pass@${N} (upper bound):               success ${pct(oracle)}`)
})

Effect.runPromise(Effect.provide(program, Backend.layerWith({ force: "wasm" }))).catch((e) => {
  console.error(e)
  process.exit(1)
})
