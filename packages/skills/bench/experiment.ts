/**
 * The skill-library acceptance experiment on `TextHousehold-v0`: does an agent that *learns to choose* do better with
 * discovered skills than without them, at the same budget of primitive environment steps?
 *
 * 1. Discovery ({@link Discovery.discover}): expert episodes on the `train` split are mined for n-gram macros, each
 *    verified on held-out `seen` episodes; the admitted ones become options ({@link Discovery.macroOption}: first-step
 *    variables bound to applicable instances, later ones to goal/visible types, a few groundings per macro).
 * 2. Two arms, same seeds and the same primitive-step budget: a DRRN text policy trained with a group-relative
 *    estimator (GiGPO by default) over (a) the primitive commands only and (b) primitives + discovered skills, both
 *    through {@link SkillOptions.SyncSkillOptionsEnv} (skills run in the in-process QuickJS {@link SyncSandbox}; the
 *    wrapper counts the primitive steps of each skill). The trainer counts *decisions*; training stops at the first
 *    batch boundary after the wrapper has counted `budget` primitive steps.
 * 3. Greedy evaluation on unseen tasks: success rate, decisions per episode and primitive steps per episode, plus
 *    non-learning baselines (uniform random over each action set; the env's expert for the ceiling).
 *
 * This file (in `bench/`, since it needs `@autodidact/optim`, which the library does not depend on) is the core of
 * `bench/acceptance.ts`, `bench/acceptance-learning.ts` and of `test/Acceptance*.test.ts`; it does not decide what
 * the numbers must be.
 *
 * @since 0.1.0
 */
import { Rng } from "@autodidact/core"
import type { Embedder } from "@autodidact/memory"
import { TextHousehold } from "@autodidact/envs"
import { GroupRollout, MultiTurnTrainer, TextAbstraction } from "@autodidact/optim"
import { Effect } from "effect"
import * as Discovery from "../src/Discovery.js"
import { SkillLibrary } from "../src/SkillLibrary.js"
import type * as Sandbox from "../src/Sandbox.js"
import * as SkillOptions from "../src/SkillOptions.js"
import * as SyncSandbox from "../src/SyncSandbox.js"

/** Experiment settings. */
export interface Settings {
  readonly difficulty: "easy" | "default"
  /** Training budget per run, in `budgetUnit`s. */
  readonly budget: number
  /**
   * What the budget counts: primitive env steps (default; a skill call costs its expansion's length) or decisions
   * (policy calls; a skill call costs 1 — the cost that matters for an LLM agent, where each decision is a model call).
   * The wrapper counts both; without skills the two are equal.
   */
  readonly budgetUnit?: "primitive" | "decisions"
  /** Unseen tasks of the greedy evaluation. */
  readonly evalEpisodes: number
  /** Episode limit, in primitive steps (the env's) and in decisions (the trainer's). Default 50. */
  readonly maxSteps?: number
  /** Advantage estimator. Default "gigpo". */
  readonly algo?: string
  /** Expert episodes mined / held out. Defaults 100 / 30. */
  readonly trainEpisodes?: number
  readonly heldOutEpisodes?: number
  /** Admitted macros kept as options (best first). Default 4. */
  readonly maxMacros?: number
  /** Groundings per macro and skill commands per step. Defaults 3 and 8. */
  readonly maxGroundings?: number
  readonly maxSkillActions?: number
  /**
   * Register the wrapper's `describeAction` with `TextAbstraction`, so that skill commands get the relational keys
   * of their expansion (first step and whole macro). Default true; no effect on a primitives-only arm.
   */
  readonly skillFeatures?: boolean
  /** Failed-option masking in the wrapper (`SkillOptionsConfig.maskFailedSkills`). Default false. */
  readonly maskFailedSkills?: boolean
  /** Trainer overrides (group size, tasks per batch, learning rate, ...). */
  readonly trainer?: Partial<MultiTurnTrainer.Options>
  /**
   * Learning curve: budgets (in `budgetUnit`s, ascending, below `budget`) at which the live policy is also evaluated
   * greedily on the first `checkpointEvalEpisodes` (default 100) unseen tasks, on a separate env, at the first batch
   * boundary past each — the state a run with that budget would end in (the trainer's result does not depend on its
   * budget; checked: a run's final row is the same with and without checkpoints).
   */
  readonly checkpoints?: ReadonlyArray<number>
  readonly checkpointEvalEpisodes?: number
}

/** One point of a learning curve. */
export interface CurvePoint {
  readonly budget: number
  readonly trainPrimitiveSteps: number
  readonly trainDecisions: number
  readonly successRate: number
  readonly decisions: number
}

