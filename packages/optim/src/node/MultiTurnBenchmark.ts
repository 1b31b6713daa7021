/**
 * Multi-turn training speed, optimized against unoptimized policy in one run: what `autodidact bench multiturn`
 * prints.
 *
 * **What is measured**
 * - {@link MultiTurnTrainer.train} (GiGPO by default with `autodidact train`'s household settings: groups of 8, 8 tasks
 *   per batch, learning rate 5e-3, 4 epochs × 4 minibatches) on `TextHousehold-v0` (default difficulty; training tasks from the train split, evaluation on
 *   `unseen` tasks, {@link TextTasks.setupFor}) for `steps` environment steps, with the same seed under two
 *   {@link DrrnPolicy.Implementation}s:
 *   - `baseline`: `{ kernel: "reference", encodingCache: 0, actionMemo: false }`, the per-action DRRN towers and
 *     featurization of every text at every step (the code path before the optimization);
 *   - `optimized`: the trainer's default (factored kernel, LRU encoding cache, action memo, deferred action gradient).
 * - Runs alternate (baseline, optimized, baseline, …) `repeats` times, never concurrently, so a change of machine load
 *   hits both; each row gives the training wall time (to the last update, excluding the final evaluation), env steps
 *   per second and the success rate of `evalEpisodes` sampled episodes on unseen tasks after training. The summary
 *   gives the median steps/s of each and their ratio, and whether repeats of one implementation reproduced the same
 *   run (same steps, same success: a seed reproduces a run).
 * - The two implementations compute the same function up to floating-point rounding, so their runs are alike but not
 *   bit-identical (a rounding difference may flip a sampled action); success is compared, not equated.
 * - `loadavg` (1, 5, 15 minutes) before and after.
 * @since 0.3.0
 */
import { Statistics } from "@autodidact/core"
import { Effect } from "effect"
import { cpus, loadavg } from "node:os"
import type * as DrrnPolicy from "../text/DrrnPolicy.js"
import * as MultiTurnTrainer from "../text/MultiTurnTrainer.js"
import * as TextTasks from "../text/TextTasks.js"

/** The two implementations compared. */
export const implementations: { readonly [K in "baseline" | "optimized"]: Partial<DrrnPolicy.Implementation> } = {
  baseline: { kernel: "reference", encodingCache: 0, actionMemo: false },
  optimized: {}
}

/** One training run. */
export interface RunRow {
  readonly kind: "run"
  readonly implementation: "baseline" | "optimized"
  readonly repeat: number
  readonly envSteps: number
  /** Wall seconds from the start of training to the last update (the final evaluation excluded). */
  readonly trainSeconds: number
  readonly stepsPerSecond: number
  /** Success rate of the final evaluation (sampled actions, unseen tasks). */
  readonly success: number
  readonly updates: number
}

/** Options of {@link run}. */
export interface RunOptions {
  readonly envId?: string | undefined
  readonly difficulty?: string | undefined
  readonly algo?: string | undefined
  /** Adam learning rate. Default the env's `TextTasks` setting (TextHousehold-v0: 5e-3, as `autodidact train`). */
  readonly learningRate?: number | undefined
  /** Epochs per batch. Default the env's `TextTasks` setting (TextHousehold-v0: 4). */
  readonly epochs?: number | undefined
  /** Environment steps per run. Default 30 000. */
  readonly steps?: number | undefined
  readonly seed?: number | undefined
  /** Runs of each implementation (alternating). Default 3. */
  readonly repeats?: number | undefined
  /** Evaluation episodes after each run. Default 100. */
  readonly evalEpisodes?: number | undefined
  /** Called after each row (progress). */
  readonly onRow?: ((row: RunRow) => void) | undefined
}

/** Median steps/s and success of one implementation. */
export interface Summary {
  readonly implementation: "baseline" | "optimized"
  readonly medianStepsPerSecond: number
  readonly medianTrainSeconds: number
  readonly success: ReadonlyArray<number>
  /** Every repeat took the same steps and reached the same success. */
  readonly reproduced: boolean
}

/** What {@link run} returns. */
export interface Report {
  readonly options: Required<Omit<RunOptions, "onRow">>
  readonly rows: ReadonlyArray<RunRow>
  readonly summaries: ReadonlyArray<Summary>
  /** optimized median steps/s ÷ baseline median steps/s. */
  readonly speedup: number
  readonly loadBefore: ReadonlyArray<number>
  readonly loadAfter: ReadonlyArray<number>
  readonly cpus: number
  readonly node: string
}

/**
 * Train with both implementations, alternating, `repeats` times each; see the module documentation.
 * @throws InvalidOptionError (rejected promise) for an env without a text setup or invalid trainer options.
 */
