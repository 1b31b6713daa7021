/**
 * `autodidact bench selfplay [--seeds 3] [--sections speed,kuhn,leduc,ttt,ablation] [--json]`: the self-play
 * acceptance figures of issue 25 and their baselines, measured in one run (the load average is printed with them):
 * - `speed`: self-play games per second per game (tabular policy in the loop, learning included) beside uniform-random
 *   play of the same game (ratio = self-play / random), and the seconds of one exact NashConv evaluation on Leduc
 *   beside one CFR+ iteration.
 * - `drrn`, `drrn-ttt` (not in the default sections): the DRRN text policy vs the tabular one on Kuhn at equal
 *   budgets (`--drrn-steps`; NashConv of the network and of the average of its iterates, wall times, ratio); the DRRN
 *   (greedy) vs minimax on tic-tac-toe (`--drrn-ttt-steps`, 200 games, half as first player).
 * - `kuhn`: tabular self-play (SPIRAL's RAE, MMD, average policy) per seed: NashConv at the budget and the wall time
 *   to NashConv ≤ 0.02, beside CFR+'s wall time to the same NashConv.
 * - `leduc`: the same with target 0.5, and the NashConv curve against CFR+ at equal wall time.
 * - `ttt`: tic-tac-toe per seed: the learned policy (greedy) against alpha-beta minimax over 200 games, half as first
 *   player: wins/draws/losses with Wilson intervals.
 * - `ablation`: Kuhn (NashConv) and tic-tac-toe (losses to minimax) for each estimator (spiral = RAE, grpo, mars,
 *   at-grpo), equal budgets, every seed; Kuhn under three update variants (MMD with an untried action read as the
 *   state's mean, where a baseline constant within the batch cancels; MMD with it read as the baseline; the policy
 *   gradient, where the baseline always matters).
 * Each section prints a markdown table (and `--json` rows).
 * @since 0.3.0
 */
import { type Game, GameRegistry } from "@autodidact/envs"
import { SelfPlay } from "@autodidact/optim"
import { Cfr, Exploitability, GameTree, Minimax } from "@autodidact/solvers"
import { Effect } from "effect"
import * as os from "node:os"
import type { Configs } from "../Commands.js"

/** The tuned settings per game (η, α, batch, budget in decisions, evaluated policy). */
export const settings: { readonly [game in "kuhn_poker" | "leduc_poker" | "tic_tac_toe"]: Partial<SelfPlay.Options> } = {
  kuhn_poker: { algo: "rae", learningRate: 0.1, magnet: 0.5, magnetEvery: 20, unsampled: "mean", episodesPerUpdate: 256, evalPolicy: "average" },
  leduc_poker: { algo: "rae", learningRate: 0.5, magnet: 0.05, fullStepVisits: 16, unsampled: "mean", episodesPerUpdate: 256, evalPolicy: "average" },
  tic_tac_toe: { algo: "grpo", learningRate: 0.1, magnet: 0.1, unsampled: "baseline", episodesPerUpdate: 256, evalPolicy: "average" }
} as const

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const r4 = (x: number) => Number(x.toPrecision(4))
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ")

const table = (title: string, rows: ReadonlyArray<Record<string, unknown>>, json: boolean) => {
  if (json) {
    for (const r of rows) process.stdout.write(JSON.stringify({ section: title, ...r }) + "\n")
    return
  }
  if (rows.length === 0) return
  const head = Object.keys(rows[0]!)
  const line = (cells: ReadonlyArray<unknown>) => `| ${cells.map((c) => (typeof c === "number" ? String(r4(c)) : String(c))).join(" | ")} |`
  process.stdout.write(`\n### ${title}\n\n${line(head)}\n| ${head.map(() => "---").join(" | ")} |\n${rows.map((r) => line(head.map((h) => r[h] ?? ""))).join("\n")}\n`)
}

