/**
 * The {@link Backend} service tag and its shape, without TensorFlow.js: the main entry's dispatch
 * (`KernelRegistry.run`) reads the service when it is provided, and `@autodidact/kernels/tfjs` (`Backend.layer`)
 * provides it. Only types of `@tensorflow/tfjs-core` are referenced here, so loading this module loads no TF.js.
 * @internal
 * @since 0.2.0
 */
import type * as tfCore from "@tensorflow/tfjs-core"
import { Context, Schema } from "effect"

/** The TensorFlow.js module type (`@tensorflow/tfjs-core`). */
export type Tf = typeof tfCore

/** Backends Autodidact knows, in order of preference. */
export const names = ["tensorflow", "wasm", "cpu"] as const
export type BackendName = (typeof names)[number]

/** The environment variable that forces a backend. */
export const ENV_VAR = "AUTODIDACT_TF_BACKEND"

/**
 * A forced backend could not be loaded or initialized, or no backend at all could be (or the name is unknown).
 * @category errors
 */
export class BackendUnavailableError extends Schema.TaggedError<BackendUnavailableError>()("BackendUnavailableError", {
  backend: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `TensorFlow.js backend "${this.backend}" is unavailable: ${this.reason}`
  }
}

/** A backend that was tried and rejected, with why. */
export interface Attempt {
  readonly name: BackendName
  readonly error: string
}

/** What the {@link Backend} service holds. */
export interface BackendShape {
  /** The active TensorFlow.js backend. */
  readonly name: BackendName
  /** The `@tensorflow/tfjs-core` module, with `name` active. */
  readonly tf: Tf
  /** Why this backend was picked (forced by option/env var, or the first available in preference order). */
  readonly reason: string
  /** Backends tried before this one and why they were rejected. */
  readonly tried: ReadonlyArray<Attempt>
}

/**
 * The selected TensorFlow.js backend (provided by `Backend.layer` of `@autodidact/kernels/tfjs`).
 * @category services
 */
export class Backend extends Context.Service<Backend, BackendShape>()("@autodidact/kernels/Backend") {}
