/**
 * Uniform random agents over the acceptance experiment's two action sets (primitives; primitives + the discovered
 * skills of `bench/experiment.ts`), 50 primitive steps per episode, seeds 1–3.
 *
 * Run: `cd packages/skills && node --import tsx --conditions=@autodidact/source bench/random-baselines.ts [TASKS=60]
 * [easy|default] [unseen|seen]`
 */
import { Embedder } from "@autodidact/memory"
import { GroupRollout } from "@autodidact/optim"
import { Effect, Layer } from "effect"
import { Sandbox, SkillLibrary, SyncSandbox } from "../src/index.js"
import * as Experiment from "./experiment.js"
const n = Number(process.argv[2] ?? 60)
const settings: Experiment.Settings = { difficulty: process.argv[3] === "default" ? "default" : "easy", budget: 1500, evalEpisodes: n, trainEpisodes: 60, heldOutEpisodes: 20 }
await Effect.runPromise(Effect.gen(function*() {
  const library = yield* SkillLibrary.SkillLibrary.make()
  const d = yield* Experiment.discoverOptions(library, settings)
  console.log(d.options.map((o) => o.name).join(", "))
  const runner = yield* SyncSandbox.make({ timeoutMs: 2000 })
  const rows = []
  for (const seed of [1, 2, 3]) {
    rows.push(Experiment.baseline("random, primitives", settings, Experiment.makeEnv(settings, library, [], runner), GroupRollout.randomPolicy, seed, false, process.argv[4] ?? "unseen"))
    rows.push(Experiment.baseline("random, + skills", settings, Experiment.makeEnv(settings, library, d.options, runner), GroupRollout.randomPolicy, seed, false, process.argv[4] ?? "unseen"))
  }
  console.log(Experiment.table(rows))
}).pipe(Effect.provide(Layer.mergeAll(Sandbox.layer({ timeoutMs: 10_000, poolSize: 2 }), Embedder.layerHashed()))))
