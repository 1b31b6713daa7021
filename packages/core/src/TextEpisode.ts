/**
 * The row format of a **text episode** in a run's `trajectories/*.jsonl` (one JSON object per line): core's
 * `Trajectory` (this package) whose steps carry the observation and the action as text. Every text episode
 * is a valid core `Trajectory`, so other readers (exports, stores) need nothing new; the dashboard's episode viewer
 * (`@autodidact/dashboard`) shows such an episode as a transcript: each step's observation text, action text, reward and
 * terminated/truncated flags.
 *
 * *When to use*: a writer of text-environment episodes (e.g. `autodidact train --env TextHousehold-v0
 * --save-trajectories N` writing `trajectories/eval.jsonl`) builds each record with {@link make} (or any object of
 * this shape) and appends {@link toJsonLine}; a reader decodes with {@link decode}.
 *
 * *Details* (one line = one episode, JSON):
 * ```
 * { "envId": "TextHousehold-v0",            // required, the env id
 *   "seed": 3,                               // optional, the reset seed
 *   "task": "put a clean mug in the cabinet", // optional (core Trajectory field)
 *   "steps": [                               // required, in order; step k = the observation the action was taken on
 *     { "observation": "-= Welcome ... =-", "action": "go to countertop 1", "reward": 0, "terminated": false, "truncated": false },
 *     { "observation": "On the countertop 1, you see a mug 1.", "action": "take mug 1 from countertop 1", "reward": 1, "terminated": true, "truncated": false } ],
 *   "finalObservation": "You pick up the mug 1 ...", // optional, the text after the last step
 *   "return": 1,                             // required, undiscounted sum of the steps' rewards
 *   "length": 2,                             // required, the number of steps
 *   "success": true }                        // optional
 * ```
 * Steps may also carry core's optional `info`, `logProb`, `value`, `advantage`, `return`.
 *
 * *Gotchas*: the env id field is core's `envId` (not `env`), and `length` is required, as in every trajectory file.
 * A line whose observations or actions are not all strings is not a text episode (the viewer draws it as a grid,
 * CartPole or JSON instead).
 *
 * @example
 * import { TextEpisode } from "@autodidact/core"
 * const ep = TextEpisode.make("TextHousehold-v0", [{ observation: "You are in a kitchen.", action: "look", reward: 0, terminated: false, truncated: true }], { seed: 3 })
 * fs.appendFileSync("runs/x/trajectories/eval.jsonl", TextEpisode.toJsonLine(ep))
 * @since 0.1.0
 */
import * as Trajectory from "./Trajectory.js"
import { Schema } from "effect"

/** One step of a text episode: core's `Trajectory.Step` with `observation` and `action` as strings. */
export const TextStep = Schema.Struct({
  ...Trajectory.Step.fields,
  /** The observation text the action was taken on. */
  observation: Schema.String,
  /** The action text. */
  action: Schema.String
})
/** The type of {@link TextStep}. */
export type TextStep = typeof TextStep.Type

/** A text episode: core's `Trajectory` with {@link TextStep} steps and an optional text `finalObservation`. */
export const TextEpisode = Schema.Struct({
  ...Trajectory.Trajectory.fields,
  steps: Schema.Array(TextStep),
  finalObservation: Schema.optional(Schema.String)
})
/** The type of {@link TextEpisode}. */
export type TextEpisode = typeof TextEpisode.Type

/** Whether a parsed JSON value is a {@link TextEpisode}. */
export const is: (u: unknown) => u is TextEpisode = Schema.is(TextEpisode)

/**
 * Decode a parsed JSON line as a {@link TextEpisode}.
 * @throws Schema's error (naming the path of the first mismatch, e.g. `["steps"][2]["action"]`) for another shape.
 */
export const decode: (u: unknown) => TextEpisode = Schema.decodeUnknownSync(TextEpisode)

/**
 * A text episode from its steps (core's `Trajectory.fromSteps`): `return` is the undiscounted sum of the rewards,
 * `length` the number of steps; `extra` (seed, task, policy version, final observation, success) is copied.
 */
export const make = (
  envId: string,
  steps: ReadonlyArray<TextStep>,
  extra: { seed?: number; task?: string; policyVersion?: number; finalObservation?: string; success?: boolean } = {}
): TextEpisode => Trajectory.fromSteps(envId, steps, extra) as TextEpisode

/** One `trajectories/*.jsonl` line (JSON and a final newline) for an episode, checked against {@link TextEpisode}. */
export const toJsonLine = (episode: TextEpisode): string => JSON.stringify(Schema.encodeSync(TextEpisode)(episode)) + "\n"
