/**
 * Saving and restoring an environment's full state: `snapshot()` returns an immutable value, `restore(snapshot)`
 * puts the env back exactly where it was, generator state included, so that the same actions then reproduce the same
 * future (observations, rewards, `terminated`/`truncated`, `stateKey()`, admissible actions). Tree search
 * (`@autodidact/search`) uses it to jump between nodes without re-playing an episode from its start.
 *
 * **Details**
 * - An optional capability ({@link Restorable}), implemented by `TextHousehold`, `TextSokoban`, `TextFrozenLake`,
 *   `Sokoban` and `FrozenLakeEnv`; test for it with {@link isRestorable} (or `TextEnv.isRestorableTextEnv`).
 * - A snapshot belongs to the env instance that took it: restoring it into another instance, of the same kind or
 *   not, throws {@link SnapshotMismatchError} naming both env ids. Within its instance it stays valid across resets
 *   (restoring also restores the level/task it was taken on).
 * - Snapshots are independent of later steps of the env and of each other (the state is copied on `snapshot()` and
 *   copied back on `restore`); they hold a copy of the env's generator (`Rng.clone()`).
 * - `snapshot()` before the first `reset` throws `ResetNeededError`.
 * - Wrappers made by `make` (`Checked`, `TimeLimit`) do not forward it: snapshot `env.unwrapped`.
 *
 * @see Silver et al. 2017, "Mastering Chess and Shogi by Self-Play with a General Reinforcement Learning Algorithm",
 *   arXiv:1712.01815 (search over copies of the game state, the use this serves)
 * @since 0.2.0
 */
import { Schema } from "effect"

/** An immutable saved state of one environment instance (opaque apart from `envId`). */
export interface EnvSnapshot {
  /** The id of the env that took it, e.g. `"TextHousehold-v0"`. */
  readonly envId: string
}

/** An environment whose full state can be saved and restored. */
export interface Restorable {
  /**
   * The current state as an immutable value (a copy; later steps do not change it).
   * @throws ResetNeededError before the first reset.
   */
  snapshot(): EnvSnapshot
  /**
   * Put the env back into the saved state (generator state included).
   * @throws SnapshotMismatchError when `snapshot` was not taken by this instance.
   */
  restore(snapshot: EnvSnapshot): void
}

/** Whether `env` has `snapshot()` and `restore()`. */
export const isRestorable = (env: unknown): env is Restorable =>
  typeof env === "object" && env !== null && typeof (env as Partial<Restorable>).snapshot === "function" &&
  typeof (env as Partial<Restorable>).restore === "function"

/**
 * `restore` got a snapshot that this env instance did not take (another kind of env, another instance of the same
 * kind, or not a snapshot at all).
 * @category errors
 */
export class SnapshotMismatchError extends Schema.TaggedError<SnapshotMismatchError>()("SnapshotMismatchError", {
  /** The env asked to restore. */
  envId: Schema.String,
  /** The `envId` of the snapshot (`"(not a snapshot)"` when it has none). */
  snapshotEnvId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Cannot restore a ${this.snapshotEnvId} snapshot into ${this.envId}: ${this.reason}`
  }
}

/**
 * The snapshot value the built-in envs return: the env id, the instance that took it, and the env's own payload.
 * Frozen; the payload's arrays are private copies that nothing mutates.
 * @internal
 */
export class OwnedSnapshot<P> implements EnvSnapshot {
  constructor(readonly envId: string, readonly owner: object, readonly payload: P) {
    Object.freeze(this)
  }
}

/**
 * The payload of `snapshot` when `owner` took it.
 * @throws SnapshotMismatchError otherwise, naming both env ids.
 * @internal
 */
export const ownPayload = <P>(owner: object, envId: string, snapshot: EnvSnapshot): P => {
  if (snapshot instanceof OwnedSnapshot && snapshot.owner === owner) return snapshot.payload as P
  const other = typeof (snapshot as { envId?: unknown } | null)?.envId === "string" ? snapshot.envId : "(not a snapshot)"
  const reason = !(snapshot instanceof OwnedSnapshot)
    ? "not a snapshot returned by snapshot()"
    : other === envId
    ? "taken from a different instance of the same env (a snapshot belongs to the instance that took it)"
    : "taken from a different kind of env"
  throw new SnapshotMismatchError({ envId, snapshotEnvId: other, reason })
}
