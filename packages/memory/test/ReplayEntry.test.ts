import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import * as esbuild from "esbuild"
import * as Main from "../src/index.js"
import * as Replay from "../src/replay.js"
import * as ReplayNode from "../src/replay/node.js"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")

/** Bundle an entry for the browser (esbuild, `platform: "browser"`); throws when it reaches a Node built-in. */
const bundleForBrowser = (entry: string) =>
  esbuild.build({
    entryPoints: [join(packageDir, "src", entry)],
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    conditions: ["@autodidact/source"],
    logLevel: "silent"
  })

describe("@autodidact/memory/replay", () => {
  it("exposes the same replay modules as the main entry; ReplayFile is only in replay/node", () => {
    expect(Replay.ReplayBuffer).toBe(Main.ReplayBuffer)
    expect(Replay.PrioritizedReplay).toBe(Main.PrioritizedReplay)
    expect(Replay.NStep).toBe(Main.NStep)
    expect(Replay.EpisodeBuffer).toBe(Main.EpisodeBuffer)
    expect(Replay.InvalidPriorityError).toBe(Main.InvalidPriorityError)
    expect("ReplayFile" in Replay).toBe(false)
    expect("ReplayFile" in Main).toBe(false)
    expect(typeof ReplayNode.ReplayFile.saveSync).toBe("function")
  })

  it("the replay and main entries bundle for a browser (no Node built-in); replay/node and store do not", async () => {
    for (const entry of ["replay.ts", "index.ts"]) {
      const out = await bundleForBrowser(entry)
      expect(out.errors).toEqual([])
    }
    for (const entry of ["replay/node.ts", "store.ts"]) {
      const error = await bundleForBrowser(entry).then(() => undefined, (e: Error) => e)
      expect(error?.message).toMatch(/node:(fs|crypto|path|os)/)
    }
  }, 180_000)

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
const per = m.PrioritizedReplay.create({ capacity: 4, obsDim: 1 })
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
    expect(resolved.filter((u) => u.startsWith("node:"))).toEqual([])
  }, 180_000)
})
