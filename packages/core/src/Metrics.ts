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

/** A row of `metrics.jsonl` written when an episode finishes. */
export const EpisodeRow = Schema.Struct({
  kind: Schema.Literal("episode"),
  globalStep: Schema.Int,
  episodeReturn: Schema.Number,
  episodeLength: Schema.Int,
  wallSeconds: Schema.Number
})
export type EpisodeRow = typeof EpisodeRow.Type

/** A row of `metrics.jsonl` written after each optimizer update (losses and diagnostics). */
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
