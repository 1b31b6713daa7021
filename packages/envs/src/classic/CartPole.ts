/**
 * `CartPole-v1`: balance a pole on a cart by pushing the cart left or right (Barto, Sutton and Anderson, 1983).
 *
 * A port of Gymnasium 1.4's `gymnasium/envs/classic_control/cartpole.py` (`CartPoleEnv`), step for step:
 * the same constants, the same explicit Euler integrator in float64, the same termination test and the same
 * float32 observation. With the NumPy-compatible {@link Rng}, `reset({ seed })` returns the observation Gymnasium
 * returns for that seed.
 *
 * **When to use**: the "hello world" of control; PPO/DQN smoke tests; throughput benchmarks.
 *
 * **Details**
 * - State `[x, x_dot, theta, theta_dot]` (m, m/s, rad, rad/s), kept in float64; the observation is a fresh
 *   `Float32Array(4)` rounded from it (`np.array(self.state, dtype=np.float32)`).
 * - Action space `Discrete(2)`: 0 pushes the cart left, 1 pushes it right, with a force of 10 N.
 * - `cos`/`sin` are correctly rounded ({@link Libm}), since NumPy calls the C library (glibc, correctly rounded on all
 *   but ~0.3% of these arguments) and CartPole is chaotic: with V8's `Math.cos`/`Math.sin` (about 1% of arguments
 *   off by an ulp) one Gymnasium reference episode in eight drifts apart after 240 steps; with {@link Libm} all eight
 *   replay bit for bit. A very long episode may still meet one of glibc's own 1-ulp errors.
 * - Reward 1.0 for every step, including the terminating one (`suttonBartoReward: true`: 0 per step, -1 at
 *   termination, as Gymnasium's `sutton_barto_reward`).
 * - Terminated when |x| > 2.4 or |theta| > 12 degrees; `make("CartPole-v1")` adds `TimeLimit(500)`.
 * - `reset` draws the 4 state variables from `npRandom.uniform(-0.05, 0.05)` (Gymnasium's
 *   `np_random.uniform(low, high, size=(4,))`), bounds overridable by `options.low`/`options.high`
 *   (`gymnasium.envs.classic_control.utils.maybe_parse_reset_bounds`); `options.state` starts from a given state.
 *
 * **Gotchas**
 * - `step` after termination throws {@link ResetNeededError} (Gymnasium only warns and returns reward 0).
 * - `step` allocates only the returned observation and result record; `info` is a shared frozen empty object.
 *
 * @example
 * ```ts
 * import { CartPole } from "@autodidact/envs"
 * const env = new CartPole.CartPoleEnv()
 * env.reset({ seed: 42 }).observation // Float32Array [0.0273956, -0.0061122, 0.0358598, 0.0197368]
 * env.step(1).reward // 1
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/envs/classic_control/cartpole.py
 * @since 0.1.0
 */
import { InvalidActionError, InvalidOptionError, ResetNeededError, Rng, Space } from "@autodidact/core"
import type { Env, EnvSpec, Info, Metadata, ResetOptions, ResetResult, StepResult } from "../Env.js"
import * as Libm from "./Libm.js"

/** Physical constants of Gymnasium's `CartPoleEnv.__init__`. */
export const GRAVITY = 9.8
/** Mass of the cart (kg). */
export const MASSCART = 1.0
/** Mass of the pole (kg). */
export const MASSPOLE = 0.1
/** Cart plus pole (kg). */
export const TOTAL_MASS = MASSPOLE + MASSCART
/** Half the pole's length (m). */
export const LENGTH = 0.5
/** Pole mass times half-length (kg·m). */
export const POLEMASS_LENGTH = MASSPOLE * LENGTH
/** Force applied by an action (N). */
export const FORCE_MAG = 10.0
/** Seconds between state updates. */
export const TAU = 0.02
/** Angle at which the episode terminates: 12 degrees in radians. */
export const THETA_THRESHOLD_RADIANS = (12 * 2 * Math.PI) / 360
/** Cart position at which the episode terminates (m). */
export const X_THRESHOLD = 2.4

const EMPTY_INFO: Info = Object.freeze({})

