/**
 * Benchmark of the skill library: sandbox cold start and warm call latency (worker pool and the synchronous in-process
 * runner), admission time per skill, retrievals per
 * second over 10k skills, and the discovery measurement (a random-admissible agent on easy TextHousehold-v0 over
 * primitives vs primitives + discovered macros vs primitives + the hand-written example skills, at the same budget of
 * decisions per episode).
 *
 * Run: `cd packages/skills && node --import tsx bench/skills.ts [SKILLS=10000] [EPISODES=100]`.
 *
 * Retrieval at 10k: all 10k skills are admitted through the sandbox (compile + one test each, hashed embedder),
 * then retrieved from: `SkillLibrary.retrieve` (resident WebAssembly SIMD top-k with double rescoring) against a copy
 * of the old algorithm (a Map of 256-d vectors, plain dot products, top-k by insertion) in alternating rounds of the
 * same run, after checking that both return the same hits.
 */
import { Statistics } from "@autodidact/core"
import { TextHousehold } from "@autodidact/envs"
import { Embedder } from "@autodidact/memory"
import { Effect, Layer } from "effect"
import { Discovery, HouseholdSkills, Sandbox, type Skill, SkillLibrary, SkillOptions, SyncSandbox } from "../src/index.js"

const SKILLS = Number(process.argv[2] ?? 10_000)
const EPISODES = Number(process.argv[3] ?? 100)
const BUDGET = 50

const ms = (t0: number) => performance.now() - t0

const spec = (i: number): Skill.SkillSpec => {
  const verbs = ["find", "heat", "cool", "clean", "stack", "sort", "open", "carry", "wash", "place", "count", "inspect"]
  const nouns = ["apple", "mug", "plate", "book", "lamp", "drawer", "fridge", "towel", "key", "box", "pan", "cup", "egg"]
  const v = verbs[i % verbs.length]!
  const n = nouns[Math.floor(i / verbs.length) % nouns.length]!
  return {
    name: `s${i}-${v}-${n}`,
    description: `${v} the ${n} then report variant ${i}`,
    parameters: { type: "object" },
    result: {},
    source: `function main(x) { return x + ${i} }`,
    tests: [{ input: 1, expected: 1 + i }],
    provenance: { author: "bench" }
  }
}

const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6D2B79F5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

// 1. sandbox cold start (layer build: wasm compile + worker start + first call) and warm calls
{
  const t0 = performance.now()
  let first = 0
  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function*() {
        const sandbox = yield* Sandbox.Sandbox
        yield* sandbox.run({ source: "function main(a) { return a + 1 }", args: 1 })
        first = ms(t0)
        const lat: Array<number> = []
        for (let i = 0; i < 300; i++) {
          const t = performance.now()
          yield* sandbox.run({ source: "function main(a) { return a + 1 }", args: i })
          lat.push(ms(t))
        }
        const hostLat: Array<number> = []
        for (let i = 0; i < 100; i++) {
          const t = performance.now()
          yield* sandbox.run({ source: "function main() { var s = 0; for (var i = 0; i < 10; i++) s += act(i); return s }", host: { act: (x) => x } })
          hostLat.push(ms(t))
        }
        console.log(`sandbox cold start (new pool, first call): ${first.toFixed(0)} ms`)
        console.log(`warm call: median ${Statistics.quantile(lat, 0.5).toFixed(2)} ms, p95 ${Statistics.quantile(lat, 0.95).toFixed(2)} ms (300 calls)`)
        console.log(`warm call with 10 host calls: median ${Statistics.quantile(hostLat, 0.5).toFixed(2)} ms, p95 ${Statistics.quantile(hostLat, 0.95).toFixed(2)} ms`)
      })
    ).pipe(Effect.provide(Sandbox.layer({ poolSize: 1 })))
  )
}

// 1b. the synchronous in-process runner (what SyncSkillOptionsEnv uses): load, then warm calls
{
  const t0 = performance.now()
  const sb = await Effect.runPromise(SyncSandbox.make())
  sb.run({ source: "function main(a) { return a + 1 }", args: 1 })
  const first = ms(t0)
  const lat: Array<number> = []
  for (let i = 0; i < 300; i++) {
    const t = performance.now()
    sb.run({ source: "function main(a) { return a + 1 }", args: i })
    lat.push(ms(t))
  }
  const hostLat: Array<number> = []
  for (let i = 0; i < 100; i++) {
    const t = performance.now()
    sb.run({ source: "function main() { var s = 0; for (var i = 0; i < 10; i++) s += act(i); return s }", host: { act: (x) => x } })
    hostLat.push(ms(t))
  }
  console.log(`sync runner cold start (module load + first call): ${first.toFixed(0)} ms`)
  console.log(`sync runner warm call: median ${Statistics.quantile(lat, 0.5).toFixed(2)} ms, p95 ${Statistics.quantile(lat, 0.95).toFixed(2)} ms; with 10 host calls: median ${Statistics.quantile(hostLat, 0.5).toFixed(2)} ms, p95 ${Statistics.quantile(hostLat, 0.95).toFixed(2)} ms`)
}

