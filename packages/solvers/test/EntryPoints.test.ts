import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const src = fileURLToPath(new URL("../src/", import.meta.url))

/** Every module of this package statically reachable from `entry` and the bare specifiers they import (values only). */
const graph = (entry: string) => {
  const seen = new Set<string>()
  const bare = new Map<string, string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const text = fs.readFileSync(file, "utf8")
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)[^"';]*?from\s+"([^"]+)"/gm)) {
      const spec = m[1]!
      if (spec.startsWith(".")) visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts")))
      else bare.set(spec, path.relative(src, file))
    }
  }
  visit(path.join(src, entry))
  return { files: [...seen].map((f) => path.relative(src, f)), bare }
}

describe("entry points", () => {
  it("the main entry reaches no Node built-in and never loads highs (browser-safe)", () => {
    const { files, bare } = graph("index.ts")
    expect(files).toContain("regret/Solver.ts")
    expect(files).not.toContain("regret/SolverFiles.ts")
    expect(files).not.toContain("normalform/HighsRuntime.ts")
    for (const [spec, from] of bare) {
      expect(spec, from).not.toMatch(/^node:|^(fs|path|os|module|url|crypto|worker_threads|child_process)$/)
      expect(spec, from).not.toBe("highs")
    }
    // kernels (MlpSimd, Adam for Deep CFR): its main entry is browser-safe too (its own EntryPoints test)
    expect([...bare.keys()].sort()).toEqual(["@autodidact/core", "@autodidact/envs", "@autodidact/kernels", "effect"])
  })

  it("./node holds the file system, ./lp the highs runtime", () => {
    expect([...graph("node.ts").bare.keys()]).toEqual(expect.arrayContaining(["@autodidact/core/node", "node:fs"]))
    const lp = graph("lp.ts")
    expect(lp.files).toContain("normalform/HighsRuntime.ts")
    expect([...lp.bare.keys()]).not.toContain("highs") // loaded by a dynamic import through OptionalPeer
    expect(fs.readFileSync(path.join(src, "normalform/HighsRuntime.ts"), "utf8")).toContain(`import("highs")`)
  })
})
