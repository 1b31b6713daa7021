/**
 * A pool of `worker_threads` rollout workers on this machine: the engine of `RolloutService.layerThreads` (the
 * default rollout layer).
 *
 * - Tasks (one episode or one group each) wait in one FIFO queue and go to the worker with the fewest in flight
 *   (at most `depth` per worker, so a worker never idles between a reply and the next request). Results come back
 *   in order of completion.
 * - The weights of a policy cross to a worker once per hash (its encoded bytes, decoded there); later tasks carry
 *   only the (version, hash) reference.
 * - A worker that crashes, exits or fails to start fails the tasks it held with {@link RolloutError} (never a hang)
 *   and is replaced on the next dispatch; an error thrown while collecting fails only that task.
 * - Watchdog: a worker with tasks in flight that sends no reply for `taskTimeoutMs` (default 10 minutes; an env or
 *   policy stuck in an endless loop blocks its thread) is terminated, its tasks fail with {@link RolloutError}
 *   naming the limit, and it is replaced on the next dispatch. The clock restarts at every reply, so a task's own
 *   time, not its wait behind the others on that worker, is what the limit bounds; a worker's start-up (loading its
 *   modules) does not count.
 * - Workers start on first demand and are `unref`'d while the pool is idle (an open pool does not keep the process
 *   alive); they are `ref`'d while a task waits on them. {@link make} is scoped: closing the scope fails waiting
 *   tasks and terminates every worker.
 * - From source (`.ts`, under vitest or tsx) workers register tsx (`tsx/esm/api`) and run with
 *   `--conditions=@autodidact/source`; from `dist` they load the `.js` worker.
 *
 * @since 0.1.0
 */
import { Effect, type Scope } from "effect"
import { availableParallelism } from "node:os"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import type * as Collect from "./Collect.js"
import { reasonOf, RolloutError } from "./Errors.js"

/** What a worker is started with. */
export interface ThreadSetup {
  readonly kind: "autodidact-rollout-thread"
  readonly script: string
  readonly runner: string
  /** Test hook: crash the worker (uncaught exception) when asked for this episode/group id. */
  readonly crashOn?: number | undefined
  /** Test hook: the worker loops forever (a stuck env) when asked for this episode/group id. */
  readonly hangOn?: number | undefined
}

/** Host → worker. */
export type ThreadRequest =
  | { readonly type: "policy"; readonly hash: string; readonly bytes: Uint8Array }
  | { readonly type: "episode"; readonly task: number; readonly spec: Collect.EpisodeSpec }
  | { readonly type: "group"; readonly task: number; readonly spec: Collect.GroupSpec }

/** Worker → host. */
export type ThreadReply =
  | { readonly type: "done"; readonly task: number; readonly value: Collect.Episode | Collect.Group }
  | { readonly type: "failed"; readonly task: number; readonly reason: string }
  | { readonly type: "start-failed"; readonly reason: string }
  | { readonly type: "ready" }

/** Options of {@link make}. */
export interface PoolOptions {
  /** Worker threads (default `os.availableParallelism()`). */
  readonly workers?: number | undefined
  /** Tasks in flight per worker (default 4). */
  readonly depth?: number | undefined
  /**
   * Longest time in ms a worker with tasks in flight may go without a reply before it is terminated and its tasks
   * fail (default 600 000; `Infinity` disables the watchdog).
   */
  readonly taskTimeoutMs?: number | undefined
  /** Test hook: every worker crashes when asked for this id. */
  readonly crashOn?: number | undefined
  /** Test hook: every worker loops forever when asked for this id. */
  readonly hangOn?: number | undefined
}

/** The pool. */
export interface ThreadPool {
  readonly workers: number
  /** Collect one episode or group on some worker; `bytes` are the encoded weights of `spec.policy.hash`. */
  readonly run: <K extends "episode" | "group">(
    kind: K,
    spec: K extends "episode" ? Collect.EpisodeSpec : Collect.GroupSpec,
    bytes: Uint8Array
  ) => Effect.Effect<K extends "episode" ? Collect.Episode : Collect.Group, RolloutError>
  /** Workers started and not yet exited (0 once the pool is closed). */
  readonly liveWorkers: () => number
  /** Workers started so far, replacements included. */
  readonly started: () => number
  /** Terminate every worker and fail waiting tasks (idempotent). */
  readonly close: () => Promise<void>
}

const bootstrap = (tsxApi: string | undefined): string => `
const { parentPort, workerData } = require("node:worker_threads");
const start = ${tsxApi === undefined ? "Promise.resolve()" : `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); })`};
start.then(() => import(workerData.script)).catch((e) => {
  parentPort.postMessage({ type: "start-failed", reason: "rollout worker failed to start: " + (e && e.stack || e) });
});
`

/**
 * Test hook: the environment variable naming an ES-module bundle of `ThreadWorker.ts` (esbuild, `@autodidact/source`
 * condition; written by the cluster tests' `vitest.thread-worker.ts`) that workers load instead of the sources through
 * tsx, when this module itself runs from source.
 */
