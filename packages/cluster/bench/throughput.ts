/**
 * Rollout throughput: environment steps/s for CartPole-v1 (episodes) and TextHousehold-v0 (groups of 4) collected
 * in-process (sequential, `layerInProcess`), by the worker-thread pool (`layerThreads`, the default layer; 1 and 2
 * workers, the "runners" column) and by 1, 2 and 4 runner processes of the cluster layer, plus the per-episode
 * overhead the cluster adds (cluster seconds per episode with 1 runner − in-process seconds per episode).
 *
 *   npx tsx --conditions=@autodidact/source packages/cluster/bench/throughput.ts [--episodes 400] [--groups 40] [--no-cluster]
 *
 * `--no-cluster`: only the in-process and thread-pool rows (no PostgreSQL needed).
 *
 * Uses AUTODIDACT_PG_URL when set, otherwise starts a private PostgreSQL (tools/postgres-test-server.sh). Policies
 * are freshly initialized (CartPole episodes of ~20 steps: the worst case for overhead per step).
 */
import { RolloutService, Policy } from "@autodidact/cluster"
import { Rng } from "@autodidact/core"
import { ActorCritic, DrrnPolicy } from "@autodidact/optim"
import { Effect, Layer, Stream } from "effect"
import { freePort, type Proc, spawnTs, startPrivatePg } from "../test/support.js"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const EPISODES = arg("episodes", 400)
const GROUPS = arg("groups", 40)
const GROUP_SIZE = 4
const NO_CLUSTER = process.argv.includes("--no-cluster")

interface Row {
  env: string
  mode: string
  /** Runner processes (cluster) or worker threads (threads). */
  runners: number | "-"
  perMessage: number | "-"
  units: number
  steps: number
  seconds: number
}

const measure = (svc: RolloutService.RolloutService["Service"], env: "CartPole-v1" | "TextHousehold-v0", n: number, perMessage: number, tag: string) =>
  Effect.gen(function*() {
    const runId = `bench-${tag}-${Date.now()}`
    const started = performance.now()
    let steps = 0
    if (env === "CartPole-v1") {
      const policy = yield* svc.publish(runId, 0, Policy.ofActorCritic(ActorCritic.make({ obsDim: 4, numActions: 2, rng: Rng.make(1) })))
      yield* svc.episodes({ runId, runSeed: 1, envId: env, policy, episodeIds: Array.from({ length: n }, (_, i) => i), perMessage }).pipe(
        Stream.runForEach((e) => Effect.sync(() => void (steps += e.length)))
      )
    } else {
      const policy = yield* svc.publish(runId, 0, Policy.ofDrrn(DrrnPolicy.make({ rng: Rng.make(1) })))
      yield* svc.groups({ runId, runSeed: 1, envId: env, policy, groupIds: Array.from({ length: n }, (_, i) => i), groupSize: GROUP_SIZE, perMessage }).pipe(
        Stream.runForEach((g) => Effect.sync(() => void (steps += g.steps)))
      )
    }
    return { steps, seconds: (performance.now() - started) / 1000 }
  })

