/**
 * Potential-based reward shaping as a text-env wrapper: `r' = r + γ Φ(s') − Φ(s)` with Φ(terminal) = 0, which
 * leaves the optimal policies unchanged (Ng, Harada & Russell 1999, Theorem 1).
 *
 * **Details**
 * - Φ is a synchronous function of the wrapped env (its observation, admissible actions, state key); a PRM gives one
 *   with `ProcessRewardModel.potential` (`@autodidact/rewards/train`): Φ(s) = max over admissible a of the PRM's success probability of (s, a) — a value
 *   estimate V(s) = max_a Q(s, a).
 * - `info.shapingReward` is the added term and `info.unshapedReward` the env's reward.
 * - The wrapper keeps the text contract (`task`, `admissibleActions`, `stateKey`, `toMessages`) of the wrapped env.
 * - With `gamma = 1` the shaping terms of an episode telescope to −Φ(s_0) (the episode's shaped return is its return
 *   minus the initial potential).
 * @see Ng, Harada & Russell, "Policy invariance under reward transformations", ICML 1999
 * @since 0.1.0
 */
import type { Rng, Space, Trajectory } from "@autodidact/core"
import type { Env, TextEnv as TextEnvModule } from "@autodidact/envs"
type TextEnv = TextEnvModule.TextEnv

/** A potential: a function of the env's current state. */
export type Potential = (env: TextEnv, observation: string, history: ReadonlyArray<string>) => number

/**
 * The shaping wrapper: each step's reward becomes `r + gamma · Φ(s') − Φ(s)` (Φ of a terminated state is 0; a
 * truncated state keeps its potential), with `info.shapingReward` and `info.unshapedReward`. `gamma` (default 0.99)
 * should be the learner's discount for the policy-invariance guarantee (Ng, Harada & Russell 1999).
 * @category wrappers
 */
export class PotentialShaping implements TextEnv {
  private phi = 0
  private history: Array<string> = []
  constructor(readonly env: TextEnv, readonly potential: Potential, readonly gamma = 0.99) {}
  get observationSpace(): Space.Space { return this.env.observationSpace }
  get actionSpace(): Space.Space { return this.env.actionSpace }
  get metadata() { return this.env.metadata }
  get spec() { return this.env.spec }
  set spec(s) { this.env.spec = s }
  get npRandom(): Rng { return this.env.npRandom }
  get unwrapped() { return this.env.unwrapped }
  get task() { return this.env.task }
  admissibleActions() { return this.env.admissibleActions() }
  stateKey() { return this.env.stateKey() }
  toMessages(t: Trajectory.Trajectory) { return this.env.toMessages(t) }
  render() { return this.env.render() }
  close() { this.env.close() }
  reset(options?: Env.ResetOptions): Env.ResetResult<string> {
    const r = this.env.reset(options)
    this.history = []
    this.phi = this.potential(this.env, r.observation, this.history)
    return r
  }
  step(action: string): Env.StepResult<string> {
    const r = this.env.step(action)
    this.history.push(action)
    const next = r.terminated ? 0 : this.potential(this.env, r.observation, this.history)
    const shaping = this.gamma * next - this.phi
    this.phi = next
    return { ...r, reward: r.reward + shaping, info: { ...r.info, shapingReward: shaping, unshapedReward: r.reward } }
  }
}
