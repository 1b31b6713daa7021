/**
 * Task samplers for the multi-turn trainer ({@link MultiTurnTrainer}'s `taskSampler`): which training tasks the next
 * batch rolls out, how many trajectories each group gets, and how long an episode may run — the curricula of the
 * long-horizon agent-RL papers, each a small object that the trainer asks before a batch ({@link TaskSampler.next})
 * and tells the outcome after it ({@link TaskSampler.observe}).
 *
 * Tasks come from **arms**: named task generators (e.g. one per TextHousehold task family, `options.taskTypes`).
 *
 * | sampler | paper | what it changes |
 * |---|---|---|
 * | {@link uniform} | — (today's trainer) | an arm uniformly, then a fresh task of it |
 * | {@link learningPotential} | PAPRIKA: Tajwar et al., "Training a Generally Curious Agent", arXiv:2502.17543 (§ curriculum) | arms by UCB on their learning potential |
 * | {@link failureReplay} | WebRL: Qi et al., "WebRL: Training LLM Web Agents via Self-Evolving Online Curriculum Reinforcement Learning", arXiv:2411.02337 | part of each batch re-runs (variants of) failed tasks |
 * | {@link horizonSchedule} | ScalingInter-RL (AgentGym-RL): Xi et al., arXiv:2509.08755 | the episode step limit grows on a schedule |
 * | {@link difficultyGroupSize} | DART: Tong et al., "DART-Math: Difficulty-Aware Rejection Tuning", arXiv:2407.13690 (Prop2Diff) | more trajectories for harder arms |
 * | {@link adaptiveArms} | EnvGen: Zala et al., "EnvGen: Generating and Adapting Environments via LLMs for Training Embodied Agents", arXiv:2403.12014 | arms re-weighted toward weak skills, each arm's parameter level adapted, every cycle |
 *
 * The last three wrap a `base` sampler, so they compose (`horizonSchedule({ base: failureReplay({ base:
 * learningPotential(...) }) })`).
 *
 * **Choices the papers leave open or that differ in this setting, made here**
 * - PAPRIKA's learning potential of a task group is the coefficient of variation of its rewards, `√Var[r] / E[r]`,
 *   estimated from recent rollouts, with a UCB bandit over groups; here the reward is the 0/1 success of each
 *   trajectory over the arm's last `window` trajectories (`measure: "cv"`), or the plain Bernoulli variance
 *   `p(1 − p)` (`measure: "variance"`, the "variance of success" form). An arm with no success yet has potential 0
 *   (its coefficient of variation is undefined; group-relative advantages of an all-fail group are 0 anyway) and is
 *   still explored through the UCB bonus `c·√(ln N / n_a)` (N groups observed in all, n_a of the arm). Within one
 *   batch, each pick counts as a visit of its arm before the next pick (so a batch spreads over arms as UCB would
 *   over sequential draws); ties go to the first arm.
 * - WebRL generates new instructions from failed ones with an LLM and keeps those its critic scores in [0.05, 0.75];
 *   here a failed task (group success rate ≤ `keepAtMost`, default 0.75, and ≥ `keepAtLeast`, default 0: impossible
 *   tasks can be excluded by raising it) enters a FIFO buffer of `capacity`, and `fraction` of each batch replays
 *   buffered tasks through `variant(task, rng)` (default: the task itself, an exact replay); a replayed task leaves
 *   the buffer and re-enters only if it fails again.
 * - ScalingInter-RL grows the interaction horizon in stages; here `maxSteps(update) = min(max, start + step·⌊update /
 *   every⌋)`.
 * - EnvGen asks an LLM, every cycle, for new environment configurations aimed at the skills the agent is weakest at
 *   (measured by its per-skill success); here, without an LLM, every `every` updates each arm's sampling weight
 *   becomes `max(floor, 1 − p̂)` (p̂ its success over its last `window` trajectories, weak arms drawn more), and its
 *   level (an index into the arm's own parameter ladder: distractors, rooms, horizon, ...) moves up one when
 *   `p̂ ≥ promoteAbove` and down one when `p̂ < demoteBelow`; an arm without data keeps weight 1 and its level.
 * - DART's Prop2Diff gives each query a number of samples proportional to its difficulty (its fail rate); here an
 *   arm's group size is `round(min + (max − min)·(1 − p̂))` with p̂ its success rate over its last `window`
 *   trajectories (`prior` before any), so env steps per batch vary.
 *
 * **Errors**: constructors throw `InvalidOptionError` naming the option for an empty arm list, duplicate arm names,
 * a `fraction` outside [0, 1], non-positive or non-integer sizes, `min > max`, a negative exploration constant.
 * Samplers are plain (no Effect) and cheap: O(arms) per draw.
 * @since 0.2.0
 */
