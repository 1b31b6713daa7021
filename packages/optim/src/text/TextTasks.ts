/**
 * Task distributions of the text environments for multi-turn training and evaluation: which environment to build,
 * which seeds and splits train and evaluation tasks use, the step limit and the policy's input features. Shared by
 * `autodidact train` and `bench/multiturn.ts`, so both train and evaluate the same way.
 *
 * | env id | training tasks | evaluation tasks | step limit | grid features |
 * |---|---|---|---|---|
 * | `TextHousehold-v0` | `split: "train"`, seeds drawn from the run's Rng | `split` (default `"unseen"`), seeds 10^6 + k | 50 | no |
 * | `Sokoban-6x6-1box-v0` | generated levels, seeds < 10^6 | levels with seeds 10^6 + k | 20 | yes |
 * | `TextFrozenLake-v1` | maps with seeds < 10^6 | maps with seeds 10^6 + k | 20 | yes |
 *
 * @since 0.1.0
 */
import { InvalidOptionError, type Rng } from "@autodidact/core"
import { Registry, TextEnv, TextHouseholdWorld } from "@autodidact/envs"
import * as TaskSamplers from "../curriculum/TaskSamplers.js"
import type * as GroupRollout from "./GroupRollout.js"

/** Seeds at or above this are evaluation tasks; training draws below it. */
export const EVAL_SEED_BASE = 1_000_000

/** How to train and evaluate on one text environment. */
export interface Setup {
  readonly envId: string
  /** A fresh, unwrapped text environment (the text methods are not hidden by `make`'s wrappers). */
  readonly makeEnv: () => GroupRollout.TextEnv
  readonly maxSteps: number
  /** Whether the policy featurizes the observation as a character grid. */
  readonly grid: boolean
  readonly trainTask: (rng: Rng) => GroupRollout.Task
  readonly evalTask: (k: number) => GroupRollout.Task
  /** What the evaluation tasks are, in words. */
  readonly evalName: string
  /**
   * The training tasks as named arms (TextHousehold-v0: one per ALFWorld task family, `options.taskTypes`; the grid
   * envs: one arm, `trainTask`), for the curricula of {@link curriculumFor}.
   */
  readonly arms: ReadonlyArray<TaskSamplers.Arm>
  /**
   * The same arms with a difficulty ladder for the EnvGen curriculum (`adaptiveArms`), when the env has parameters
   * to climb; level 0 is the easiest and the top level is the distribution the evaluation draws from. TextHousehold-v0
   * (per-reset `difficulty`, {@link householdLadder}): `"default"` — an easy room (one receptacle of each needed type,
   * 3 distractors), then the default room (10-25 receptacles, 12 distractors); `"hard"` — those two, then the hard
   * house with 1 to `HARD_ROOMS` rooms. Absent (`"easy"`, the grid envs): one level per arm.
   */
  readonly ladder?: ReadonlyArray<TaskSamplers.LeveledArm> | undefined
  /**
   * Trainer settings measured for this env, applied over `MultiTurnTrainer`'s defaults by `autodidact train`, the
   * household reference app and the multi-turn benchmark: TextHousehold-v0 a learning rate of 5e-3 and 4 epochs (the
   * settings that reach its published unseen success), {@link HARD_LEARNING_RATE} instead when `"hard"`; the grid envs
   * none.
   */
  readonly trainer: { readonly learningRate?: number; readonly epochs?: number }
}

/**
 * TextHousehold-v0's levels of {@link Setup.ladder} for an evaluation `difficulty` (the per-reset options of each
 * level): `"default"` → `[{ difficulty: "easy" }, { difficulty: "default" }]`; `"hard"` → those, then `{ difficulty:
 * "hard", houseRooms: r }` for r = 1..`HARD_ROOMS`; `"easy"` → none (nothing easier to start from).
 */
export const householdLadder = (difficulty: string): ReadonlyArray<Record<string, unknown>> => {
  const rooms = [{ difficulty: "easy" }, { difficulty: "default" }]
  if (difficulty === "default") return rooms
  if (difficulty === "hard") return [...rooms, ...Array.from({ length: TextHouseholdWorld.HARD_ROOMS }, (_, r) => ({ difficulty: "hard", houseRooms: r + 1 }))]
  return []
}

