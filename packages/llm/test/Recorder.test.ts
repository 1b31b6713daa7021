import { Recorder } from "@autodidact/llm"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const exchange = (i: number, session: string): Recorder.Exchange => ({
  type: "exchange",
  id: `xch_${i}`,
  session,
  startedAt: 1_700_000_000_000 + i,
  latencyMs: 1,
  stream: false,
  request: { messages: [{ role: "user", content: `row ${i} ${"x".repeat(Math.abs(i) % 50)}` }], sampling: {} },
  status: 200
})

describe("Recorder.layerJsonl (issue 21: the gateway under load)", () => {
  it.live("concurrent rows are written off the event loop, each once and whole, in per-session files", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recorder-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const rec = Context.get(yield* Layer.build(Recorder.layerJsonl(dir)), Recorder.Recorder)
      // other work runs while a row is being written (the old writer blocked the event loop for every fsync)
      let ticked = false
      setImmediate(() => (ticked = true))
      yield* rec.exchange(exchange(-1, "first"))
      expect(ticked).toBe(true)
      // 300 rows at once into 7 sessions (group commit), then read back
      const n = 300
      yield* Effect.all(Array.from({ length: n }, (_, i) => rec.exchange(exchange(i, `s${i % 7}`))), { concurrency: "unbounded" })
      const rows = yield* rec.read()
      expect(rows.length).toBe(n + 1)
      expect(new Set(rows.map((r) => r.id)).size).toBe(n + 1)
      for (let k = 0; k < 7; k++) {
        const text = fs.readFileSync(path.join(dir, "sessions", `s${k}.jsonl`), "utf8")
        const lines = text.split("\n").filter((l) => l !== "")
        expect(text.endsWith("\n")).toBe(true)
        expect(lines.every((l) => (JSON.parse(l) as Recorder.Exchange).session === `s${k}`)).toBe(true)
        expect(lines.length).toBe(Array.from({ length: n }, (_, i) => i).filter((i) => i % 7 === k).length)
      }
    }).pipe(Effect.scoped))

  it.live("a row that cannot be written fails with RecordError naming the directory; later rows still land", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recorder-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const rec = Context.get(yield* Layer.build(Recorder.layerJsonl(dir)), Recorder.Recorder)
      fs.mkdirSync(path.join(dir, "sessions", "blocked.jsonl")) // a directory where the file should be
      const [bad, good] = yield* Effect.all([Effect.flip(rec.exchange(exchange(1, "blocked"))), rec.exchange(exchange(2, "fine"))], { concurrency: 2 })
      expect(bad._tag).toBe("RecordError")
      expect(bad.location).toBe(path.join(dir, "sessions"))
      expect(good).toBeUndefined()
      yield* rec.exchange(exchange(3, "fine"))
      expect(fs.readFileSync(path.join(dir, "sessions", "fine.jsonl"), "utf8").trim().split("\n").length).toBe(2)
    }).pipe(Effect.scoped))
})