import { InvalidOptionError, type Rng } from "@autodidact/core"
import type { Task } from "../text/GroupRollout.js"

/** A named task generator: `generate(rng)` makes a fresh task of this kind (e.g. one task family). */
export interface Arm {
  readonly name: string
  readonly generate: (rng: Rng) => Task
}

/** One task of the next batch: the task, the arm it came from, and its group size when the sampler sets one. */
export interface Draw {
  readonly task: Task
  readonly arm: string
  /** Trajectories in this task's group (default: the trainer's `groupSize`). */
  readonly groupSize?: number | undefined
}

/** What one group's rollout gave: the draw and each trajectory's success. */
export interface Outcome {
  readonly draw: Draw
  readonly successes: ReadonlyArray<boolean>
}

/** A task sampler: asked for a batch before the rollout, told every group's outcome after it. */
export interface TaskSampler {
  /** The sampler's name, composed for wrappers (e.g. `"horizon(replay(paprika))"`). */
  readonly name: string
  /** `count` draws for the batch of update `update` (0-based), using `rng` for every random choice. */
  next(count: number, rng: Rng, update: number): ReadonlyArray<Draw>
  /** The outcomes of the batch just rolled out, in draw order (groups whose every trajectory failed to run are absent). */
  observe(outcomes: ReadonlyArray<Outcome>, update: number): void
  /** The episode step limit for update `update`, or undefined to keep the trainer's `maxSteps`. */
  maxSteps(update: number): number | undefined
  /** Numbers worth logging (arm success rates, buffer size, ...), keyed by name. */
  stats(): Readonly<Record<string, number>>
}

const bad = (option: string, value: unknown, reason: string) => new InvalidOptionError({ option, value, reason })

const checkArms = (where: string, arms: ReadonlyArray<{ readonly name: string }>): void => {
  if (arms.length === 0) throw bad(`${where} arms`, [], "needs at least one arm")
  const seen = new Set<string>()
  for (const a of arms) {
    if (seen.has(a.name)) throw bad(`${where} arms`, a.name, "arm names must be distinct")
    seen.add(a.name)
  }
}

const checkPositiveInt = (option: string, value: number): void => {
  if (!(Number.isSafeInteger(value) && value >= 1)) throw bad(option, value, "must be a positive integer")
}

/** Recent 0/1 successes of each arm (the last `window` trajectories), with their count and sum; an arm's ring is made on its first outcome. */
class SuccessWindows {
  private readonly rings = new Map<string, { buf: Uint8Array; next: number; size: number; sum: number; groups: number }>()
  constructor(readonly window: number) {}
  add(arm: string, successes: ReadonlyArray<boolean>): void {
    let r = this.rings.get(arm)
    if (r === undefined) this.rings.set(arm, (r = { buf: new Uint8Array(this.window), next: 0, size: 0, sum: 0, groups: 0 }))
    r.groups++
    for (const s of successes) {
      const v = s ? 1 : 0
      if (r.size === this.window) r.sum -= r.buf[r.next]!
      else r.size++
      r.buf[r.next] = v
      r.sum += v
      r.next = (r.next + 1) % this.window
    }
  }
  /** Success rate over the window, or undefined before any trajectory. */
  rate(arm: string): number | undefined {
    const r = this.rings.get(arm)
    return r === undefined || r.size === 0 ? undefined : r.sum / r.size
  }
  /** Groups observed of `arm` (all time). */
  groups(arm: string): number {
    return this.rings.get(arm)?.groups ?? 0
  }
}

