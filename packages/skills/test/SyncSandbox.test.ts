import { describe, expect, it } from "@effect/vitest"
import { Embedder } from "@autodidact/memory"
import { Effect, Layer } from "effect"
import { Sandbox, SkillLibrary, SyncSandbox } from "../src/index.js"

const tagOf = (f: () => unknown): string | undefined => {
  try {
    f()
    return undefined
  } catch (e) {
    return (e as { _tag?: string })._tag ?? "untagged"
  }
}

/** The time limit of memory bombs: far above the time filling 16 MiB takes (0.5 to 3 s on a loaded 2-core host). */
const MEMORY_BOMB_TIMEOUT_MS = 20_000

describe("SyncSandbox", () => {
  it.effect("runs a skill synchronously with synchronous host functions", () =>
    Effect.gen(function*() {
      const sb = yield* SyncSandbox.make({ timeoutMs: 400, memoryLimitBytes: 16 << 20 })
      const log: Array<unknown> = []
      const r = sb.run({
        source: "function main(a) { const o = observe(); return { sum: a.x + a.y, seen: o.room, acted: act('open door') } }",
        args: { x: 2, y: 40 },
        host: { observe: () => ({ room: "kitchen" }), act: (a) => (log.push(a), "ok") }
      })
      expect(r).toEqual({ sum: 42, seen: "kitchen", acted: "ok" })
      expect(log).toEqual(["open door"])
      // a fresh context per call
      sb.run({ source: "function main() { globalThis.leak = 1; Object.prototype.polluted = 1 }" })
      expect(sb.run({ source: "function main() { return [typeof leak, ({}).polluted === undefined] }" })).toEqual(["undefined", true])
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
    }), 30_000)

  it.effect("hostile skills end in typed errors and the runner stays usable", () =>
    Effect.gen(function*() {
      // The runner's clock is wall time: a 300 ms default made even `a * 2` end in SkillTimeoutError on a starved CI
      // host. The default here is generous; the clock's own case ("infinite loop") asks for 300 ms itself.
      const sb = yield* SyncSandbox.make({ timeoutMs: 10_000, memoryLimitBytes: 16 << 20 })
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["infinite loop", "function main() { for (;;) {} }", "SkillTimeoutError"],
        ["string doubling", "function main() { let s = 'x'; for (;;) s += s }", "SkillMemoryError"],
        ["array growth", "function main() { const a = []; for (;;) a.push(new Array(1024).fill(7)) }", "SkillMemoryError"],
        ["deep recursion", "function main() { const f = (n) => f(n + 1) + 1; return f(0) }", "SkillStackOverflowError"],
        ["process", "function main() { process.exit(1) }", "SkillRuntimeError"],
        ["require", "function main() { return require('node:fs') }", "SkillRuntimeError"],
        ["static import", "import fs from 'node:fs'; function main() { return 1 }", "SkillCompileError"],
        ["setTimeout", "function main() { setTimeout(() => 0, 1) }", "SkillRuntimeError"],
        ["host function not granted", "function main() { return act('x') }", "SkillRuntimeError"],
        ["a returned Promise", "function main() { return Promise.resolve(1) }", "SkillRuntimeError"]
      ]
      // Memory bombs get a time limit far above what filling 16 MiB takes even on a loaded machine (the clock is
      // wall time: with the runner's 300 ms, "array growth" ended in SkillTimeoutError on a busy CI host), so the
      // memory limit is the one that fires; the clock has its own case ("infinite loop", 300 ms).
      for (const [label, source, tag] of cases) {
        const request = tag === "SkillMemoryError"
          ? { source, timeoutMs: MEMORY_BOMB_TIMEOUT_MS }
          : tag === "SkillTimeoutError"
          ? { source, timeoutMs: 300 }
          : { source }
        expect([label, tagOf(() => sb.run(request))]).toEqual([label, tag])
      }
      // a host function that refuses (throws) ends the call with HostCallError, even if the guest catches it
      const refused = tagOf(() => sb.run({ source: "function main() { try { act(1) } catch (e) {} return 'went on' }", host: { act: () => { throw new Error("no") } } }))
      expect(refused).toBe("HostCallError")
      // an async host function is refused: the runner is synchronous
      expect(tagOf(() => sb.run({ source: "function main() { return act(1) }", host: { act: () => Promise.resolve(1) } }))).toBe("HostCallError")
      expect(sb.isPoisoned).toBe(false)
      expect(sb.run({ source: "function main(a) { return a * 2 }", args: 21 })).toBe(42)
    }), 60_000)

  it.effect("SkillLibrary.callSync composes skills with cycle and depth checks", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make({ maxCallDepth: 3 })
      const base = { parameters: {}, result: {}, provenance: { author: "test" } }
      yield* lib.admit({ ...base, name: "inc", description: "add one", source: "function main(x) { return x + 1 }", tests: [{ input: 1, expected: 2 }] })
      yield* lib.admit({ ...base, name: "inc2", description: "add two", source: "function main(x) { return callSkill('inc', callSkill('inc', x)) }", tests: [{ input: 1, expected: 3 }] })
      yield* lib.admit({ ...base, name: "inc4", description: "add four", source: "function main(x) { return callSkill('inc2', callSkill('inc2', x)) }", tests: [{ input: 0, expected: 4 }] })
      yield* lib.admit({ ...base, name: "inc8", description: "add eight (too deep)", source: "function main(x) { return callSkill('inc4', x) }", tests: [{ input: 0, expected: 0 }] }).pipe(Effect.flip)
      yield* lib.admit({ ...base, name: "loop", description: "calls itself", source: "function main(x) { return x > 0 ? callSkill('loop', x - 1) : 0 }", tests: [{ input: 0, expected: 0 }] })
      const sb = yield* SyncSandbox.make()
      expect(lib.callSync(sb, "inc2", 5)).toBe(7)
      expect(lib.callSync(sb, "inc4", 5)).toBe(9)
      expect(tagOf(() => lib.callSync(sb, "loop", 1))).toBe("HostCallError")
      expect(tagOf(() => lib.callSync(sb, "nope", 1))).toBe("SkillNotFoundError")
      // the worker sandbox agrees
      expect(yield* lib.call("inc4", 5)).toBe(9)
    }).pipe(Effect.provide(Layer.mergeAll(Sandbox.layer({ timeoutMs: 10_000, poolSize: 4 }), Embedder.layerHashed()))), 60_000)
})