/** One row of the results table. */
export interface Row {
  readonly agent: string
  readonly seed: number
  readonly successRate: number
  /** Mean decisions per evaluation episode (and in won episodes). */
  readonly decisions: number
  readonly decisionsWon: number
  /** Mean primitive env steps per evaluation episode. */
  readonly primitiveSteps: number
  /** Share of evaluation decisions that were skill calls. */
  readonly skillShare: number
  /** Training: primitive steps and decisions actually used, wall seconds (training + evaluation). */
  readonly trainPrimitiveSteps: number
  readonly trainDecisions: number
  readonly wallSeconds: number
  /** Learning curve at `Settings.checkpoints` (empty without). */
  readonly curve?: ReadonlyArray<CurvePoint>
}

/** What discovery produced. */
export interface Discovered {
  readonly found: ReadonlyArray<Discovery.Discovered>
  readonly options: ReadonlyArray<SkillOptions.SkillOption>
}

const EVAL_BASE = 1_000_000

/** The evaluation task k: a household task of the `unseen` split (or `split`). */
export const evalTask = (k: number, split = "unseen"): GroupRollout.Task => ({ seed: EVAL_BASE + k, options: { split, taskIndex: k } })

/** Mine, verify and admit macros into `library`; the options of the best `maxMacros` admitted ones. */
export const discoverOptions = (library: SkillLibrary, s: Settings) =>
  Effect.gen(function*() {
    const env = new TextHousehold.TextHousehold({ difficulty: s.difficulty })
    const expert = () => env.expertAction()
    const train = Array.from({ length: s.trainEpisodes ?? 100 }, (_, k) => Discovery.rollout(env, { seed: k, options: { taskIndex: k } }, expert))
    const held = Array.from({ length: s.heldOutEpisodes ?? 30 }, (_, k) => Discovery.rollout(env, { seed: k, options: { taskIndex: k, split: "seen" } }, expert))
    const found = yield* Discovery.discover(library, env, train, held, { top: 8, maxChecks: 20 })
    const admitted = found.filter((f) => f.admitted).sort((a, b) => b.savedPerEpisode - a.savedPerEpisode).slice(0, s.maxMacros ?? 4)
    const options = admitted.map((f) => Discovery.macroOption(f.name, f.steps, f.varTypes, { maxGroundings: s.maxGroundings ?? 3 }))
    return { found, options } satisfies Discovered
  })

/** A wrapped env of an arm. */
export const makeEnv = (s: Settings, library: SkillLibrary, options: ReadonlyArray<SkillOptions.SkillOption>, runner: SyncSandbox.SyncSandbox) =>
  new SkillOptions.SyncSkillOptionsEnv(
    new TextHousehold.TextHousehold({ difficulty: s.difficulty, maxSteps: s.maxSteps ?? 50 }),
    library,
    options,
    runner,
    { maxSkillActions: s.maxSkillActions ?? 8, maskFailedSkills: s.maskFailedSkills ?? false }
  )

/** Run `policy` on `episodes` evaluation tasks (one each); the table's columns. */
export const evaluate = <E>(
  env: SkillOptions.SyncSkillOptionsEnv,
  policy: GroupRollout.TextPolicy<E>,
  episodes: number,
  rng: Rng,
  greedy: boolean,
  maxSteps = 50,
  split = "unseen"
) => {
  let wins = 0
  let decisions = 0
  let decisionsWon = 0
  env.resetCounters()
  for (let k = 0; k < episodes; k++) {
    const tr = GroupRollout.episode(env, policy, evalTask(k, split), rng, { ...GroupRollout.defaults, maxSteps, greedy })
    decisions += tr.length
    if (tr.success) {
      wins++
      decisionsWon += tr.length
    }
  }
  const c = env.counters
  return {
    successRate: wins / episodes,
    decisions: decisions / episodes,
    decisionsWon: wins === 0 ? Number.NaN : decisionsWon / wins,
    primitiveSteps: c.primitiveSteps / episodes,
    skillShare: c.decisions === 0 ? 0 : c.skillDecisions / c.decisions
  }
}

/** The env's expert as a text policy (the ceiling; primitives only). */
export const expertPolicy = (env: TextHousehold.TextHousehold): GroupRollout.TextPolicy<null> => ({
  encode: () => null,
  act: (_e, input) => {
    const a = env.expertAction()
    return { action: a, index: input.admissible.indexOf(a), logProb: 0 }
  }
})

