/**
 * What `SyncVectorEnv` and `AsyncVectorEnv` share besides the batch layouts: the autoreset-mode check, per-sub-env
 * seeds, the reset mask, and the step result over a vector env's own buffers. Internal (not exported from the
 * package).
 * @internal
 * @since 0.2.0
 */
import { InvalidOptionError } from "@autodidact/core"
import type { Info } from "../Env.js"
import type { AutoresetMode, Batch, VectorInfo, VectorResetOptions, VectorStepResult } from "../vector/VectorEnv.js"

const AUTORESET_MODES: ReadonlyArray<AutoresetMode> = ["NextStep", "SameStep", "Disabled"]

/**
 * Validate an autoreset mode.
 * @throws InvalidOptionError for anything but `"NextStep"`, `"SameStep"`, `"Disabled"`.
 */
export const checkAutoresetMode = (mode: unknown): AutoresetMode => {
  if (!AUTORESET_MODES.includes(mode as AutoresetMode)) {
    throw new InvalidOptionError({ option: "autoresetMode", value: mode, reason: `expected one of ${AUTORESET_MODES.join(", ")}` })
  }
  return mode as AutoresetMode
}

/**
 * Per-sub-env seeds of a vector reset: `seed + i`, `seed[i]`, or undefined.
 * @throws InvalidOptionError when an array of seeds has the wrong length.
 */
export const subSeeds = (seed: number | ReadonlyArray<number> | undefined, n: number): Array<number | undefined> => {
  if (seed === undefined) return new Array<number | undefined>(n).fill(undefined)
  if (typeof seed === "number") return Array.from({ length: n }, (_, i) => seed + i)
  if (seed.length !== n) {
    throw new InvalidOptionError({ option: "seed", value: seed, reason: `expected ${n} seeds, one per sub-env` })
  }
  return [...seed]
}

/**
 * Split vector reset options into the reset mask (all true when absent) and the options passed to sub-envs.
 * @throws InvalidOptionError when the mask's length is not `n`.
 */
export const splitResetOptions = (
  options: VectorResetOptions["options"],
  n: number
): { mask: Array<boolean>; rest: { readonly [key: string]: unknown } | undefined } => {
  if (options === undefined || options.resetMask === undefined) return { mask: new Array<boolean>(n).fill(true), rest: options }
  const { resetMask, ...rest } = options
  if (resetMask.length !== n) {
    throw new InvalidOptionError({ option: "options.resetMask", value: resetMask, reason: `expected ${n} entries` })
  }
  return { mask: Array.from(resetMask as ArrayLike<unknown>, (x) => Boolean(x)), rest: Object.keys(rest).length > 0 ? rest : undefined }
}

/**
 * The result of a vector step over a vector env's own buffers (returned as they are, not copied; the next call
 * overwrites them). `finalObservation`/`finalInfo` (`SameStep` autoreset, index i set for each sub-env that ended) are
 * included only when some sub-env ended, as Gymnasium adds `final_obs`/`final_info` only then.
 */
export const stepResult = (
  observations: Batch,
  rewards: Float64Array,
  terminations: Uint8Array,
  truncations: Uint8Array,
  infos: ReadonlyArray<Info>,
  finalObservation: ReadonlyArray<unknown> | undefined,
  finalInfo: ReadonlyArray<Info | undefined> | undefined
): VectorStepResult => {
  const info: VectorInfo = finalObservation === undefined ? { infos } : { infos, finalObservation, finalInfo }
  return { observations, rewards, terminations, truncations, infos: info }
}
