/**
 * The worker-thread side of the thread-pool rollout layer ({@link ThreadPool}): keeps the decoded policy of every
 * hash it was sent (weights cross once per hash per worker), collects the episodes and groups it is asked for with
 * {@link Collect.collectEpisode} / {@link Collect.collectGroup}, and posts plain results back. Not part of the public
 * API; started by `ThreadPool.make`.
 * @since 0.1.0
 */
import { ActorCritic, DrrnPolicy } from "@autodidact/optim"
import { isMainThread, parentPort, workerData } from "node:worker_threads"
import * as Collect from "./Collect.js"
import { reasonOf } from "./Errors.js"
import * as Policy from "./Policy.js"
import type { ThreadReply, ThreadRequest, ThreadSetup } from "./ThreadPool.js"

const main = (setup: ThreadSetup): void => {
  const port = parentPort!
  const policies = new Map<string, { readonly kind: "actor-critic"; readonly net: ActorCritic.ActorCritic } | { readonly kind: "drrn"; readonly p: DrrnPolicy.Drrn } | { readonly kind: "error"; readonly reason: string }>()
  port.on("message", (msg: ThreadRequest) => {
    if (msg.type === "policy") {
      try {
        const w = Policy.decode(msg.bytes)
        policies.set(msg.hash, w.kind === "actor-critic" ? { kind: w.kind, net: ActorCritic.fromParams(w.sizes, w.params) } : { kind: w.kind, p: DrrnPolicy.fromParams(w.config, w.params) })
      } catch (e) {
        policies.set(msg.hash, { kind: "error", reason: reasonOf(e) })
      }
      return
    }
    const id = msg.type === "episode" ? msg.spec.episodeId : msg.spec.groupId
    if (setup.crashOn !== undefined && id === setup.crashOn) {
      // test hook: an uncaught exception in the middle of a task (the host must fail the task, never hang)
      setImmediate(() => {
        throw new Error(`rollout thread ${setup.runner}: crash requested at id ${id}`)
      })
      return
    }
    if (setup.hangOn !== undefined && id === setup.hangOn) {
      // test hook: a stuck env (the host's watchdog must terminate this thread and fail its tasks)
      for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000)
    }
    try {
      const held = policies.get(msg.spec.policy.hash)
      if (held === undefined) throw new Error(`policy ${msg.spec.policy.hash} was not sent to this worker`)
      if (held.kind === "error") throw new Error(`policy ${msg.spec.policy.hash}: ${held.reason}`)
      let value: Collect.Episode | Collect.Group
      if (msg.type === "episode") {
        if (held.kind !== "actor-critic") throw new Error(`policy ${msg.spec.policy.hash} is a ${held.kind} policy; episodes need an actor-critic`)
        value = Collect.collectEpisode(msg.spec, held.net, setup.runner)
      } else {
        if (held.kind !== "drrn") throw new Error(`policy ${msg.spec.policy.hash} is a ${held.kind} policy; text groups need a DRRN policy`)
        value = Collect.collectGroup(msg.spec, held.p, setup.runner)
      }
      port.postMessage({ type: "done", task: msg.task, value } satisfies ThreadReply)
    } catch (e) {
      port.postMessage({ type: "failed", task: msg.task, reason: reasonOf(e) } satisfies ThreadReply)
    }
  })
  // modules loaded, listening: from now on the host's watchdog counts
  port.postMessage({ type: "ready" } satisfies ThreadReply)
}

if (!isMainThread && (workerData as { kind?: unknown } | null)?.kind === "autodidact-rollout-thread") main(workerData as ThreadSetup)
