/**
 * `AsyncVectorEnv`: `numEnvs` environments spread over `worker_threads` Workers, with the same synchronous API and
 * autoreset semantics as {@link SyncVectorEnv} (Gymnasium's `gymnasium/vector/async_vector_env.py`).
 *
 * **When to use**: environments whose `step` is expensive enough (physics, emulators, parsers) that running them on
 * several cores beats the cost of waking a thread; for CartPole-sized envs `SyncVectorEnv` is faster.
 *
 * **Details**
 * - Sub-envs are built in the workers by id and kwargs through the registry (functions cannot cross threads);
 *   worker w owns a contiguous block of sub-envs and runs them as a `SyncVectorEnv`, so both classes share one
 *   implementation of the autoreset modes.
 * - Actions, observations, rewards and flags live in `SharedArrayBuffer`s; the main thread signals a step with
 *   `Atomics.notify` and blocks in `Atomics.wait` until every worker is done, so `step` stays synchronous.
 *   Messages (through a `MessagePort`, read with `receiveMessageOnPort`) carry only setup, reset options,
 *   non-empty infos, final observations and errors.
 * - Errors thrown in a worker (`InvalidActionError`, `ResetNeededError`, ...) are rethrown here as the same tagged
 *   error classes.
 * - `reset({ seed })` gives sub-env i `seed + i`, as `SyncVectorEnv`.
 * - Node only: exported from `@autodidact/envs/node`. Loading this module also lets `Registry.makeVec` build it
 *   (`vectorizationMode: "async"`).
 *
 * **Gotchas**
 * - Observation and action spaces must be `Discrete` or `Box` (fixed-size typed rows); the id must be registered in
 *   this thread too (the spaces are read from a probe instance) and in the workers (built-ins are; pass `modules`
 *   for your own registrations).
 * - Call `close()`: it stops the workers. Workers are `unref`'d, so a forgotten env does not keep Node alive.
 * - From source (`.ts`, under vitest or tsx) workers register tsx (`tsx/esm/api`) and run with
 *   `--conditions=@autodidact/source`; from `dist` they load the `.js` worker.
 *
 * @example
 * ```ts
 * import { AsyncVectorEnv } from "@autodidact/envs/node"
 * const envs = new AsyncVectorEnv.AsyncVectorEnv({ envId: "CartPole-v1", numEnvs: 8, autoresetMode: "SameStep" })
 * envs.reset({ seed: 0 })
 * const r = envs.step(new Int32Array(8).fill(1))
 * envs.close()
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/vector/async_vector_env.py
 * @since 0.1.0
 */
import { InvalidActionError, InvalidOptionError, ResetNeededError, Space } from "@autodidact/core"
import { availableParallelism } from "node:os"
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads"
import type { Info } from "../Env.js"
import { installAsyncVectorEnv } from "../internal/AsyncVectorHook.js"
import { registerBuiltins } from "../internal/BuiltinEnvs.js"
import { make } from "../internal/Registrations.js"
import { checkAutoresetMode, splitResetOptions, stepResult, subSeeds } from "../internal/VectorCommon.js"
import { CMD, CTRL, deserializeError, errorClasses, STATUS, type WorkerReply, type WorkerSetup } from "../internal/WorkerProtocol.js"
import * as VectorBatch from "./VectorBatch.js"
import type {
  AutoresetMode,
  Batch,
  VectorEnv,
  VectorResetOptions,
  VectorResetResult,
  VectorStepResult
} from "./VectorEnv.js"

/** Error classes rebuilt by tag when a worker throws; add your own env's tagged errors (see `WorkerProtocol`). */
export { errorClasses }

