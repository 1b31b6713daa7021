import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Sandbox } from "../src/index.js"

const pool = new Sandbox.SandboxPool({ timeoutMs: 400, killGraceMs: 200, memoryLimitBytes: 16 << 20, poolSize: 2 })
afterAll(() => pool.close())

const fail = async (source: string, host?: Record<string, Sandbox.HostFunction>, timeoutMs?: number) => {
  const t0 = performance.now()
  const error = await pool.run({ source, ...(host !== undefined ? { host } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) }).then(
    (v) => ({ _tag: "resolved", value: v }) as const,
    (e: unknown) => e
  )
  return { error, ms: performance.now() - t0 }
}

const tagOf = (e: unknown) => (e as { _tag?: string })._tag

describe("Sandbox", () => {
  it("runs a skill with JSON arguments and granted host functions", async () => {
    const log: Array<unknown> = []
    const r = await pool.run({
      source: "function main(a) { const o = observe(); return { sum: a.x + a.y, seen: o.room, acted: act('open door') } }",
      args: { x: 2, y: 40 },
      host: { observe: () => ({ room: "kitchen" }), act: (a) => (log.push(a), "ok") }
    })
    expect(r).toEqual({ sum: 42, seen: "kitchen", acted: "ok" })
    expect(log).toEqual(["open door"])
  })

  it("awaits async host functions", async () => {
    const r = await pool.run({ source: "function main() { return slow(3) * 2 }", host: { slow: (n) => new Promise((res) => setTimeout(() => res(n), 20)) } })
    expect(r).toBe(6)
  })

  it("each call gets a fresh context (no state leaks between calls)", async () => {
    await pool.run({ source: "function main() { globalThis.leak = 1; Object.prototype.polluted = 1 }" })
    const r = await pool.run({ source: "function main() { return [typeof leak, ({}).polluted === undefined] }" })
    expect(r).toEqual(["undefined", true])
  })

  it("the Effect service maps failures to typed errors", async () => {
    const exit = await Effect.runPromise(
      Effect.gen(function*() {
        const sb = yield* Sandbox.Sandbox
        return yield* Effect.flip(sb.run({ source: "function main() { throw new Error('boom') }" }))
      }).pipe(Effect.provide(Sandbox.layer({ poolSize: 1 })))
    )
    expect(exit._tag).toBe("SkillRuntimeError")
    expect((exit as Sandbox.SkillRuntimeError).guestMessage).toBe("boom")
  })

  it("compileOnly reports syntax errors as SkillCompileError and runs nothing", async () => {
    const bad = await fail("function main( {")
    expect(tagOf(bad.error)).toBe("SkillCompileError")
    const calls: Array<unknown> = []
    const ok = await pool.run({ source: "act(1); function main() {}", compileOnly: true, host: { act: (x) => calls.push(x) } })
    expect(ok).toBeUndefined()
    expect(calls).toEqual([])
  })
})