/** The tree of `game` with a NashConv function of a policy view. */
const exact = (game: Game.Game) => {
  const tree = GameTree.compile(game)
  const ws = Exploitability.workspace(tree)
  const probs = new Float64Array(tree.numSlots)
  const nashConv = (view: SelfPlay.PolicyView) => {
    for (let i = 0; i < tree.numInfoStates; i++) {
      const legal = Array.from(tree.actions.subarray(tree.infoOffset[i]!, tree.infoOffset[i + 1]!))
      probs.set(view.actionProbabilities(tree.gameName, tree.infoPlayer[i]!, tree.infoKeys[i]!, legal), tree.infoOffset[i]!)
    }
    return Exploitability.reportOnTree(tree, probs, ws).nashConv
  }
  return { tree, ws, nashConv }
}

/** A self-play run with NashConv every `evalEvery` updates: the curve (training seconds, evaluation excluded). */
const curveRun = (game: Game.Game, options: Partial<SelfPlay.Options>) => {
  const ex = exact(game)
  const curve: Array<{ seconds: number; step: number; nashConv: number }> = []
  let evalSeconds = 0
  const r = SelfPlay.trainSync([game], { evalEvery: 20, ...options }, {
    evaluate: (view) => {
      const t0 = performance.now()
      const nc = ex.nashConv(view)
      evalSeconds += (performance.now() - t0) / 1000
      curve.push({ seconds: view.wallSeconds - evalSeconds + (performance.now() - t0) / 1000, step: view.globalStep, nashConv: nc })
      return []
    }
  })
  return { curve, session: r.session, ex }
}

/** CFR+ on `tree` for `seconds`: NashConv of the average at the given times. */
const cfrCurve = (tree: GameTree.GameTree, ws: Exploitability.Workspace, times: ReadonlyArray<number>) => {
  const solver = Cfr.make(tree, { variant: "cfr+" })
  const out: Array<number> = []
  let spent = 0
  let k = 0
  let iterations = 0
  while (k < times.length) {
    const t0 = performance.now()
    solver.step()
    iterations++
    spent += (performance.now() - t0) / 1000
    while (k < times.length && spent >= times[k]!) {
      out.push(Exploitability.reportOnTree(tree, solver.averageProbabilities(), ws).nashConv)
      k++
    }
  }
  return { out, iterations }
}

/** Seconds CFR+ needs to reach NashConv ≤ target (checked every iteration). */
const cfrTimeTo = (tree: GameTree.GameTree, ws: Exploitability.Workspace, target: number, maxIterations = 100_000) => {
  const solver = Cfr.make(tree, { variant: "cfr+" })
  let spent = 0
  for (let i = 1; i <= maxIterations; i++) {
    const t0 = performance.now()
    solver.step()
    spent += (performance.now() - t0) / 1000
    if (Exploitability.reportOnTree(tree, solver.averageProbabilities(), ws).nashConv <= target) return { seconds: spent, iterations: i }
  }
  return { seconds: NaN, iterations: maxIterations }
}

const tttMatch = (session: SelfPlay.Session, seed: number, episodes = 200) => {
  const game = session.games[0]!
  return SelfPlay.playMatch(game, SelfPlay.policyPlayer(session.policyView(), true), Minimax.player(), episodes, 10_000 + seed)
}

