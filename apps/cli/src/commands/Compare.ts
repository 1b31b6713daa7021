/**
 * `autodidact compare`, two modes.
 *
 * - Training: `autodidact compare --envs TextHousehold-v0,Sokoban-6x6-1box-v0 --algos grpo,gigpo,rloo --seeds 3
 *   --steps N --out runs/cmp`: train every (env, algorithm, seed) of the grid with the multi-turn trainer (one run
 *   directory each, `<out>/<env>/<algo>-s<seed>`), then write `<out>/compare.md` (final success rate per env and
 *   algorithm, mean ± std over seeds) and `<out>/compare-<env>.svg` (success rate against environment steps, mean over
 *   seeds with a min-max band).
 * - Existing runs: `autodidact compare --runs DIR[,DIR...] --out OUT [--at STEPS] [--window K] [--threshold X]
 *   [--baseline LABEL] [--json]` trains nothing (the grid flags --envs, --algos, --seeds, --steps, --group-size, --eval-episodes,
 *   --difficulty are ignored). Each DIR is a run written by `autodidact train` (config.json + metrics.jsonl); runs are
 *   grouped into variants by {@link variantLabel} (the algorithm plus its non-default trainer options, e.g.
 *   `gigpo + paprika`), one run per (variant, seed). Per variant ({@link VariantRow}): the seeds; the success rate at
 *   `--at` env steps (default: the smallest `totalSteps` of the runs; each run's last evaluation at or before it, or
 *   its final evaluation when its budget ends by then; with `--window K` the mean of the K evaluations ending there),
 *   mean over seeds with a 95% Student-t interval (core
 *   `Statistics.tInterval`); per seed, the env step of the first evaluation at or above `--threshold` (default 0.9;
 *   "—" when none in the run) and their mean when every seed reached it; the paired difference of success at `--at`
 *   from the baseline variant (`--baseline`, default `gigpo` when present, else the first run's) over the seeds both
 *   have, with its t interval and the seeds ahead; and training wall seconds per 100k env steps (the last
 *   evaluation's `wallSeconds / globalStep · 100,000`, mean over seeds). Writes `OUT/compare.md` (the table, with a
 *   link to each chart) and `OUT/compare-<variant>.svg`, one chart per non-baseline variant against the baseline.
 *   A directory that is no run, a run without evaluations or whose evaluations stop before 0.9·at, two runs of one
 *   variant and seed, and an unknown `--baseline` fail with `TrainConfigError` naming the directory (or value).
 * @since 0.1.0
 */
import { AtomicFile } from "@autodidact/core/node"
import { Statistics } from "@autodidact/core"
import { TextTasks } from "@autodidact/optim"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Output from "../Output.js"
import { commaList as list, type Configs } from "../Commands.js"
import { textEstimators } from "../Estimators.js"
import { trainText } from "./TextTrain.js"
import { TrainConfigError } from "./Train.js"

/** A run's evaluation rows, in file order: env steps, success rate in [0, 1], wall seconds since the run started. */
interface Curve {
  readonly steps: ReadonlyArray<number>
  readonly success: ReadonlyArray<number>
  readonly wall: ReadonlyArray<number>
}

/**
 * The evaluation rows (`kind: "evaluation"` with a numeric `globalStep` and `successRate`) of a `metrics.jsonl` text;
 * rows without a `globalStep` (appended by `autodidact eval`) are left out. A final line without its newline (a run
 * being written) is ignored.
 * @throws Error naming the line for a line that is not JSON.
 */
const parseCurve = (text: string): Curve => {
  const lines = text.split("\n")
  if (!text.endsWith("\n")) lines.pop() // a row still being written
  const steps: Array<number> = []
  const success: Array<number> = []
  const wall: Array<number> = []
  lines.forEach((line, i) => {
    if (line.trim().length === 0) return
    let r: { kind?: unknown; globalStep?: unknown; successRate?: unknown; wallSeconds?: unknown }
    try {
      r = JSON.parse(line) as typeof r
    } catch {
      throw new Error(`metrics.jsonl line ${i + 1} is not JSON`)
    }
    if (r.kind !== "evaluation" || typeof r.globalStep !== "number" || typeof r.successRate !== "number") return
    steps.push(r.globalStep)
    success.push(r.successRate)
    wall.push(typeof r.wallSeconds === "number" ? r.wallSeconds : Number.NaN)
  })
  return { steps, success, wall }
}

