/**
 * Records of the experience store: trajectories, insights, reflections and tips, one row shape for all of them.
 *
 * **Details**
 *
 * Every record has the common fields below; what differs by kind lives in `payload` (JSON):
 * - `trajectory`: an episode in the core `Trajectory` schema (Synapse-style exemplars, Zheng et al. 2024,
 *   arXiv:2306.07863). `text` is what is embedded (by default the task and a short summary).
 * - `insight`: a principle distilled from several trajectories (ExpeL, Zhao et al. 2024, arXiv:2308.10144) with a
 *   `support` count and `upvotes`/`downvotes` (ExpeL's AGREE/EDIT = up, REMOVE = down). Its *strength* is
 *   `support + upvotes - downvotes`; `consolidate` forgets insights whose strength falls to 0 or below.
 * - `reflection`: a verbal self-reflection after a failed trial (Reflexion, Shinn et al. 2023, arXiv:2303.11366);
 *   payload `{ trajectoryId?, trial? }`.
 * - `tip`: a short piece of advice, payload free-form.
 *
 * Conventions: times are epoch milliseconds; `importance` is in `[0, 1]` (Generative Agents rates 1..10: divide
 * by 10); `embedding` is a `Float32Array` whose length is the store's fixed dimension; `payload` is at most
 * {@link MaxPayloadBytes} bytes of UTF-8 JSON.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Trajectory } from "@autodidact/core"

/**
 * Largest accepted payload, in bytes of its UTF-8 JSON encoding (1 MiB). Bigger things belong in files next to the
 * store, referenced from the payload.
 *
 * @category constants
 * @since 0.1.0
 */
export const MaxPayloadBytes = 1024 * 1024

/**
 * Largest accepted `text`, in UTF-16 code units (64 Ki).
 *
 * @category constants
 * @since 0.1.0
 */
export const MaxTextLength = 65536

/** @category schemas @since 0.1.0 */
export const Kind = Schema.Literals(["trajectory", "insight", "reflection", "tip"])
/** @category models @since 0.1.0 */
export type Kind = typeof Kind.Type
/** All kinds, in a fixed order. @category constants @since 0.1.0 */
export const kinds: ReadonlyArray<Kind> = ["trajectory", "insight", "reflection", "tip"]

/** How the experience ended. @category schemas @since 0.1.0 */
export const Outcome = Schema.Literals(["success", "failure", "unknown"])
/** @category models @since 0.1.0 */
export type Outcome = typeof Outcome.Type
/** @category constants @since 0.1.0 */
export const outcomes: ReadonlyArray<Outcome> = ["success", "failure", "unknown"]

/** A `Float32Array` (embeddings). @category schemas @since 0.1.0 */
export const Embedding = Schema.instanceOf(globalThis.Float32Array<ArrayBufferLike>)

/**
 * A stored record, as `get` and `query` return it.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ExperienceRecord = Schema.Struct({
  id: Schema.String,
  kind: Kind,
  text: Schema.String,
  task: Schema.optional(Schema.String),
  env: Schema.optional(Schema.String),
  outcome: Outcome,
  return: Schema.optional(Schema.Number),
  createdAt: Schema.Number,
  lastAccessedAt: Schema.Number,
  importance: Schema.Number,
  tags: Schema.Array(Schema.String),
  support: Schema.Number,
  upvotes: Schema.Number,
  downvotes: Schema.Number,
  embedding: Embedding,
  payload: Schema.Unknown
})
/** @category models @since 0.1.0 */
export type ExperienceRecord = typeof ExperienceRecord.Type

/**
 * What `put` accepts: `kind` and `text` are required; the store fills the rest (a random id, `now` for the times,
 * `importance` 0.5, `outcome` "unknown", support 1, no votes, the embedder's vector of `text`, `payload` null).
 *
 * @category schemas
 * @since 0.1.0
 */
export const NewRecord = Schema.Struct({
  id: Schema.optional(Schema.String),
  kind: Kind,
  text: Schema.String,
  task: Schema.optional(Schema.String),
  env: Schema.optional(Schema.String),
  outcome: Schema.optional(Outcome),
  return: Schema.optional(Schema.Number),
  createdAt: Schema.optional(Schema.Number),
  lastAccessedAt: Schema.optional(Schema.Number),
  importance: Schema.optional(Schema.Number),
  tags: Schema.optional(Schema.Array(Schema.String)),
  support: Schema.optional(Schema.Number),
  upvotes: Schema.optional(Schema.Number),
  downvotes: Schema.optional(Schema.Number),
  embedding: Schema.optional(Embedding),
  payload: Schema.optional(Schema.Unknown)
})
/** @category models @since 0.1.0 */
export type NewRecord = typeof NewRecord.Type

