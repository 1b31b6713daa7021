/**
 * The optional peers of `@autodidact/memory`'s entry points: importing `@autodidact/memory/store` or
 * `@autodidact/memory/onnx` loads none of them; using a backend whose package is missing fails with core's
 * `MissingPeerError` naming the package and the entry point. The packages are made missing in a fresh process by a
 * module-resolution hook that answers Node's own "Cannot find package" for them (nothing is uninstalled).
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")

describe("optional peers of @autodidact/memory", () => {
  it("store and onnx entries import without their backends and fail with MissingPeerError naming the one missing", () => {
    const dir = mkdtempSync(join(tmpdir(), "memory-peers-"))
    const blocked = join(dir, "blocked.json")
    const hooks = join(dir, "hooks.mjs")
    writeFileSync(hooks, `import { readFileSync } from "node:fs"
export async function resolve(s, c, next) {
  const missing = JSON.parse(readFileSync(${JSON.stringify(blocked)}, "utf8"))
  if (missing.some((p) => s === p || s.startsWith(p + "/"))) {
    throw Object.assign(new Error("Cannot find package '" + s + "' imported from " + c.parentURL), { code: "ERR_MODULE_NOT_FOUND" })
  }
  return next(s, c)
}
`)
    const script = `import { register } from "node:module"; import { pathToFileURL } from "node:url"; import { writeFileSync } from "node:fs"
const block = (list) => writeFileSync(${JSON.stringify(blocked)}, JSON.stringify(list))
block(["@effect/sql-pg", "@electric-sql/pglite", "@electric-sql/pglite-socket", "@electric-sql/pglite-pgvector", "@huggingface/tokenizers"])
register(pathToFileURL(${JSON.stringify(hooks)}))
const { Effect, Layer } = await import("effect")
const store = await import("@autodidact/memory/store")
const onnx = await import("@autodidact/memory/onnx")
const show = (e) => ({ tag: e?._tag, peer: e?.peer, entryPoint: e?.entryPoint, install: e?.install })
const out = {}
out.memoryNone = await store.ExperienceStore.open({ memory: true }).then(() => "opened", show)
out.urlNone = await store.ExperienceStore.open({ url: "postgres://u@127.0.0.1:1/db" }).then(() => "opened", show)
const layer = onnx.OnnxEmbedder.layerOnnx({ modelPath: "/nonexistent/model.onnx", tokenizerPath: "/nonexistent/tokenizer.json" })
out.onnx = await Effect.runPromise(Effect.scoped(Layer.build(layer))).then(() => "built", show)
block(["@electric-sql/pglite"])
out.memoryNoPglite = await store.ExperienceStore.open({ memory: true }).then(() => "opened", show)
process.stdout.write(JSON.stringify(out) + "\\n")`
    const stdout = execFileSync(process.execPath, ["--import", "tsx", "--conditions=@autodidact/source", "--input-type=module", "-e", script], {
      cwd: packageDir,
      encoding: "utf8"
    })
    const out = JSON.parse(stdout.trim().split("\n").pop()!)
    const store = "@autodidact/memory/store"
    expect(out.memoryNone).toEqual({ tag: "MissingPeerError", peer: "@effect/sql-pg", entryPoint: store, install: "npm install @effect/sql-pg@^4.0.5" })
    expect(out.urlNone).toEqual({ tag: "MissingPeerError", peer: "@effect/sql-pg", entryPoint: store, install: "npm install @effect/sql-pg@^4.0.5" })
    expect(out.memoryNoPglite).toEqual({
      tag: "MissingPeerError",
      peer: "@electric-sql/pglite",
      entryPoint: store,
      install: "npm install @electric-sql/pglite@^0.5.14"
    })
    expect(out.onnx).toEqual({
      tag: "MissingPeerError",
      peer: "@huggingface/tokenizers",
      entryPoint: "@autodidact/memory/onnx",
      install: "npm install @huggingface/tokenizers@^0.2.0"
    })
  }, 120_000)
})