const workerBundleVariable = "AUTODIDACT_THREAD_WORKER_BUNDLE"

const resolveTsxApi = (): string => {
  try {
    return import.meta.resolve("tsx/esm/api")
  } catch {
    return "tsx/esm/api"
  }
}

interface Task {
  readonly task: number
  readonly runId: string
  readonly id: number
  readonly request: Extract<ThreadRequest, { task: number }>
  readonly bytes: Uint8Array
  readonly resolve: (value: Collect.Episode | Collect.Group) => void
  readonly reject: (e: RolloutError) => void
  slot: Slot | undefined
}

interface Slot {
  readonly index: number
  readonly name: string
  readonly worker: Worker
  readonly policies: Set<string>
  readonly inflight: Map<number, Task>
  dead: boolean
  /** The no-reply deadline while tasks are in flight (armed once the worker has started). */
  watchdog: ReturnType<typeof setTimeout> | undefined
  /** The worker has loaded its modules (start-up time does not count against the watchdog). */
  ready: boolean
}

/** Start a pool (workers start lazily, on the first task). Call `close()` when done, or use {@link make}. */
export const makeUnscoped = (options: PoolOptions = {}): ThreadPool => {
  const size = options.workers ?? Math.max(1, availableParallelism())
  if (!Number.isInteger(size) || size < 1) throw new RolloutError({ runId: "-", id: -1, reason: `workers must be a positive integer, got ${size}`, where: "local" })
  const depth = options.depth ?? 4
  if (!Number.isInteger(depth) || depth < 1) throw new RolloutError({ runId: "-", id: -1, reason: `depth must be a positive integer, got ${depth}`, where: "local" })
  const taskTimeoutMs = options.taskTimeoutMs ?? 600_000
  if (!(taskTimeoutMs > 0)) throw new RolloutError({ runId: "-", id: -1, reason: `taskTimeoutMs must be positive, got ${taskTimeoutMs}`, where: "local" })
  const fromSource = import.meta.url.endsWith(".ts")
  // Test hook (from source only): a bundle of ThreadWorker.ts built from the current sources (the cluster tests'
  // globalSetup writes one per run), loaded as one file instead of the sources through tsx (~3 s of CPU per worker).
  const bundle = fromSource ? process.env[workerBundleVariable] : undefined
  const script = bundle !== undefined && bundle !== ""
    ? pathToFileURL(bundle).href
    : new URL(fromSource ? "./ThreadWorker.ts" : "./ThreadWorker.js", import.meta.url).href
  const viaTsx = fromSource && script.endsWith(".ts")
  const execArgv = fromSource ? [...process.execArgv, "--conditions=@autodidact/source"] : [...process.execArgv]
  const code = bootstrap(viaTsx ? resolveTsxApi() : undefined)

  const slots: Array<Slot | undefined> = Array.from({ length: size }, () => undefined)
  const queue: Array<Task> = []
  const exits: Array<Promise<void>> = []
  let live = 0
  let started = 0
  let nextTask = 0
  let waiting = 0
  let closed = false
  let closing: Promise<void> | undefined

  // ref'd while any task waits, unref'd when idle
  const hold = () => {
    if (waiting++ === 0) for (const s of slots) s?.worker.ref()
  }
  const unhold = () => {
    if (--waiting === 0) for (const s of slots) s?.worker.unref()
  }

  const fail = (t: Task, reason: string, where: string) => {
    t.slot?.inflight.delete(t.task)
    t.slot = undefined
    t.reject(new RolloutError({ runId: t.runId, id: t.id, reason, where }))
  }

  // (re)start the no-reply deadline of a worker with tasks in flight; clear it when none is
  const arm = (slot: Slot) => {
    if (slot.watchdog !== undefined) clearTimeout(slot.watchdog)
    slot.watchdog = undefined
    if (slot.dead || !slot.ready || slot.inflight.size === 0 || !Number.isFinite(taskTimeoutMs)) return
    slot.watchdog = setTimeout(
      () => kill(slot, `rollout thread ${slot.index} sent no reply in ${taskTimeoutMs} ms (an env or policy stuck in a loop?); terminated`),
      Math.min(taskTimeoutMs, 2 ** 31 - 1)
    )
    slot.watchdog.unref()
  }

  const kill = (slot: Slot, reason: string) => {
    if (slot.dead) return
    slot.dead = true
    if (slot.watchdog !== undefined) clearTimeout(slot.watchdog)
    if (slots[slot.index] === slot) slots[slot.index] = undefined
    for (const t of [...slot.inflight.values()]) fail(t, reason, slot.name)
    void slot.worker.terminate()
    dispatch()
  }

  const spawn = (index: number): Slot => {
    const name = `local/thread-${index}`
    const setup: ThreadSetup = {
      kind: "autodidact-rollout-thread",
      script,
      runner: name,
      ...(options.crashOn === undefined ? {} : { crashOn: options.crashOn }),
      ...(options.hangOn === undefined ? {} : { hangOn: options.hangOn })
    }
    const worker = new Worker(code, { eval: true, workerData: setup, execArgv })
    if (waiting === 0) worker.unref()
    const slot: Slot = { index, name, worker, policies: new Set(), inflight: new Map(), dead: false, watchdog: undefined, ready: false }
    live++
    started++
    let crash: string | undefined
    exits.push(new Promise<void>((resolve) =>
      worker.once("exit", (exitCode) => {
        live--
        kill(slot, crash ?? `rollout thread ${index} exited with code ${exitCode}`)
        resolve()
      })
    ))
    worker.on("error", (e) => {
      crash = `rollout thread ${index} crashed: ${reasonOf(e)}`
      kill(slot, crash)
    })
    worker.on("messageerror", (e) => kill(slot, `rollout thread ${index}: unreadable message: ${reasonOf(e)}`))
    worker.on("message", (reply: ThreadReply) => {
      if (reply.type === "start-failed") return kill(slot, reply.reason)
      if (reply.type === "ready") {
        slot.ready = true
        return arm(slot)
      }
      const t = slot.inflight.get(reply.task)
      if (t !== undefined) slot.inflight.delete(reply.task)
      arm(slot) // a reply is progress: the deadline restarts (or clears with nothing in flight)
      if (t === undefined) return dispatch() // cancelled while running
      t.slot = undefined
      if (reply.type === "done") t.resolve(reply.value)
      else t.reject(new RolloutError({ runId: t.runId, id: t.id, reason: reply.reason, where: slot.name }))
      dispatch()
    })
    slots[index] = slot
    return slot
  }

  const dispatch = (): void => {
    if (closed) return
    while (queue.length > 0) {
      // the least loaded worker, starting one where none runs
      let best: Slot | undefined
      for (let i = 0; i < size; i++) {
        const s = slots[i] ?? spawn(i)
        if (s.inflight.size < depth && (best === undefined || s.inflight.size < best.inflight.size)) best = s
      }
      if (best === undefined) return
      const t = queue.shift()!
      const hash = t.request.spec.policy.hash
      if (!best.policies.has(hash)) {
        best.worker.postMessage({ type: "policy", hash, bytes: t.bytes } satisfies ThreadRequest)
        best.policies.add(hash)
      }
      t.slot = best
      best.inflight.set(t.task, t)
      if (best.inflight.size === 1) arm(best)
      best.worker.postMessage(t.request)
    }
  }

  const run = <K extends "episode" | "group">(
    kind: K,
    spec: K extends "episode" ? Collect.EpisodeSpec : Collect.GroupSpec,
    bytes: Uint8Array
  ): Effect.Effect<K extends "episode" ? Collect.Episode : Collect.Group, RolloutError> =>
    Effect.callback<Collect.Episode | Collect.Group, RolloutError>((resume) => {
      const id = kind === "episode" ? (spec as Collect.EpisodeSpec).episodeId : (spec as Collect.GroupSpec).groupId
      if (closed) {
        resume(Effect.fail(new RolloutError({ runId: spec.runId, id, reason: "rollout thread pool closed", where: "local" })))
        return
      }
      const task = nextTask++
      let settled = false
      const settle = () => {
        if (settled) return false
        settled = true
        unhold()
        return true
      }
      const t: Task = {
        task,
        runId: spec.runId,
        id,
        request: kind === "episode" ? { type: "episode", task, spec: spec as Collect.EpisodeSpec } : { type: "group", task, spec: spec as Collect.GroupSpec },
        bytes,
        slot: undefined,
        resolve: (v) => settle() && resume(Effect.succeed(v)),
        reject: (e) => settle() && resume(Effect.fail(e))
      }
      hold()
      queue.push(t)
      dispatch()
      return Effect.sync(() => {
        // interrupted: drop it from the queue; a running task finishes on its worker and its reply is ignored
        const q = queue.indexOf(t)
        if (q >= 0) queue.splice(q, 1)
        t.slot?.inflight.delete(t.task)
        settle()
      })
    }) as Effect.Effect<K extends "episode" ? Collect.Episode : Collect.Group, RolloutError>

  const close = (): Promise<void> => {
    closing ??= (async () => {
      closed = true
      for (const t of queue.splice(0)) fail(t, "rollout thread pool closed", "local")
      for (const s of slots) {
        if (s === undefined) continue
        s.dead = true
        if (s.watchdog !== undefined) clearTimeout(s.watchdog)
        for (const t of [...s.inflight.values()]) fail(t, "rollout thread pool closed", s.name)
      }
      await Promise.all(slots.map((s) => s?.worker.terminate()))
      await Promise.all(exits)
    })()
    return closing
  }

  return { workers: size, run, liveWorkers: () => live, started: () => started, close }
}

/** The pool as a scoped resource: closing the scope terminates the workers. */
export const make = (options: PoolOptions = {}): Effect.Effect<ThreadPool, RolloutError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({ try: () => makeUnscoped(options), catch: (e) => e instanceof RolloutError ? e : new RolloutError({ runId: "-", id: -1, reason: reasonOf(e), where: "local" }) }),
    (pool) => Effect.promise(() => pool.close())
  )