const readCurve = (runDir: string): Curve => parseCurve(fs.readFileSync(path.join(runDir, "metrics.jsonl"), "utf8"))

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

/** Series colours: matplotlib's tab10, then darker shades (a colour repeats after 14 series). */
const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39"]

/** One line of {@link svgChart}: its legend label, its runs' curves, and optionally its colour (default: by position). */
export interface ChartSeries {
  readonly label: string
  readonly curves: ReadonlyArray<Curve>
  readonly color?: string | undefined
}

/**
 * An SVG line chart: success rate (0..1) against env steps, one mean line and min-max band per series (curves
 * interpolated linearly at every evaluation step of the series, clamped at their ends). `marks.x` draws a dashed
 * vertical line at that env step, `marks.y` a dashed horizontal line at that success rate.
 */
export const svgChart = (
  title: string,
  series: ReadonlyArray<ChartSeries>,
  marks: { readonly x?: number | undefined; readonly y?: number | undefined } = {}
): string => {
  const legend = series.map((s) => `${s.label} (n=${s.curves.length})`)
  const R = Math.max(150, 40 + 7 * Math.max(0, ...legend.map((l) => l.length)))
  const W = 490 + R
  const H = 400
  const L = 60
  const T = 40
  const B = 50
  const maxX = Math.max(1, ...series.flatMap((s) => s.curves.flatMap((c) => c.steps)), marks.x ?? 0)
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
  if (marks.x !== undefined) parts.push(`<line x1="${sx(marks.x)}" x2="${sx(marks.x)}" y1="${sy(0)}" y2="${sy(1)}" stroke="#888" stroke-dasharray="4 3"/>`)
  if (marks.y !== undefined) parts.push(`<line x1="${L}" x2="${W - R}" y1="${sy(marks.y)}" y2="${sy(marks.y)}" stroke="#888" stroke-dasharray="4 3"/>`)
  series.forEach((s, k) => {
    const color = s.color ?? COLORS[k % COLORS.length]!
    const xs = [...new Set(s.curves.flatMap((c) => c.steps))].sort((a, b) => a - b)
    if (xs.length === 0) return
    const ys = xs.map((x) => s.curves.map((c) => at(c, x)))
    const lo = ys.map((v) => Math.min(...v))
    const hi = ys.map((v) => Math.max(...v))
    const band = xs.map((x, i) => `${sx(x)},${sy(hi[i]!)}`).concat(xs.map((x, i) => `${sx(x)},${sy(lo[i]!)}`).reverse())
    parts.push(`<polygon points="${band.join(" ")}" fill="${color}" fill-opacity="0.18" stroke="none"/>`)
    parts.push(`<polyline points="${xs.map((x, i) => `${sx(x)},${sy(mean(ys[i]!))}`).join(" ")}" fill="none" stroke="${color}" stroke-width="2"/>`)
    parts.push(`<rect x="${W - R + 12}" y="${T + 18 * k}" width="12" height="12" fill="${color}"/>`)
    parts.push(`<text x="${W - R + 30}" y="${T + 18 * k + 10}">${escape(legend[k]!)}</text>`)
  })
  parts.push("</svg>")
  return parts.join("\n") + "\n"
}

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** `autodidact compare`: {@link compareRuns} when `--runs` is given, else train the grid. */
export const handleCompare = (config: Configs["compare"]): Effect.Effect<void, unknown> =>
  Option.match(config.runs, { onNone: () => trainGrid(config), onSome: (runs) => compareRuns({ ...config, runs }) })

