/**
 * Deep CFR (SD-CFR) benchmark, two parts, one markdown table each (and `--json` rows), with the load average:
 *
 * 1. Leduc poker: `DeepCfrBenchmark` (what `autodidact bench deep-cfr` prints): SD-CFR iterations until the exact
 *    NashConv of its average policy is at or below `--target` (default 0.1; uniform 4.7472), its traversals and
 *    solver wall time (NashConv evaluations excluded), beside tabular CFR+ run in the same process to the same
 *    NashConv (its iterations and median wall time; ratio column).
 * 2. Liar's dice with `--dice` dice per player (default 2, six sides): a game whose regret tables do not fit in memory
 *    (the bound printed is computed from the game's bid structure); SD-CFR trained for `--ld-iterations`, then
 *    head-to-head mean payoff per game (95% confidence interval, seats alternated) against uniform random and a
 *    rule-based player (bids what its own dice and the expected count of the unseen dice support, else calls Liar),
 *    and of an early iterate mixture (the first tenth of the run) against the same baselines.
 *
 * 3. Liar's dice with 1 die each (tabular-sized): SD-CFR for `--ld1-iterations` against CFR+ (tabular, 300
 *    iterations) on the same game: both NashConv values and SD-CFR's head-to-head payoff against the CFR+ policy.
 *
 * Defaults: Leduc hidden 64, 1,000 steps × 1,024 rows; Liar's dice hidden 64, 200 steps × 512 rows (flags override
 * both); memories of 4M rows per player for Leduc, 1M for Liar's dice (`--memory` overrides both); Leduc trains on
 * the memory's distinct rows (`dedup`) unless `--no-dedup`, Liar's dice only with `--dedup` (its figures were measured
 * without).
 *
 * Run (from packages/solvers): `npx tsx --conditions=@autodidact/source bench/deepCfr.ts [--json] [--target 0.1]
 * [--max-iterations 300] [--traversals 2000] [--train-steps N] [--batch-size N] [--hidden N] [--lr 0.03]
 * [--schedule linear] [--warm] [--no-dedup | --dedup] [--memory N] [--dice 2] [--ld-iterations 30] [--ld-traversals 200] [--games 20000]
 * [--ld1-iterations 30] [--skip-leduc] [--skip-liars] [--skip-liars1]`.
 */
import { readFileSync } from "node:fs"
import { LiarsDice } from "@autodidact/envs"
import type { Game as GameModule } from "@autodidact/envs"
import * as DeepCfr from "../src/deep/DeepCfr.js"
import * as DeepCfrBenchmark from "../src/deep/DeepCfrBenchmark.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as GameTree from "../src/tree/GameTree.js"
import * as Solver from "../src/regret/Solver.js"
import { Rng } from "@autodidact/core"

const argv = process.argv.slice(2)
const flag = (name: string, dflt: number): number => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? Number(argv[i + 1]) : dflt
}
const has = (name: string) => argv.includes(`--${name}`)
const json = has("json")
const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")
const log = (s: string) => process.stderr.write(s + "\n")
const out: Array<Record<string, unknown>> = []

const table = (title: string, rows: ReadonlyArray<Record<string, unknown>>) => {
  if (json) {
    for (const r of rows) process.stdout.write(JSON.stringify({ table: title, ...r }) + "\n")
    return
  }
  const cols = Object.keys(rows[0]!)
  console.log(`\n### ${title}\n`)
  console.log(`| ${cols.join(" | ")} |`)
  console.log(`|${cols.map(() => "---").join("|")}|`)
  for (const r of rows) console.log(`| ${cols.map((c) => String(r[c])).join(" | ")} |`)
}

/** The SD-CFR options: flags override the part's defaults (`steps`, `batch`, `hidden`). */
const options = (traversals: number, d: { readonly steps: number; readonly batch: number; readonly hidden: number; readonly memory?: number; readonly dedup?: boolean }): DeepCfr.Options => ({
  traversals,
  trainSteps: flag("train-steps", d.steps),
  batchSize: flag("batch-size", d.batch),
  hidden: flag("hidden", d.hidden),
  learningRate: flag("lr", 0.03),
  schedule: argv.includes("--schedule") ? (argv[argv.indexOf("--schedule") + 1] as "linear" | "constant") : "linear",
  reinitialize: !has("warm"),
  dedup: d.dedup === true ? !has("no-dedup") : has("dedup"),
  memoryCapacity: flag("memory", d.memory ?? 1_000_000),
  seed: flag("seed", 0)
})

