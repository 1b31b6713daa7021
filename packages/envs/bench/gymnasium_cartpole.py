#!/usr/bin/env python3
"""Python baseline for `autodidact bench envs` (packages/envs/src/checks/EnvBenchmark.ts): Gymnasium's CartPole-v1.

Gymnasium is not installed here, so this is a TRANSCRIPTION, written for this benchmark, of what Gymnasium 1.x runs
per step (Gymnasium 1.4.0):
- `gymnasium/envs/classic_control/cartpole.py` `CartPoleEnv.step` / `reset`: `np.cos`/`np.sin` of the float64 state,
  the Euler update, the state stored as `np.array(..., dtype=np.float64)`, the observation returned as
  `np.array(self.state, dtype=np.float32)`, `Discrete.contains` asserted on every action
  (`gymnasium/spaces/discrete.py`), reset by `np_random.uniform(low, high, size=(4,))`;
- the wrappers `gym.make("CartPole-v1")` adds, in Gymnasium's order: `PassiveEnvChecker` (checks only the first
  step), `OrderEnforcing`, `TimeLimit(500)` (`gymnasium/wrappers/common.py`);
- `gymnasium/vector/sync_vector_env.py` `SyncVectorEnv.step` with `AutoresetMode.NEXT_STEP` over 64 such envs
  (`make_vec("CartPole-v1", 64, vectorization_mode="sync")`): `iterate` over the action batch, per-env
  reset-or-step, `concatenate` (`np.stack(..., out=...)`) of the observations, copies of rewards and flags.

Modes (argv[1]): `raw` times `CartPoleEnv.step` on the bare env (reset when terminated), `vec` times
`SyncVectorEnv(64).step`. Actions are pre-sampled (4096 for raw, 64 batches for vec) as the TypeScript side does.
Prints one JSON object {"python", "numpy", "mode", "stepsPerSecond": [one per repeat]} on stdout.
Usage: python3 gymnasium_cartpole.py raw|vec [steps] [repeats]
"""
import json
import math
import platform
import sys
import time

import numpy as np


class Discrete:
    def __init__(self, n, start=0):
        self.n = np.int64(n)
        self.start = np.int64(start)

    def contains(self, x):
        if isinstance(x, int):
            as_int64 = np.int64(x)
        elif isinstance(x, (np.generic, np.ndarray)) and (np.issubdtype(x.dtype, np.integer) and x.shape == ()):
            as_int64 = np.int64(x)
        else:
            return False
        return bool(self.start <= as_int64 < self.start + self.n)


class CartPoleEnv:
    def __init__(self):
        self.gravity = 9.8
        self.masscart = 1.0
        self.masspole = 0.1
        self.total_mass = self.masspole + self.masscart
        self.length = 0.5
        self.polemass_length = self.masspole * self.length
        self.force_mag = 10.0
        self.tau = 0.02
        self.kinematics_integrator = "euler"
        self.theta_threshold_radians = 12 * 2 * math.pi / 360
        self.x_threshold = 2.4
        self._sutton_barto_reward = False
        self.action_space = Discrete(2)
        self.np_random = None
        self.state = None
        self.steps_beyond_terminated = None

    def step(self, action):
        assert self.action_space.contains(action), f"{action!r} ({type(action)}) invalid"
        assert self.state is not None, "Call reset before using step method."
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        costheta = np.cos(theta)
        sintheta = np.sin(theta)
        temp = (force + self.polemass_length * np.square(theta_dot) * sintheta) / self.total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * np.square(costheta) / self.total_mass)
        )
        xacc = temp - self.polemass_length * thetaacc * costheta / self.total_mass
        if self.kinematics_integrator == "euler":
            x = x + self.tau * x_dot
            x_dot = x_dot + self.tau * xacc
            theta = theta + self.tau * theta_dot
            theta_dot = theta_dot + self.tau * thetaacc
        else:
            x_dot = x_dot + self.tau * xacc
            x = x + self.tau * x_dot
            theta_dot = theta_dot + self.tau * thetaacc
            theta = theta + self.tau * theta_dot
        self.state = np.array((x, x_dot, theta, theta_dot), dtype=np.float64)
        terminated = bool(
            x < -self.x_threshold
            or x > self.x_threshold
            or theta < -self.theta_threshold_radians
            or theta > self.theta_threshold_radians
        )
        if not terminated:
            reward = 0.0 if self._sutton_barto_reward else 1.0
        elif self.steps_beyond_terminated is None:
            self.steps_beyond_terminated = 0
            reward = -1.0 if self._sutton_barto_reward else 1.0
        else:
            self.steps_beyond_terminated += 1
            reward = -1.0 if self._sutton_barto_reward else 0.0
        return np.array(self.state, dtype=np.float32), reward, terminated, False, {}

    def reset(self, *, seed=None, options=None):
        if seed is not None or self.np_random is None:
            self.np_random = np.random.default_rng(seed)
        low, high = -0.05, 0.05  # utils.maybe_parse_reset_bounds(options, -0.05, 0.05) without options
        self.state = self.np_random.uniform(low=low, high=high, size=(4,))
        self.steps_beyond_terminated = None
        return np.array(self.state, dtype=np.float32), {}