/**
 * One step of the CartPole dynamics, Gymnasium 1.x `CartPoleEnv.step` operation for operation (force ±10 N,
 * `kinematics_integrator == "euler"`, τ = 0.02 s): from cart position `x` (m), velocity `xDot` (m/s), pole angle
 * `theta` (rad) and angular velocity `thetaDot` (rad/s) under `action` (1 pushes right, anything else left), writes
 * the next `[x, xDot, theta, thetaDot]` into `out[0..3]` (float64; `out` may hold the inputs). The one JavaScript home
 * of the dynamics: `CartPoleEnv.step` and `CartPoleBatch`'s JavaScript loop call it (`wasm/cartpole.ts` is its
 * AssemblyScript twin, held bit-identical by the batched-env tests). No validation.
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/main/gymnasium/envs/classic_control/cartpole.py
 */
export const dynamics = (x: number, xDot: number, theta: number, thetaDot: number, action: number, out: Float64Array): void => {
  const force = action === 1 ? FORCE_MAG : -FORCE_MAG
  const costheta = Libm.cos(theta)
  const sintheta = Libm.sin(theta)
  const temp = (force + POLEMASS_LENGTH * (thetaDot * thetaDot) * sintheta) / TOTAL_MASS
  const thetaacc = (GRAVITY * sintheta - costheta * temp) /
    (LENGTH * (4.0 / 3.0 - (MASSPOLE * (costheta * costheta)) / TOTAL_MASS))
  const xacc = temp - (POLEMASS_LENGTH * thetaacc * costheta) / TOTAL_MASS
  // Euler integration (kinematics_integrator == "euler")
  out[0] = x + TAU * xDot
  out[1] = xDot + TAU * xacc
  out[2] = theta + TAU * thetaDot
  out[3] = thetaDot + TAU * thetaacc
}

/** Whether cart position `x` (m) or pole angle `theta` (rad) ends the episode (|x| > 2.4 m or |θ| > 12°). */
export const outOfBounds = (x: number, theta: number): boolean =>
  x < -X_THRESHOLD || x > X_THRESHOLD || theta < -THETA_THRESHOLD_RADIANS || theta > THETA_THRESHOLD_RADIANS

/** Constructor options (Gymnasium's `gym.make("CartPole-v1", **kwargs)`). */
export interface CartPoleOptions {
  /** Gymnasium's `sutton_barto_reward`: reward 0 per step and -1 on termination. Default false. */
  readonly suttonBartoReward?: boolean | undefined
}

/**
 * Observation space, exactly Gymnasium's: `Box([-4.8, -inf, -0.41887903, -inf], [4.8, inf, 0.41887903, inf], (4,),
 * float32)` for `[x, x_dot, theta, theta_dot]`.
 *
 * **Details**
 * - Gymnasium builds it as `high = np.array([x_threshold * 2, np.inf, theta_threshold_radians * 2, np.inf],
 *   dtype=np.float32)`, `Box(-high, high, dtype=np.float32)`: the finite bounds are twice the termination thresholds
 *   rounded to float32 (`4.800000190734863`, `0.41887903213500977`), the velocities are unbounded (±`Infinity`).
 * - `Space.contains` accepts any non-NaN velocity; `Space.sample` draws the unbounded velocities from a standard
 *   normal and the bounded dimensions uniformly, as Gymnasium's `Box.sample`.
 *
 * **Gotchas**
 * - `JSON.stringify` writes `Infinity` as `null`; serialize the space with the core schema's JSON codec
 *   (`Schema.toCodecJson(Space.Space)`), which writes `"Infinity"`/`"-Infinity"` and reads them back.
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/envs/classic_control/cartpole.py
 */
export const observationSpace: Space.Box = Space.box(
  [-Math.fround(X_THRESHOLD * 2), -Infinity, -Math.fround(THETA_THRESHOLD_RADIANS * 2), -Infinity],
  [Math.fround(X_THRESHOLD * 2), Infinity, Math.fround(THETA_THRESHOLD_RADIANS * 2), Infinity],
  [4],
  "float32"
)
/** Action space: `Discrete(2)` (0 = push left, 1 = push right). */
export const actionSpace: Space.Discrete = Space.discrete(2)

const readBound = (options: { readonly [key: string]: unknown } | undefined, key: string, dflt: number): number => {
  if (options === undefined || !(key in options)) return dflt
  const v = options[key]
  if (typeof v !== "number" || !Number.isFinite(v)) {
    throw new InvalidOptionError({ option: `options.${key}`, value: v, reason: "expected a finite number" })
  }
  return v
}

