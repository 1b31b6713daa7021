/**
 * Browser bundles with esbuild (`platform: "browser"`, ESM, the workspace's `@autodidact/source` condition), refused
 * when a Node built-in is reached: `node:*` specifiers and bare built-in names (`fs`, `os`, `worker_threads`, ...)
 * fail the build naming the importer, unless the importing package's own `browser` field maps the name to `false`
 * (its declared browser build does without it). A bare name that resolves to a polyfill package in `node_modules`
 * fails too: nothing is stubbed. Sizes: minified bytes and gzip (level 9) bytes of the output.
 * @since 0.0.0
 */
import * as esbuild from "esbuild"
import { builtinModules } from "node:module"
import * as path from "node:path"
import { gzipSync } from "node:zlib"

const builtins = new Set(builtinModules.filter((m) => !m.startsWith("_")))

const isBuiltin = (specifier: string): boolean =>
  specifier.startsWith("node:") || builtins.has(specifier) || builtins.has(specifier.split("/")[0]!)

/** The esbuild plugin that fails a build reaching a Node built-in (see the module docs). */
export const noNodeBuiltins: esbuild.Plugin = {
  name: "no-node-builtins",
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === "inner" || !isBuiltin(args.path)) return undefined
      const text = `Node built-in "${args.path}" reached from ${args.importer}: not allowed in a browser bundle`
      if (args.path.startsWith("node:")) return { errors: [{ text }] }
      const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: "inner" })
      // the importer's package maps the name to false in its "browser" field: esbuild resolves it to an empty
      // module (no namespace, the bare name as path); let its own resolution proceed
      if (r.errors.length === 0 && r.namespace === "" && !path.isAbsolute(r.path)) return undefined
      return { errors: [{ text: r.errors.length === 0 ? `${text} (resolved to ${r.path})` : text }] }
    })
  }
}

/** Options of {@link bundle}. */
export interface BundleOptions {
  /** `esm` (default) or `iife` (a classic script, which also works from `file://`). */
  readonly format?: "esm" | "iife" | undefined
  /** Default true. */
  readonly minify?: boolean | undefined
  /** Output file; default in memory only. */
  readonly outfile?: string | undefined
  /** esbuild `define`: global names replaced by JSON expressions. */
  readonly define?: { readonly [name: string]: string } | undefined
  /** Extra plugins (run after the built-in guard). */
  readonly plugins?: ReadonlyArray<esbuild.Plugin> | undefined
}

/** A bundle and its sizes. */
export interface Bundle {
  /** The bundled JavaScript. */
  readonly code: string
  /** Output size in bytes (minified unless `minify: false`). */
  readonly bytes: number
  /** gzip -9 size of the output in bytes. */
  readonly gzipBytes: number
  /** The largest inputs by bytes in the output: `[path, bytes]`, at most 8. */
  readonly largest: ReadonlyArray<readonly [string, number]>
}

/**
 * Bundle `entry` (a file path) or `contents` (module source, resolved from `resolveDir`) for browsers.
 * @throws esbuild's BuildFailure listing every Node built-in reached (and any other resolution error).
 */
export const bundle = async (
  input: { readonly entry: string } | { readonly contents: string; readonly resolveDir: string },
  options: BundleOptions = {}
): Promise<Bundle> => {
  const result = await esbuild.build({
    ...("entry" in input ? { entryPoints: [input.entry] } : { stdin: { contents: input.contents, resolveDir: input.resolveDir, loader: "ts" } }),
    bundle: true,
    platform: "browser",
    format: options.format ?? "esm",
    target: "es2022",
    minify: options.minify ?? true,
    conditions: ["@autodidact/source"],
    write: false,
    metafile: true,
    logLevel: "silent",
    legalComments: "none",
    define: { ...options.define },
    ...(options.outfile === undefined ? { outdir: "out" } : { outfile: options.outfile }),
    plugins: [noNodeBuiltins, ...(options.plugins ?? [])]
  })
  const out = result.outputFiles.find((f) => f.path.endsWith(".js"))!
  const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined || Object.keys(o.inputs).length > 0)!
  const largest = Object.entries(output.inputs)
    .map(([p, v]) => [p, v.bytesInOutput] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
  return { code: out.text, bytes: out.contents.byteLength, gzipBytes: gzipSync(out.contents, { level: 9 }).byteLength, largest }
}

/** `1234567` → `"1205.6 KB"` (KiB, one decimal). */
export const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`