class PassiveEnvChecker:
    def __init__(self, env):
        self.env = env
        self.checked_step = False

    def step(self, action):
        if self.checked_step is False:
            self.checked_step = True
            result = self.env.step(action)
            assert len(result) == 5
            return result
        return self.env.step(action)

    def reset(self, *, seed=None, options=None):
        return self.env.reset(seed=seed, options=options)


class OrderEnforcing:
    def __init__(self, env):
        self.env = env
        self._has_reset = False

    def step(self, action):
        if not self._has_reset:
            raise RuntimeError("Cannot call env.step() before calling env.reset()")
        return self.env.step(action)

    def reset(self, *, seed=None, options=None):
        self._has_reset = True
        return self.env.reset(seed=seed, options=options)


class TimeLimit:
    def __init__(self, env, max_episode_steps):
        self.env = env
        self._max_episode_steps = max_episode_steps
        self._elapsed_steps = None

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._elapsed_steps += 1
        if self._elapsed_steps >= self._max_episode_steps:
            truncated = True
        return observation, reward, terminated, truncated, info

    def reset(self, *, seed=None, options=None):
        self._elapsed_steps = 0
        return self.env.reset(seed=seed, options=options)


def make():
    return TimeLimit(OrderEnforcing(PassiveEnvChecker(CartPoleEnv())), 500)


class SyncVectorEnv:
    """`SyncVectorEnv` with `AutoresetMode.NEXT_STEP` and `copy=True`, Box(4,) float32 observations, Discrete actions."""

    def __init__(self, env_fns):
        self.envs = [fn() for fn in env_fns]
        self.num_envs = len(self.envs)
        self._observations = np.zeros((self.num_envs, 4), dtype=np.float32)
        self._env_obs = [None for _ in range(self.num_envs)]
        self._rewards = np.zeros((self.num_envs,), dtype=np.float64)
        self._terminations = np.zeros((self.num_envs,), dtype=np.bool_)
        self._truncations = np.zeros((self.num_envs,), dtype=np.bool_)
        self._autoreset_envs = np.zeros((self.num_envs,), dtype=np.bool_)

    def reset(self, *, seed=None):
        seeds = [seed + i for i in range(self.num_envs)] if seed is not None else [None] * self.num_envs
        infos = {}
        for i, (env, s) in enumerate(zip(self.envs, seeds)):
            self._env_obs[i], env_info = env.reset(seed=s)
        self._observations = np.stack(self._env_obs, axis=0, out=self._observations)
        self._autoreset_envs = np.zeros((self.num_envs,), dtype=np.bool_)
        return np.copy(self._observations), infos

    def step(self, actions):
        infos = {}
        for i, action in enumerate(iter(actions)):  # gymnasium.vector.utils.iterate(Discrete batch)
            if self._autoreset_envs[i]:
                self._env_obs[i], env_info = self.envs[i].reset()
                self._rewards[i] = 0.0
                self._terminations[i] = False
                self._truncations[i] = False
            else:
                (
                    self._env_obs[i],
                    self._rewards[i],
                    self._terminations[i],
                    self._truncations[i],
                    env_info,
                ) = self.envs[i].step(action)
            if env_info:  # _add_info: empty infos add nothing
                infos[i] = env_info
        self._observations = np.stack(self._env_obs, axis=0, out=self._observations)
        self._autoreset_envs = np.logical_or(self._terminations, self._truncations)
        return (
            np.copy(self._observations),
            np.copy(self._rewards),
            np.copy(self._terminations),
            np.copy(self._truncations),
            infos,
        )


def time_raw(steps, seed=0):
    env = CartPoleEnv()
    rng = np.random.default_rng(seed)
    actions = [int(a) for a in rng.integers(0, 2, size=4096)]
    env.reset(seed=seed)

    def run(n):
        for i in range(n):
            _, _, terminated, _, _ = env.step(actions[i & 4095])
            if terminated:
                env.reset()

    run(min(steps // 10, 50_000))
    t0 = time.perf_counter()
    run(steps)
    return steps / (time.perf_counter() - t0)


def time_vec(steps, seed=0, num_envs=64):
    envs = SyncVectorEnv([make for _ in range(num_envs)])
    rng = np.random.default_rng(seed)
    batches = [rng.integers(0, 2, size=num_envs) for _ in range(64)]
    envs.reset(seed=seed)
    calls = max(1, steps // num_envs)
    for c in range(max(1, calls // 10)):
        envs.step(batches[c & 63])
    t0 = time.perf_counter()
    for c in range(calls):
        envs.step(batches[c & 63])
    return calls * num_envs / (time.perf_counter() - t0)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "raw"
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    fn = time_raw if mode == "raw" else time_vec
    rates = [fn(steps) for _ in range(repeats)]
    print(json.dumps({"python": platform.python_version(), "numpy": np.__version__, "mode": mode, "stepsPerSecond": rates}))


if __name__ == "__main__":
    main()
