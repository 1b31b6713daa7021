/**
 * A user's first file, type-checked against the packed `.d.ts` files and run by tools/pack-check.mjs in a fresh
 * project where every @autodidact tarball is installed with default npm settings and no optional peer.
 * Each package: its plain API (no Effect), one call, one check; each heavy subpath: MissingPeerError.
 */
import { MissingPeerError, Rng } from "@autodidact/core"
import { Trainer } from "@autodidact/cluster"
import { Series } from "@autodidact/dashboard"
import { loadGame, make, TextFrozenLake } from "@autodidact/envs"
import { Gae } from "@autodidact/kernels"
import { EnvServer } from "@autodidact/llm"
import { ReplayBuffer } from "@autodidact/memory/replay"
import { trainPpo } from "@autodidact/optim"
import { createRules } from "@autodidact/rewards"
import { BestFirst } from "@autodidact/search"
import { SkillLibrary } from "@autodidact/skills"
import { Solver } from "@autodidact/solvers"
import { Effect } from "effect"

const checks: Array<[string, boolean]> = []
const check = (what: string, ok: boolean) => {
  checks.push([what, ok])
  process.stdout.write(`  ${ok ? "ok  " : "FAIL"} ${what}\n`)
}

// core: NumPy-compatible PRNG
const rng = Rng.make(42)
const u = rng.random()
check("core: Rng.make(42).random() in [0, 1)", u >= 0 && u < 1)

// envs: CartPole-v1 for one episode with a fixed policy
const env = make<Float32Array, number>("CartPole-v1")
let { observation } = env.reset({ seed: 42 })
let episodeReturn = 0
for (;;) {
  const step = env.step(observation[2]! + observation[3]! > 0 ? 1 : 0)
  episodeReturn += step.reward
  observation = step.observation
  if (step.terminated || step.truncated) break
}
check(`envs: CartPole-v1 episode return ${episodeReturn} > 0`, episodeReturn > 0)

// kernels: GAE over [numSteps = 3, numEnvs = 1], hand-checked: no discount of the last step's bootstrap
const gae = Gae.computeSync({
  numSteps: 3, numEnvs: 1, gamma: 1, lambda: 1,
  rewards: [1, 1, 1], values: [0, 0, 0], dones: [0, 0, 0], nextValue: [0], nextDone: [1]
})
check(`kernels: Gae.computeSync advantages [${Array.from(gae.advantages)}] = [3, 2, 1]`, Array.from(gae.advantages).join() === "3,2,1")

// optim: a tiny PPO run through the plain (Promise) face
const run = await trainPpo({ env: "CartPole-v1", totalTimesteps: 512, seed: 1, numEnvs: 2, numSteps: 128 })
check(`optim: trainPpo ran ${run.globalStep} steps, finite policy loss`, run.globalStep >= 512 && Number.isFinite(run.lastUpdate?.policyLoss ?? NaN))

// memory/replay: a uniform buffer
const buffer = ReplayBuffer.create({ capacity: 8, obsDim: 2, seed: 1 })
buffer.add([0, 1], 1, 1, [1, 2], false, false)
check(`memory/replay: ReplayBuffer holds ${buffer.size} transition`, buffer.size === 1)

// solvers: Kuhn poker CFR+, NashConv falls toward 0 (game value -1/18 for player 0)
const kuhn = Solver.run(loadGame("kuhn_poker"), { algo: "cfr+", iterations: 300 })
check(`solvers: Kuhn CFR+ NashConv ${kuhn.nashConv.toExponential(2)} < 1e-2`, kuhn.nashConv < 1e-2)

// rewards: a rule-based reward model through the plain face
const exact = createRules("exact", { outcome: (c) => (c.response === "42" ? 1 : 0) })
const scores = await exact.score([{ prompt: "6*7?", response: "42" }, { prompt: "6*7?", response: "41" }])
check(`rewards: createRules scores [${scores}]`, scores[0] === 1 && scores[1] === 0)

// search: best-first over a deterministic 4x4 FrozenLake from env snapshots (goal 6 steps away)
const lake = new TextFrozenLake.TextFrozenLake({ isSlippery: false })
const found = BestFirst.bestFirst(lake, lake.reset({ seed: 0 }).observation, { budget: { nodes: 100 }, value: () => 0 })
check(`search: best-first plan of ${found.plan.length} steps reaches the goal`, found.solved && found.plan.length === 6)

// dashboard: TensorBoard's debiased EMA
const smooth = Series.smooth([1, 2, 3], 0.6)
check(`dashboard: Series.smooth [${smooth.map((x) => x.toFixed(3))}]`, Math.abs(smooth[1]! - 1.625) < 1e-9)

// llm, cluster, skills: their main entries load and expose the plain calls
check("llm: EnvServer.serve is a function", typeof EnvServer.serve === "function")
check("cluster: Trainer.trainLocal is a function", typeof Trainer.trainLocal === "function")
check("skills: SkillLibrary.SkillLibrary.open is a function", typeof SkillLibrary.SkillLibrary.open === "function")

/** An entry point whose optional peer is absent must fail (on import or on first use) with MissingPeerError naming it. */
const expectMissing = async (entry: string, peer: string, load: () => Promise<unknown>) => {
  const error = await load().then(() => undefined, (e: unknown) => e)
  const missing = error instanceof MissingPeerError ? error : (error as { cause?: unknown } | undefined)?.cause
  check(`${entry} without ${peer}: MissingPeerError naming it`, missing instanceof MissingPeerError && missing.peer === peer)
}
await expectMissing("@autodidact/kernels/tfjs", "@tensorflow/tfjs-core", () => import("@autodidact/kernels/tfjs"))
await expectMissing("@autodidact/kernels/ort", "onnxruntime-node", async () => (await import("@autodidact/kernels/ort")).OrtSession.loadRuntime())
await expectMissing("@autodidact/rewards/train", "@tensorflow/tfjs-core", () => import("@autodidact/rewards/train"))
await expectMissing("@autodidact/rewards/onnx", "@huggingface/tokenizers", () => import("@autodidact/rewards/onnx"))
// (@effect/sql-pg is installed here: @autodidact/cluster depends on it; PGlite is the first peer missing)
await expectMissing("@autodidact/memory/store", "@electric-sql/pglite", async () => (await import("@autodidact/memory/store")).ExperienceStore.open({ memory: true }))
await expectMissing("@autodidact/solvers/tfjs", "@tensorflow/tfjs-core", () => import("@autodidact/solvers/tfjs"))
await expectMissing("@autodidact/solvers/lp", "highs", async () => Effect.runPromise((await import("@autodidact/solvers/lp")).Highs.make))

const failed = checks.filter(([, ok]) => !ok)
if (failed.length > 0) {
  process.stdout.write(`${failed.length} of ${checks.length} consumer checks failed\n`)
  process.exit(1)
}
process.stdout.write(`consumer: ${checks.length} checks passed\n`)