/** What {@link parseResetOptions} reads from `reset`'s `options`. */
export interface InitialState {
  /** `options.state` when given (4 finite numbers), else undefined. */
  readonly state: ReadonlyArray<number> | undefined
  /** Lower bound of the uniform draws (`options.low`, default -0.05). */
  readonly low: number
  /** Upper bound of the uniform draws (`options.high`, default 0.05). */
  readonly high: number
}

const DEFAULT_INITIAL_STATE: InitialState = { state: undefined, low: -0.05, high: 0.05 }

/**
 * Validate `reset`'s `options` (`state`, or `low`/`high`; Gymnasium's `maybe_parse_reset_bounds`), as
 * {@link CartPoleEnv.reset} and the batched `CartPoleBatch` read them.
 * @throws InvalidOptionError when `options.state` is not 4 finite numbers, or low/high are not finite numbers with
 *   low <= high.
 * @since 0.2.0
 */
export const parseResetOptions = (opts: { readonly [key: string]: unknown } | undefined): InitialState => {
  if (opts === undefined) return DEFAULT_INITIAL_STATE
  if (opts["state"] !== undefined) {
    const st = opts["state"] as ArrayLike<unknown>
    if (
      st === null || typeof st !== "object" || st.length !== 4 ||
      !Array.from(st).every((v) => typeof v === "number" && Number.isFinite(v))
    ) {
      throw new InvalidOptionError({
        option: "options.state",
        value: st,
        reason: "expected 4 finite numbers [x, x_dot, theta, theta_dot]"
      })
    }
    return { state: Array.from(st as ArrayLike<number>), low: -0.05, high: 0.05 }
  }
  const low = readBound(opts, "low", -0.05)
  const high = readBound(opts, "high", 0.05)
  if (low > high) {
    throw new InvalidOptionError({ option: "options.low", value: low, reason: `must not exceed options.high = ${high}` })
  }
  return { state: undefined, low, high }
}

/**
 * The CartPole environment (unwrapped; `make("CartPole-v1")` adds the checker and `TimeLimit(500)`).
 * @category models
 */
export class CartPoleEnv implements Env<Float32Array, number> {
  /** {@link observationSpace}: `Box([-4.8, -inf, -0.419, -inf], [4.8, inf, 0.419, inf], (4,), float32)`. */
  readonly observationSpace: Space.Box = observationSpace
  /** {@link actionSpace}: `Discrete(2)`. */
  readonly actionSpace: Space.Discrete = actionSpace
  /** ANSI rendering at 50 fps (Gymnasium's `render_fps`). */
  readonly metadata: Metadata = { renderModes: ["ansi"], renderFps: 50 }
  /** Set by `make`. */
  spec: EnvSpec | undefined = undefined
  /** Current state `[x, x_dot, theta, theta_dot]` in float64 (Gymnasium's `self.state`). */
  readonly state = new Float64Array(4)
  private rng: Rng | undefined = undefined
  private hasState = false
  private terminatedFlag = false
  private readonly suttonBarto: boolean

  /** @throws InvalidOptionError when `suttonBartoReward` is not a boolean. */
  constructor(options: CartPoleOptions = {}) {
    const sb = options.suttonBartoReward ?? false
    if (typeof sb !== "boolean") {
      throw new InvalidOptionError({ option: "suttonBartoReward", value: sb, reason: "expected a boolean" })
    }
    this.suttonBarto = sb
  }

  /** Gymnasium's `np_random`; seeded from entropy on first use unless `reset({ seed })` came first. */
  get npRandom(): Rng {
    return (this.rng ??= Rng.fromEntropy())
  }

  /** This env (it wraps nothing). */
  get unwrapped(): Env<unknown, unknown> {
    return this as Env<unknown, unknown>
  }

  private get id(): string {
    return this.spec?.id ?? "CartPole-v1"
  }