/** Payload of a `reflection`. @category schemas @since 0.1.0 */
export const ReflectionPayload = Schema.Struct({
  trajectoryId: Schema.optional(Schema.String),
  trial: Schema.optional(Schema.Number)
})
/** @category models @since 0.1.0 */
export type ReflectionPayload = typeof ReflectionPayload.Type

/** Payload of an `insight`: the records it was distilled from. @category schemas @since 0.1.0 */
export const InsightPayload = Schema.Struct({
  sourceIds: Schema.optional(Schema.Array(Schema.String))
})
/** @category models @since 0.1.0 */
export type InsightPayload = typeof InsightPayload.Type

type Common = Omit<NewRecord, "kind" | "text" | "payload">

/**
 * A trajectory record (the episode as `@autodidact/core`'s `Trajectory`, kept as the JSON payload): `text` defaults
 * to `"<task>: <outcome>, return <R> in <L> steps"`, `outcome` from `t.success` (`"unknown"` when absent), `return`
 * and `env` from the trajectory; `extra` overrides any of them. The payload must fit `MaxPayloadBytes` when stored.
 *
 * @category constructors
 * @since 0.1.0
 */
export const trajectory = (t: Trajectory.Trajectory, extra: Common & { readonly text?: string } = {}): NewRecord => {
  const outcome: Outcome = t.success === undefined ? "unknown" : t.success ? "success" : "failure"
  const task = extra.task ?? t.task
  return {
    outcome,
    return: t.return,
    env: t.envId,
    ...(task === undefined ? {} : { task }),
    ...extra,
    kind: "trajectory",
    text: extra.text ?? `${task ?? t.envId}: ${outcome}, return ${t.return} in ${t.length} steps`,
    payload: Trajectory.toJsonValue(t)
  }
}

/**
 * An insight: a natural-language rule distilled from experience (ExpeL, Zhao et al. 2024, arXiv:2308.10144); it
 * starts with support 1 and no votes unless given, and `sourceIds` (the records it came from) go in its payload.
 *
 * @category constructors
 * @since 0.1.0
 */
export const insight = (text: string, extra: Common & { readonly sourceIds?: ReadonlyArray<string> } = {}): NewRecord => {
  const { sourceIds, ...rest } = extra
  return { ...rest, kind: "insight", text, payload: sourceIds === undefined ? {} : { sourceIds } }
}

/**
 * A self-reflection written after a trial (Reflexion, Shinn et al. 2023, arXiv:2303.11366), usually a failed one:
 * `outcome` defaults to `"failure"`; `trajectoryId` and `trial` (the attempt number) go in its payload.
 *
 * @category constructors
 * @since 0.1.0
 */
export const reflection = (text: string, extra: Common & ReflectionPayload = {}): NewRecord => {
  const { trajectoryId, trial, ...rest } = extra
  return {
    outcome: "failure",
    ...rest,
    kind: "reflection",
    text,
    payload: { ...(trajectoryId === undefined ? {} : { trajectoryId }), ...(trial === undefined ? {} : { trial }) }
  }
}

/**
 * A tip: short advice, with an optional free-form payload.
 *
 * @category constructors
 * @since 0.1.0
 */
export const tip = (text: string, extra: Common & { readonly payload?: unknown } = {}): NewRecord => ({
  ...extra,
  kind: "tip",
  text
})

/**
 * Decode the payload of a trajectory record back into the core schema.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeTrajectory = (record: ExperienceRecord): Trajectory.Trajectory =>
  Schema.decodeUnknownSync(Trajectory.Trajectory)(record.payload)

/**
 * Strength of an insight in ExpeL's sense: `support + upvotes - downvotes`.
 *
 * @category accessors
 * @since 0.1.0
 */
export const strength = (r: Pick<ExperienceRecord, "support" | "upvotes" | "downvotes">): number =>
  r.support + r.upvotes - r.downvotes
