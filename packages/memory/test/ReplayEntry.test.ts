import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import * as Main from "../src/index.js"
import * as Replay from "../src/replay.js"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")

describe("@autodidact/memory/replay", () => {
  it("exposes the same replay modules as the main entry", () => {
    expect(Replay.ReplayBuffer).toBe(Main.ReplayBuffer)
    expect(Replay.PrioritizedReplay).toBe(Main.PrioritizedReplay)
    expect(Replay.NStep).toBe(Main.NStep)
    expect(Replay.EpisodeBuffer).toBe(Main.EpisodeBuffer)
    expect(Replay.ReplayFile).toBe(Main.ReplayFile)
    expect(Replay.InvalidPriorityError).toBe(Main.InvalidPriorityError)
  })

  it("loads no database, tokenizer, ONNX Runtime or TensorFlow.js (module resolutions of a fresh process)", () => {
    const dir = mkdtempSync(join(tmpdir(), "memory-replay-entry-"))
    const log = join(dir, "resolved.txt")
    const hooks = join(dir, "hooks.mjs")
    writeFileSync(hooks, `import { appendFileSync } from "node:fs"
export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + "\\n"); return r }
`)
    writeFileSync(log, "")
    const script = `import { register } from "node:module"; import { pathToFileURL } from "node:url"
register(pathToFileURL(${JSON.stringify(hooks)}))
const m = await import("@autodidact/memory/replay")
const per = m.PrioritizedReplay.unsafeMake({ capacity: 4, obsDim: 1 })
per.add([0], 0, 1, [1], false, false)
process.stdout.write(String(per.sample(1).indices[0]) + "\\n") // not console.log: FORCE_COLOR would colour it`
    const out = execFileSync(process.execPath, ["--import", "tsx", "--conditions=@autodidact/source", "--input-type=module", "-e", script], {
      cwd: packageDir,
      encoding: "utf8"
    })
    expect(out.trim()).toBe("0")
    const resolved = readFileSync(log, "utf8").split("\n").filter((l) => l.length > 0)
    expect(resolved.some((u) => u.endsWith("/memory/src/replay.ts"))).toBe(true)
    expect(resolved.some((u) => u.endsWith("/kernels/src/trees/SumTree.ts"))).toBe(true)
    expect(resolved.filter((u) => /pglite|@effect\/sql|onnxruntime|tensorflow|tokenizers|kernels\/src\/index\.ts/.test(u))).toEqual([])
  }, 60_000)
})
