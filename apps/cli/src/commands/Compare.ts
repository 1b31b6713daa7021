/**
 * `autodidact compare --envs TextHousehold-v0,Sokoban-6x6-1box-v0 --algos grpo,gigpo,rloo --seeds 3 --steps N
 * --out runs/cmp`: train every (env, algorithm, seed) of the grid with the multi-turn trainer (one run directory each,
 * `<out>/<env>/<algo>-s<seed>`), then write `<out>/compare.md` (final success rate per env and algorithm, mean ± std
 * over seeds) and `<out>/compare-<env>.svg` (success rate against environment steps, mean over seeds with a min-max
 * band).
 * @since 0.1.0
 */
import { AtomicFile } from "@autodidact/core/node"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Output from "../Output.js"
import { commaList as list, type Configs } from "../Commands.js"
import { textEstimators } from "../Estimators.js"
import { trainText } from "./TextTrain.js"
import { TrainConfigError } from "./Train.js"

interface Curve {
  readonly steps: ReadonlyArray<number>
  readonly success: ReadonlyArray<number>
}

const readCurve = (runDir: string): Curve => {
  const rows = fs
    .readFileSync(path.join(runDir, "metrics.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as { kind?: string; globalStep?: number; successRate?: number })
    .filter((r) => r.kind === "evaluation" && typeof r.globalStep === "number" && typeof r.successRate === "number")
  return { steps: rows.map((r) => r.globalStep!), success: rows.map((r) => r.successRate!) }
}

const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
const std = (xs: ReadonlyArray<number>) => {
  if (xs.length < 2) return 0
  const m = mean(xs)
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) * (b - m), 0) / (xs.length - 1))
}

/** Linear interpolation of a curve at `x` (clamped to its ends). */
const at = (c: Curve, x: number): number => {
  const { steps, success } = c
  if (steps.length === 0) return Number.NaN
  if (x <= steps[0]!) return success[0]!
  for (let i = 1; i < steps.length; i++) {
    if (x <= steps[i]!) {
      const t = (x - steps[i - 1]!) / (steps[i]! - steps[i - 1]!)
      return success[i - 1]! + t * (success[i]! - success[i - 1]!)
    }
  }
  return success[success.length - 1]!
}

const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]

/** An SVG line chart: success rate (0..1) against env steps, one mean line and min-max band per algorithm. */
export const svgChart = (title: string, series: ReadonlyArray<{ readonly algo: string; readonly curves: ReadonlyArray<Curve> }>): string => {
  const W = 640
  const H = 400
  const L = 60
  const R = 150
  const T = 40
  const B = 50
  const maxX = Math.max(1, ...series.flatMap((s) => s.curves.flatMap((c) => c.steps)))
  const sx = (x: number) => L + (x / maxX) * (W - L - R)
  const sy = (y: number) => T + (1 - y) * (H - T - B)
  const parts: Array<string> = []
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`)
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`)
  parts.push(`<text x="${W / 2 - R / 2}" y="22" text-anchor="middle" font-size="14">${escape(title)}</text>`)
  for (const y of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line x1="${L}" x2="${W - R}" y1="${sy(y)}" y2="${sy(y)}" stroke="#ddd"/>`)
    parts.push(`<text x="${L - 6}" y="${sy(y) + 4}" text-anchor="end">${y.toFixed(2)}</text>`)
  }
  for (let i = 0; i <= 4; i++) {
    const x = (maxX * i) / 4
    parts.push(`<text x="${sx(x)}" y="${H - B + 16}" text-anchor="middle">${Math.round(x).toLocaleString("en-US")}</text>`)
  }
  parts.push(`<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">environment steps</text>`)
  parts.push(`<text x="16" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(T + H - B) / 2})">success rate</text>`)
  series.forEach((s, k) => {
    const color = COLORS[k % COLORS.length]!
    const xs = [...new Set(s.curves.flatMap((c) => c.steps))].sort((a, b) => a - b)
    if (xs.length === 0) return
    const ys = xs.map((x) => s.curves.map((c) => at(c, x)))
    const lo = ys.map((v) => Math.min(...v))
    const hi = ys.map((v) => Math.max(...v))
    const band = xs.map((x, i) => `${sx(x)},${sy(hi[i]!)}`).concat(xs.map((x, i) => `${sx(x)},${sy(lo[i]!)}`).reverse())
    parts.push(`<polygon points="${band.join(" ")}" fill="${color}" fill-opacity="0.18" stroke="none"/>`)
    parts.push(`<polyline points="${xs.map((x, i) => `${sx(x)},${sy(mean(ys[i]!))}`).join(" ")}" fill="none" stroke="${color}" stroke-width="2"/>`)
    parts.push(`<rect x="${W - R + 12}" y="${T + 18 * k}" width="12" height="12" fill="${color}"/>`)
    parts.push(`<text x="${W - R + 30}" y="${T + 18 * k + 10}">${escape(s.algo)} (n=${s.curves.length})</text>`)
  })
  parts.push("</svg>")
  return parts.join("\n") + "\n"
}

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** `autodidact compare` */
export const handleCompare = (config: Configs["compare"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      const algos = list(config.algos)
      const known = textEstimators()
      for (const a of algos) {
        if (!known.includes(a)) return yield* new TrainConfigError({ option: "algos", value: a, reason: `not one of the advantage estimators registered in @autodidact/optim that train text envs: ${known.join(", ")}` })
      }
      if (!Number.isSafeInteger(config.seeds) || config.seeds < 1) return yield* new TrainConfigError({ option: "seeds", value: config.seeds, reason: "must be a positive integer" })
      const rows: Array<Record<string, string | number>> = []
      const md: Array<string> = [
        `# Comparison: ${config.steps.toLocaleString("en-US")} env steps per run, seeds 1..${config.seeds}, group size ${config.groupSize}`,
        "",
        "| env | algo | final success (mean ± std over seeds) | per seed |",
        "|---|---|---|---|"
      ]
      for (const env of list(config.envs)) {
        const series: Array<{ algo: string; curves: Array<Curve> }> = []
        for (const algo of algos) {
          const curves: Array<Curve> = []
          const finals: Array<number> = []
          for (let seed = 1; seed <= config.seeds; seed++) {
            const out = path.join(config.out, env, `${algo}-s${seed}`)
            const summary = yield* trainText({ env, algo, seed, totalSteps: config.steps, out, groupSize: config.groupSize, difficulty: config.difficulty, overwrite: true, json: config.json, evalEpisodes: config.evalEpisodes })
            finals.push(summary.successRate)
            curves.push(readCurve(out))
          }
          series.push({ algo, curves })
          const row = { env, algo, seeds: finals.length, meanSuccess: Number(mean(finals).toFixed(3)), stdSuccess: Number(std(finals).toFixed(3)) }
          rows.push(row)
          md.push(`| ${env} | ${algo} | ${row.meanSuccess.toFixed(3)} ± ${row.stdSuccess.toFixed(3)} | ${finals.map((f) => f.toFixed(3)).join(", ")} |`)
          if (config.json) process.stdout.write(JSON.stringify(row) + "\n")
        }
        const file = path.join(config.out, `compare-${env}.svg`)
        yield* AtomicFile.write(file, svgChart(`${env}: success rate (mean, min-max band over seeds)`, series))
        md.push("", `![${env}](compare-${env}.svg)`, "")
      }
      yield* AtomicFile.write(path.join(config.out, "compare.md"), md.join("\n") + "\n")
      if (!config.json) Output.printTable(false, `Comparison (written to ${path.join(config.out, "compare.md")})`, rows)
    })