const layer = Layer.mergeAll(Sandbox.layer({ timeoutMs: 10_000, poolSize: 2 }), Embedder.layerHashed())

await Effect.runPromise(
  Effect.gen(function*() {
    // 2. admission of every skill through the sandbox (compile + one test each), into an in-memory library
    const big = yield* SkillLibrary.SkillLibrary.make()
    let t = performance.now()
    let lap = t
    for (let i = 0; i < SKILLS; i++) {
      yield* big.admit(spec(i))
      if ((i + 1) % 2500 === 0) {
        console.log(`  admitted ${i + 1}: ${(ms(lap) / 2500).toFixed(2)} ms/skill over the last 2500`)
        lap = performance.now()
      }
    }
    const per = ms(t) / SKILLS
    console.log(`admission: ${per.toFixed(2)} ms/skill, ${SKILLS} skills admitted through the sandbox in ${(ms(t) / 1000).toFixed(1)} s`)

    // 3. retrieval over the admitted library: the resident-index retrieval vs the old algorithm (a Map of per-skill
    // vectors, plain double dot products, top-k by insertion), timed in alternating rounds in this run
    const queries = ["heat the apple", "wash a mug", "count books", "open the fridge", "carry the key", "sort plates"]
    const embedder = yield* Embedder.Embedder
    const oldVectors = new Map<string, Float32Array>()
    for (let i = 0; i < SKILLS; i++) {
      const s = spec(i)
      const [v] = yield* embedder.embed([`${s.name.replace(/[-_]/g, " ")}: ${s.description}`])
      oldVectors.set(s.name, v!)
    }
    const oldRetrieve = (query: string, k: number) =>
      Effect.gen(function*() {
        const [q] = yield* embedder.embed([query])
        const top: Array<{ name: string; score: number }> = []
        const better = (a: { name: string; score: number }, b: { name: string; score: number }) => a.score > b.score || (a.score === b.score && a.name < b.name)
        for (const [name] of oldVectors) {
          const v = oldVectors.get(name)!
          let s = 0
          for (let i = 0; i < v.length; i++) s += v[i]! * q![i]!
          const hit = { name, score: s }
          if (top.length === k && !better(hit, top[k - 1]!)) continue
          let j = top.length < k ? top.length : k - 1
          while (j > 0 && better(hit, top[j - 1]!)) {
            top[j] = top[j - 1]!
            j--
          }
          top[j] = hit
        }
        return top.map((h) => ({ ...h, spec: big.active(h.name)! }))
      })
    t = performance.now()
    yield* big.retrieve(queries[0]!, { k: 5 })
    console.log(`first retrieval after admission (builds the resident index over ${SKILLS} skills): ${ms(t).toFixed(2)} ms`)
    for (const query of [...queries, "zzz", "the"]) {
      for (const k of [1, 5, 50]) {
        const a = (yield* big.retrieve(query, { k })).map((h) => `${h.name} ${h.score}`)
        const b = (yield* oldRetrieve(query, k)).map((h) => `${h.name} ${h.score}`)
        if (a.join("\n") !== b.join("\n")) throw new Error(`retrieval differs from the old algorithm for ${JSON.stringify(query)} k=${k}`)
      }
    }
    for (let i = 0; i < 5; i++) yield* oldRetrieve(queries[i % queries.length]!, 5)
    const n = 200
    const rounds = 5
    let oldTotal = 0
    let newTotal = 0
    for (let r = 0; r < rounds; r++) {
      t = performance.now()
      for (let i = 0; i < n; i++) yield* oldRetrieve(queries[i % queries.length]!, 5)
      const o = ms(t)
      t = performance.now()
      for (let i = 0; i < n; i++) yield* big.retrieve(queries[i % queries.length]!, { k: 5 })
      const w = ms(t)
      oldTotal += o
      newTotal += w
      console.log(`  round ${r + 1}: old ${(o / n).toFixed(3)} ms, new ${(w / n).toFixed(3)} ms each (old / new ${(o / w).toFixed(1)}x)`)
    }
    const engine = big.vectors.lastEngine ?? "none"
    const st = big.vectors.stats
    console.log(
      `retrieval over ${SKILLS} skills (k=5, ${rounds} x ${n} each, same hits checked): old scan ${(rounds * n / (oldTotal / 1000)).toFixed(1)} retrievals/s (${(oldTotal / (rounds * n)).toFixed(3)} ms), ` +
        `new (${engine}) ${(rounds * n / (newTotal / 1000)).toFixed(1)} retrievals/s (${(newTotal / (rounds * n)).toFixed(3)} ms); speed-up ${(oldTotal / newTotal).toFixed(1)}x ` +
        `[kernel searches ${st.kernelSearches}, widenings ${st.widenings}, scans ${st.scans}]`
    )
    // filtered retrieval (tags): a scan of the accepted rows of the contiguous matrix
    t = performance.now()
    for (let i = 0; i < n; i++) yield* big.retrieve(queries[i % queries.length]!, { k: 5, filter: (r) => r.name.endsWith("apple") })
    console.log(`filtered retrieval (filter keeps 1/13 of the skills, scanned): ${(ms(t) / n).toFixed(3)} ms each`)

    // 4. discovery, and the random-admissible agent
    const env = new TextHousehold.TextHousehold({ difficulty: "easy" })
    const expert = () => env.expertAction()
    t = performance.now()
    const train = Array.from({ length: 100 }, (_, k) => Discovery.rollout(env, { seed: k, options: { taskIndex: k } }, expert))
    const held = Array.from({ length: 30 }, (_, k) => Discovery.rollout(env, { seed: k, options: { taskIndex: k, split: "seen" } }, expert))
    const macros = yield* SkillLibrary.SkillLibrary.make()
    const found = yield* Discovery.discover(macros, env, train, held, { top: 8, maxChecks: 20 })
    console.log(`discovery (100 train / 30 held-out expert episodes, top 8 n-grams, n<=4) in ${(ms(t) / 1000).toFixed(1)} s:`)
    for (const f of found) {
      console.log(`  ${f.admitted ? "admitted" : "rejected"} ${f.name}: [${f.steps.join("; ")}] count ${f.count}, held-out ${f.checks} checks, success ${f.successRate.toFixed(2)}, saves ${f.savedPerEpisode.toFixed(2)} decisions/episode${f.reason !== undefined ? ` (${f.reason})` : ""}`)
    }
    const hand = yield* SkillLibrary.SkillLibrary.make()
    for (const s of HouseholdSkills.householdSkills) yield* hand.admit(s)

    for (const maxSteps of [50, 1000]) {
      const envN = new TextHousehold.TextHousehold({ difficulty: "easy", maxSteps })
      const agents: Array<[string, SkillOptions.SkillOptionsEnv]> = [
        ["primitives", new SkillOptions.SkillOptionsEnv(envN, macros, [])],
        ["primitives + discovered macros (type grounding, patternOption)", new SkillOptions.SkillOptionsEnv(envN, macros, found.filter((f) => f.admitted).map((f) => Discovery.patternOption(f.name, f.steps, f.varTypes)))],
        [
          "primitives + discovered macros (applicable grounding, macroOption, 3/macro, 8/step)",
          new SkillOptions.SkillOptionsEnv(envN, macros, found.filter((f) => f.admitted).map((f) => Discovery.macroOption(f.name, f.steps, f.varTypes, { maxGroundings: 3 })), { maxSkillActions: 8 })
        ],
        ["primitives + hand-written skills", new SkillOptions.SkillOptionsEnv(envN, hand, HouseholdSkills.householdOptions())]
      ]
    console.log(`random-admissible agent, easy TextHousehold-v0 (split seen, tasks 1000..${1000 + EPISODES - 1}), budget ${BUDGET} decisions, env limit ${maxSteps} primitive steps:`)
      for (const [label, w] of agents) {
        const rng = mulberry32(7)
        let wins = 0
        let decisions = 0
        let prims = 0
        let skillCalls = 0
        let winDecisions = 0
        t = performance.now()
        for (let e = 0; e < EPISODES; e++) {
          w.reset({ seed: e, options: { taskIndex: 1000 + e, split: "seen" } })
          for (let d = 0; d < BUDGET; d++) {
            const acts = w.admissibleActions()
            const a = acts[Math.floor(rng() * acts.length)]!
            if (a.startsWith("skill ")) skillCalls++
            const r = yield* w.step(a)
            decisions++
            prims += Number(r.info["primitiveSteps"] ?? 0)
            if (r.terminated || r.truncated) {
              if (r.info["won"] === true) {
                wins++
                winDecisions += d + 1
              }
              break
            }
          }
        }
        console.log(
          `  ${label}: success ${(100 * wins / EPISODES).toFixed(0)}% (${wins}/${EPISODES}), ${(decisions / EPISODES).toFixed(1)} decisions/episode (${wins > 0 ? (winDecisions / wins).toFixed(1) : "-"} in won episodes), ${(prims / EPISODES).toFixed(1)} primitive steps/episode, ${(100 * skillCalls / decisions).toFixed(0)}% skill decisions, ${(ms(t) / 1000).toFixed(1)} s`
        )
      }
    }
  }).pipe(Effect.provide(layer))
)
