import { describe, expect, it } from "@effect/vitest"
import { Embedder } from "@autodidact/memory"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Sandbox, type Skill, SkillLibrary } from "../src/index.js"

const layer = Layer.mergeAll(Sandbox.layer({ timeoutMs: 500, poolSize: 2 }), Embedder.layerHashed())

const spec = (name: string, source: string, tests: Skill.SkillSpec["tests"], description = `skill ${name}`): Skill.SkillSpec => ({
  name,
  description,
  parameters: { type: "object" },
  result: {},
  source,
  tests,
  provenance: { author: "test", episodeId: "ep-1" }
})

const double = spec("double", "function main(x) { return 2 * x }", [{ input: 3, expected: 6 }], "double a number")

describe("SkillLibrary", () => {
  it.effect("admits a passing skill, refuses failing versions, and rolls back", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make()
      const v1 = yield* lib.admit(double)
      expect(v1.version).toBe(1)
      const bad = yield* Effect.flip(lib.admit({ ...double, source: "function main(x) { return 3 * x }" }))
      expect((bad as SkillLibrary.AdmissionError).stage).toBe("test")
      const broken = yield* Effect.flip(lib.admit({ ...double, source: "function main(x { }" }))
      expect((broken as SkillLibrary.AdmissionError).stage).toBe("compile")
      const hostile = yield* Effect.flip(lib.admit({ ...double, source: "function main() { for (;;) {} }" }))
      expect(hostile.reason).toContain("SkillTimeoutError")
      expect(yield* lib.call("double", 5)).toBe(10)
      const v2 = yield* lib.admit({ ...double, source: "function main(x) { return x + x }" })
      expect(v2.version).toBe(2)
      yield* lib.rollback("double", 1)
      expect(lib.active("double")?.source).toBe(double.source)
      expect(lib.get("double")?.versions.length).toBe(2)
    }).pipe(Effect.provide(layer)))

  it.effect("applies a verifier (a scorer with a threshold)", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make({ verifier: (s) => Effect.succeed(s.description.length > 10 ? 0.9 : 0.1) })
      const ok = yield* lib.admit(double)
      expect(ok.verifierScore).toBe(0.9)
      const no = yield* Effect.flip(lib.admit({ ...double, name: "short", description: "x" }))
      expect((no as SkillLibrary.AdmissionError).stage).toBe("verifier")
    }).pipe(Effect.provide(layer)))

  it.effect("composes skills by name with cycle detection", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make()
      yield* lib.admit(double)
      yield* lib.admit(spec("quadruple", "function main(x) { return callSkill('double', callSkill('double', x)) }", [{ input: 1, expected: 4 }]))
      expect(yield* lib.call("quadruple", 5)).toBe(20)
      yield* lib.admit(spec("ping", "function main(x) { return x > 0 ? callSkill('pong', x) : 0 }", [{ input: 0, expected: 0 }]))
      yield* lib.admit(spec("pong", "function main(x) { return callSkill('ping', x) }", [{ input: 0, expected: 0 }]))
      const err = yield* Effect.flip(lib.call("ping", 1))
      expect(err._tag).toBe("HostCallError")
      expect(err.message).toContain("cycle")
      // the cycle is found by the call stack, not by a time limit; 10 s leaves room for starting the nested calls'
      // workers on a loaded CI host (500 ms did not, once: "quadruple" not admitted, SkillTimeoutError)
    }).pipe(Effect.provide(Layer.mergeAll(Sandbox.layer({ timeoutMs: 10_000, poolSize: 2 }), Embedder.layerHashed()))), 60_000)

  it.effect("nested skill calls do not wait for their callers' workers: a depth-3 chain on a pool of one", () =>
    Effect.gen(function*() {
      const sandbox = yield* Sandbox.Sandbox
      const lib = yield* SkillLibrary.SkillLibrary.make({ maxCallDepth: 4 })
      yield* lib.admit(spec("inc", "function main(x) { return x + 1 }", [{ input: 1, expected: 2 }]))
      // admission runs the composite's test, whose callSkill is itself a nested call
      yield* lib.admit(spec("inc2", "function main(x) { return callSkill('inc', callSkill('inc', x)) }", [{ input: 1, expected: 3 }]))
      yield* lib.admit(spec("inc4", "function main(x) { return callSkill('inc2', callSkill('inc2', x)) }", [{ input: 0, expected: 4 }]))
      // two top-level chains at once: the second queues for the one pooled worker, each chain's nested calls do not
      const [a, b] = yield* Effect.all([lib.call("inc4", 10), lib.call("inc4", 20)], { concurrency: 2 })
      expect([a, b]).toEqual([14, 24])
      // the workers started for nested calls were retired when idle
      const stats = sandbox.stats()
      expect(stats.workersStarted).toBeGreaterThan(1)
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
      expect(sandbox.stats().liveWorkers).toBeLessThanOrEqual(1)
      // a deadlock would run into the time limit at any value; 20 s leaves room for starting the nested calls' workers
      // on a loaded CI host (3 s did not, once)
    }).pipe(Effect.provide(Layer.mergeAll(Sandbox.layer({ timeoutMs: 20_000, poolSize: 1 }), Embedder.layerHashed()))), 60_000)

  it.effect("retrieves by description and exports/imports a directory of .js + .json files", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "skills-"))
      const lib = yield* SkillLibrary.SkillLibrary.make({ directory: dir })
      yield* lib.admit(double)
      yield* lib.admit(spec("greet", "function main(n) { return 'hello ' + n }", [{ input: "bob", expected: "hello bob" }], "say hello to a person by name"))
      const hits = yield* lib.retrieve("hello person", { k: 1 })
      expect(hits[0].name).toBe("greet")
      expect(fs.readdirSync(dir).sort()).toEqual(["double.js", "double.json", "greet.js", "greet.json"])
      expect(fs.readFileSync(nodePath.join(dir, "greet.js"), "utf8")).toContain("hello")
      const reopened = yield* SkillLibrary.SkillLibrary.make({ directory: dir })
      expect(reopened.names()).toEqual(["double", "greet"])
      expect(yield* reopened.call("greet", "ann")).toBe("hello ann")
      fs.writeFileSync(nodePath.join(dir, "greet.js"), "function main() { return 'tampered' }")
      const tampered = yield* Effect.flip(SkillLibrary.SkillLibrary.make({ directory: dir }))
      expect(tampered._tag).toBe("SkillStorageError")
      fs.rmSync(dir, { recursive: true })
    }).pipe(Effect.provide(layer)))

  it.effect("retrieve returns the top k in score order, with tag filters and k = 0", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make()
      const words = ["apple", "mug", "plate", "book", "lamp", "towel"]
      for (const [i, w] of words.entries()) {
        yield* lib.admit({ ...spec(`s${i}`, "function main(x) { return x }", [{ input: 1, expected: 1 }], `find the ${w} and the ${words[(i + 1) % words.length]}`), tags: i % 2 === 0 ? ["even"] : [] })
      }
      const all = yield* lib.retrieve("find the mug", { k: 100 })
      expect(all.length).toBe(words.length)
      for (let i = 1; i < all.length; i++) expect(all[i - 1].score).toBeGreaterThanOrEqual(all[i].score)
      const top3 = yield* lib.retrieve("find the mug", { k: 3 })
      expect(top3.map((h) => h.name)).toEqual(all.slice(0, 3).map((h) => h.name))
      const even = yield* lib.retrieve("find the mug", { k: 2, tags: ["even"] })
      expect(even.map((h) => h.name)).toEqual(all.filter((h) => h.spec.tags?.includes("even")).slice(0, 2).map((h) => h.name))
      expect(yield* lib.retrieve("mug", { k: 0 })).toEqual([])
      yield* lib.remove("s1")
      expect(lib.names()).not.toContain("s1")
    }).pipe(Effect.provide(layer)))
})