/** `autodidact bench selfplay` */
export const handleBenchSelfplay = (config: Configs["bench selfplay"]): Effect.Effect<void, unknown> =>
  Effect.try({
    try: () => {
      const sections = new Set(config.sections.split(",").map((s) => s.trim()))
      const seeds = Array.from({ length: config.seeds }, (_, i) => i + 1)
      const json = config.json
      const note = (s: string) => process.stderr.write(s + "\n")
      note(`bench selfplay: loadavg ${load()} (cpus ${os.cpus().length})`)
      const kuhn = GameRegistry.loadGame("kuhn_poker")
      const leduc = GameRegistry.loadGame("leduc_poker")
      const ttt = GameRegistry.loadGame("tic_tac_toe")

      if (sections.has("speed")) {
        const rows: Array<Record<string, unknown>> = []
        for (const name of ["kuhn_poker", "leduc_poker", "tic_tac_toe", "liars_dice"]) {
          const game = GameRegistry.loadGame(name)
          const selfplay: Array<number> = []
          const random: Array<number> = []
          for (let rep = 0; rep < 3; rep++) {
            const t0 = performance.now()
            const s = SelfPlay.trainSync([game], { totalSteps: 200_000, evalEvery: 0, seed: rep }).session
            selfplay.push(s.episodes / ((performance.now() - t0) / 1000))
            const t1 = performance.now()
            SelfPlay.playMatch(game, SelfPlay.randomPlayer, SelfPlay.randomPlayer, s.episodes, rep)
            random.push(s.episodes / ((performance.now() - t1) / 1000))
          }
          rows.push({ game: name, "self-play games/s (median of 3)": Math.round(median(selfplay)), "random-play games/s": Math.round(median(random)), ratio: median(selfplay) / median(random), loadavg: load() })
        }
        table("Self-play speed (tabular policy in the loop, learning included) vs uniform-random play", rows, json)
        const ex = exact(leduc)
        const s = SelfPlay.trainSync([leduc], { totalSteps: 50_000, evalEvery: 0 }).session
        const view = s.policyView()
        const evalTimes: Array<number> = []
        for (let i = 0; i < 20; i++) {
          const t0 = performance.now()
          ex.nashConv(view)
          evalTimes.push((performance.now() - t0) * 1000)
        }
        const solver = Cfr.make(ex.tree, { variant: "cfr+" })
        const iterTimes: Array<number> = []
        for (let i = 0; i < 20; i++) {
          const t0 = performance.now()
          solver.step()
          iterTimes.push((performance.now() - t0) * 1000)
        }
        table("Exact evaluation on Leduc (median of 20)", [{ "NashConv evaluation (policy → tree, 2 best responses), µs": Math.round(median(evalTimes)), "one CFR+ iteration, µs": Math.round(median(iterTimes)), ratio: median(evalTimes) / median(iterTimes), loadavg: load() }], json)
      }

      const acceptance = (game: Game.Game, target: number, steps: number, title: string) => {
        const rows: Array<Record<string, unknown>> = []
        const curves: Array<ReturnType<typeof curveRun>> = []
        for (const seed of seeds) {
          const run = curveRun(game, { ...settings[game.info.name as "kuhn_poker"], seed, totalSteps: steps })
          curves.push(run)
          const last = run.curve.at(-1)!
          const hit = run.curve.find((p) => p.nashConv <= target)
          rows.push({
            seed,
            decisions: last.step,
            "NashConv (avg policy)": last.nashConv,
            met: last.nashConv <= target ? "yes" : "no",
            "seconds to target": hit === undefined ? "not reached" : r4(hit.seconds),
            "decisions to target": hit === undefined ? "" : hit.step,
            loadavg: load()
          })
          note(`  ${game.info.name} seed ${seed}: NashConv ${last.nashConv.toFixed(4)} after ${last.step} decisions`)
        }
        const ex = curves[0]!.ex
        const cfr = cfrTimeTo(ex.tree, ex.ws, target)
        rows.push({ seed: "CFR+ (baseline)", decisions: "", "NashConv (avg policy)": target, met: "", "seconds to target": r4(cfr.seconds), "decisions to target": `${cfr.iterations} iterations`, loadavg: load() })
        table(title, rows, json)
        return curves
      }

      if (sections.has("kuhn")) acceptance(kuhn, 0.02, config.kuhnSteps, `Kuhn poker: tabular self-play (${JSON.stringify(settings.kuhn_poker)}), target NashConv ≤ 0.02`)
      if (sections.has("leduc")) {
        const curves = acceptance(leduc, 0.5, config.leducSteps, `Leduc poker: tabular self-play (${JSON.stringify(settings.leduc_poker)}), target NashConv ≤ 0.5`)
        const c = curves[0]!.curve
        const picks = [0.05, 0.1, 0.25, 0.5, 0.75, 1].map((f) => c[Math.min(c.length - 1, Math.max(0, Math.round(f * c.length) - 1))]!)
        const cfr = cfrCurve(curves[0]!.ex.tree, curves[0]!.ex.ws, picks.map((p) => p.seconds))
        table("Leduc: self-play (seed 1) vs CFR+ at equal wall time", picks.map((p, i) => ({ seconds: p.seconds, "self-play NashConv": p.nashConv, "CFR+ NashConv": cfr.out[i]!, ratio: p.nashConv / cfr.out[i]!, loadavg: load() })), json)
      }
      if (sections.has("ttt")) {
        const rows: Array<Record<string, unknown>> = []
        for (const seed of seeds) {
          const t0 = performance.now()
          const s = SelfPlay.trainSync([ttt], { ...settings.tic_tac_toe, seed, totalSteps: config.tttSteps, evalEvery: 0 }).session
          const seconds = (performance.now() - t0) / 1000
          const m = tttMatch(s, seed)
          rows.push({ seed, decisions: s.globalStep, "train s": seconds, wins: m.wins, draws: m.draws, losses: m.losses, "loss rate 95% CI": `[${m.lossCi[0].toFixed(3)}, ${m.lossCi[1].toFixed(3)}]`, "never loses": m.losses === 0 ? "yes" : "no", loadavg: load() })
          note(`  tic_tac_toe seed ${seed}: ${m.wins}/${m.draws}/${m.losses} vs minimax`)
        }
        const mm = SelfPlay.playMatch(ttt, Minimax.player(), Minimax.player(), 200, 1)
        rows.push({ seed: "minimax vs minimax (baseline)", decisions: "", "train s": "", wins: mm.wins, draws: mm.draws, losses: mm.losses, "loss rate 95% CI": `[${mm.lossCi[0].toFixed(3)}, ${mm.lossCi[1].toFixed(3)}]`, "never loses": mm.losses === 0 ? "yes" : "no", loadavg: load() })
        table(`Tic-tac-toe: learned policy (greedy; ${JSON.stringify(settings.tic_tac_toe)}) vs alpha-beta minimax (random tie-breaks), 200 games, half as first player`, rows, json)
      }
      if (sections.has("drrn")) {
        // the DRRN text policy vs the tabular policy at equal budgets and settings (Kuhn), and vs minimax (tic-tac-toe)
        const ex = exact(kuhn)
        const rows: Array<Record<string, unknown>> = []
        for (const seed of seeds) {
          const o = { ...settings.kuhn_poker, seed, totalSteps: config.drrnSteps, evalEvery: 0 }
          const t0 = performance.now()
          const tab = SelfPlay.trainSync([kuhn], o).session
          const tabSeconds = (performance.now() - t0) / 1000
          const t1 = performance.now()
          const drrn = SelfPlay.trainSync([kuhn], { ...o, policy: "drrn" }).session
          const drrnSeconds = (performance.now() - t1) / 1000
          const ncTab = ex.nashConv(tab.policyView("average"))
          const ncCur = ex.nashConv(drrn.policyView("current"))
          const ncAvg = ex.nashConv(drrn.policyView("average"))
          rows.push({
            seed,
            decisions: drrn.globalStep,
            "DRRN NashConv (network)": ncCur,
            "DRRN NashConv (avg of iterates)": ncAvg,
            "tabular NashConv (avg, baseline)": ncTab,
            "ratio (network / tabular)": ncCur / ncTab,
            "DRRN s": drrnSeconds,
            "tabular s": tabSeconds,
            "time ratio": drrnSeconds / tabSeconds,
            loadavg: load()
          })
          note(`  drrn kuhn seed ${seed}: network ${ncCur.toFixed(4)}, average ${ncAvg.toFixed(4)}, tabular ${ncTab.toFixed(4)}`)
        }
        table(`Kuhn poker: DRRN text policy vs tabular self-play, ${config.drrnSteps} decisions each (${JSON.stringify(settings.kuhn_poker)}; uniform: 0.9167)`, rows, json)
      }
      if (sections.has("drrn-ttt")) {
        const tttRows: Array<Record<string, unknown>> = []
        for (const seed of seeds) {
          const t0 = performance.now()
          const s = SelfPlay.trainSync([ttt], { ...settings.tic_tac_toe, seed, totalSteps: config.drrnTttSteps, evalEvery: 0, policy: "drrn", evalPolicy: "current" }).session
          const seconds = (performance.now() - t0) / 1000
          const m = tttMatch(s, seed)
          tttRows.push({ seed, decisions: s.globalStep, "train s": seconds, wins: m.wins, draws: m.draws, losses: m.losses, "loss rate 95% CI": `[${m.lossCi[0].toFixed(3)}, ${m.lossCi[1].toFixed(3)}]`, "never loses": m.losses === 0 ? "yes" : "no", loadavg: load() })
          note(`  drrn tic_tac_toe seed ${seed}: ${m.wins}/${m.draws}/${m.losses} vs minimax`)
        }
        table(`Tic-tac-toe: DRRN text policy (greedy network; ${JSON.stringify({ ...settings.tic_tac_toe, evalPolicy: "current" })}) vs alpha-beta minimax, 200 games, half as first player`, tttRows, json)
      }
      if (sections.has("ablation")) {
        const algos = ["rae", "grpo", "mars", "at-grpo"] as const
        const label = (a: string) => (a === "rae" ? "spiral (RAE)" : a)
        const rows: Array<Record<string, unknown>> = []
        const ex = exact(kuhn)
        const variants = [
          { label: "mmd, untried = state mean", o: { unsampled: "mean" } },
          { label: "mmd, untried = baseline", o: { unsampled: "baseline" } },
          { label: "pg (η 0.5, fixed magnet 0.02)", o: { update: "pg", learningRate: 0.5, magnet: 0.02, magnetEvery: 0 } }
        ] as const
        for (const variant of variants) {
          const update = variant.label
          for (const algo of algos) {
            const ncs = seeds.map((seed) => {
              const s = SelfPlay.trainSync([kuhn], { ...settings.kuhn_poker, ...variant.o, algo, seed, totalSteps: config.ablationSteps, evalEvery: 0 }).session
              return ex.nashConv(s.policyView())
            })
            const mean = ncs.reduce((a, b) => a + b, 0) / ncs.length
            const sd = Math.sqrt(ncs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, ncs.length - 1))
            rows.push({ game: "kuhn_poker", update, estimator: label(algo), metric: "NashConv (avg policy)", mean, sd, perSeed: ncs.map((x) => r4(x)).join(" / "), loadavg: load() })
            note(`  ablation kuhn ${update} ${algo}: ${mean.toFixed(4)}`)
          }
        }
        for (const algo of algos) {
          const losses = seeds.map((seed) => {
            const s = SelfPlay.trainSync([ttt], { ...settings.tic_tac_toe, algo, seed, totalSteps: config.ablationTttSteps, evalEvery: 0 }).session
            return tttMatch(s, seed).losses / 200
          })
          const mean = losses.reduce((a, b) => a + b, 0) / losses.length
          const sd = Math.sqrt(losses.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, losses.length - 1))
          rows.push({ game: "tic_tac_toe", update: "mmd, untried = baseline", estimator: label(algo), metric: "loss rate vs minimax (200 games)", mean, sd, perSeed: losses.map((x) => r4(x)).join(" / "), loadavg: load() })
          note(`  ablation ttt ${algo}: ${mean.toFixed(4)}`)
        }
        table(`Ablation (equal budgets: Kuhn ${config.ablationSteps} decisions, tic-tac-toe ${config.ablationTttSteps}; ${seeds.length} seeds)`, rows, json)
      }
    },
    catch: (e) => e
  })
