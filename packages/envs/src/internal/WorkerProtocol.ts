/**
 * The protocol between {@link AsyncVectorEnv} and its workers: control slots and commands in a shared `Int32Array`,
 * the worker's setup (`workerData`), its replies, and errors as they cross a thread. Internal (not exported from the
 * package); `errorClasses` is public through `AsyncVectorEnv`.
 * @internal
 * @since 0.2.0
 */
import { InvalidActionError, InvalidOptionError, InvalidSeedError, NonFiniteValueError, ResetNeededError } from "@autodidact/core"
import type { MessagePort } from "node:worker_threads"
import type { Info } from "../Env.js"
import { InvalidMapError } from "../toytext/FrozenLake.js"
import type { AutoresetMode } from "../vector/VectorEnv.js"
import { UnknownEnvError } from "./Registrations.js"

/** Control slots per worker in the shared `Int32Array`. */
export const CTRL = { CMD: 0, SEQ: 1, DONE: 2, STATUS: 3, READY: 4, SIZE: 8 } as const
/** Commands. */
export const CMD = { STEP: 1, RESET: 2, CLOSE: 3 } as const
/** Worker status after a command: ok, ok with a message (infos), failed with a message (error). */
export const STATUS = { OK: 0, MESSAGE: 1, ERROR: 2 } as const

/** Shared buffers and the block of sub-envs a worker owns (its `workerData`). */
export interface WorkerSetup {
  readonly envId: string
  readonly kwargs: { readonly [key: string]: unknown }
  readonly autoresetMode: AutoresetMode
  readonly modules: ReadonlyArray<string>
  readonly worker: number
  readonly lo: number
  readonly hi: number
  readonly ctrl: SharedArrayBuffer
  readonly actions: SharedArrayBuffer
  readonly observations: SharedArrayBuffer
  readonly rewards: SharedArrayBuffer
  readonly terminations: SharedArrayBuffer
  readonly truncations: SharedArrayBuffer
  readonly port: MessagePort
  readonly script: string
}

/** A reply from a worker: infos and final observations by local index, or an error. */
export interface WorkerReply {
  readonly infos?: Array<[number, Info]>
  readonly finalObservation?: Array<[number, unknown]>
  readonly finalInfo?: Array<[number, Info]>
  readonly error?: SerializedError
}

/** An error as it crosses a thread: its tag, own fields and message. */
export interface SerializedError {
  readonly tag: string | undefined
  readonly fields: { readonly [key: string]: unknown }
  readonly message: string
  readonly stack: string | undefined
}

/** Serialize an error for `postMessage`. */
export const serializeError = (e: unknown): SerializedError => {
  if (e instanceof Error) {
    const fields: Record<string, unknown> = {}
    for (const k of Object.keys(e)) if (k !== "_tag" && k !== "stack") fields[k] = (e as unknown as Record<string, unknown>)[k]
    const tag = (e as { _tag?: unknown })._tag
    return { tag: typeof tag === "string" ? tag : undefined, fields, message: e.message, stack: e.stack }
  }
  return { tag: undefined, fields: {}, message: String(e), stack: undefined }
}

/**
 * Error classes that {@link deserializeError} rebuilds by tag: the core env errors, `InvalidMapError` and
 * `UnknownEnvError`; add your own env's tagged errors here (public as `AsyncVectorEnv.errorClasses`).
 */
export const errorClasses = new Map<string, new (fields: any) => Error>([
  ["InvalidActionError", InvalidActionError],
  ["InvalidOptionError", InvalidOptionError],
  ["InvalidSeedError", InvalidSeedError],
  ["NonFiniteValueError", NonFiniteValueError],
  ["ResetNeededError", ResetNeededError],
  ["InvalidMapError", InvalidMapError],
  ["UnknownEnvError", UnknownEnvError]
])

/** Rebuild an error from a worker as its original tagged class when known, else a plain `Error`. */
export const deserializeError = (s: SerializedError): Error => {
  const Cls = s.tag === undefined ? undefined : errorClasses.get(s.tag)
  if (Cls !== undefined) {
    try {
      return new Cls(s.fields)
    } catch {
      // fall through to a plain error
    }
  }
  const err = new Error(s.message)
  if (s.tag !== undefined) err.name = s.tag
  return err
}
