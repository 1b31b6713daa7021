/**
 * What the browser tests bundle: the browser entry points of the packages (`export * from` each, the most a page
 * can pull in) and the page checks (`src/checks/*`, what a page running them pays). Every one of them must bundle with
 * no Node built-in.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { Bundle } from "../tools/bundle.js"
import { kb } from "../tools/bundle.js"

export const here = path.dirname(fileURLToPath(import.meta.url))
export const outputDir = path.join(here, "..", "test-output")

/** A browser entry point of a package. */
export interface Entry {
  readonly specifier: string
}

export const entries: ReadonlyArray<Entry> = [
  { specifier: "@autodidact/core" },
  { specifier: "@autodidact/envs" },
  { specifier: "@autodidact/kernels" },
  { specifier: "@autodidact/solvers" },
  { specifier: "@autodidact/optim" },
  { specifier: "@autodidact/memory/replay" }
]

/** A check run in the page: `call` is evaluated with `m` (the module) and `input` (JSON) in scope. */
export interface Check {
  readonly name: string
  readonly module: string
  readonly call: string
}

const src = (file: string) => path.join(here, "..", "src", "checks", file)

export const checks = {
  cartpoleVector: { name: "CartPole-v1 SyncVectorEnv", module: src("cartpole.ts"), call: "m.vectorTrace(input)" },
  cartpoleReference: { name: "CartPole-v1 vs Gymnasium 1.4", module: src("cartpole.ts"), call: "m.replayReference(input)" },
  kuhn: { name: "Kuhn poker CFR+", module: src("kuhn.ts"), call: "m.kuhnCfr(input)" },
  gae: { name: "GAE", module: src("gae.ts"), call: "m.gaeHandCase()" },
  ppo: { name: "PPO update + TF.js CPU", module: src("ppo.ts"), call: "m.ppoUpdate(input)" }
} satisfies Record<string, Check>

/** Module source that runs `check` and leaves `{ value }` or `{ error }` in `globalThis.__result`. */
export const checkEntry = (check: Check): string => `
import * as m from ${JSON.stringify(check.module)}
const g = globalThis as any
const input = g.__input
Promise.resolve()
  .then(() => ${check.call})
  .then((value) => { g.__result = { value } }, (e) => { g.__result = { error: String(e?.stack ?? e) } })
`

/** `| bundle | minified | gzip -9 |` rows, also written to `test-output/<file>`. */
export const sizeTable = (title: string, rows: ReadonlyArray<readonly [string, Bundle | string]>, file: string): string => {
  const lines = [
    `${title} (esbuild ${esbuildVersion()}, --platform=browser --format=esm --minify, condition @autodidact/source)`,
    "",
    "| bundle | minified | gzip -9 | largest inputs |",
    "|---|---:|---:|---|",
    ...rows.map(([name, b]) =>
      typeof b === "string"
        ? `| ${name} | — | — | ${b} |`
        : `| ${name} | ${kb(b.bytes)} | ${kb(b.gzipBytes)} | ${b.largest.slice(0, 3).map(([p, n]) => `${p.replace(/^.*node_modules\//, "")} ${kb(n)}`).join(", ")} |`
    )
  ]
  const text = lines.join("\n") + "\n"
  fs.mkdirSync(outputDir, { recursive: true })
  fs.writeFileSync(path.join(outputDir, file), text)
  return text
}

const esbuildVersion = (): string =>
  (JSON.parse(fs.readFileSync(path.join(here, "..", "..", "..", "node_modules", "esbuild", "package.json"), "utf8")) as { version: string }).version