// ---------------------------------------------------------------- 1. Leduc (DeepCfrBenchmark, what `autodidact bench deep-cfr` prints)
if (!has("skip-leduc")) {
  const load0 = loadavg()
  const report = DeepCfrBenchmark.run(
    {
      target: flag("target", 0.1),
      maxIterations: flag("max-iterations", 300),
      solver: options(flag("traversals", 2000), { steps: 1000, batch: 1024, hidden: 64, memory: 4_000_000, dedup: true }),
      seed: flag("seed", 0)
    },
    (p) => {
      if (p.iteration % 10 === 0) log(`  leduc SD-CFR iteration ${p.iteration}: NashConv ${p.nashConv.toFixed(4)} (${p.seconds.toFixed(1)} s, load ${loadavg()})`)
    }
  )
  if (json) for (const r of DeepCfrBenchmark.rows(report)) process.stdout.write(JSON.stringify({ table: "leduc", ...r }) + "\n")
  else console.log("\n" + DeepCfrBenchmark.markdown(report, `loadavg ${load0} → ${loadavg()}`))
  out.push(...DeepCfrBenchmark.rows(report))
}

// ---------------------------------------------------------------- 2. Liar's dice
/** The rule-based baseline: bid the cheapest bid its dice plus the expected count of unseen dice support, else Liar. */
const ruleBased = (s: LiarsDice.LiarsDiceState, rng: Rng): number => {
  const g = s.game
  const me = s.currentPlayer()
  const dice = s.dice(me)
  const legal = s.legalActions()
  const unseen = g.numDice
  const expected = (face: number) => {
    let own = 0
    for (const d of dice) if (d === face || d === g.sides) own++
    return own + unseen * (face === g.sides ? 1 / g.sides : 2 / g.sides)
  }
  const hist = s.history()
  const lastBid = hist.length > g.totalDice ? hist[hist.length - 1]! : -1
  if (lastBid >= 0) {
    const q = Math.floor(lastBid / g.sides) + 1
    if (q > expected((lastBid % g.sides) + 1) + 0.5) return g.liar
  }
  const ok = legal.filter((b) => b !== g.liar && Math.floor(b / g.sides) + 1 <= Math.floor(expected((b % g.sides) + 1) + 0.25))
  if (ok.length === 0) return lastBid >= 0 ? g.liar : legal[0]!
  // the cheapest supported bid, sometimes the next one (not fully predictable)
  return ok[Math.min(ok.length - 1, rng.random() < 0.7 ? 0 : 1)]!
}

const headToHead = (
  game: GameModule.Game,
  a: (s: GameModule.State) => number,
  b: (s: GameModule.State) => number,
  newGame: () => void,
  games: number,
  rng: Rng
): { mean: number; ci: number } => {
  let sum = 0
  let sumSq = 0
  for (let k = 0; k < games; k++) {
    newGame()
    const aSeat = k % 2
    const s = game.newInitialState()
    while (!s.isTerminal()) {
      if (s.isChanceNode()) {
        const outs = s.chanceOutcomes()
        s.applyAction(outs[Math.min(outs.length - 1, Math.floor(rng.random() * outs.length))]![0])
      } else s.applyAction(s.currentPlayer() === aSeat ? a(s) : b(s))
    }
    const r = s.returns()[aSeat]!
    sum += r
    sumSq += r * r
  }
  const mean = sum / games
  const sd = Math.sqrt(Math.max(0, sumSq / games - mean * mean))
  return { mean, ci: (1.96 * sd) / Math.sqrt(games) }
}