const trainGrid = (config: Configs["compare"]): Effect.Effect<void, unknown> =>
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
        const series: Array<ChartSeries> = []
        for (const algo of algos) {
          const curves: Array<Curve> = []
          const finals: Array<number> = []
          for (let seed = 1; seed <= config.seeds; seed++) {
            const out = path.join(config.out, env, `${algo}-s${seed}`)
            const summary = yield* trainText({ env, algo, seed, totalSteps: config.steps, out, groupSize: config.groupSize, difficulty: config.difficulty, overwrite: true, json: config.json, evalEpisodes: config.evalEpisodes })
            finals.push(summary.successRate)
            curves.push(readCurve(out))
          }
          series.push({ label: algo, curves })
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

// ---------------------------------------------------------------------------------------------------------------
// --runs: compare existing run directories

/** What {@link variantLabel} reads of a run's `config.json`. */
type RunConfig = Record<string, unknown>

/** The trainer defaults a variant label leaves out (`autodidact train`'s). */
const DEFAULT_GROUP_SIZE = 8

const record = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {})

/**
 * The variant label of a text training run, from its `config.json`: the algorithm (`algo`), then each trainer option
 * set away from `autodidact train`'s default, joined by ` + `, in this order: the curriculum (`curriculum`, else a
 * non-uniform `multiTurn.taskSampler`), `promote=<x>` (envgen's `promoteAbove` ≠ today's
 * `TextTasks.ENVGEN_PROMOTE_ABOVE`), `zero-advantage=<skip|resample>` (`multiTurn.zeroAdvantageGroups` ≠ keep),
 * `epo` (`multiTurn.epo` set), `entropy-balanced-clip`, `anneal-lr`, `target-kl=<x>`, `lr=<x>` (`multiTurn.learningRate` ≠ the
 * learning rate `autodidact train` measures for this env and difficulty today, `TextTasks.setupFor(...).trainer`),
 * `difficulty=<d>` (≠ default), `group-size=<n>` (≠ 8). E.g. `gigpo`, `gigpo + paprika`, `gigpo +
 * zero-advantage=resample`, `spa`.
 */
export const variantLabel = (config: RunConfig): string => {
  const mt = record(config["multiTurn"])
  const parts = [String(config["algo"] ?? mt["algo"])]
  const curriculum = typeof config["curriculum"] === "string"
    ? config["curriculum"]
    : typeof mt["taskSampler"] === "string" && mt["taskSampler"] !== "uniform" ? mt["taskSampler"] : undefined
  if (curriculum !== undefined) parts.push(curriculum)
  const promote = config["promoteAbove"]
  if (typeof promote === "number" && promote !== TextTasks.ENVGEN_PROMOTE_ABOVE) parts.push(`promote=${promote}`)
  const zero = mt["zeroAdvantageGroups"]
  if (typeof zero === "string" && zero !== "keep") parts.push(`zero-advantage=${zero}`)
  if (mt["epo"] !== undefined && mt["epo"] !== false && mt["epo"] !== null) parts.push("epo")
  if (mt["entropyBalancedClip"] === true) parts.push("entropy-balanced-clip")
  if (mt["annealLr"] === true) parts.push("anneal-lr")
  if (typeof mt["targetKl"] === "number") parts.push(`target-kl=${mt["targetKl"]}`)
  const difficulty = config["difficulty"]
  const lr = mt["learningRate"]
  if (typeof lr === "number" && lr !== measuredLearningRate(config["env"], difficulty)) parts.push(`lr=${lr}`)
  if (typeof difficulty === "string" && difficulty !== "default") parts.push(`difficulty=${difficulty}`)
  const groupSize = config["groupSize"] ?? mt["groupSize"]
  if (typeof groupSize === "number" && groupSize !== DEFAULT_GROUP_SIZE) parts.push(`group-size=${groupSize}`)
  return parts.join(" + ")
}

/** The learning rate `autodidact train` uses for a text env and difficulty (`TextTasks.setupFor`), else undefined. */
const measuredLearningRate = (env: unknown, difficulty: unknown): number | undefined => {
  if (typeof env !== "string" || !(TextTasks.envIds as ReadonlyArray<string>).includes(env)) return undefined
  try {
    return TextTasks.setupFor(env, { difficulty: typeof difficulty === "string" ? difficulty : undefined }).trainer.learningRate
  } catch {
    return undefined
  }
}

/** One run directory as read by {@link compareRuns}. */
interface Run {
  readonly dir: string
  readonly env: string
  readonly label: string
  readonly seed: number
  readonly totalSteps: number
  readonly curve: Curve
}