describe("hostile skills", () => {
  const rssBefore = process.memoryUsage().rss
  const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort()

  const cases: ReadonlyArray<readonly [string, string, string, number]> = [
    ["infinite loop", "function main() { for (;;) {} }", "SkillTimeoutError", 5000],
    ["infinite loop in a host-less while(true) with try/catch", "function main() { for (;;) { try { for (;;) {} } catch (e) {} } }", "SkillTimeoutError", 5000],
    ["string doubling", "function main() { let s = 'x'; for (;;) s += s }", "SkillMemoryError", 5000],
    ["string concatenation growth", "function main() { let s = ''; const c = 'y'.repeat(65536); for (;;) s = s + c }", "SkillMemoryError", 5000],
    ["array growth", "function main() { const a = []; for (;;) a.push(new Array(1024).fill(7)) }", "SkillMemoryError", 5000],
    ["ArrayBuffer bomb", "function main() { const a = []; for (;;) a.push(new ArrayBuffer(1 << 20)) }", "SkillMemoryError", 5000],
    ["one huge ArrayBuffer", "function main() { return new ArrayBuffer(1 << 30).byteLength }", "SkillMemoryError", 5000],
    ["deep recursion", "function main() { const f = (n) => f(n + 1) + 1; return f(0) }", "SkillStackOverflowError", 5000],
    ["mutual recursion", "function a(n) { return b(n + 1) } function b(n) { return a(n + 1) } function main() { return a(0) }", "SkillStackOverflowError", 5000],
    ["process", "function main() { process.exit(1) }", "SkillRuntimeError", 5000],
    ["require", "function main() { return require('node:fs').readFileSync('/etc/passwd', 'utf8') }", "SkillRuntimeError", 5000],
    ["static import", "import fs from 'node:fs'; function main() { return 1 }", "SkillCompileError", 5000],
    ["dynamic import", "function main() { let r = 'none'; import('node:fs').then(() => { r = 'loaded' }); return r === 'loaded' ? 1 : (function () { throw new Error('import did not load') })() }", "SkillRuntimeError", 5000],
    ["setTimeout", "function main() { setTimeout(() => 0, 1) }", "SkillRuntimeError", 5000],
    ["fetch", "function main() { return fetch('http://127.0.0.1/') }", "SkillRuntimeError", 5000],
    ["Function constructor to reach host globalThis", "function main() { return Function('return process')().pid }", "SkillRuntimeError", 5000],
    ["host function not granted", "function main() { return act('x') }", "SkillRuntimeError", 5000]
  ]

  // Bounds are generous (5 s) because CI machines are loaded; the limits themselves are 400 ms / 16 MiB.
  // Memory bombs run with a 4 s time limit, so that on a loaded machine the memory limit (not the clock) is what
  // stops them: the test is about memory being bounded; the clock has its own cases above.
  const MEMORY_BOMB_TIMEOUT_MS = 4000
  for (const [name, source, tag, maxMs] of cases) {
    const memoryBomb = tag === "SkillMemoryError"
    const limitMs = memoryBomb ? MEMORY_BOMB_TIMEOUT_MS + maxMs : maxMs
    it(`${name} ends in ${tag} within ${limitMs} ms`, async () => {
      const { error, ms } = await fail(source, undefined, memoryBomb ? MEMORY_BOMB_TIMEOUT_MS : undefined)
      expect(tagOf(error)).toBe(tag)
      expect(ms).toBeLessThan(limitMs)
    })
  }

  it("a host function called with invalid arguments ends the call with HostCallError, even if the guest catches", async () => {
    const act = (a: unknown) => {
      if (typeof a !== "string" || !["north", "south"].includes(a)) throw new Sandbox.HostCallError({ fn: "act", reason: `inadmissible action ${JSON.stringify(a)}` })
      return "moved"
    }
    const { error } = await fail("function main() { try { act({ evil: true }) } catch (e) {} return act('north') }", { act })
    expect(tagOf(error)).toBe("HostCallError")
    expect((error as Sandbox.HostCallError).reason).toContain("inadmissible")
  })

  it("a host function that never answers is cut at the deadline", async () => {
    const { error, ms } = await fail("function main() { return hang() }", { hang: () => new Promise(() => undefined) })
    expect(tagOf(error)).toBe("SkillTimeoutError")
    expect(ms).toBeLessThan(1200)
  })

  it("prototype pollution in the guest does not reach the host", async () => {
    const r = await pool.run({
      source: "function main(a) { Object.prototype.pwned = 1; Array.prototype.push = null; a.__proto__.x = 2; JSON.parse = null; return ({}).pwned }",
      args: { k: 1 },
      host: { observe: () => ({}) }
    })
    expect(r).toBe(1)
    expect(({} as Record<string, unknown>).pwned).toBeUndefined()
    expect(({} as Record<string, unknown>).x).toBeUndefined()
    expect(typeof [].push).toBe("function")
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoBefore)
  })

  it("a guest cannot replace a granted host function", async () => {
    const seen: Array<unknown> = []
    const r = await pool.run({ source: "function main() { try { act = () => 'fake' } catch (e) {} return act('a') }", host: { act: (a) => (seen.push(a), "real") } })
    expect(r).toBe("real")
    expect(seen).toEqual(["a"])
  })

  it("after the hostile suite the host is unharmed: memory bounded and the sandbox still answers", async () => {
    const r = await pool.run({ source: "function main(a) { return a * 2 }", args: 21 })
    expect(r).toBe(42)
    const grown = process.memoryUsage().rss - rssBefore
    expect(grown).toBeLessThan(400 * 1024 * 1024)
    expect(pool.stats().liveWorkers).toBeLessThanOrEqual(2)
  })
})
