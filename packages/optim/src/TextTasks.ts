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
import { Registry, TextEnv } from "@autodidact/envs"
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
}

/** Environment ids with a setup. */
export const envIds = ["TextHousehold-v0", "Sokoban-6x6-1box-v0", "TextFrozenLake-v1"] as const

/**
 * The setup of `envId`. `difficulty` (TextHousehold: `"easy"` or `"default"`) and `split` (TextHousehold evaluation:
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
    return {
      envId,
      makeEnv: build({ difficulty: options.difficulty ?? "default" }),
      maxSteps: options.maxSteps ?? 50,
      grid: false,
      trainTask: (rng) => ({ seed: rng.integers(EVAL_SEED_BASE), options: { split: "train" } }),
      evalTask: (k) => ({ seed: EVAL_SEED_BASE + k, options: { split } }),
      evalName: `${split} tasks`
    }
  }
  if (envId === "Sokoban-6x6-1box-v0" || envId === "TextFrozenLake-v1") {
    return {
      envId,
      makeEnv: build({}),
      maxSteps: options.maxSteps ?? 20,
      grid: true,
      trainTask: (rng) => ({ seed: rng.integers(EVAL_SEED_BASE) }),
      evalTask: (k) => ({ seed: EVAL_SEED_BASE + k }),
      evalName: `${envId === "TextFrozenLake-v1" ? "maps" : "levels"} with seeds ≥ ${EVAL_SEED_BASE}`
    }
  }
  throw new InvalidOptionError({ option: "env", value: envId, reason: `no multi-turn setup; known: ${envIds.join(", ")}` })
}
