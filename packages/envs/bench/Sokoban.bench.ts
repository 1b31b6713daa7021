/**
 * Solver benchmark: solve the first N levels of Boxoban `unfiltered/valid/000.txt` (Guez et al. 2018) and print
 * solved count, seconds and mean plan length.
 *
 * Run: `cd packages/envs && npx tsx bench/Sokoban.bench.ts [N=100] [maxNodes=1000000] [file]`
 * (the data lives in `../shared/data` beside the repository root; the script exits 1 when it is missing; `file`
 * defaults to `boxoban/unfiltered/valid/000.txt` there).
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as SokobanLevel from "../src/sokoban/SokobanLevel.js"
import * as SokobanSolver from "../src/sokoban/SokobanSolver.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const file = process.argv[4] ?? path.resolve(here, "../../../../shared/data/boxoban/unfiltered/valid/000.txt")
if (!fs.existsSync(file)) {
  console.error(`Boxoban data not found at ${file}`)
  process.exit(1)
}
const limit = Number(process.argv[2] ?? 100)
const maxNodes = Number(process.argv[3] ?? 1_000_000)
const levels = SokobanLevel.parseLevelsSync(fs.readFileSync(file, "utf8"), { source: file })
const summary = SokobanSolver.solveLevels(levels, { limit, maxNodes })
let worst = summary.results[0]!
let worstIndex = 0
summary.results.forEach((r, i) => {
  if (r.nodesExpanded > worst.nodesExpanded) {
    worst = r
    worstIndex = i
  }
})
const expanded = summary.results.reduce((a, r) => a + r.nodesExpanded, 0)
console.log(
  JSON.stringify({
    levels: summary.total,
    solved: summary.solved,
    unsolvable: summary.unsolvable,
    budgetExceeded: summary.total - summary.solved - summary.unsolvable,
    seconds: Number(summary.seconds.toFixed(3)),
    meanPlanLength: Number(summary.meanPlanLength.toFixed(2)),
    meanPushes: Number(summary.meanPushes.toFixed(2)),
    nodesExpanded: expanded,
    hardest: { index: worstIndex, nodesExpanded: worst.nodesExpanded, seconds: Number(worst.seconds.toFixed(3)) }
  })
)
