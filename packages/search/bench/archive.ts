/**
 * The archive-search reference experiment (`HouseholdArchiveExperiment`): search over GiGPO/DRRN training
 * configurations on TextHousehold-v0 with HGM, DGM and random parent selection at an equal env-step budget per seed,
 * each method's best and the default configuration scored greedily on held-out unseen tasks. Prints a markdown table
 * with the load average, or one JSON row per line with --json.
 *
 *   npx tsx --conditions=@autodidact/source packages/search/bench/archive.ts [--seeds 1,2,3] [--methods hgm,dgm,random,restarts] \
 *     [--train-steps 20000] [--budget 220000] [--difficulty easy] [--max-steps 25] [--search-tasks 64] [--batch 8] \
 *     [--held-out 200] [--full-budget-default] [--out DIR] [--json]
 *
 * With --out DIR, every finished row is appended to DIR/rows.jsonl and each archive is saved after every step to
 * DIR/archive-seed-S-METHOD.json (ArchiveFile); rerunning with the same --out skips the rows already there.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { HouseholdArchiveExperiment as X } from "@autodidact/search"
import { ArchiveFile } from "@autodidact/search/node"

const args = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}
const json = args.includes("--json")
const out = flag("--out")
const difficulty = flag("--difficulty") ?? "easy"
const maxSteps = Number(flag("--max-steps") ?? 25)
const rowsFile = out === undefined ? undefined : Path.join(out, "rows.jsonl")
if (out !== undefined) Fs.mkdirSync(out, { recursive: true })
const done: Array<X.Row> = rowsFile !== undefined && Fs.existsSync(rowsFile)
  ? Fs.readFileSync(rowsFile, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as X.Row)
  : []
const load = () => `load average ${Os.loadavg().map((x) => x.toFixed(2)).join(" ")} (${Os.cpus().length} cpus, node ${process.version})`
const loadBefore = load()
const log = (line: string) => json || console.error(`  ${new Date().toISOString().slice(11, 19)} ${line}`)
const rows = await X.run({
  seeds: (flag("--seeds") ?? "1,2,3").split(",").map(Number),
  methods: (flag("--methods") ?? "hgm,dgm,random,restarts").split(",") as Array<X.Method>,
  trainSteps: Number(flag("--train-steps") ?? 20_000),
  budget: Number(flag("--budget") ?? 220_000),
  maxSteps,
  searchTasks: Number(flag("--search-tasks") ?? 64),
  batchSize: Number(flag("--batch") ?? 8),
  heldOutTasks: Number(flag("--held-out") ?? 200),
  fullBudgetDefault: args.includes("--full-budget-default"),
  done,
  log,
  onRow: (row) => rowsFile !== undefined && Fs.appendFileSync(rowsFile, JSON.stringify(row) + "\n"),
  onStep: (seed, method, state) => {
    if (out !== undefined) ArchiveFile.save(Path.join(out, `archive-seed-${seed}-${method}.json`), state)
    const n = state.nodes[state.nodes.length - 1]!
    log(`seed ${seed} ${method} step ${state.step}: ${state.nodes.length} nodes, best #${state.best}, last node #${n.id} ${n.results.filter((r) => r.success).length}/${n.results.length} ${X.describeChanges(n.config)}`)
  }
}, X.householdDependencies({ difficulty, maxSteps }))
const loadText = `${loadBefore} at start, ${load()} at end; TextHousehold-v0 ${difficulty}, max steps ${maxSteps}`
if (json) for (const row of rows) console.log(JSON.stringify({ ...row, load: loadText }))
else console.log(X.formatMarkdown(rows, loadText))