const main = async () => {
  const external = process.env["AUTODIDACT_PG_URL"]
  const pg = external === undefined && !NO_CLUSTER ? startPrivatePg() : undefined
  const url = external ?? pg?.url ?? ""
  const runners: Array<Proc> = []
  const rows: Array<Row> = []
  const record = (env: string, mode: string, r: number | "-", pm: number | "-", units: number, m: { steps: number; seconds: number }) => {
    rows.push({ env, mode, runners: r, perMessage: pm, units, steps: m.steps, seconds: m.seconds })
    process.stderr.write(`${env} ${mode} runners=${r} perMessage=${pm}: ${m.steps} steps in ${m.seconds.toFixed(2)} s\n`)
  }
  try {
    // In-process default.
    await Effect.runPromise(Effect.gen(function*() {
      const svc = yield* RolloutService.RolloutService
      yield* measure(svc, "CartPole-v1", 20, 1, "warm")
      yield* measure(svc, "TextHousehold-v0", 2, 1, "warm-text")
      record("CartPole-v1", "in-process", "-", "-", EPISODES, yield* measure(svc, "CartPole-v1", EPISODES, 1, "local"))
      record("TextHousehold-v0", "in-process", "-", "-", GROUPS, yield* measure(svc, "TextHousehold-v0", GROUPS, 1, "local"))
    }).pipe(Effect.provide(RolloutService.layerInProcess)))
    // Worker-thread pool (the default layer) with 1 and 2 workers; the pool starts (and is warmed) inside the scope.
    for (const workers of [1, 2]) {
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const svc = yield* RolloutService.makeThreads({ workers })
        yield* measure(svc, "CartPole-v1", 20, 1, `warm-t${workers}`)
        yield* measure(svc, "TextHousehold-v0", 2, 1, `warm-tt${workers}`)
        record("CartPole-v1", "threads", workers, "-", EPISODES, yield* measure(svc, "CartPole-v1", EPISODES, 1, `t${workers}`))
        record("TextHousehold-v0", "threads", workers, "-", GROUPS, yield* measure(svc, "TextHousehold-v0", GROUPS, 1, `tt${workers}`))
      })))
    }
    // Cluster with 1, 2, 4 runners.
    if (!NO_CLUSTER) await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const svc = yield* RolloutService.RolloutService
      for (const count of [1, 2, 4]) {
        const fresh: Array<Proc> = []
        while (runners.length < count) {
          const p = spawnTs("runner", [url, String(yield* Effect.promise(freePort))])
          runners.push(p)
          fresh.push(p)
        }
        yield* Effect.promise(() => Promise.all(fresh.map((r) => r.waitFor((l) => l.includes(": listening"), 60_000))))
        yield* Effect.sleep("3 seconds") // shards rebalance
        yield* measure(svc, "CartPole-v1", 20, 1, `warm${count}`)
        for (const perMessage of [1, 10]) {
          record("CartPole-v1", "cluster", count, perMessage, EPISODES, yield* measure(svc, "CartPole-v1", EPISODES, perMessage, `c${count}-${perMessage}`))
        }
        record("TextHousehold-v0", "cluster", count, 1, GROUPS, yield* measure(svc, "TextHousehold-v0", GROUPS, 1, `t${count}`))
      }
    })).pipe(Effect.provide(Layer.orDie(RolloutService.layerCluster({ url })))))
  } finally {
    for (const r of runners) r.kill("SIGTERM")
    await Promise.all(runners.map((r) => r.exited))
    pg?.stop()
  }
  const local = new Map(rows.filter((r) => r.mode === "in-process").map((r) => [r.env, r]))
  console.log("| env | layer | runners | per message | episodes/groups | env steps | seconds | steps/s | vs in-process |")
  console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|")
  for (const r of rows) {
    const base = local.get(r.env)!
    const rate = r.steps / r.seconds
    console.log(`| ${r.env} | ${r.mode} | ${r.runners} | ${r.perMessage} | ${r.units} | ${r.steps} | ${r.seconds.toFixed(2)} | ${rate.toFixed(0)} | ${(rate / (base.steps / base.seconds)).toFixed(2)}× |`)
  }
  for (const env of NO_CLUSTER ? [] : ["CartPole-v1", "TextHousehold-v0"]) {
    const base = local.get(env)!
    const one = rows.find((r) => r.env === env && r.mode === "cluster" && r.runners === 1 && r.perMessage === 1)!
    const unit = env === "CartPole-v1" ? "episode" : `group of ${GROUP_SIZE}`
    console.log(`${env}: cluster overhead per ${unit} (1 runner, 1 per message): ${(1000 * (one.seconds / one.units - base.seconds / base.units)).toFixed(2)} ms (in-process ${(1000 * base.seconds / base.units).toFixed(2)} ms, cluster ${(1000 * one.seconds / one.units).toFixed(2)} ms)`)
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