/** Options of {@link AsyncVectorEnv}. */
export interface AsyncVectorEnvOptions {
  /** A registered id (registered here and in the workers). */
  readonly envId: string
  /** Number of sub-envs, a positive integer. */
  readonly numEnvs: number
  /** Kwargs of every sub-env (structured-cloneable). */
  readonly kwargs?: { readonly [key: string]: unknown } | undefined
  /** Default `"NextStep"`. */
  readonly autoresetMode?: AutoresetMode | undefined
  /** Worker threads; default `min(numEnvs, os.availableParallelism())`. */
  readonly workers?: number | undefined
  /** Module specifiers (absolute paths or URLs) each worker imports first, e.g. to register user envs. */
  readonly modules?: ReadonlyArray<string> | undefined
  /** Longest wait for a worker (start-up, step, reset) in milliseconds before failing. Default 120,000. */
  readonly timeoutMs?: number | undefined
}

const sharedTyped = (space: Space.Space, n: number): { buffer: SharedArrayBuffer; view: Batch } => {
  if (space._tag === "Discrete") {
    const buffer = new SharedArrayBuffer(4 * n)
    return { buffer, view: new Int32Array(buffer) }
  }
  if (space._tag === "Box") {
    const k = n * Space.boxSize(space)
    switch (space.dtype) {
      case "float32": {
        const buffer = new SharedArrayBuffer(4 * k)
        return { buffer, view: new Float32Array(buffer) }
      }
      case "float64": {
        const buffer = new SharedArrayBuffer(8 * k)
        return { buffer, view: new Float64Array(buffer) }
      }
      case "int32": {
        const buffer = new SharedArrayBuffer(4 * k)
        return { buffer, view: new Int32Array(buffer) }
      }
      case "uint8": {
        const buffer = new SharedArrayBuffer(k)
        return { buffer, view: new Uint8Array(buffer) }
      }
    }
  }
  throw new InvalidOptionError({
    option: "space",
    value: Space.describe(space),
    reason: "AsyncVectorEnv needs Discrete or Box observation and action spaces"
  })
}

/**
 * Plain-JS bootstrap run by each worker: registers tsx when running from source (`--import tsx` in a worker's
 * `execArgv` is not honoured by Node 20), imports the worker module, and reports a failure to start.
 */
const bootstrap = (tsxApi: string | undefined): string => `
const { workerData } = require("node:worker_threads");
const start = ${tsxApi === undefined ? "Promise.resolve()" : `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); })`};
start.then(() => import(workerData.script)).catch((e) => {
  const ctrl = new Int32Array(workerData.ctrl);
  const base = workerData.worker * ${CTRL.SIZE};
  try { workerData.port.postMessage({ error: { tag: undefined, fields: {}, message: "AsyncVectorEnv worker failed to start: " + (e && e.stack || e), stack: undefined } }); } catch {}
  Atomics.store(ctrl, base + ${CTRL.READY}, 2);
  Atomics.notify(ctrl, base + ${CTRL.READY});
});
`

const resolveTsxApi = (): string => {
  try {
    return import.meta.resolve("tsx/esm/api")
  } catch {
    return "tsx/esm/api"
  }
}

/**
 * Sub-environments on worker threads behind a synchronous API.
 * @category models
 */
export class AsyncVectorEnv implements VectorEnv {
  /** Number of sub-envs. */
  readonly numEnvs: number
  /** The registered id of every sub-env. */
  readonly envId: string
  /** Observation space of the id (read from a probe instance in this thread). */
  readonly singleObservationSpace: Space.Space
  /** Action space of the id. */
  readonly singleActionSpace: Space.Space
  /** How ended sub-envs are reset. */
  readonly autoresetMode: AutoresetMode
  /** Number of worker threads. */
  readonly numWorkers: number
  /** Resolves when every worker thread has exited (after `close()`). */
  readonly closed: Promise<void>
  private readonly workers: Array<Worker> = []
  private readonly ports: Array<MessagePort> = []
  private readonly blocks: Array<readonly [number, number]> = []
  private readonly ctrl: Int32Array
  private readonly actions: Batch
  private readonly observations: Batch
  private readonly rewards: Float64Array
  private readonly terminations: Uint8Array
  private readonly truncations: Uint8Array
  private readonly timeoutMs: number
  private readonly discreteAct: { lo: number; hi: number } | undefined
  private isClosed = false

