/**
 * Adam with PyTorch's update rule and `clip_grad_norm_`: re-exported from `@autodidact/kernels` (`Adam`, its one
 * home since the solvers' Deep CFR uses it too and may not import optim).
 * @since 0.1.0
 */
import { Adam } from "@autodidact/kernels"

/** Optimizer state: first and second moments and the step count (see `@autodidact/kernels` `Adam.AdamState`). */
export type AdamState = Adam.AdamState
/** Fresh Adam state (see `@autodidact/kernels` `Adam.make`). */
export const make = Adam.make
/** One Adam step in place (see `@autodidact/kernels` `Adam.step`). */
export const step = Adam.step
/** Global-norm gradient clipping (see `@autodidact/kernels` `Adam.clipGradNorm`). */
export const clipGradNorm = Adam.clipGradNorm
