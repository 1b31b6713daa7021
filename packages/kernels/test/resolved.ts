import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")

/**
 * Run `body` (an ES module body; `register` the resolve hook is done first) in a fresh Node process with the
 * `@autodidact/source` condition, and return its stdout and every module URL it resolved, in order.
 */
export const resolvedBy = (body: string): { readonly stdout: string; readonly urls: ReadonlyArray<string> } => {
  const dir = mkdtempSync(join(tmpdir(), "kernels-entry-"))
  const log = join(dir, "resolved.txt")
  const hooks = join(dir, "hooks.mjs")
  writeFileSync(hooks, `import { appendFileSync } from "node:fs"
export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + "\\n"); return r }
`)
  writeFileSync(log, "")
  const script = `import { register } from "node:module"; import { pathToFileURL } from "node:url"
register(pathToFileURL(${JSON.stringify(hooks)}))
${body}`
  const stdout = execFileSync(process.execPath, ["--import", "tsx", "--conditions=@autodidact/source", "--input-type=module", "-e", script], {
    cwd: packageDir,
    encoding: "utf8"
  })
  return { stdout, urls: readFileSync(log, "utf8").split("\n").filter((l) => l.length > 0) }
}