if (!has("skip-liars")) {
  const dice = flag("dice", 2)
  const game = LiarsDice.make({ numdice: dice })
  const bids = game.liar
  // decision information states: for each multiset of own dice, each increasing bid sequence (2^bids) belongs to one
  // player; slots: Σ over the last bid b of 2^b sequences × (bids − 1 − b higher bids + Liar), plus the opening
  let multisets = 1
  for (let k = 1; k <= dice; k++) multisets = (multisets * (game.sides + k - 1)) / k
  let slots = bids
  for (let b = 0; b < bids; b++) slots += 2 ** b * (bids - b)
  const infoStates = multisets * 2 ** bids
  const tableBytes = multisets * slots * 16
  const iterations = flag("ld-iterations", 30)
  const opts = options(flag("ld-traversals", 200), { steps: 200, batch: 512, hidden: 64 })
  const solver = DeepCfr.make(game, opts)
  const load0 = loadavg()
  let seconds = 0
  while (solver.iteration < iterations) {
    const t0 = performance.now()
    const st = solver.step()
    seconds += (performance.now() - t0) / 1000
    if (solver.iteration % 5 === 0) log(`  liars_dice(${dice}) SD-CFR iteration ${st.iteration}: loss ${st.loss.map((x) => x.toFixed(3))} rows ${st.memorySize} (${seconds.toFixed(1)} s, load ${loadavg()})`)
  }
  const games = flag("games", 20000)
  const rng = Rng.make(11)
  const early: DeepCfr.DeepCfrPolicy = { ...solver.policy, iterates: solver.policy.iterates.map((its) => its.slice(0, Math.max(1, Math.floor(its.length / 10)))) }
  const rows: Array<Record<string, unknown>> = []
  for (const [name, policy] of [[`SD-CFR, ${iterations} iterations`, solver.policy], [`SD-CFR, first ${early.iterates[0]!.length} iterations`, early]] as const) {
    const player = DeepCfr.sampleIterates(policy, 5)
    for (const [opp, act] of [
      ["uniform random", (s: GameModule.State) => { const l = s.legalActions(); return l[Math.floor(rng.random() * l.length)]! }],
      ["rule-based", (s: GameModule.State) => ruleBased(s as LiarsDice.LiarsDiceState, rng)]
    ] as const) {
      const r = headToHead(game, (s) => player.act(s), act, () => player.newGame(), games, rng)
      rows.push({ player: name, opponent: opp, games, meanPayoff: r.mean.toFixed(3), ci95: `± ${r.ci.toFixed(3)}` })
    }
  }
  const r = headToHead(game, (s) => ruleBased(s as LiarsDice.LiarsDiceState, rng), (s) => { const l = s.legalActions(); return l[Math.floor(rng.random() * l.length)]! }, () => {}, games, rng)
  rows.push({ player: "rule-based", opponent: "uniform random", games, meanPayoff: r.mean.toFixed(3), ci95: `± ${r.ci.toFixed(3)}` })
  table(
    `Liar's dice, ${dice} dice each (${infoStates.toExponential(2)} information states, ${(tableBytes / 2 ** 30).toFixed(1)} GiB of float64 regret + average tables; SD-CFR: ${iterations} iterations × ${opts.traversals} traversals, ${seconds.toFixed(0)} s, ${solver.policy.iterates.flat().length} stored networks of ${solver.policy.iterates[0]![0]!.length} floats) — loadavg ${load0} → ${loadavg()}`,
    rows
  )
  out.push(...rows)
}

// ---------------------------------------------------------------- 3. Liar's dice, one die each: SD-CFR vs CFR+
if (!has("skip-liars1")) {
  const game = LiarsDice.make({ numdice: 1 })
  const tree = GameTree.compile(game)
  const load0 = loadavg()
  const iterations = flag("ld1-iterations", 30)
  const opts = options(flag("ld-traversals", 200), { steps: 200, batch: 512, hidden: 64 })
  const solver = DeepCfr.make(game, opts)
  let seconds = 0
  while (solver.iteration < iterations) {
    const t0 = performance.now()
    solver.step()
    seconds += (performance.now() - t0) / 1000
  }
  const sdNashConv = Exploitability.nashConvOnTree(tree, DeepCfr.averagePolicyOnTree(DeepCfr.treeAverage(game, tree), solver.policy))
  const cfr = Solver.run(game, { algo: "cfr+", iterations: 300 })
  const rng = Rng.make(13)
  const games = flag("games", 20000)
  const player = DeepCfr.sampleIterates(solver.policy, 7)
  const cfrAct = (s: GameModule.State): number => {
    const probs = cfr.policy.actionProbabilities(s.informationStateString(s.currentPlayer()))!
    let u = rng.random()
    for (const [a, p] of probs) {
      if (u < p) return a
      u -= p
    }
    return probs[probs.length - 1]![0]
  }
  const r = headToHead(game, (s) => player.act(s), cfrAct, () => player.newGame(), games, rng)
  const rows = [
    { player: `SD-CFR, ${iterations} iterations × ${opts.traversals} traversals (${seconds.toFixed(0)} s)`, nashConv: sdNashConv.toFixed(4), opponent: "CFR+ (300 iterations)", games, meanPayoff: r.mean.toFixed(3), ci95: `± ${r.ci.toFixed(3)}` },
    { player: `CFR+, 300 iterations (${cfr.elapsedSeconds.toFixed(1)} s)`, nashConv: cfr.nashConv.toFixed(4), opponent: "-", games: "-", meanPayoff: "-", ci95: "-" }
  ]
  table(`Liar's dice, 1 die each (${tree.numInfoStates} information states): SD-CFR against tabular CFR+ — loadavg ${load0} → ${loadavg()}`, rows)
  out.push(...rows)
}