/**
 * TextHousehold-v0's learning rate for the `"hard"` house (0.3× the default room's 5e-3). With `--curriculum envgen
 * --anneal-lr --zero-advantage-groups resample`, seed 1, 1M env steps, unseen success (greedy, 200 tasks) / two-object
 * tasks: 5e-3 0.66 / 0.53, 2.5e-3 0.78 / 0.605, 1.5e-3 0.78 / 0.67; approximate KL per update at most 0.34, 0.07 and
 * 0.05.
 */
export const HARD_LEARNING_RATE = 1.5e-3

/** Environment ids with a setup. */
export const envIds = ["TextHousehold-v0", "Sokoban-6x6-1box-v0", "TextFrozenLake-v1"] as const

/**
 * The setup of `envId`. `difficulty` (TextHousehold: `"easy"`, `"default"` or `"hard"`) and `split` (TextHousehold evaluation:
 * `"unseen"` (default), `"seen"` or `"train"`) apply where they mean something.
 * @throws InvalidOptionError for an env id without a setup or an unknown split.
 */
export const setupFor = (
  envId: string,
  options: { readonly difficulty?: string | undefined; readonly split?: string | undefined; readonly maxSteps?: number | undefined } = {}
): Setup => {
  const build = (kwargs: Record<string, unknown>) => () => {
    const env = Registry.make(envId, kwargs).unwrapped
    if (!TextEnv.isTextEnv(env)) throw new InvalidOptionError({ option: "env", value: envId, reason: "is not a text environment" })
    return env
  }
  if (envId === "TextHousehold-v0") {
    const split = options.split ?? "unseen"
    if (!["train", "seen", "unseen"].includes(split)) {
      throw new InvalidOptionError({ option: "split", value: split, reason: "TextHousehold-v0 has the splits train, seen and unseen" })
    }
    const difficulty = options.difficulty ?? "default"
    const family = (f: TextHouseholdWorld.TaskType, extra: Record<string, unknown>) => (rng: Rng) => ({ seed: rng.integers(EVAL_SEED_BASE), options: { split: "train", taskTypes: [f], ...extra } })
    const levels = householdLadder(difficulty)
    const ladder = levels.length === 0
      ? undefined
      : TextHouseholdWorld.TASK_TYPES.map((f) => ({ name: f, levels: levels.length, generate: (rng: Rng, level: number) => family(f, levels[level]!)(rng) }))
    return {
      envId,
      makeEnv: build({ difficulty }),
      maxSteps: options.maxSteps ?? 50,
      grid: false,
      trainTask: (rng) => ({ seed: rng.integers(EVAL_SEED_BASE), options: { split: "train" } }),
      evalTask: (k) => ({ seed: EVAL_SEED_BASE + k, options: { split } }),
      evalName: `${split} tasks`,
      arms: TextHouseholdWorld.TASK_TYPES.map((f) => ({ name: f, generate: family(f, {}) })),
      ladder,
      trainer: { learningRate: difficulty === "hard" ? HARD_LEARNING_RATE : 5e-3, epochs: 4 }
    }
  }
  if (envId === "Sokoban-6x6-1box-v0" || envId === "TextFrozenLake-v1") {
    const trainTask = (rng: Rng) => ({ seed: rng.integers(EVAL_SEED_BASE) })
    return {
      envId,
      makeEnv: build({}),
      maxSteps: options.maxSteps ?? 20,
      grid: true,
      trainTask,
      arms: [{ name: envId === "TextFrozenLake-v1" ? "maps" : "levels", generate: trainTask }],
      evalTask: (k) => ({ seed: EVAL_SEED_BASE + k }),
      evalName: `${envId === "TextFrozenLake-v1" ? "maps" : "levels"} with seeds ≥ ${EVAL_SEED_BASE}`,
      trainer: {}
    }
  }
  throw new InvalidOptionError({ option: "env", value: envId, reason: `no multi-turn setup; known: ${envIds.join(", ")}` })
}

