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
    }).pipe(Effect.provide(layer)))

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
