/**
 * Messages between the demo page and its training worker.
 * @since 0.0.0
 */

/** Page → worker: start training. */
export interface TrainRequest {
  readonly seed: number
  readonly numEnvs: number
  readonly totalTimesteps: number
  /** Stop when the mean return of the last 100 episodes reaches this (CartPole-v1's threshold is 475). */
  readonly targetReturn: number
}

/** Worker → page. */
export type TrainMessage =
  | {
    readonly kind: "update"
    readonly globalStep: number
    readonly wallSeconds: number
    readonly policyLoss: number
    readonly valueLoss: number
    readonly entropy: number
    /** Episodes finished since the previous message: `[globalStep, episodeReturn]`. */
    readonly episodes: ReadonlyArray<readonly [number, number]>
  }
  | { readonly kind: "done"; readonly stopReason: string; readonly globalStep: number; readonly meanRecentReturn: number; readonly wallSeconds: number }
  | { readonly kind: "error"; readonly message: string }