/**
 * Success rate at which `envgen` moves an arm up its ladder (`adaptiveArms`' `promoteAbove`; its own default is
 * 0.8). On TextHousehold-v0 default difficulty (seed 1, 100 unseen tasks every 10 updates) the room ladder reached 90%
 * unseen success at 128k env steps with 0.5 and 146k with 0.8 (seeds 1–3 with 0.3: 117k / 157k / 166k, mean 147k
 * against 152k at 0.5); a 5-update cycle instead of 10 was not faster. On the
 * hard ladder (lr {@link HARD_LEARNING_RATE}, 1M env steps, seeds 1–5, greedy; before `TextAbstraction`'s next-subgoal
 * keys) 0.3 gave unseen success 0.749 and
 * two-object 0.572 on the mean against 0.745 and 0.597 at 0.5: the two-object family climbed sooner on the weak seeds
 * (3: 0.475 → 0.595) and collapsed on another (4: 0.61 → 0.31).
 */
export const ENVGEN_PROMOTE_ABOVE = 0.5

/**
 * The lowest group success rate at which `webrl` keeps a failed task for replay: WebRL keeps the generated tasks its
 * critic scores in [0.05, 0.75], so tasks nobody solves stay out (with 8 trajectories: at least one success). Measured
 * on TextHousehold-v0 (default difficulty, seeds 1–3, unseen success at 300k env steps): neither form helps there —
 * 0.54 with this bound, 0.64 without it (all-fail tasks replayed too), GiGPO alone 0.84; exact replays of half of each
 * batch trade task diversity for signal, and the unseen split pays for it.
 */
export const WEBRL_KEEP_AT_LEAST = 0.05

/** The curricula {@link curriculumFor} builds (`autodidact train --curriculum`). */
export const curricula = ["uniform", "paprika", "webrl", "scaling-inter", "dart", "envgen"] as const

/** A name of {@link curricula}. */
export type Curriculum = typeof curricula[number]

/**
 * A task sampler over `setup.arms` with the defaults `autodidact train --curriculum` uses: `uniform` (an arm
 * uniformly: TextHousehold's families equally often, unlike the untouched default that draws a task and lets it pick
 * its family), `paprika` (`TaskSamplers.learningPotential`, c = 1, window 64), `webrl` (`failureReplay` over uniform,
 * half of each batch, tasks with group success in [{@link WEBRL_KEEP_AT_LEAST}, 0.75]), `scaling-inter` (`horizonSchedule` over uniform: step limit 10, +10
 * every 20 updates, up to `setup.maxSteps`), `dart` (`difficultyGroupSize` over uniform: `groupSize / 2` to
 * `2·groupSize` trajectories), `envgen` (`adaptiveArms` over `setup.ladder` when the setup has one — TextHousehold's
 * room size, then houses (hard), starting at level 0 — else one level per arm: weights toward weak arms and
 * levels up at ≥ {@link ENVGEN_PROMOTE_ABOVE} success, down below 0.2, every 10 updates).
 * @throws InvalidOptionError for an unknown name.
 */
export const curriculumFor = (setup: Setup, name: string, groupSize: number): TaskSamplers.TaskSampler => {
  const arms = setup.arms
  const base = () => TaskSamplers.uniform(arms)
  switch (name as Curriculum) {
    case "uniform":
      return base()
    case "paprika":
      return TaskSamplers.learningPotential({ arms })
    case "webrl":
      return TaskSamplers.failureReplay({ base: base(), keepAtLeast: WEBRL_KEEP_AT_LEAST })
    case "scaling-inter":
      return TaskSamplers.horizonSchedule({ base: base(), start: Math.min(10, setup.maxSteps), step: 10, every: 20, max: setup.maxSteps })
    case "dart":
      return TaskSamplers.difficultyGroupSize({ base: base(), min: Math.max(2, Math.floor(groupSize / 2)), max: Math.max(2, 2 * groupSize) })
    case "envgen":
      return TaskSamplers.adaptiveArms({ arms: setup.ladder ?? arms.map((a) => ({ name: a.name, levels: 1, generate: (rng: Rng) => a.generate(rng) })), promoteAbove: ENVGEN_PROMOTE_ABOVE })
  }
  throw new InvalidOptionError({ option: "curriculum", value: name, reason: `must be one of ${curricula.join(", ")}` })
}
