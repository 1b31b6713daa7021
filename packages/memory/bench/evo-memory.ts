/**
 * Evo-Memory-style stream benchmark of the memory-only {@link ExemplarAgent} on `TextHousehold-v0`: the same agent
 * with memory (retrieve the nearest successful trajectory of the task's template, follow its plan, store every
 * finished episode) and without (retrieval disabled: the count-based novelty explorer), over the same task stream;
 * success per window of tasks.
 *
 *   cd packages/memory && npx tsx --conditions=@autodidact/source bench/evo-memory.ts [tasks=300] [difficulty=easy] [window=50]
 *
 * Tasks: train split, task `i` reset with seed `i` and `taskIndex: i` (all distinct task instances: memory helps only
 * by transferring between tasks of the same template). After the stream, both agents are evaluated on 100 tasks of
 * the `unseen` split (layouts and object/receptacle pairs never in train) with the memory frozen.
 */
import { TextHousehold } from "@autodidact/envs"
import { Effect, Layer } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as ExemplarAgent from "../src/store/ExemplarAgent.js"
import * as Store from "../src/store/Store.js"

const N = Number(process.argv[2] ?? 300)
const difficulty = (process.argv[3] ?? "easy") as "easy" | "default"
const WINDOW = Number(process.argv[4] ?? 50)
const UNSEEN = 100

const StoreLive = Store.layerMemory({ vectorIndex: "exact" }).pipe(Layer.provide(Embedder.layerHashed({ dimension: 256 })))

/** Unseen-split evaluation with the memory as the stream left it: retrieve, but store nothing new. */
const evalUnseen = (memory: boolean) =>
  Effect.gen(function*() {
    const env = new TextHousehold.TextHousehold({ difficulty, split: "unseen" })
    let wins = 0
    for (let i = 0; i < UNSEEN; i++) {
      const store = yield* Store.ExperienceStore
      const before = yield* store.count({})
      const r = yield* ExemplarAgent.runEpisode(env, { seed: 1_000_000 + i, taskIndex: i }, { memory })
      // keep the memory frozen: drop what this episode wrote
      if (memory && (yield* store.count({})) > before) {
        const newest = yield* store.query({ text: r.template, k: 1, weights: { relevance: 0, recency: 1, importance: 0 }, touch: false })
        yield* store.remove(newest.map((h) => h.record.id))
      }
      if (r.success) wins++
    }
    return wins / UNSEEN
  })

const arm = (memory: boolean) =>
  Effect.gen(function*() {
    const env = new TextHousehold.TextHousehold({ difficulty })
    const t0 = performance.now()
    const stream = yield* ExemplarAgent.runStream(env, { n: N, window: WINDOW }, { memory })
    const unseen = yield* evalUnseen(memory)
    const byTemplate = new Map<string, [number, number]>()
    for (const e of stream.episodes) {
      const key = e.template.replace(/^(put a |put some |put two |find two |examine the |look at |clean some |heat some |cool some )/, (m) => m)
      const c = byTemplate.get(key) ?? [0, 0]
      c[1]++
      if (e.success) c[0]++
      byTemplate.set(key, c)
    }
    return { stream, unseen, seconds: (performance.now() - t0) / 1000 }
  }).pipe(Effect.provide(StoreLive))

const main = Effect.gen(function*() {
  const withMem = yield* arm(true)
  const without = yield* arm(false)
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`
  console.log(`TextHousehold-v0 (${difficulty}), train split, ${N} tasks (seed i, taskIndex i), window ${WINDOW}`)
  const header = ["tasks", "with memory", "without memory"]
  const rows: Array<Array<string>> = withMem.stream.windows.map((w, j) => [
    `${j * WINDOW + 1}-${Math.min(N, (j + 1) * WINDOW)}`,
    pct(w),
    pct(without.stream.windows[j]!)
  ])
  rows.push(["all", pct(withMem.stream.successRate), pct(without.stream.successRate)])
  rows.push([`unseen split, ${UNSEEN} tasks (memory frozen)`, pct(withMem.unseen), pct(without.unseen)])
  const w = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)))
  const line = (r: ReadonlyArray<string>) => `| ${r.map((x, c) => x.padEnd(w[c]!)).join(" | ")} |`
  console.log(line(header))
  console.log(`|${w.map((x) => "-".repeat(x + 2)).join("|")}|`)
  for (const r of rows) console.log(line(r))
  const planned = withMem.stream.episodes.filter((e) => e.plan.length > 0)
  console.log(
    `with memory: followed an exemplar on ${planned.length}/${N} tasks (success ${pct(planned.filter((e) => e.success).length / Math.max(1, planned.length))});` +
      ` mean episode length ${(withMem.stream.episodes.reduce((a, e) => a + e.length, 0) / N).toFixed(1)} vs ${(without.stream.episodes.reduce((a, e) => a + e.length, 0) / N).toFixed(1)} steps;` +
      ` wall ${withMem.seconds.toFixed(1)} s / ${without.seconds.toFixed(1)} s`
  )
  // per task type (the template's verb phrase)
  const types = new Map<string, [number, number, number, number]>()
  for (const [arr, off] of [[withMem.stream.episodes, 0], [without.stream.episodes, 2]] as const) {
    for (const e of arr) {
      const t = e.template.replace(/\{\d\}/g, "X").replace(/ (in|on) X\.$/, " in/on X.")
      const c = types.get(t) ?? [0, 0, 0, 0]
      c[off + 1]!++
      if (e.success) c[off]!++
      types.set(t, c)
    }
  }
  for (const [t, c] of [...types].sort()) console.log(`  ${t.padEnd(40)} with ${c[0]}/${c[1]}  without ${c[2]}/${c[3]}`)
})

Effect.runPromise(main).catch((e) => {
  console.error(e)
  process.exit(1)
})