/** Train one arm for `s.budget` primitive steps (or decisions, `s.budgetUnit`), then evaluate it greedily on unseen tasks. */
export const trainArm = (
  agent: string,
  s: Settings,
  library: SkillLibrary,
  options: ReadonlyArray<SkillOptions.SkillOption>,
  runner: SyncSandbox.SyncSandbox,
  seed: number
): Effect.Effect<Row, Effect.Error<ReturnType<typeof MultiTurnTrainer.train>>> =>
  Effect.gen(function*() {
    const t0 = performance.now()
    const env = makeEnv(s, library, options, runner)
    // checkpoint evaluations run on their own env, so the training env's counters (the budget) only count training
    const checkpointEnv = makeEnv(s, library, options, runner)
    if (s.skillFeatures ?? true) {
      // a command's description depends only on its text, so either env may describe it
      const unregister = TextAbstraction.registerActionDescriber((a) => env.describeAction(a) ?? checkpointEnv.describeAction(a))
      yield* Effect.addFinalizer(() => Effect.sync(unregister))
    }
    if (s.budgetUnit !== undefined && s.budgetUnit !== "primitive" && s.budgetUnit !== "decisions") {
      return yield* Effect.die(new Error(`budgetUnit must be "primitive" or "decisions", got ${String(s.budgetUnit)}`))
    }
    const abort = new AbortController()
    let trainPrimitiveSteps = 0
    let trainDecisions = 0
    const maxSteps = s.maxSteps ?? 50
    const checkpoints = [...(s.checkpoints ?? [])].filter((b) => b < s.budget).sort((a, b) => a - b)
    const curve: Array<CurvePoint> = []
    const result = yield* MultiTurnTrainer.train([env], {
      algo: s.algo ?? "gigpo",
      seed,
      totalEnvSteps: Number.MAX_SAFE_INTEGER,
      maxSteps,
      evalEvery: 0,
      evalEpisodes: 1,
      evalGreedy: true,
      ...s.trainer,
      tasks: { train: (rng) => ({ seed: rng.integers(EVAL_BASE), options: { split: "train" } }), eval: (k) => evalTask(k) }
    }, {
      signal: abort.signal,
      onUpdate: (_row, policy) => {
        trainPrimitiveSteps = env.counters.primitiveSteps
        trainDecisions = env.counters.decisions
        const used = s.budgetUnit === "decisions" ? trainDecisions : trainPrimitiveSteps
        while (curve.length < checkpoints.length && used >= checkpoints[curve.length]!) {
          const budget = checkpoints[curve.length]!
          // the same evaluation tasks and sampling stream as the final evaluation
          const r = evaluate(checkpointEnv, MultiTurnTrainer.drrnTextPolicy(policy), s.checkpointEvalEpisodes ?? 100, Rng.make([seed, 0x5eed]), true, maxSteps)
          curve.push({ budget, trainPrimitiveSteps, trainDecisions, successRate: r.successRate, decisions: r.decisions })
        }
        if (used >= s.budget) abort.abort()
      }
    })
    const r = evaluate(env, MultiTurnTrainer.drrnTextPolicy(result.policy), s.evalEpisodes, Rng.make([seed, 0x5eed]), true, maxSteps)
    curve.push({ budget: s.budget, trainPrimitiveSteps, trainDecisions, successRate: r.successRate, decisions: r.decisions })
    return { agent, seed, ...r, trainPrimitiveSteps, trainDecisions, wallSeconds: (performance.now() - t0) / 1000, curve } satisfies Row
  }).pipe(Effect.scoped)

/** A non-learning baseline on the evaluation tasks (no training). */
export const baseline = <E>(
  agent: string,
  s: Settings,
  env: SkillOptions.SyncSkillOptionsEnv,
  policy: GroupRollout.TextPolicy<E>,
  seed: number,
  greedy = false,
  split = "unseen"
): Row => {
  const t0 = performance.now()
  const r = evaluate(env, policy, s.evalEpisodes, Rng.make([seed, 0xba5e]), greedy, s.maxSteps ?? 50, split)
  return { agent, seed, ...r, trainPrimitiveSteps: 0, trainDecisions: 0, wallSeconds: (performance.now() - t0) / 1000 }
}

/** Markdown table of rows. */
export const table = (rows: ReadonlyArray<Row>): string => {
  const f = (x: number, d = 1) => (Number.isNaN(x) ? "-" : x.toFixed(d))
  const lines = [
    "| agent | seed | success | decisions/ep (won) | primitive steps/ep | skill share | train primitive steps | train decisions | wall s |",
    "|:--|--:|--:|--:|--:|--:|--:|--:|--:|"
  ]
  for (const r of rows) {
    lines.push(
      `| ${r.agent} | ${r.seed} | ${(100 * r.successRate).toFixed(0)}% | ${f(r.decisions)} (${f(r.decisionsWon)}) | ${f(r.primitiveSteps)} | ${(100 * r.skillShare).toFixed(0)}% | ${r.trainPrimitiveSteps} | ${r.trainDecisions} | ${f(r.wallSeconds)} |`
    )
  }
  return lines.join("\n")
}

/**
 * Markdown table of the learning curves of two arms over the same seeds: per budget, each arm's mean greedy success
 * (and decisions per episode), and in how many seeds the second arm is ahead / level / behind. The last line is the
 * area under each arm's mean curve (mean success over the budgets).
 */