export const run = async (options: RunOptions = {}): Promise<Report> => {
  const envId = options.envId ?? "TextHousehold-v0"
  const difficulty = options.difficulty ?? "default"
  const setup = TextTasks.setupFor(envId, { difficulty })
  const o = {
    envId,
    difficulty,
    algo: options.algo ?? "gigpo",
    learningRate: options.learningRate ?? setup.trainer.learningRate ?? MultiTurnTrainer.defaults.learningRate,
    epochs: options.epochs ?? setup.trainer.epochs ?? MultiTurnTrainer.defaults.epochs,
    steps: options.steps ?? 30_000,
    seed: options.seed ?? 1,
    repeats: options.repeats ?? 3,
    evalEpisodes: options.evalEpisodes ?? 100
  }
  const loadBefore = loadavg()
  const rows: Array<RunRow> = []
  for (let repeat = 0; repeat < o.repeats; repeat++) {
    for (const implementation of ["baseline", "optimized"] as const) {
      let lastUpdate = 0
      const result = await Effect.runPromise(
        MultiTurnTrainer.train(
          [setup.makeEnv()],
          {
            algo: o.algo,
            learningRate: o.learningRate,
            epochs: o.epochs,
            seed: o.seed,
            totalEnvSteps: o.steps,
            maxSteps: setup.maxSteps,
            evalEvery: 0,
            evalEpisodes: o.evalEpisodes,
            policy: { grid: setup.grid },
            tasks: { train: setup.trainTask, eval: setup.evalTask },
            implementation: implementations[implementation]
          },
          { onUpdate: (u) => (lastUpdate = u.wallSeconds) }
        )
      )
      const row: RunRow = {
        kind: "run",
        implementation,
        repeat,
        envSteps: result.globalStep,
        trainSeconds: lastUpdate,
        stepsPerSecond: result.globalStep / lastUpdate,
        success: result.final.successRate,
        updates: result.updates
      }
      rows.push(row)
      options.onRow?.(row)
    }
  }
  const summaries = (["baseline", "optimized"] as const).map((implementation): Summary => {
    const mine = rows.filter((r) => r.implementation === implementation)
    return {
      implementation,
      medianStepsPerSecond: Statistics.median(mine.map((r) => r.stepsPerSecond)),
      medianTrainSeconds: Statistics.median(mine.map((r) => r.trainSeconds)),
      success: mine.map((r) => r.success),
      reproduced: mine.every((r) => r.envSteps === mine[0]!.envSteps && r.success === mine[0]!.success)
    }
  })
  return {
    options: o,
    rows,
    summaries,
    speedup: summaries[1]!.medianStepsPerSecond / summaries[0]!.medianStepsPerSecond,
    loadBefore,
    loadAfter: loadavg(),
    cpus: cpus().length,
    node: process.version
  }
}

/** The report as a markdown table, the baseline beside the optimized figure, with the machine load. */
export const markdown = (r: Report): string => {
  const f = (x: number, d = 0) => x.toFixed(d)
  const load = (l: ReadonlyArray<number>) => l.map((x) => x.toFixed(2)).join(" ")
  const lines = [
    `Multi-turn training speed: ${r.options.algo} (lr ${r.options.learningRate}, ${r.options.epochs} epochs) on ${r.options.envId} (difficulty ${r.options.difficulty}), seed ${r.options.seed}, ${r.options.steps} env steps per run, ${r.options.repeats} alternating repeats, success on ${r.options.evalEpisodes} unseen tasks (sampled actions)`,
    "",
    "| implementation | median env steps/s | ratio to baseline | median train s | success per repeat | same seed → same run |",
    "|:--|--:|--:|--:|:--|:--|"
  ]
  for (const s of r.summaries) {
    lines.push(
      `| ${s.implementation} | ${f(s.medianStepsPerSecond)} | ${f(s.medianStepsPerSecond / r.summaries[0]!.medianStepsPerSecond, 2)}× | ${f(s.medianTrainSeconds, 1)} | ${s.success.map((x) => x.toFixed(2)).join(", ")} | ${s.reproduced ? "yes" : "no"} |`
    )
  }
  const opt = r.summaries[1]!
  lines.push(
    "",
    `500k steps at these rates (an extrapolation: per-step cost changes as episodes shorten): baseline ${f(500_000 / r.summaries[0]!.medianStepsPerSecond / 60, 1)} min, optimized ${f(500_000 / opt.medianStepsPerSecond / 60, 1)} min.`,
    `loadavg before ${load(r.loadBefore)}, after ${load(r.loadAfter)}; ${r.cpus} CPUs; node ${r.node}.`
  )
  return lines.join("\n")
}
