/**
 * How a test (or bench) starts one of this directory's child-process scripts (`StoreCreateChild.ts`, ...): as
 * `node <bundle>.mjs` when the test run's globalSetup (`vitest.children.ts`) bundled it — plain JavaScript, no tsx:
 * about 2.5 s of CPU less per process — else through tsx with the source condition (a bench, or a run with
 * `AUTODIDACT_MEMORY_TEST_SCRIPTS` set to "").
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

/** The environment variable naming the directory of the bundled child scripts. */
export const variable = "AUTODIDACT_MEMORY_TEST_SCRIPTS"

const here = Path.dirname(new URL(import.meta.url).pathname)

/** The child scripts that `vitest.children.ts` bundles. */
export const scripts = ["StoreCreateChild", "StoreKillChild", "StoreTemplateChild", "StoreWriterChild"].map((n) =>
  Path.join(here, `${n}.ts`)
)

/** Node's arguments (before the script's own) to run `test/<name>.ts`. */
export const childCommand = (name: string): Array<string> => {
  const dir = process.env[variable]
  const bundle = dir === undefined || dir === "" ? undefined : Path.join(dir, `${name}.mjs`)
  return bundle !== undefined && Fs.existsSync(bundle)
    ? [bundle]
    : ["--conditions=@autodidact/source", "--import", "tsx", Path.join(here, `${name}.ts`)]
}