const armStats = (arms: ReadonlyArray<Arm>, windows: SuccessWindows): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const a of arms) {
    const r = windows.rate(a.name)
    if (r !== undefined) out[`success/${a.name}`] = r
  }
  return out
}

/**
 * Today's sampling: each draw picks an arm uniformly at random, then a fresh task of it. With one arm, that arm's
 * generator alone (the trainer's default task source).
 * @throws InvalidOptionError for no arms or duplicate names.
 */
export const uniform = (arms: ReadonlyArray<Arm>, options: { readonly window?: number } = {}): TaskSampler => {
  checkArms("uniform", arms)
  const windows = new SuccessWindows(options.window ?? 64)
  return {
    name: "uniform",
    next: (count, rng) =>
      Array.from({ length: count }, () => {
        const arm = arms.length === 1 ? arms[0]! : arms[rng.integers(arms.length)]!
        return { task: arm.generate(rng), arm: arm.name }
      }),
    observe: (outcomes) => {
      for (const o of outcomes) windows.add(o.draw.arm, o.successes)
    },
    maxSteps: () => undefined,
    stats: () => armStats(arms, windows)
  }
}

/** Options of {@link learningPotential}. */
export interface LearningPotentialOptions {
  readonly arms: ReadonlyArray<Arm>
  /** UCB exploration constant c ≥ 0 (default 1; 0 is greedy on the potential). */
  readonly exploration?: number
  /** Trajectories per arm the potential is estimated from (default 64). */
  readonly window?: number
  /** `"cv"` (PAPRIKA's coefficient of variation, default) or `"variance"` (Bernoulli variance p(1 − p)). */
  readonly measure?: "cv" | "variance"
}

/**
 * The learning potential of an arm from its recent success rate `p`: the coefficient of variation `√(p(1 − p)) / p`
 * (`"cv"`, 0 for p = 0) or the variance `p(1 − p)`. 0 for an arm always solved, largest for arms rarely solved (cv)
 * or solved half the time (variance).
 */
export const potential = (p: number, measure: "cv" | "variance" = "cv"): number => {
  const variance = p * (1 - p)
  if (measure === "variance") return variance
  return p <= 0 ? 0 : Math.sqrt(variance) / p
}

/**
 * PAPRIKA's curriculum: arms chosen by UCB on their learning potential (see the module notes), then a fresh task of
 * the arm. Arms never observed (and not yet picked in this batch) come first, in order.
 * @throws InvalidOptionError for no arms, duplicate names, a negative or non-finite `exploration`, a bad `window`.
 */
export const learningPotential = (options: LearningPotentialOptions): TaskSampler => {
  const { arms } = options
  checkArms("learningPotential", arms)
  const c = options.exploration ?? 1
  if (!(c >= 0 && Number.isFinite(c))) throw bad("learningPotential exploration", c, "must be a non-negative finite number")
  const window = options.window ?? 64
  checkPositiveInt("learningPotential window", window)
  const measure = options.measure ?? "cv"
  if (measure !== "cv" && measure !== "variance") throw bad("learningPotential measure", measure, 'must be "cv" or "variance"')
  const windows = new SuccessWindows(window)
  let observedGroups = 0
  return {
    name: "paprika",
    next: (count, rng) => {
      const visits = arms.map((a) => windows.groups(a.name))
      const scores = arms.map((a) => potential(windows.rate(a.name) ?? 0, measure))
      let total = observedGroups
      const draws: Array<Draw> = []
      for (let k = 0; k < count; k++) {
        let best = -1
        let bestScore = -Infinity
        for (let i = 0; i < arms.length; i++) {
          if (visits[i] === 0) {
            best = i
            break
          }
          const s = scores[i]! + c * Math.sqrt(Math.log(Math.max(total, 1)) / visits[i]!)
          if (s > bestScore) {
            bestScore = s
            best = i
          }
        }
        visits[best]!++
        total++
        const arm = arms[best]!
        draws.push({ task: arm.generate(rng), arm: arm.name })
      }
      return draws
    },
    observe: (outcomes) => {
      for (const o of outcomes) {
        windows.add(o.draw.arm, o.successes)
        observedGroups++
      }
    },
    maxSteps: () => undefined,
    stats: () => {
      const out = armStats(arms, windows)
      for (const a of arms) out[`potential/${a.name}`] = potential(windows.rate(a.name) ?? 0, measure)
      return out
    }
  }
}

