/** Small deterministic environments for wrapper, registry and checker tests. */
import { Rng, Space } from "@autodidact/core"
import type { Env, EnvSpec, Metadata, ResetOptions, ResetResult, StepResult } from "../src/Env.js"

/**
 * Observation `Float32Array([t, 10 * t])` after t steps; reward = the action (0..2) + `rewardOffset`;
 * terminates after `length` steps. Optionally emits NaN at step `nanAt` (observation) or a NaN reward.
 */
export class CountingEnv implements Env<Float32Array, number> {
  readonly observationSpace = Space.box(-1000, 1000, [2], "float32")
  readonly actionSpace = Space.discrete(3)
  readonly metadata: Metadata = { renderModes: ["ansi"] }
  spec: EnvSpec | undefined = undefined
  t = 0
  rng = Rng.make(0)
  closed = false
  constructor(
    readonly options: { length?: number; nanObsAt?: number; nanRewardAt?: number; rewardOffset?: number } = {}
  ) {}
  get npRandom() {
    return this.rng
  }
  get unwrapped(): Env<unknown, unknown> {
    return this as Env<unknown, unknown>
  }
  reset(options?: ResetOptions): ResetResult<Float32Array> {
    if (options?.seed !== undefined) this.rng = Rng.make(options.seed)
    this.t = 0
    return { observation: new Float32Array([0, 0]), info: { start: true } }
  }
  step(action: number): StepResult<Float32Array> {
    this.t++
    const obs = new Float32Array([this.t, 10 * this.t])
    if (this.options.nanObsAt === this.t) obs[1] = Number.NaN
    const reward = this.options.nanRewardAt === this.t ? Number.NaN : action + (this.options.rewardOffset ?? 0)
    return { observation: obs, reward, terminated: this.t >= (this.options.length ?? 5), truncated: false, info: { t: this.t } }
  }
  render() {
    return `t=${this.t}`
  }
  close() {
    this.closed = true
  }
}