  /**
   * Start the workers and build the sub-envs (blocks until they are ready).
   * @throws UnknownEnvError for an unknown id; InvalidOptionError for a bad `numEnvs`/`workers`/mode or spaces
   *   that are not `Discrete`/`Box`; the error a sub-env's constructor throws in a worker.
   */
  constructor(options: AsyncVectorEnvOptions) {
    const { envId, numEnvs } = options
    if (!Number.isInteger(numEnvs) || numEnvs <= 0) {
      throw new InvalidOptionError({ option: "numEnvs", value: numEnvs, reason: "expected a positive integer" })
    }
    this.envId = envId
    this.numEnvs = numEnvs
    this.autoresetMode = checkAutoresetMode(options.autoresetMode ?? "NextStep")
    this.timeoutMs = options.timeoutMs ?? 120_000
    const numWorkers = options.workers ?? Math.min(numEnvs, availableParallelism())
    if (!Number.isInteger(numWorkers) || numWorkers <= 0 || numWorkers > numEnvs) {
      throw new InvalidOptionError({ option: "workers", value: numWorkers, reason: `expected an integer in [1, numEnvs = ${numEnvs}]` })
    }
    this.numWorkers = numWorkers
    registerBuiltins()
    const env = make(envId, options.kwargs ?? {})
    this.singleObservationSpace = env.observationSpace
    this.singleActionSpace = env.actionSpace
    env.close()
    const a = this.singleActionSpace
    this.discreteAct = a._tag === "Discrete" ? { lo: a.start, hi: a.start + a.n } : undefined

    const ctrlBuffer = new SharedArrayBuffer(4 * CTRL.SIZE * numWorkers)
    this.ctrl = new Int32Array(ctrlBuffer)
    const acts = sharedTyped(this.singleActionSpace, numEnvs)
    const obs = sharedTyped(this.singleObservationSpace, numEnvs)
    this.actions = acts.view
    this.observations = obs.view
    const rewardsBuffer = new SharedArrayBuffer(8 * numEnvs)
    const termBuffer = new SharedArrayBuffer(numEnvs)
    const truncBuffer = new SharedArrayBuffer(numEnvs)
    this.rewards = new Float64Array(rewardsBuffer)
    this.terminations = new Uint8Array(termBuffer)
    this.truncations = new Uint8Array(truncBuffer)

    const fromSource = import.meta.url.endsWith(".ts")
    const script = new URL(fromSource ? "./AsyncVectorEnvWorker.ts" : "./AsyncVectorEnvWorker.js", import.meta.url).href
    const execArgv = fromSource ? [...process.execArgv, "--conditions=@autodidact/source"] : [...process.execArgv]
    const code = bootstrap(fromSource ? resolveTsxApi() : undefined)
    const exits: Array<Promise<void>> = []
    for (let w = 0; w < numWorkers; w++) {
      const lo = Math.floor((w * numEnvs) / numWorkers)
      const hi = Math.floor(((w + 1) * numEnvs) / numWorkers)
      this.blocks.push([lo, hi])
      const { port1, port2 } = new MessageChannel()
      port1.unref()
      this.ports.push(port1)
      const setup: WorkerSetup = {
        envId,
        kwargs: options.kwargs ?? {},
        autoresetMode: this.autoresetMode,
        modules: options.modules ?? [],
        worker: w,
        lo,
        hi,
        ctrl: ctrlBuffer,
        actions: acts.buffer,
        observations: obs.buffer,
        rewards: rewardsBuffer,
        terminations: termBuffer,
        truncations: truncBuffer,
        port: port2,
        script
      }
      const worker = new Worker(code, { eval: true, workerData: setup, transferList: [port2], execArgv })
      worker.unref()
      exits.push(new Promise<void>((resolve) => worker.once("exit", () => resolve())))
      this.workers.push(worker)
    }
    this.closed = Promise.all(exits).then(() => undefined)
    try {
      for (let w = 0; w < numWorkers; w++) {
        const state = this.waitFor(w, CTRL.READY, 0, "start")
        if (state !== 1) this.throwReply(w)
      }
    } catch (e) {
      this.close()
      throw e
    }
  }