/** Options of {@link failureReplay}. */
export interface FailureReplayOptions {
  readonly base: TaskSampler
  /** Share of each batch drawn from the failed-task buffer when it is not empty, in [0, 1] (default 0.5). */
  readonly fraction?: number
  /** Failed tasks kept (FIFO; default 256). */
  readonly capacity?: number
  /** A group whose success rate is at most this enters the buffer (default 0.75). */
  readonly keepAtMost?: number
  /** ... and at least this (default 0; raise it to leave out tasks nobody solves). */
  readonly keepAtLeast?: number
  /** The task to re-run for a failed one (default: the same task, an exact replay). */
  readonly variant?: (task: Task, rng: Rng) => Task
}

/**
 * WebRL's failure-driven curriculum (see the module notes): `⌊fraction · count⌋` draws of each batch replay tasks
 * that failed, the rest come from `base`; replayed tasks keep their arm.
 * @throws InvalidOptionError for a `fraction` or thresholds outside [0, 1], `keepAtLeast > keepAtMost`, a bad `capacity`.
 */
export const failureReplay = (options: FailureReplayOptions): TaskSampler => {
  const { base } = options
  const fraction = options.fraction ?? 0.5
  if (!(fraction >= 0 && fraction <= 1)) throw bad("failureReplay fraction", fraction, "must be in [0, 1]")
  const capacity = options.capacity ?? 256
  checkPositiveInt("failureReplay capacity", capacity)
  const hi = options.keepAtMost ?? 0.75
  const lo = options.keepAtLeast ?? 0
  if (!(hi >= 0 && hi <= 1)) throw bad("failureReplay keepAtMost", hi, "must be in [0, 1]")
  if (!(lo >= 0 && lo <= hi)) throw bad("failureReplay keepAtLeast", lo, `must be in [0, keepAtMost = ${hi}]`)
  const variant = options.variant ?? ((task: Task) => task)
  const buffer: Array<Draw> = []
  let replayed = 0
  return {
    name: `replay(${base.name})`,
    next: (count, rng, update) => {
      const k = buffer.length === 0 ? 0 : Math.min(buffer.length, Math.floor(fraction * count))
      const draws: Array<Draw> = []
      for (let i = 0; i < k; i++) {
        const j = rng.integers(buffer.length)
        const failed = buffer[j]!
        buffer.splice(j, 1)
        draws.push({ task: variant(failed.task, rng), arm: failed.arm })
      }
      replayed += k
      return draws.concat(base.next(count - k, rng, update))
    },
    observe: (outcomes, update) => {
      for (const o of outcomes) {
        if (o.successes.length === 0) continue
        let wins = 0
        for (const s of o.successes) if (s) wins++
        const rate = wins / o.successes.length
        if (rate <= hi && rate >= lo) {
          buffer.push({ task: o.draw.task, arm: o.draw.arm })
          if (buffer.length > capacity) buffer.shift()
        }
      }
      base.observe(outcomes, update)
    },
    maxSteps: (update) => base.maxSteps(update),
    stats: () => ({ ...base.stats(), "replay/buffer": buffer.length, "replay/replayed": replayed })
  }
}

