/**
 * The plain face of the learners: Promises and an async iterator, no Effect knowledge needed. Each function is a thin
 * shell over the Effect API ({@link Ppo.trainOn}, {@link Evaluate.run}) — the same implementation — and rejects with
 * the same tagged error classes the Effect API fails with (`instanceof` and `_tag` work): `InvalidOptionError` (an
 * option out of range, naming it), `UnknownEnvError` (an env id the registry does not know), `NonFiniteValueError`,
 * `GaeShapeError`, `CheckpointError`.
 *
 * @example
 * ```ts
 * import { evaluatePolicy, ppoUpdates, trainPpo } from "@autodidact/optim"
 *
 * const run = await trainPpo({ env: "CartPole-v1", totalTimesteps: 100_000, seed: 1, onUpdate: (u) => console.log(u.globalStep, u.policyLoss) })
 * console.log(run.stopReason, run.meanRecentReturn)
 * const report = await evaluatePolicy(run.agent, "CartPole-v1", { episodes: 10 })
 *
 * const updates = ppoUpdates({ env: "CartPole-v1", totalTimesteps: 50_000 })
 * for await (const u of updates) if (u.approxKl > 0.05) break // leaving the loop stops training
 * const { agent } = await updates.result
 * ```
 * @since 0.2.0
 */
import type { Metrics } from "@autodidact/core"
import type { Env, VectorEnv } from "@autodidact/envs"
import { make } from "@autodidact/envs"
import { Effect } from "effect"
import type * as ActorCritic from "./ppo/ActorCritic.js"
import * as Evaluate from "./Evaluate.js"
import * as Ppo from "./ppo/Ppo.js"

/** Options of {@link trainPpo}: the environment, the PPO options (CleanRL's defaults) and the callbacks. */
export type TrainPpoOptions = Ppo.TrainOnOptions & Ppo.Hooks & {
  /** A registry id (e.g. `"CartPole-v1"`) or a vector env created with `autoresetMode: "SameStep"`. */
  readonly env: string | VectorEnv.VectorEnv
}

/** What {@link trainPpo} resolves to: {@link Ppo.TrainResult} (trained `agent`, `state` to resume from, ...) and the last update's metrics. */
export interface TrainPpoResult extends Ppo.TrainResult {
  /** The metrics of the last update (losses, entropy, approximate KL, ...); undefined if no update ran. */
  readonly lastUpdate: Metrics.UpdateRow | undefined
}

/**
 * Train a PPO agent (Promise). Resolves when `totalTimesteps` is spent, the `stopWhen` goal is met or `signal`
 * aborts; rejects with the tagged errors of {@link Ppo.trainOn}.
 */
export const trainPpo = async (options: TrainPpoOptions): Promise<TrainPpoResult> => {
  const { env, onEpisode, onUpdate, signal, saveCheckpoint, ...rest } = options
  let lastUpdate: Metrics.UpdateRow | undefined
  const hooks: Ppo.Hooks = {
    onEpisode,
    signal,
    saveCheckpoint,
    onUpdate: (row) => {
      lastUpdate = row
      onUpdate?.(row)
    }
  }
  const result = await Effect.runPromise(Ppo.trainOn(env, rest, hooks))
  return { ...result, lastUpdate }
}

/** What {@link ppoUpdates} returns: the update rows as they come, and the run's outcome. */
export interface PpoUpdates extends AsyncIterableIterator<Metrics.UpdateRow> {
  /** The outcome of the run (as {@link trainPpo}); leaving the loop early aborts training and resolves it. */
  readonly result: Promise<TrainPpoResult>
}

/**
 * Train a PPO agent and iterate over its updates (`for await (const u of ppoUpdates(options))`). Training starts at
 * once; rows are buffered until read. Leaving the loop (`break`, `return`, a throw) aborts training
 * (`stopReason: "aborted"`); an error of the run is thrown from the loop (and rejects `result`).
 */
export const ppoUpdates = (options: TrainPpoOptions): PpoUpdates => {
  const queue: Array<Metrics.UpdateRow> = []
  let wake: (() => void) | undefined
  let finished = false
  let failure: { readonly error: unknown } | undefined
  const controller = new AbortController()
  options.signal?.addEventListener("abort", () => controller.abort(), { once: true })
  if (options.signal?.aborted === true) controller.abort()
  const result = trainPpo({
    ...options,
    signal: controller.signal,
    onUpdate: (row) => {
      options.onUpdate?.(row)
      queue.push(row)
      wake?.()
    }
  })
  const settle = (error?: { readonly error: unknown }) => {
    finished = true
    failure = error
    wake?.()
  }
  result.then(() => settle(), (error: unknown) => settle({ error }))
  const iterator: PpoUpdates = {
    result,
    async next(): Promise<IteratorResult<Metrics.UpdateRow>> {
      for (;;) {
        if (queue.length > 0) return { value: queue.shift()!, done: false }
        if (finished) {
          if (failure !== undefined) {
            const { error } = failure
            failure = undefined
            throw error
          }
          return { value: undefined, done: true }
        }
        await new Promise<void>((resolve) => (wake = resolve))
        wake = undefined
      }
    },
    async return(): Promise<IteratorResult<Metrics.UpdateRow>> {
      controller.abort()
      await result.catch(() => undefined)
      queue.length = 0
      return { value: undefined, done: true }
    },
    [Symbol.asyncIterator]() {
      return iterator
    }
  }
  return iterator
}

/**
 * Evaluate a policy for `options.episodes` episodes (Promise face of {@link Evaluate.run}): `env` is a registry id
 * or an `Env`. Rejects with `InvalidOptionError`, `NonFiniteValueError` or `UnknownEnvError`.
 */
export const evaluatePolicy = (agent: ActorCritic.ActorCritic, env: string | Env.AnyEnv, options: Evaluate.Options = {}): Promise<Evaluate.Report> =>
  Effect.runPromise(Effect.suspend(() => Evaluate.run(agent, typeof env === "string" ? make(env) : env, options)))
