/**
 * Errors of the rollout service.
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * A rollout request that failed: a bad request (unknown environment, policy of the wrong shape), a policy version
 * that was never published, or storage that stayed unavailable. Crosses process boundaries (it is the error of the
 * cluster RPCs), so it carries the request's identity and a reason.
 * @category errors
 */
export class RolloutError extends Schema.TaggedError<RolloutError>()("RolloutError", {
  runId: Schema.String,
  /** The first episode (or group) id of the failed request. */
  id: Schema.Number,
  reason: Schema.String,
  /** Where it failed: a runner address, `"local"` or `"trainer"`. */
  where: Schema.String
}) {
  override get message() {
    return `Rollout of run ${this.runId} (id ${this.id}) failed at ${this.where}: ${this.reason}`
  }
}

/**
 * An episode arrived from a policy older than the learner allows (`learnerVersion − policyVersion > maxPolicyLag`).
 * @category errors
 */
export class PolicyLagError extends Schema.TaggedError<PolicyLagError>()("PolicyLagError", {
  episodeId: Schema.Number,
  policyVersion: Schema.Number,
  learnerVersion: Schema.Number,
  maxPolicyLag: Schema.Number
}) {
  override get message() {
    return `Episode ${this.episodeId} was collected with policy version ${this.policyVersion}; the learner is at ${this.learnerVersion} and allows a lag of at most ${this.maxPolicyLag}`
  }
}

/**
 * The cluster store could not be opened or prepared (bad URL, server down at start, migration failure).
 * @category errors
 */
export class ClusterStoreError extends Schema.TaggedError<ClusterStoreError>()("ClusterStoreError", {
  location: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Cluster store ${this.location}: ${this.reason}`
  }
}

/** The text of any thrown or failed value, for `reason` fields. */
export const reasonOf = (e: unknown): string =>
  e instanceof Error ? `${e.name === "Error" ? "" : `${e.name}: `}${e.message}` : typeof e === "object" && e !== null && "_tag" in e ? JSON.stringify(e) : String(e)