/** Options of {@link horizonSchedule}. */
export interface HorizonScheduleOptions {
  readonly base: TaskSampler
  /** Step limit at update 0 (positive integer). */
  readonly start: number
  /** Added every `every` updates (positive integer). */
  readonly step: number
  /** Updates per stage (positive integer). */
  readonly every: number
  /** Largest step limit (≥ start). */
  readonly max: number
}

/**
 * ScalingInter-RL's growing interaction horizon: `maxSteps(update) = min(max, start + step·⌊update / every⌋)`;
 * tasks come from `base`.
 * @throws InvalidOptionError for non-positive-integer `start`, `step`, `every`, `max`, or `max < start`.
 */
export const horizonSchedule = (options: HorizonScheduleOptions): TaskSampler => {
  const { base, start, step, every, max } = options
  checkPositiveInt("horizonSchedule start", start)
  checkPositiveInt("horizonSchedule step", step)
  checkPositiveInt("horizonSchedule every", every)
  checkPositiveInt("horizonSchedule max", max)
  if (max < start) throw bad("horizonSchedule max", max, `must be at least start = ${start}`)
  const limit = (update: number) => Math.min(max, start + step * Math.floor(update / every))
  return {
    name: `horizon(${base.name})`,
    next: (count, rng, update) => base.next(count, rng, update),
    observe: (outcomes, update) => base.observe(outcomes, update),
    maxSteps: limit,
    stats: () => base.stats()
  }
}

/** Options of {@link difficultyGroupSize}. */
export interface DifficultyGroupSizeOptions {
  readonly base: TaskSampler
  /** Group size of an arm always solved (positive integer). */
  readonly min: number
  /** Group size of an arm never solved (≥ min). */
  readonly max: number
  /** Success rate assumed before an arm has data, in [0, 1] (default 0.5). */
  readonly prior?: number
  /** Trajectories per arm the success rate is estimated from (default 64). */
  readonly window?: number
}

/**
 * DART's difficulty-proportional sampling (Prop2Diff) as group sizes: each draw of `base` gets
 * `round(min + (max − min)·(1 − p̂))` trajectories, p̂ its arm's recent success rate (see the module notes).
 * @throws InvalidOptionError for non-positive-integer sizes, `max < min`, a `prior` outside [0, 1].
 */
export const difficultyGroupSize = (options: DifficultyGroupSizeOptions): TaskSampler => {
  const { base, min, max } = options
  checkPositiveInt("difficultyGroupSize min", min)
  checkPositiveInt("difficultyGroupSize max", max)
  if (max < min) throw bad("difficultyGroupSize max", max, `must be at least min = ${min}`)
  const prior = options.prior ?? 0.5
  if (!(prior >= 0 && prior <= 1)) throw bad("difficultyGroupSize prior", prior, "must be in [0, 1]")
  const window = options.window ?? 64
  checkPositiveInt("difficultyGroupSize window", window)
  const windows = new SuccessWindows(window)
  const rateOf = (arm: string) => windows.rate(arm) ?? prior
  return {
    name: `dart(${base.name})`,
    next: (count, rng, update) =>
      base.next(count, rng, update).map((d) => ({ ...d, groupSize: Math.round(min + (max - min) * (1 - rateOf(d.arm))) })),
    observe: (outcomes, update) => {
      for (const o of outcomes) windows.add(o.draw.arm, o.successes)
      base.observe(outcomes, update)
    },
    maxSteps: (update) => base.maxSteps(update),
    stats: () => base.stats()
  }
}

/** An arm with a ladder of levels: `generate(rng, level)` makes a task at `level` ∈ [0, levels). */
export interface LeveledArm {
  readonly name: string
  /** Number of levels (positive integer); level 0 is the easiest. */
  readonly levels: number
  readonly generate: (rng: Rng, level: number) => Task
  /** Starting level (default 0). */
  readonly start?: number
}

