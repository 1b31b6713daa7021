/**
 * The demo's training worker: PPO (`@autodidact/optim`, CleanRL's defaults) on `CartPole-v1` vector envs, off the
 * page's thread so the chart stays responsive. Posts one message per update with the episodes finished since the
 * last one, then a final `done` (or `error`).
 * @since 0.0.0
 */
import { Registry } from "@autodidact/envs"
import { Ppo } from "@autodidact/optim"
import { Effect } from "effect"
import type { TrainMessage, TrainRequest } from "./protocol.js"

const scope = self as unknown as {
  onmessage: ((event: { readonly data: TrainRequest }) => void) | null
  postMessage: (message: TrainMessage) => void
}

const train = async (request: TrainRequest): Promise<void> => {
  const env = Registry.makeVec("CartPole-v1", request.numEnvs, { autoresetMode: "SameStep" })
  const episodes: Array<readonly [number, number]> = []
  try {
    const result = await Effect.runPromise(
      Ppo.train(
        env,
        { seed: request.seed, totalTimesteps: request.totalTimesteps, stopWhen: { meanReturn: request.targetReturn } },
        {
          onEpisode: (row) => episodes.push([row.globalStep, row.episodeReturn]),
          onUpdate: (row) =>
            scope.postMessage({
              kind: "update",
              globalStep: row.globalStep,
              wallSeconds: row.wallSeconds,
              policyLoss: row.policyLoss ?? Number.NaN,
              valueLoss: row.valueLoss ?? Number.NaN,
              entropy: row.entropy ?? Number.NaN,
              episodes: episodes.splice(0)
            })
        }
      )
    )
    scope.postMessage({
      kind: "done",
      stopReason: result.stopReason,
      globalStep: result.globalStep,
      meanRecentReturn: result.meanRecentReturn,
      wallSeconds: result.wallSeconds
    })
  } catch (e) {
    scope.postMessage({ kind: "error", message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) })
  } finally {
    env.close()
  }
}

scope.onmessage = (event) => void train(event.data)