const runError = (dir: string, reason: string) => new TrainConfigError({ option: "runs", value: dir, reason })

const readRun = (dir: string): Effect.Effect<Run, TrainConfigError> =>
  Effect.gen(function* () {
    for (const file of ["config.json", "metrics.jsonl"]) {
      if (!fs.existsSync(path.join(dir, file))) return yield* runError(dir, `not a run directory: no ${file} (one written by \`autodidact train\` is needed)`)
    }
    const config = yield* Effect.try({
      try: () => record(JSON.parse(fs.readFileSync(path.join(dir, "config.json"), "utf8"))),
      catch: (e) => runError(dir, `config.json is not readable JSON: ${e instanceof Error ? e.message : String(e)}`)
    })
    const seed = config["seed"]
    const totalSteps = config["totalSteps"]
    if (typeof config["algo"] !== "string") return yield* runError(dir, "config.json has no algo (not a training run)")
    if (typeof seed !== "number") return yield* runError(dir, "config.json has no numeric seed")
    if (typeof totalSteps !== "number" || !(totalSteps > 0)) return yield* runError(dir, "config.json has no positive totalSteps")
    const curve = yield* Effect.try({ try: () => readCurve(dir), catch: (e) => runError(dir, e instanceof Error ? e.message : String(e)) })
    if (curve.steps.length === 0) return yield* runError(dir, "metrics.jsonl has no evaluation row with a globalStep")
    return { dir, env: String(config["env"] ?? "?"), label: variantLabel(config), seed, totalSteps, curve }
  })

/** One variant's figures (a `--json` row of `compare --runs`). */
export interface VariantRow {
  readonly variant: string
  readonly runs: ReadonlyArray<string>
  readonly seeds: ReadonlyArray<number>
  /** The env step the success rates are read at (`--at`). */
  readonly at: number
  /** Per seed: the success rate of the evaluation read at `at`, and that evaluation's env step. */
  readonly successPerSeed: ReadonlyArray<number>
  readonly evalStepPerSeed: ReadonlyArray<number>
  /** Mean over seeds with the 95% Student-t interval (the point for one seed). */
  readonly success: Statistics.Interval
  readonly threshold: number
  /** Per seed: the env step of the first evaluation at or above `threshold`, null when none in the run. */
  readonly stepsToThreshold: ReadonlyArray<number | null>
  /** Mean of `stepsToThreshold` when every seed reached the threshold, else null. */
  readonly meanStepsToThreshold: number | null
  readonly baseline: string
  /** Paired over the seeds both have: this variant's success at `at` minus the baseline's (null: baseline, or no common seed). */
  readonly vsBaseline: (Statistics.Interval & { readonly seeds: number; readonly ahead: number }) | null
  /** Mean over seeds of each run's last evaluation wallSeconds / globalStep · 100,000 (null when a run has no wallSeconds). */
  readonly wallSecondsPer100k: number | null
}

/**
 * The evaluation of `run` read at env step `at`: the last with globalStep ≤ at, or the run's last when its budget ends
 * by `at`; its success is the mean over the `window` evaluations ending there (fewer when the run has fewer).
 */
const evalAt = (run: Run, at: number, window: number): Effect.Effect<{ step: number; success: number }, TrainConfigError> =>
  Effect.gen(function* () {
    const { steps, success } = run.curve
    const last = steps.length - 1
    if (steps[last]! < 0.9 * at) {
      return yield* runError(run.dir, `its evaluations stop at env step ${steps[last]}, well before --at ${at} (< 0.9·at): pass a smaller --at or leave the run out`)
    }
    let i = -1
    if (run.totalSteps <= at) i = last
    else for (let k = 0; k <= last && steps[k]! <= at; k++) i = k
    if (i < 0) return yield* runError(run.dir, `its first evaluation is at env step ${steps[0]}, after --at ${at}`)
    const from = Math.max(0, i - window + 1)
    return { step: steps[i]!, success: mean(success.slice(from, i + 1)) }
  })

const fmt = (x: number, digits = 3) => x.toFixed(digits)
const signed = (x: number, digits = 3) => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(digits)
const fmtSteps = (x: number) => Math.round(x).toLocaleString("en-US")
const interval = (i: Statistics.Interval, show: (x: number) => string = fmt) =>
  i.low === i.high ? show(i.estimate) : `${show(i.estimate)} [${show(i.low)}, ${show(i.high)}]`

