/**
 * `autodidact bench archive [--seeds 1,2,3] [--train-steps N] [--budget N] [--difficulty easy] [--max-steps 25]
 * [--search-tasks 64] [--batch 8] [--held-out 200] [--full-budget-default] [--out DIR] [--json]`: the archive-search
 * reference experiment (`HouseholdArchiveExperiment` in `@autodidact/search`): archive search over GiGPO/DRRN
 * training configurations on TextHousehold-v0 with HGM, DGM and random parent selection at an equal env-step budget
 * per seed, each method's best and the default configuration scored greedily on held-out unseen tasks; a markdown
 * table headed by the load average (or one JSON row per line). With `--out DIR` finished rows go to DIR/rows.jsonl
 * and each archive to DIR/archive-seed-S-METHOD.json; a rerun skips the rows already there.
 * @since 0.2.0
 */
import { HouseholdArchiveExperiment } from "@autodidact/search"
import { ArchiveFile } from "@autodidact/search/node"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Configs } from "../Commands.js"
import * as Output from "../Output.js"
import { TrainConfigError } from "./Train.js"

/** The load average, CPUs and node version that head the table. */
const machine = (): string => {
  const [one, five, fifteen] = Os.loadavg().map((x) => x.toFixed(2))
  return `load average ${one} ${five} ${fifteen} (${Os.cpus().length} cpus, node ${process.version})`
}

/** `autodidact bench archive` */
export const handleBenchArchive = (config: Configs["bench archive"]): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const seeds = config.seeds.split(",").map((s) => Number(s.trim()))
    if (seeds.some((s) => !(Number.isSafeInteger(s) && s >= 0))) {
      return yield* new TrainConfigError({ option: "seeds", value: config.seeds, reason: "expected comma-separated non-negative integers" })
    }
    const out = Option.getOrUndefined(config.out)
    const rowsFile = out === undefined ? undefined : Path.join(out, "rows.jsonl")
    const done = yield* Effect.try({
      try: () => {
        if (out !== undefined) Fs.mkdirSync(out, { recursive: true })
        return rowsFile !== undefined && Fs.existsSync(rowsFile)
          ? Fs.readFileSync(rowsFile, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as HouseholdArchiveExperiment.Row)
          : []
      },
      catch: (e) => e
    })
    const before = machine()
    const rows = yield* Effect.tryPromise({
      try: () =>
        HouseholdArchiveExperiment.run({
          seeds,
          trainSteps: config.trainSteps,
          budget: config.budget,
          maxSteps: config.maxSteps,
          searchTasks: config.searchTasks,
          batchSize: config.batch,
          heldOutTasks: config.heldOut,
          fullBudgetDefault: config.fullBudgetDefault,
          done,
          log: (line) => Output.note(config.json, `  ${line}`),
          onRow: (row) => rowsFile !== undefined && Fs.appendFileSync(rowsFile, JSON.stringify(row) + "\n"),
          onStep: (seed, method, state) => out !== undefined && ArchiveFile.save(Path.join(out, `archive-seed-${seed}-${method}.json`), state)
        }, HouseholdArchiveExperiment.householdDependencies({ difficulty: config.difficulty, maxSteps: config.maxSteps })),
      catch: (e) => e
    })
    const load = `${before} at start, ${machine()} at end; TextHousehold-v0 ${config.difficulty}, max steps ${config.maxSteps}`
    if (config.json) for (const row of rows) process.stdout.write(JSON.stringify({ ...row, load }) + "\n")
    else process.stdout.write(`Archive search over GiGPO training configurations (TextHousehold-v0)\n\n${HouseholdArchiveExperiment.formatMarkdown(rows, load)}\n`)
  })
