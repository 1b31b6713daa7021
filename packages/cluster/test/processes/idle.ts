// Opens a thread-pool rollout service, collects two episodes and never closes it: the process must still exit on
// its own (idle workers are unref'd). Prints "collected <n> live=<workers>" before returning.
import { Policy, RolloutService } from "@autodidact/cluster"
import { Rng } from "@autodidact/core"
import { ActorCritic } from "@autodidact/optim"
import { Effect, Scope, Stream } from "effect"

const scope = Effect.runSync(Scope.make())
Effect.runPromise(Effect.gen(function*() {
  const svc = yield* RolloutService.makeThreads({ workers: 2 }).pipe(Scope.provide(scope))
  const policy = yield* svc.publish("idle", 0, Policy.ofActorCritic(ActorCritic.make({ obsDim: 4, numActions: 2, rng: Rng.make(1) })))
  const episodes = yield* Stream.runCollect(svc.episodes({ runId: "idle", runSeed: 1, envId: "CartPole-v1", policy, episodeIds: [0, 1] }))
  process.stdout.write(`collected ${episodes.length} live=${svc.liveWorkers()}\n`)
})).catch((e) => {
  process.stderr.write(`${String(e)}\n`)
  process.exit(1)
})