/** A file-name form of a variant label: `gigpo + zero-advantage=resample` → `gigpo-zero-advantage-resample`. */
const slug = (label: string) => label.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "variant"

/** The options of {@link compareRuns}: `compare`'s flags with `--runs` given. */
export type CompareRunsOptions = Omit<Configs["compare"], "runs"> & { readonly runs: string }

/**
 * `autodidact compare --runs DIR[,DIR...] --out OUT [--at STEPS] [--threshold X] [--baseline LABEL] [--json]`:
 * compare run directories written by `autodidact train` without training. Runs are grouped by {@link variantLabel};
 * per variant: seeds, success at `--at` (mean with 95% t interval), env steps to `--threshold` per seed, the paired
 * difference from the baseline variant, and wall seconds per 100k env steps (see {@link VariantRow}). Writes
 * `OUT/compare.md` and one SVG per non-baseline variant against the baseline (`OUT/compare-<variant>.svg`).
 * Fails with {@link TrainConfigError} (`--runs`) naming the directory for a directory without config.json or
 * metrics.jsonl, one without evaluations, one whose evaluations stop before 0.9·at, or two runs of the same variant
 * and seed; and (`--baseline`) for a baseline that is no variant.
 */
export const compareRuns = (config: CompareRunsOptions): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    const dirs = list(config.runs)
    if (dirs.length === 0) return yield* new TrainConfigError({ option: "runs", value: config.runs, reason: "names no run directory" })
    const runs: Array<Run> = []
    for (const dir of dirs) runs.push(yield* readRun(dir))
    // several envs: the env is part of the variant
    const envs = [...new Set(runs.map((r) => r.env))]
    const labelOf = (r: Run) => (envs.length > 1 ? `${r.env}: ${r.label}` : r.label)
    const groups = new Map<string, Array<Run>>()
    for (const run of runs) {
      const group = groups.get(labelOf(run)) ?? []
      const twin = group.find((r) => r.seed === run.seed)
      if (twin !== undefined) {
        return yield* runError(run.dir, `same variant (${labelOf(run)}) and seed (${run.seed}) as ${twin.dir}: leave one of them out`)
      }
      group.push(run)
      groups.set(labelOf(run), group)
    }
    for (const group of groups.values()) group.sort((a, b) => a.seed - b.seed)
    const labels = [...groups.keys()]
    const baseline = Option.getOrElse(config.baseline, () => (labels.includes("gigpo") ? "gigpo" : labels[0]!))
    if (!groups.has(baseline)) {
      return yield* new TrainConfigError({ option: "baseline", value: baseline, reason: `not one of the variants: ${labels.join(", ")}` })
    }
    const ordered = [baseline, ...labels.filter((l) => l !== baseline)]
    const at = Option.getOrElse(config.at, () => Math.min(...runs.map((r) => r.totalSteps)))
    const threshold = config.threshold

    const atOf = new Map<Run, { step: number; success: number }>()
    for (const run of runs) atOf.set(run, yield* evalAt(run, at, config.window))
    const rows: Array<VariantRow> = ordered.map((label) => {
      const group = groups.get(label)!
      const successPerSeed = group.map((r) => atOf.get(r)!.success)
      const reach = group.map((r) => {
        const i = r.curve.success.findIndex((s) => s >= threshold)
        return i < 0 ? null : r.curve.steps[i]!
      })
      const reached = reach.filter((x): x is number => x !== null)
      let vsBaseline: VariantRow["vsBaseline"] = null
      if (label !== baseline) {
        const base = new Map(groups.get(baseline)!.map((r) => [r.seed, atOf.get(r)!.success]))
        const diffs = group.filter((r) => base.has(r.seed)).map((r) => atOf.get(r)!.success - base.get(r.seed)!)
        if (diffs.length > 0) vsBaseline = { ...Statistics.tInterval(diffs), seeds: diffs.length, ahead: diffs.filter((d) => d > 0).length }
      }
      const walls = group.map((r) => (r.curve.wall.at(-1)! / r.curve.steps.at(-1)!) * 1e5)
      return {
        variant: label,
        runs: group.map((r) => r.dir),
        seeds: group.map((r) => r.seed),
        at,
        successPerSeed,
        evalStepPerSeed: group.map((r) => atOf.get(r)!.step),
        success: Statistics.tInterval(successPerSeed),
        threshold,
        stepsToThreshold: reach,
        meanStepsToThreshold: reached.length === reach.length ? mean(reached) : null,
        baseline,
        vsBaseline,
        wallSecondsPer100k: walls.every((w) => Number.isFinite(w)) ? mean(walls) : null
      }
    })

    const tableRows = rows.map((r) => ({
      variant: r.variant,
      seeds: r.seeds.join(","),
      [`success at ${fmtSteps(at)} (95% t)`]: interval(r.success),
      "per seed": r.successPerSeed.map((x) => fmt(x, 2)).join(", "),
      [`steps to ${threshold} (per seed)`]: r.stepsToThreshold.map((x) => (x === null ? "—" : fmtSteps(x))).join(", "),
      [`mean steps to ${threshold}`]: r.meanStepsToThreshold === null ? "—" : fmtSteps(r.meanStepsToThreshold),
      [`Δ vs ${baseline} (paired, 95% t)`]: r.vsBaseline === null ? "—" : interval(r.vsBaseline, signed),
      ahead: r.vsBaseline === null ? "—" : `${r.vsBaseline.ahead}/${r.vsBaseline.seeds}`,
      "wall s / 100k steps": r.wallSecondsPer100k === null ? "—" : r.wallSecondsPer100k.toFixed(1)
    }))
    const head = Object.keys(tableRows[0]!)
    const md: Array<string> = [
      `# Comparison of ${runs.length} runs (${rows.length} variants${envs.length === 1 ? `, ${envs[0]}` : ""}) at ${fmtSteps(at)} env steps`,
      "",
      `Success at ${fmtSteps(at)}: each run's last evaluation at ≤ ${fmtSteps(at)} env steps (a run whose budget ends by then: its final evaluation)${config.window > 1 ? `, averaged with the ${config.window - 1} before it` : ""}, mean over seeds with a 95% Student-t interval. ` +
        `Steps to ${threshold}: the env step of each seed's first evaluation with success ≥ ${threshold} (— : none in the run); the mean only when every seed reached it. ` +
        `Δ: paired by seed against ${baseline}; ahead: seeds where the variant is higher. Wall: last evaluation's wall seconds / env steps · 100,000.`,
      "",
      `| ${head.join(" | ")} |`,
      `|${head.map(() => "---").join("|")}|`,
      ...tableRows.map((row) => `| ${head.map((k) => String(row[k as keyof typeof row])).join(" | ")} |`),
      "",
      "## Success rate against environment steps (mean over seeds, min-max band)",
      ""
    ]
    const colorOf = new Map(ordered.map((l, k) => [l, COLORS[k % COLORS.length]!]))
    const series = (label: string): ChartSeries => ({ label, curves: groups.get(label)!.map((r) => r.curve), color: colorOf.get(label) })
    const charts = ordered.length === 1 ? [[baseline]] : ordered.slice(1).map((l) => [baseline, l])
    const used = new Set<string>()
    for (const chart of charts) {
      const label = chart.at(-1)!
      let name = `compare-${slug(label)}.svg`
      for (let k = 2; used.has(name); k++) name = `compare-${slug(label)}-${k}.svg`
      used.add(name)
      const title = chart.length === 1 ? label : `${label} vs ${baseline}`
      yield* AtomicFile.write(path.join(config.out, name), svgChart(`${title}: success rate`, chart.map(series), { x: at, y: threshold }))
      md.push(`### ${escape(title)}`, "", `![${escape(title)}](${name})`, "")
    }
    yield* AtomicFile.write(path.join(config.out, "compare.md"), md.join("\n"))
    if (config.json) for (const row of rows) process.stdout.write(JSON.stringify(row) + "\n")
    else Output.printTable(false, `Comparison at ${fmtSteps(at)} env steps (written to ${path.join(config.out, "compare.md")})`, tableRows)
  })
