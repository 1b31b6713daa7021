/**
 * Builds the in-browser PPO demo (`docs/browser/index.html`): bundles the training worker, then the page script with
 * the worker's code inlined, both as minified classic scripts (so the page works from `file://`), and copies
 * uPlot's stylesheet, into `<outdir>` (default `docs/browser/build/`, not committed).
 *
 *   npm run build:docs -w @autodidact/web         # or: npx tsx apps/web/tools/buildDocs.ts [outdir]
 * @since 0.0.0
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { bundle, kb } from "./bundle.js"

const here = path.dirname(fileURLToPath(import.meta.url))
/** `docs/browser` of the repository. */
export const docsDir = path.resolve(here, "../../../docs/browser")

/** What {@link buildDocs} wrote and how big it is. */
export interface DocsBuild {
  readonly outdir: string
  readonly workerBytes: number
  readonly pageBytes: number
  readonly pageGzipBytes: number
}

/** Build the demo into `outdir` (created if needed). Throws when a Node built-in is reached (see `bundle`). */
export const buildDocs = async (outdir: string = path.join(docsDir, "build")): Promise<DocsBuild> => {
  const worker = await bundle({ entry: path.join(here, "../src/demo/worker.ts") }, { format: "iife" })
  const page = await bundle(
    { entry: path.join(here, "../src/demo/main.ts") },
    { format: "iife", define: { __WORKER_SOURCE__: JSON.stringify(worker.code) } }
  )
  fs.mkdirSync(outdir, { recursive: true })
  fs.writeFileSync(path.join(outdir, "demo.js"), page.code)
  const css = createRequire(import.meta.url).resolve("uplot/dist/uPlot.min.css")
  fs.copyFileSync(css, path.join(outdir, "uPlot.min.css"))
  return { outdir, workerBytes: worker.bytes, pageBytes: page.bytes, pageGzipBytes: page.gzipBytes }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const out = await buildDocs(process.argv[2] === undefined ? undefined : path.resolve(process.argv[2]))
  console.log(`wrote ${path.join(out.outdir, "demo.js")} (${kb(out.pageBytes)} minified, ${kb(out.pageGzipBytes)} gzipped; worker ${kb(out.workerBytes)})`)
  console.log(`open ${pathToFileURL(path.join(docsDir, "index.html")).href}`)
}