describe("SkillLibrary retrieval (contiguous index, resident WebAssembly SIMD top-k)", () => {
  const verbs = ["find", "heat", "cool", "clean", "stack", "sort", "open", "carry", "wash", "place"]
  const nouns = ["apple", "mug", "plate", "book", "lamp", "drawer", "fridge", "towel", "key", "box", "pan"]
  const describe_ = (i: number) => `${verbs[i % verbs.length]} the ${nouns[Math.floor(i / verbs.length) % nouns.length]} variant ${i % 7}`
  const skill = (name: string, description: string, tags: Array<string>): Skill.SkillSpec => ({
    ...spec(name, "function main(x) { return x }", [{ input: 1, expected: 1 }], description),
    tags
  })
  const queries = ["heat the apple", "wash a mug", "count books", "open the fridge variant 3", "carry the key", "sort plates", "zzz"]

  const embedded = new Map<string, Float32Array>()
  /** The reference: an independent double scan over the hashed embedding of every active description. */
  const brute = (lib: SkillLibrary.SkillLibrary, query: string, k: number, keep: (name: string) => boolean = () => true) => {
    const q = Embedder.hashedEmbedding(query, 256)
    const all: Array<{ name: string; score: number }> = []
    for (const name of lib.names()) {
      if (!keep(name)) continue
      const text = `${name.replace(/[-_]/g, " ")}: ${lib.active(name)!.description}`
      let v = embedded.get(text)
      if (v === undefined) embedded.set(text, v = Embedder.hashedEmbedding(text, 256))
      let s = 0
      for (let i = 0; i < v.length; i++) s += v[i]! * q[i]!
      all.push({ name, score: s })
    }
    all.sort((a, b) => (a.score !== b.score ? b.score - a.score : a.name < b.name ? -1 : 1))
    return all.slice(0, Math.max(0, Math.floor(k)))
  }
  const strip = (hits: ReadonlyArray<SkillLibrary.Hit>) => hits.map((h) => ({ name: h.name, score: h.score }))

  const checkAll = (lib: SkillLibrary.SkillLibrary) =>
    Effect.gen(function*() {
      for (const query of queries) {
        for (const k of [1, 5, 12, lib.names().length, lib.names().length + 5]) {
          const hits = yield* lib.retrieve(query, { k })
          expect(strip(hits)).toEqual(brute(lib, query, k))
          for (const h of hits) expect(h.spec).toBe(lib.active(h.name))
        }
        const tagged = yield* lib.retrieve(query, { k: 6, tags: ["odd"] })
        expect(strip(tagged)).toEqual(brute(lib, query, 6, (n) => lib.active(n)!.tags!.includes("odd")))
        const filtered = yield* lib.retrieve(query, { k: 4, filter: (r) => r.versions.length > 1, tags: ["x"] })
        expect(strip(filtered)).toEqual(brute(lib, query, 4, (n) => lib.get(n)!.versions.length > 1 && lib.active(n)!.tags!.includes("x")))
      }
    })

  it.effect("equals a double-precision brute force after admit, remove, rollback and import; ties by name; k edges", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "skills-retrieval-"))
      const lib = yield* SkillLibrary.SkillLibrary.make()
      for (let i = 0; i < 220; i++) yield* lib.admit(skill(`s${(i * 37) % 220}-${verbs[i % verbs.length]}`, describe_(i), [i % 2 ? "odd" : "even", "x"]))
      // exact ties: "fold-towel" and "fold_towel" embed the same text
      yield* lib.admit(skill("fold-towel", "fold the towel", ["odd", "x"]))
      yield* lib.admit(skill("fold_towel", "fold the towel", ["odd", "x"]))
      yield* checkAll(lib)
      const tie = yield* lib.retrieve("fold the towel", { k: 2 })
      expect(tie.map((h) => h.name)).toEqual(["fold-towel", "fold_towel"])
      expect(tie[0]!.score).toBe(tie[1]!.score)
      expect(lib.vectors.stats.kernelSearches).toBeGreaterThan(0)
      // k edges
      expect(yield* lib.retrieve("heat", { k: 0 })).toEqual([])
      expect(yield* lib.retrieve("heat", { k: -2 })).toEqual([])
      expect(yield* lib.retrieve("heat", { k: Number.NaN })).toEqual([])
      expect(strip(yield* lib.retrieve("heat the mug", { k: 3.9 }))).toEqual(brute(lib, "heat the mug", 3))
      expect((yield* lib.retrieve("heat the mug")).length).toBe(5)
      // new versions (same size: the resident index is refreshed in place), rollback, removal (rebuilt)
      for (const [i, name] of lib.names().slice(0, 30).entries()) yield* lib.admit(skill(name, `wash the lamp ${i % 4}`, ["odd", "x"]))
      yield* checkAll(lib)
      expect(lib.vectors.stats.refreshes).toBeGreaterThan(0)
      for (const name of lib.names().slice(0, 10)) if (lib.get(name)!.versions.length > 1) yield* lib.rollback(name, 1)
      for (const name of lib.names().slice(40, 60)) yield* lib.remove(name)
      yield* checkAll(lib)
      // import: a library reopened from a directory of the records answers the same (plain writes: exportDirectory's
      // atomic fsync'd writes of 460 files take seconds on a busy disk and are tested above)
      for (const name of lib.names()) fs.writeFileSync(nodePath.join(dir, `${name}.json`), JSON.stringify(lib.get(name)))
      const reopened = yield* SkillLibrary.SkillLibrary.make({ directory: dir })
      expect(reopened.names()).toEqual(lib.names())
      for (const query of queries) expect(strip(yield* reopened.retrieve(query, { k: 8 }))).toEqual(strip(yield* lib.retrieve(query, { k: 8 })))
      yield* checkAll(reopened)
      lib.dispose()
      reopened.dispose()
      fs.rmSync(dir, { recursive: true })
    }).pipe(Effect.provide(layer)))

  it.effect("the scan engine and the AUTODIDACT_WASM_SIMD=0 fallback return identical hits", () =>
    Effect.gen(function*() {
      const fast = yield* SkillLibrary.SkillLibrary.make()
      const scan = yield* SkillLibrary.SkillLibrary.make({ retrievalEngine: "scan" })
      for (let i = 0; i < 120; i++) {
        const s = skill(`k${i}`, describe_(i), [i % 2 ? "odd" : "even", "x"])
        yield* fast.admit(s)
        yield* scan.admit(s)
      }
      for (const query of queries) {
        const a = yield* fast.retrieve(query, { k: 7 })
        expect(fast.vectors.lastEngine).toBe("wasm-simd")
        const b = yield* scan.retrieve(query, { k: 7 })
        expect(scan.vectors.lastEngine).toBe("scan")
        process.env["AUTODIDACT_WASM_SIMD"] = "0"
        const c = yield* fast.retrieve(query, { k: 7 }).pipe(Effect.ensuring(Effect.sync(() => delete process.env["AUTODIDACT_WASM_SIMD"])))
        expect(fast.vectors.lastEngine).toBe("scan")
        expect(strip(b)).toEqual(strip(a))
        expect(strip(c)).toEqual(strip(a))
        expect(strip(a)).toEqual(brute(fast, query, 7))
      }
      expect(scan.vectors.stats.kernelSearches).toBe(0)
      fast.dispose()
    }).pipe(Effect.provide(layer)))

  it.effect("makeScoped releases the resident index when the scope closes", () =>
    Effect.gen(function*() {
      const lib = yield* Effect.scoped(
        Effect.gen(function*() {
          const lib = yield* SkillLibrary.SkillLibrary.makeScoped()
          yield* lib.admit(double)
          yield* lib.admit(spec("greet", "function main(n) { return 'hello ' + n }", [{ input: "bob", expected: "hello bob" }], "say hello to a person by name"))
          expect((yield* lib.retrieve("hello person", { k: 1 }))[0]!.name).toBe("greet")
          expect(lib.vectors.resident).toBe(true)
          return lib
        })
      )
      expect(lib.vectors.resident).toBe(false)
      // still usable: the next retrieval rebuilds it
      expect((yield* lib.retrieve("double a number", { k: 1 }))[0]!.name).toBe("double")
      lib.dispose()
      expect(lib.vectors.resident).toBe(false)
    }).pipe(Effect.provide(layer)))
})
