/**
 * The wrapper base classes (Gymnasium's `gymnasium/core.py` `Wrapper`, `ObservationWrapper`, `RewardWrapper`,
 * `ActionWrapper`): an environment around another one that forwards every member, and the three bases that change
 * one field by a method.
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/core.py
 * @since 0.1.0
 */
import type { Rng, Space } from "@autodidact/core"
import type { AnyEnv, Env, EnvSpec, Metadata, ResetOptions, ResetResult, StepResult } from "../Env.js"

/** The id used in error messages: the spec's id, else the unwrapped class name. */
export const envIdOf = (env: AnyEnv): string => env.spec?.id ?? env.unwrapped.constructor.name

/**
 * Base wrapper: forwards every member to `env`. Subclass it and override what changes.
 * @category wrappers
 */
export class Wrapper<Obs = any, Act = any> implements Env<Obs, Act> {
  /** @param env the wrapped environment (`this.env`); `unwrapped` reaches the innermost one. */
  constructor(readonly env: AnyEnv) {}
  /** The wrapped env's observation space (override when the wrapper changes observations). */
  get observationSpace(): Space.Space {
    return this.env.observationSpace
  }
  /** The wrapped env's action space (override when the wrapper changes actions). */
  get actionSpace(): Space.Space {
    return this.env.actionSpace
  }
  /** The wrapped env's metadata. */
  get metadata(): Metadata {
    return this.env.metadata
  }
  /** The wrapped env's spec; setting it sets the wrapped env's. */
  get spec(): EnvSpec | undefined {
    return this.env.spec
  }
  set spec(spec: EnvSpec | undefined) {
    this.env.spec = spec
  }
  /** The wrapped env's generator. */
  get npRandom(): Rng {
    return this.env.npRandom
  }
  /** The innermost environment. */
  get unwrapped(): Env<unknown, unknown> {
    return this.env.unwrapped
  }
  /** Forwards to the wrapped env. */
  reset(options?: ResetOptions): ResetResult<Obs> {
    return this.env.reset(options)
  }
  /** Forwards to the wrapped env. */
  step(action: Act): StepResult<Obs> {
    return this.env.step(action)
  }
  /** Forwards to the wrapped env. */
  render(): string | undefined {
    return this.env.render()
  }
  /** Closes the wrapped env. */
  close(): void {
    this.env.close()
  }
}

/**
 * Base for wrappers that change observations: implement `observation(obs)`; `reset` and `step` apply it.
 * @category wrappers
 */
export abstract class ObservationWrapper<Obs = any, Act = any, InnerObs = any> extends Wrapper<Obs, Act> {
  /** Map an observation of the wrapped env to this wrapper's. */
  abstract observation(observation: InnerObs): Obs
  /** The wrapped env's reset, with the observation mapped. */
  override reset(options?: ResetOptions): ResetResult<Obs> {
    const r = this.env.reset(options)
    return { observation: this.observation(r.observation), info: r.info }
  }
  /** The wrapped env's step, with the observation mapped. */
  override step(action: Act): StepResult<Obs> {
    const r = this.env.step(action)
    return {
      observation: this.observation(r.observation),
      reward: r.reward,
      terminated: r.terminated,
      truncated: r.truncated,
      info: r.info
    }
  }
}

/**
 * Base for wrappers that change rewards: implement `reward(r)`; `step` applies it.
 * @category wrappers
 */
export abstract class RewardWrapper<Obs = any, Act = any> extends Wrapper<Obs, Act> {
  /** Map a reward of the wrapped env to this wrapper's. */
  abstract reward(reward: number): number
  /** The wrapped env's step, with the reward mapped. */
  override step(action: Act): StepResult<Obs> {
    const r = this.env.step(action)
    return {
      observation: r.observation,
      reward: this.reward(r.reward),
      terminated: r.terminated,
      truncated: r.truncated,
      info: r.info
    }
  }
}

/**
 * Base for wrappers that change actions: implement `action(a)` mapping this wrapper's action to the inner one.
 * @category wrappers
 */
export abstract class ActionWrapper<Obs = any, Act = any, InnerAct = any> extends Wrapper<Obs, Act> {
  /** Map this wrapper's action to the wrapped env's. */
  abstract action(action: Act): InnerAct
  /** Steps the wrapped env with the mapped action. */
  override step(action: Act): StepResult<Obs> {
    return this.env.step(this.action(action))
  }
}