/** Options of {@link adaptiveArms}. */
export interface AdaptiveArmsOptions {
  readonly arms: ReadonlyArray<LeveledArm>
  /** Updates per adaptation cycle (default 10). */
  readonly every?: number
  /** Trajectories per arm the success rate is estimated from (default 64). */
  readonly window?: number
  /** Level up at or above this success rate (default 0.8). */
  readonly promoteAbove?: number
  /** Level down below this success rate (default 0.2). */
  readonly demoteBelow?: number
  /** Smallest weight of an arm (default 0.05), so a mastered skill is still rehearsed. */
  readonly floor?: number
}

/**
 * EnvGen-style adaptation (see the module notes): draws pick an arm with probability proportional to its weight and
 * generate a task at its current level; every `every` updates the weights and levels adapt to the arms' recent
 * success rates.
 * @throws InvalidOptionError for no arms, duplicate names, non-positive-integer `levels` / `every` / `window`, a start
 *   level outside the ladder, thresholds outside [0, 1] or `demoteBelow > promoteAbove`, a `floor` outside (0, 1].
 */
export const adaptiveArms = (options: AdaptiveArmsOptions): TaskSampler => {
  const { arms } = options
  checkArms("adaptiveArms", arms)
  const every = options.every ?? 10
  checkPositiveInt("adaptiveArms every", every)
  const window = options.window ?? 64
  checkPositiveInt("adaptiveArms window", window)
  const up = options.promoteAbove ?? 0.8
  const down = options.demoteBelow ?? 0.2
  if (!(up >= 0 && up <= 1)) throw bad("adaptiveArms promoteAbove", up, "must be in [0, 1]")
  if (!(down >= 0 && down <= up)) throw bad("adaptiveArms demoteBelow", down, `must be in [0, promoteAbove = ${up}]`)
  const floor = options.floor ?? 0.05
  if (!(floor > 0 && floor <= 1)) throw bad("adaptiveArms floor", floor, "must be in (0, 1]")
  const levels = arms.map((a) => {
    checkPositiveInt(`adaptiveArms ${a.name} levels`, a.levels)
    const start = a.start ?? 0
    if (!(Number.isInteger(start) && start >= 0 && start < a.levels)) {
      throw bad(`adaptiveArms ${a.name} start`, start, `must be an integer in [0, ${a.levels})`)
    }
    return start
  })
  const weights = arms.map(() => 1)
  const windows = new SuccessWindows(window)
  let adaptedAt = 0
  const adapt = (update: number) => {
    if (update - adaptedAt < every) return
    adaptedAt = update
    arms.forEach((a, i) => {
      const p = windows.rate(a.name)
      if (p === undefined) return
      weights[i] = Math.max(floor, 1 - p)
      if (p >= up && levels[i]! < a.levels - 1) levels[i]!++
      else if (p < down && levels[i]! > 0) levels[i]!--
    })
  }
  return {
    name: "envgen",
    next: (count, rng, update) => {
      adapt(update)
      let total = 0
      for (const w of weights) total += w
      return Array.from({ length: count }, () => {
        let u = rng.random() * total
        let i = 0
        while (i < arms.length - 1 && u >= weights[i]!) u -= weights[i++]!
        const arm = arms[i]!
        return { task: arm.generate(rng, levels[i]!), arm: arm.name }
      })
    },
    observe: (outcomes) => {
      for (const o of outcomes) windows.add(o.draw.arm, o.successes)
    },
    maxSteps: () => undefined,
    stats: () => {
      const out: Record<string, number> = {}
      arms.forEach((a, i) => {
        out[`weight/${a.name}`] = weights[i]!
        out[`level/${a.name}`] = levels[i]!
        const r = windows.rate(a.name)
        if (r !== undefined) out[`success/${a.name}`] = r
      })
      return out
    }
  }
}