  /**
   * Start an episode. `seed` re-seeds `npRandom` (`Rng.make(seed)`); the state is 4 draws of
   * `uniform(low, high)` with `options.low`/`options.high` (default -0.05/0.05), or `options.state` when given.
   * Returns a fresh `Float32Array(4)` observation and an empty info.
   * @throws InvalidOptionError when `options.state` is not 4 finite numbers, or low/high are not finite numbers
   *   with low <= high.
   * @throws InvalidSeedError when the seed is not a non-negative safe integer.
   */
  reset(options?: ResetOptions): ResetResult<Float32Array> {
    if (options?.seed !== undefined) this.rng = Rng.make(options.seed)
    const init = parseResetOptions(options?.options)
    const s = this.state
    if (init.state !== undefined) for (let i = 0; i < 4; i++) s[i] = init.state[i]!
    else {
      const rng = this.npRandom
      for (let i = 0; i < 4; i++) s[i] = rng.uniform(init.low, init.high)
    }
    this.hasState = true
    this.terminatedFlag = false
    const obs = new Float32Array(4) // not Float32Array.from(s): that iterates, ~10x slower
    obs[0] = s[0]!
    obs[1] = s[1]!
    obs[2] = s[2]!
    obs[3] = s[3]!
    return { observation: obs, info: EMPTY_INFO }
  }

  /**
   * Advance by `TAU` = 0.02 s with force -10 N (action 0) or +10 N (action 1).
   * Returns a fresh `Float32Array(4)` observation, reward 1 (see {@link CartPoleOptions}), `terminated` when the
   * cart leaves [-2.4, 2.4] or the pole leaves [-12°, 12°], `truncated` false.
   * @throws InvalidActionError when `action` is not 0 or 1.
   * @throws ResetNeededError before the first `reset` or after termination.
   */
  step(action: number): StepResult<Float32Array> {
    if (action !== 0 && action !== 1) {
      throw new InvalidActionError({ envId: this.id, action, space: "Discrete(2)" })
    }
    if (!this.hasState || this.terminatedFlag) {
      throw new ResetNeededError({
        envId: this.id,
        reason: this.hasState ? "the episode has terminated" : "step() called before reset()"
      })
    }
    const s = this.state
    dynamics(s[0]!, s[1]!, s[2]!, s[3]!, action, s)
    const x = s[0]!
    const theta = s[2]!
    const terminated = outOfBounds(x, theta)
    let reward: number
    if (terminated) {
      this.terminatedFlag = true
      reward = this.suttonBarto ? -1.0 : 1.0
    } else reward = this.suttonBarto ? 0.0 : 1.0
    const obs = new Float32Array(4)
    obs[0] = x
    obs[1] = s[1]!
    obs[2] = theta
    obs[3] = s[3]!
    return { observation: obs, reward, terminated, truncated: false, info: EMPTY_INFO }
  }

  /**
   * A text drawing: the track from -2.4 to 2.4 m with the cart `[#]`, the pole leaning by theta above it, and a
   * status line. Returns undefined before the first reset.
   */
  render(): string | undefined {
    if (!this.hasState) return undefined
    const width = 49
    const [x, xDot, theta, thetaDot] = this.state as unknown as [number, number, number, number]
    const col = Math.max(1, Math.min(width - 2, Math.round(((x + X_THRESHOLD) / (2 * X_THRESHOLD)) * (width - 1))))
    const lean = Math.max(-3, Math.min(3, Math.round(Math.sin(theta) * 12)))
    const rows: Array<string> = []
    for (let h = 3; h >= 1; h--) {
      const c = col + Math.round((lean * h) / 3)
      const ch = lean === 0 ? "|" : lean > 0 ? "/" : "\\"
      const line = Array<string>(width).fill(" ")
      if (c >= 0 && c < width) line[c] = ch
      rows.push(line.join(""))
    }
    const track = Array<string>(width).fill("-")
    track[col - 1] = "["
    track[col] = "#"
    track[col + 1] = "]"
    rows.push(track.join(""))
    rows.push(
      `x=${x.toFixed(3)} x_dot=${xDot.toFixed(3)} theta=${theta.toFixed(3)} theta_dot=${thetaDot.toFixed(3)}` +
        (this.terminatedFlag ? " (terminated)" : "")
    )
    return rows.join("\n") + "\n"
  }

  /** Nothing to release. */
  close(): void {}
}

/** A new unwrapped `CartPoleEnv` (the registry's entry point for `CartPole-v1`). */
export const make = (options: CartPoleOptions = {}): CartPoleEnv => new CartPoleEnv(options)
