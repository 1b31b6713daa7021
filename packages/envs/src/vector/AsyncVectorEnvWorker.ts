/**
 * The worker-thread side of {@link AsyncVectorEnv}: builds its block of sub-envs through the registration table, runs them as
 * a `SyncVectorEnv`, and answers step/reset/close commands signalled through shared memory (`Atomics.wait`),
 * writing results into the shared buffers. Not part of the public API; started by `AsyncVectorEnv`.
 * @since 0.1.0
 */
import { Space } from "@autodidact/core"
import { isMainThread, receiveMessageOnPort, workerData } from "node:worker_threads"
import type { Info } from "../Env.js"
import { registerBuiltins } from "../internal/BuiltinEnvs.js"
import { make } from "../internal/Registrations.js"
import { CMD, CTRL, serializeError, STATUS, type WorkerReply, type WorkerSetup } from "../internal/WorkerProtocol.js"
import { SyncVectorEnv } from "./SyncVectorEnv.js"
import * as VectorBatch from "./VectorBatch.js"
import type { Batch } from "./VectorEnv.js"

/** A view of a shared batch buffer with the element type of `space` (Box dtype; Int32 for Discrete). */
const viewOf = (space: Space.Space, buffer: SharedArrayBuffer): Batch =>
  space._tag === "Box" ? Space.allocate(space.dtype, buffer) : new Int32Array(buffer)


const isEmpty = (info: Info): boolean => {
  for (const _ in info) return false
  return true
}

const main = async (setup: WorkerSetup): Promise<void> => {
  const ctrl = new Int32Array(setup.ctrl)
  const base = setup.worker * CTRL.SIZE
  const port = setup.port
  const n = setup.hi - setup.lo
  let envs: SyncVectorEnv
  try {
    registerBuiltins()
    for (const m of setup.modules) await import(m)
    envs = new SyncVectorEnv(
      Array.from({ length: n }, () => () => make(setup.envId, setup.kwargs)),
      { autoresetMode: setup.autoresetMode }
    )
  } catch (e) {
    port.postMessage({ error: serializeError(e) } satisfies WorkerReply)
    Atomics.store(ctrl, base + CTRL.READY, 2)
    Atomics.notify(ctrl, base + CTRL.READY)
    port.close()
    return
  }
  const obsRow = VectorBatch.rowSize(envs.singleObservationSpace)
  const actRow = VectorBatch.rowSize(envs.singleActionSpace)
  const actions = viewOf(envs.singleActionSpace, setup.actions) as Float32Array
  const myActions = actions.subarray(setup.lo * actRow, setup.hi * actRow)
  const observations = viewOf(envs.singleObservationSpace, setup.observations) as Float32Array
  const rewards = new Float64Array(setup.rewards)
  const terminations = new Uint8Array(setup.terminations)
  const truncations = new Uint8Array(setup.truncations)
  const obsOffset = setup.lo * obsRow
  Atomics.store(ctrl, base + CTRL.READY, 1)
  Atomics.notify(ctrl, base + CTRL.READY)

  let seq = 0
  for (;;) {
    Atomics.wait(ctrl, base + CTRL.SEQ, seq)
    seq = Atomics.load(ctrl, base + CTRL.SEQ)
    const cmd = ctrl[base + CTRL.CMD]
    if (cmd === CMD.CLOSE) {
      try {
        envs.close()
      } finally {
        Atomics.store(ctrl, base + CTRL.DONE, seq)
        Atomics.notify(ctrl, base + CTRL.DONE)
      }
      break
    }
    let reply: { infos?: Array<[number, Info]>; finalObservation?: Array<[number, unknown]>; finalInfo?: Array<[number, Info]>; error?: WorkerReply["error"] } | undefined
    let status: number = STATUS.OK
    try {
      let infos: ReadonlyArray<Info>
      if (cmd === CMD.STEP) {
        const r = envs.step(myActions)
        observations.set(r.observations as Float32Array, obsOffset)
        rewards.set(r.rewards, setup.lo)
        terminations.set(r.terminations, setup.lo)
        truncations.set(r.truncations, setup.lo)
        infos = r.infos.infos
        const finals = r.infos.finalObservation
        if (finals !== undefined) {
          reply = { finalObservation: [], finalInfo: [] }
          for (let i = 0; i < n; i++) {
            if (finals[i] === undefined) continue
            reply.finalObservation!.push([i, finals[i]])
            reply.finalInfo!.push([i, r.infos.finalInfo?.[i] ?? {}])
          }
        }
      } else {
        const m = receiveMessageOnPort(port)?.message as
          | { seeds: Array<number | undefined>; mask: Array<boolean>; options: { readonly [key: string]: unknown } | undefined }
          | undefined
        if (m === undefined) throw new Error("AsyncVectorEnv worker: reset without its options message")
        const r = envs.reset({ seed: m.seeds as Array<number>, options: { ...m.options, resetMask: m.mask } })
        observations.set(r.observations as Float32Array, obsOffset)
        infos = r.infos.infos
      }
      for (let i = 0; i < n; i++) {
        const info = infos[i]!
        if (isEmpty(info)) continue
        reply ??= {}
        ;(reply.infos ??= []).push([i, info])
      }
      if (reply !== undefined) status = STATUS.MESSAGE
    } catch (e) {
      reply = { error: serializeError(e) }
      status = STATUS.ERROR
    }
    if (reply !== undefined) port.postMessage(reply)
    ctrl[base + CTRL.STATUS] = status
    Atomics.store(ctrl, base + CTRL.DONE, seq)
    Atomics.notify(ctrl, base + CTRL.DONE)
  }
  port.close()
}

if (!isMainThread && workerData !== null && typeof workerData === "object" && "script" in workerData) {
  void main(workerData as WorkerSetup)
}
