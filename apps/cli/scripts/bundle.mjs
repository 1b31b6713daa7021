// Bundles the CLI's front end (src/main.ts: the command definitions, effect/cli and the Node runtime) into one file,
// dist/autodidact.js, so that start-up and `--help` read one module instead of hundreds. The command
// implementations are not bundled: `./Exec.js` stays an import of the tsc output beside it (dist/Exec.js), which
// loads each command's module, and the Autodidact packages with it, only when that command runs.
// Run after `tsc --build tsconfig.lib.json` (the `build` target does both).
import * as esbuild from "esbuild"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: ["src/main.ts"],
  outfile: "dist/autodidact.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20.19",
  minify: true,
  sourcemap: "linked",
  sourcesContent: false,
  legalComments: "eof",
  metafile: true,
  logLevel: "warning",
  // CommonJS dependencies bundled into an ES module still call `require` for Node built-ins
  banner: { js: "import { createRequire as __autodidactCreateRequire } from \"node:module\"; const require = __autodidactCreateRequire(import.meta.url);" },
  plugins: [
    {
      name: "autodidact-exec-external",
      setup(build) {
        build.onResolve({ filter: /^\.\/Exec\.js$/ }, () => ({ path: "./Exec.js", external: true }))
        // the front end must never reach an Autodidact package: they load with their commands
        build.onResolve({ filter: /^@autodidact\// }, (args) => ({
          errors: [{ text: `${args.importer} imports ${args.path}: the CLI's front end (src/main.ts, src/Commands.ts) must not load packages` }]
        }))
      }
    }
  ]
})
const bytes = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined)?.bytes ?? 0
console.log(`dist/autodidact.js: ${(bytes / 1024).toFixed(0)} KiB, ${Object.keys(result.metafile.inputs).length} modules`)