export const curveTable = (rows: ReadonlyArray<Row>, armA: string, armB: string): string => {
  const byArm = (agent: string) => new Map(rows.filter((r) => r.agent === agent && r.curve !== undefined).map((r) => [r.seed, r.curve!]))
  const a = byArm(armA)
  const b = byArm(armB)
  const seeds = [...a.keys()].filter((s) => b.has(s)).sort((x, y) => x - y)
  if (seeds.length === 0) return ""
  const budgets = a.get(seeds[0]!)!.map((p) => p.budget)
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`
  const lines = [
    `| budget | ${armA} success (decisions/ep) | ${armB} success (decisions/ep) | seeds ${armB} ahead / level / behind |`,
    "|--:|--:|--:|:-:|"
  ]
  let aucA = 0
  let aucB = 0
  for (let i = 0; i < budgets.length; i++) {
    const pa = seeds.map((s) => a.get(s)![i]!)
    const pb = seeds.map((s) => b.get(s)![i]!)
    const mean = (xs: ReadonlyArray<number>) => xs.reduce((u, v) => u + v, 0) / xs.length
    const sa = mean(pa.map((p) => p.successRate))
    const sb = mean(pb.map((p) => p.successRate))
    aucA += sa / budgets.length
    aucB += sb / budgets.length
    let ahead = 0
    let level = 0
    for (let k = 0; k < seeds.length; k++) {
      const d = pb[k]!.successRate - pa[k]!.successRate
      if (d > 0) ahead++
      else if (d === 0) level++
    }
    lines.push(
      `| ${budgets[i]} | ${pct(sa)} (${mean(pa.map((p) => p.decisions)).toFixed(1)}) | ${pct(sb)} (${mean(pb.map((p) => p.decisions)).toFixed(1)}) | ${ahead} / ${level} / ${seeds.length - ahead - level} |`
    )
  }
  lines.push(`| mean over budgets | ${pct(aucA)} | ${pct(aucB)} | seeds ${seeds.join(",")} |`)
  return lines.join("\n")
}

/**
 * The settings of the learning acceptance (`bench/acceptance-learning.ts`, smoke-run by `test/AcceptanceLearning.test.ts`):
 * easy tasks, at most 2 skill commands per state, the other settings at their defaults.
 */
export const learningSettings = (budget: number, evalEpisodes: number): Settings => ({ difficulty: "easy", budget, evalEpisodes, maxSkillActions: 2 })

/** What {@link learningAcceptance} found. */
export interface LearningResult {
  readonly options: ReadonlyArray<SkillOptions.SkillOption>
  readonly seeds: ReadonlyArray<SeedResult>
  readonly winsPrimitives: number
  readonly winsSkills: number
  readonly holds: boolean
}

/** One seed of {@link learningAcceptance}: both arms' rows. */
export interface SeedResult {
  readonly seed: number
  readonly primitives: Row
  readonly skills: Row
}

/**
 * Discover the options once, then train and evaluate both arms (primitives only; primitives + skills) per seed at
 * the same primitive-step budget. `holds`: with skills, a higher success rate and fewer decisions per episode in
 * every seed, and total wins above 1.5× those without (issue 6's acceptance claim; it does not decide the numbers).
 */
export const learningAcceptance = (
  settings: Settings,
  seeds: ReadonlyArray<number>
): Effect.Effect<LearningResult, unknown, Sandbox.Sandbox | Embedder.Embedder> =>
  Effect.gen(function*() {
    const library = yield* SkillLibrary.make()
    const d = yield* discoverOptions(library, settings)
    // a skill call's wall-clock limit far above its run time (milliseconds), so that the figure cannot depend on
    // machine load: a niced run at load ~20 on 2 cores with a 2 s limit gave the published primitives arm exactly
    // (33 wins) but 21 instead of 65 wins with skills, most likely skill calls timing out while the process starved
    const runner = yield* SyncSandbox.make({ timeoutMs: 60_000 })
    const out: Array<SeedResult> = []
    let winsPrimitives = 0
    let winsSkills = 0
    for (const seed of seeds) {
      const primitives = yield* trainArm("primitives", settings, library, [], runner, seed)
      const skills = yield* trainArm("skills", settings, library, d.options, runner, seed)
      out.push({ seed, primitives, skills })
      winsPrimitives += Math.round(primitives.successRate * settings.evalEpisodes)
      winsSkills += Math.round(skills.successRate * settings.evalEpisodes)
    }
    const holds = out.every((s) => s.skills.successRate > s.primitives.successRate && s.skills.decisions < s.primitives.decisions) &&
      winsSkills > 1.5 * winsPrimitives
    return { options: d.options, seeds: out, winsPrimitives, winsSkills, holds }
  })
