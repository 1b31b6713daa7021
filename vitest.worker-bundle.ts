/**
 * Vitest `globalSetup` factory for the projects whose code starts worker threads from source (cluster's rollout
 * pool, envs' AsyncVectorEnv): bundles the worker module (with its imports, from the current sources: esbuild with the
 * `@autodidact/source` condition) into one ES module per test run and exports its path in an environment variable
 * that the module starting the workers reads, so that every worker of the run — in the test workers and in the
 * processes they start — loads that one file instead of registering tsx and loading the sources module by module
 * (about 3 s of CPU per worker; ~0.4 s from the bundle). The worker code is the same source; only how it is loaded
 * changes. Set the variable to an empty string to run the workers through tsx.
 */
import { build } from "esbuild"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

/** A globalSetup that bundles `entry` (an absolute path) and exports the bundle's path in `variable`. */
export const workerBundle = (entry: string, variable: string) =>
  async function setup(): Promise<(() => void) | undefined> {
    if (process.env[variable] !== undefined) return undefined // given by the caller (or "": through tsx)
    const tmp = Fs.mkdtempSync(Path.join(Os.tmpdir(), "autodidact-worker-bundle-"))
    const outfile = Path.join(tmp, `${Path.basename(entry, ".ts")}.mjs`)
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      conditions: ["@autodidact/source"],
      logLevel: "warning"
    })
    process.env[variable] = outfile
    return () => {
      delete process.env[variable]
      Fs.rmSync(tmp, { recursive: true, force: true })
    }
  }

/**
 * A globalSetup that bundles the test's child-process scripts `entries` (absolute paths) into `<dir>/.vitest/` (inside
 * the package, so that their third-party imports resolve from its node_modules) and exports that directory in
 * `variable`: the workspace's sources (`@autodidact/*`, relative imports; `@autodidact/source` condition) are bundled,
 * every other package and Node's built-ins stay imports. A child started as `node <dir>/<name>.mjs` then skips tsx
 * (about 2 s of CPU per process). Only for scripts whose sources do not locate files by `import.meta.url`.
 */
export const scriptBundles = (dir: string, entries: ReadonlyArray<string>, variable: string) =>
  async function setup(): Promise<(() => void) | undefined> {
    if (process.env[variable] !== undefined) return undefined // given by the caller (or "": through tsx)
    Fs.mkdirSync(Path.join(dir, ".vitest"), { recursive: true })
    const outdir = Fs.mkdtempSync(Path.join(dir, ".vitest", "scripts-"))
    await build({
      entryPoints: [...entries],
      outdir,
      outExtension: { ".js": ".mjs" },
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      conditions: ["@autodidact/source"],
      logLevel: "warning",
      plugins: [{
        name: "workspace-sources-only",
        setup: (b) => {
          b.onResolve({ filter: /^[^./]/ }, (args) => args.path.startsWith("@autodidact/") ? undefined : { path: args.path, external: true })
        }
      }]
    })
    process.env[variable] = outdir
    return () => {
      delete process.env[variable]
      Fs.rmSync(outdir, { recursive: true, force: true })
    }
  }
