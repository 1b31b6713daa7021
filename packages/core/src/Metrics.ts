/**
 * Standard metric names (CleanRL's habit): every algorithm writes the same keys to `metrics.jsonl`, so every run
 * can be plotted and compared by the same tools.
 * @since 0.1.0
 */
import { Schema } from "effect"

/** Metric keys shared by all algorithms. */
export const names = {
  globalStep: "globalStep",
  wallSeconds: "wallSeconds",
  episodeReturn: "episodeReturn",
  episodeLength: "episodeLength",
  successRate: "successRate",
  policyLoss: "policyLoss",
  valueLoss: "valueLoss",
  entropy: "entropy",
  approxKl: "approxKl",
  clipFraction: "clipFraction",
  explainedVariance: "explainedVariance",
  learningRate: "learningRate",
  nashConv: "nashConv"
} as const

/**
 * A row of `metrics.jsonl` written when an episode finishes.
 *
 * *Details*: `globalStep` counts environment steps so far (the x axis of every learning curve), `episodeReturn` is
 * the undiscounted sum of the episode's rewards, `episodeLength` its number of steps, `wallSeconds` the seconds
 * since the run started. Trainers add their own fields (a success flag, the policy version, the runner) by spreading
 * `EpisodeRow.fields` into a new `Schema.Struct`.
 * @since 0.1.0
 */
export const EpisodeRow = Schema.Struct({
  kind: Schema.Literal("episode"),
  globalStep: Schema.Int,
  episodeReturn: Schema.Number,
  episodeLength: Schema.Int,
  wallSeconds: Schema.Number
})
export type EpisodeRow = typeof EpisodeRow.Type

/**
 * A row of `metrics.jsonl` written after each optimizer update (losses and diagnostics, CleanRL's names: PPO,
 * Schulman et al. 2017, arXiv:1707.06347). The diagnostics are optional because not every learner has them (a
 * critic-free learner writes no `valueLoss`); a learner that always writes one narrows it to required in its own row.
 * @since 0.1.0
 */
export const UpdateRow = Schema.Struct({
  kind: Schema.Literal("update"),
  globalStep: Schema.Int,
  wallSeconds: Schema.Number,
  policyLoss: Schema.optional(Schema.Number),
  valueLoss: Schema.optional(Schema.Number),
  entropy: Schema.optional(Schema.Number),
  approxKl: Schema.optional(Schema.Number),
  clipFraction: Schema.optional(Schema.Number),
  explainedVariance: Schema.optional(Schema.Number),
  learningRate: Schema.optional(Schema.Number)
})
export type UpdateRow = typeof UpdateRow.Type

/** A count: an integer ≥ 0. */
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
/** A rate, mean or duration: a finite number ≥ 0. */
const NonNegative = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * A row of `metrics.jsonl` written by a distributed trainer (`@autodidact/cluster`'s `Trainer`, `train --cluster`)
 * after each update, one per runner seen so far: cumulative throughput and staleness of what that runner produced.
 *
 * *When to use*: write it from a trainer whose episodes come from several runners; read it (the dashboard's runners
 * table) with `Schema.decodeUnknown*(RunnerRow)` or field by field through `RunnerRow.fields`.
 *
 * *Details*: `runner` is the runner's address (`host:port`, or `thread-<i>` in process); `globalStep` the
 * environment steps consumed so far run-wide and `wallSeconds` the seconds since the run started, both as of the
 * update; `episodes` and `steps` are the runner's cumulative counts, `episodesPerSecond` and `stepsPerSecond` those
 * counts over the run's wall time; `meanPolicyLag` and `maxPolicyLag` the mean and largest policy-version lag of the
 * runner's episodes (learner version minus the episode's, in versions); `failures` and `storageRetries` the runner's
 * own counters as of its latest reply (requests that failed there, storage calls it retried); `sendRetries` and
 * `duplicatesDropped` are run-wide (the same on every runner row of one update): cluster sends retried (storage or
 * routing unavailable) and duplicate replies dropped so far.
 *
 * *Gotchas*: rows written before `storageRetries`, `sendRetries` and `duplicatesDropped` existed lack them; a
 * reader of old runs should treat them as 0 (the dashboard does).
 * @see effect/cluster (runners, sharding and PostgreSQL storage): https://effect.website/docs
 * @since 0.1.0
 */
export const RunnerRow = Schema.Struct({
  kind: Schema.Literal("runner"),
  runner: Schema.NonEmptyString,
  globalStep: Count,
  wallSeconds: NonNegative,
  episodes: Count,
  steps: Count,
  episodesPerSecond: NonNegative,
  stepsPerSecond: NonNegative,
  meanPolicyLag: NonNegative,
  maxPolicyLag: Count,
  failures: Count,
  storageRetries: Count,
  sendRetries: Count,
  duplicatesDropped: Count
})
export type RunnerRow = typeof RunnerRow.Type

/**
 * A row of `metrics.jsonl` with the run's throughput and the process's resources, written every few seconds by
 * every learning command (the CLI's run directory samples one after a row once `everySeconds` have passed; the
 * dashboard plots them as `system.stepsPerSecond`, `system.cpuPercent`, ...).
 *
 * *Details*: `globalStep` is the largest `globalStep` written so far and `wallSeconds` the seconds since the run
 * directory was opened; `stepsPerSecond` counts the environment steps (`globalStep` increase) since the previous
 * system row over the seconds between them; `cpuPercent` is the process's CPU time (user + system, all threads of
 * the process, so it may exceed 100 on several cores) over the same interval, in percent of one core; `rssMB` and
 * `heapUsedMB` are the resident set size and V8's used heap at sampling time, in MiB (2^20 bytes).
 * @since 0.1.0
 */
export const SystemRow = Schema.Struct({
  kind: Schema.Literal("system"),
  globalStep: Count,
  wallSeconds: NonNegative,
  stepsPerSecond: NonNegative,
  cpuPercent: NonNegative,
  rssMB: NonNegative,
  heapUsedMB: NonNegative
})
export type SystemRow = typeof SystemRow.Type

/**
 * The fields a distributed trainer adds to its `episode` and `update` rows: the policy version that produced the
 * episode (or that an update published, an integer ≥ 0) and, on episode rows, the `runner` that ran it. Spread into a
 * row's `Schema.Struct` (`{ ...EpisodeRow.fields, ...provenanceFields }`; an update row takes `policyVersion` only).
 * @since 0.1.0
 */
export const provenanceFields = {
  policyVersion: Count,
  runner: Schema.NonEmptyString
} as const
