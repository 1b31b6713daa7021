/**
 * Levels solved at equal env-step budgets on text Sokoban: a trained DRRN policy alone (greedy; sampled with
 * restarts) vs best-first search with a learned value (a value head fitted on the policy's own rollouts) and two
 * no-learning baselines, on Sokoban-6x6-1box-v0 evaluation levels and Boxoban unfiltered levels. Prints a markdown
 * table (levels solved / N per method and budget) with the load average, or one JSON row per line with --json.
 *
 *   npx tsx --conditions=@autodidact/source packages/search/bench/sokoban.ts --policy RUN/checkpoints/policy.json \
 *     [--levels 100] [--boxoban-levels 50] [--boxoban FILE] [--budgets 50,200,1000,5000] [--value-episodes 2000] [--json]
 *
 * FILE defaults to <repo>/../shared/data/boxoban/unfiltered/valid/000.txt (skipped with a note when absent).
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { SokobanLevel } from "@autodidact/envs"
import { DrrnPolicyFile } from "@autodidact/optim/node"
import { SokobanExperiment } from "@autodidact/search"

const args = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}
const policyFile = flag("--policy")
if (policyFile === undefined) {
  console.error("usage: sokoban.ts --policy RUN/checkpoints/policy.json [--levels N] [--boxoban-levels N] [--boxoban FILE] [--budgets a,b,c] [--value-episodes N] [--json]")
  process.exit(2)
}
const json = args.includes("--json")
const here = Path.dirname(fileURLToPath(import.meta.url))
const boxobanFile = flag("--boxoban") ?? Path.resolve(here, "../../../../shared/data/boxoban/unfiltered/valid/000.txt")
const nBoxoban = Number(flag("--boxoban-levels") ?? 50)
let boxoban: Array<SokobanLevel.Level> = []
if (nBoxoban > 0) {
  if (Fs.existsSync(boxobanFile)) boxoban = SokobanLevel.parseLevelsSync(Fs.readFileSync(boxobanFile, "utf8")).slice(0, nBoxoban)
  else console.error(`note: ${boxobanFile} not found; Boxoban rows skipped`)
}
const load = () => `load average ${Os.loadavg().map((x) => x.toFixed(2)).join(" ")} (${Os.cpus().length} cpus, node ${process.version})`
const loadBefore = load()
const result = SokobanExperiment.experiment({
  policy: DrrnPolicyFile.loadSync(policyFile),
  sokobanLevels: Number(flag("--levels") ?? 100),
  boxoban,
  budgets: (flag("--budgets") ?? "50,200,1000,5000").split(",").map(Number),
  valueEpisodes: Number(flag("--value-episodes") ?? 2000),
  onRow: (line) => json || console.error(`  ${line}`)
})
const loadText = `${loadBefore} at start, ${load()} at end`
if (json) for (const row of result.rows) console.log(JSON.stringify({ ...row, valueR2: result.valueFit.validR2, load: loadText }))
else {
  console.log(`Value head: ${result.valueFit.trainSamples} samples of the policy's rollouts, held-out R² ${result.valueFit.validR2.toFixed(3)}\n`)
  console.log(SokobanExperiment.formatMarkdown(result.rows, loadText))
}