  /** Block until `ctrl[slot]` of worker w differs from `from`; returns the new value. */
  private waitFor(w: number, slot: number, from: number, what: string): number {
    const i = w * CTRL.SIZE + slot
    const deadline = Date.now() + this.timeoutMs
    for (;;) {
      const v = Atomics.load(this.ctrl, i)
      if (v !== from) return v
      const left = deadline - Date.now()
      if (left <= 0) {
        throw new ResetNeededError({ envId: this.envId, reason: `AsyncVectorEnv worker ${w} did not answer (${what}) within ${this.timeoutMs} ms` })
      }
      Atomics.wait(this.ctrl, i, from, Math.min(left, 1000))
    }
  }

  private receive(w: number): WorkerReply {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const m = receiveMessageOnPort(this.ports[w]!)
      if (m !== undefined) return m.message as WorkerReply
      Atomics.wait(this.ctrl, w * CTRL.SIZE + CTRL.STATUS, -12345, 1)
    }
    throw new ResetNeededError({ envId: this.envId, reason: `AsyncVectorEnv worker ${w} announced a message that never came` })
  }

  private throwReply(w: number): never {
    const reply = this.receive(w)
    throw reply.error === undefined ? new Error(`AsyncVectorEnv worker ${w} failed`) : deserializeError(reply.error)
  }

  /** Send `cmd` to every worker, wait for all, and collect their replies (rethrowing the first error). */
  private run(cmd: number, infos: Array<Info>, finals: { obs?: Array<unknown>; info?: Array<Info | undefined> }): void {
    const n = this.numWorkers
    const ctrl = this.ctrl
    for (let w = 0; w < n; w++) {
      const base = w * CTRL.SIZE
      ctrl[base + CTRL.CMD] = cmd
      Atomics.add(ctrl, base + CTRL.SEQ, 1)
      Atomics.notify(ctrl, base + CTRL.SEQ)
    }
    let error: Error | undefined
    for (let w = 0; w < n; w++) {
      const base = w * CTRL.SIZE
      const target = Atomics.load(ctrl, base + CTRL.SEQ)
      const deadline = Date.now() + this.timeoutMs
      for (;;) {
        const done = Atomics.load(ctrl, base + CTRL.DONE)
        if (done === target) break
        const left = deadline - Date.now()
        if (left <= 0) {
          throw new ResetNeededError({ envId: this.envId, reason: `AsyncVectorEnv worker ${w} did not answer within ${this.timeoutMs} ms` })
        }
        Atomics.wait(ctrl, base + CTRL.DONE, done, Math.min(left, 1000))
      }
      const status = ctrl[base + CTRL.STATUS]
      if (status === STATUS.OK) continue
      const reply = this.receive(w)
      if (reply.error !== undefined) {
        error ??= deserializeError(reply.error)
        continue
      }
      const lo = this.blocks[w]![0]
      for (const [i, info] of reply.infos ?? []) infos[lo + i] = info
      if (reply.finalObservation !== undefined) {
        finals.obs ??= new Array<unknown>(this.numEnvs).fill(undefined)
        finals.info ??= new Array<Info | undefined>(this.numEnvs).fill(undefined)
        for (const [i, o] of reply.finalObservation) finals.obs[lo + i] = o
        for (const [i, info] of reply.finalInfo ?? []) finals.info[lo + i] = info
      }
    }
    if (error !== undefined) throw error
  }

  /**
   * Reset all sub-envs (or those in `options.resetMask`); sub-env i gets `seed + i`.
   * @throws InvalidOptionError for a bad mask or seed array; errors from the sub-envs, rethrown by tag.
   */
  reset(options: VectorResetOptions = {}): VectorResetResult {
    this.assertOpen()
    const seeds = subSeeds(options.seed, this.numEnvs)
    const { mask, rest } = splitResetOptions(options.options, this.numEnvs)
    for (let w = 0; w < this.numWorkers; w++) {
      const [lo, hi] = this.blocks[w]!
      this.ports[w]!.postMessage({ seeds: seeds.slice(lo, hi), mask: mask.slice(lo, hi), options: rest })
    }
    const infos = new Array<Info>(this.numEnvs).fill(EMPTY_INFO)
    this.run(CMD.RESET, infos, {})
    return { observations: this.observations, infos: { infos } }
  }

  /**
   * Step every sub-env (row i of `actions`), autoresetting as `autoresetMode` says; blocks until all are done.
   * @throws InvalidActionError for a malformed batch or an action outside the space (naming the sub-env);
   *   ResetNeededError in `Disabled` mode for an ended sub-env, after `close()`, or when a worker stops answering.
   */
  step(actions: Batch): VectorStepResult {
    this.assertOpen()
    VectorBatch.checkActions(this.envId, this.singleActionSpace, actions, this.numEnvs)
    const d = this.discreteAct
    if (d !== undefined) {
      const shared = this.actions as Int32Array
      for (let i = 0; i < this.numEnvs; i++) {
        const a = actions[i] as number
        if (!(typeof a === "number" && a >= d.lo && a < d.hi && Math.floor(a) === a)) {
          throw new InvalidActionError({ envId: `${this.envId}[${i}]`, action: a, space: Space.describe(this.singleActionSpace) })
        }
        shared[i] = a
      }
    } else if (Array.isArray(actions)) {
      const k = VectorBatch.rowSize(this.singleActionSpace)
      actions.forEach((row, i) => (this.actions as Float32Array).set(row as ArrayLike<number>, i * k))
    } else (this.actions as Float32Array).set(actions as ArrayLike<number>)
    const infos = new Array<Info>(this.numEnvs).fill(EMPTY_INFO)
    const finals: { obs?: Array<unknown>; info?: Array<Info | undefined> } = {}
    this.run(CMD.STEP, infos, finals)
    return stepResult(this.observations, this.rewards, this.terminations, this.truncations, infos, finals.obs, finals.info)
  }

  /** Stop the workers (they close their sub-envs first); `closed` resolves when they have exited. Idempotent. */
  close(): void {
    if (this.isClosed) return
    this.isClosed = true
    const targets: Array<number> = []
    for (let w = 0; w < this.workers.length; w++) {
      const base = w * CTRL.SIZE
      this.ctrl[base + CTRL.CMD] = CMD.CLOSE
      targets.push(Atomics.add(this.ctrl, base + CTRL.SEQ, 1) + 1)
      Atomics.notify(this.ctrl, base + CTRL.SEQ)
    }
    // give each ready worker a moment to close its sub-envs, then stop the threads
    const deadline = Date.now() + 5000
    for (let w = 0; w < this.workers.length; w++) {
      const base = w * CTRL.SIZE
      if (Atomics.load(this.ctrl, base + CTRL.READY) !== 1) continue
      for (;;) {
        const done = Atomics.load(this.ctrl, base + CTRL.DONE)
        const left = deadline - Date.now()
        if (done === targets[w] || left <= 0) break
        Atomics.wait(this.ctrl, base + CTRL.DONE, done, left)
      }
    }
    for (const worker of this.workers) void worker.terminate()
    for (const port of this.ports) port.close()
  }

  private assertOpen(): void {
    if (this.isClosed) throw new ResetNeededError({ envId: this.envId, reason: "the vector env is closed" })
  }
}

const EMPTY_INFO: Info = Object.freeze({})

installAsyncVectorEnv((request) => new AsyncVectorEnv(request))
