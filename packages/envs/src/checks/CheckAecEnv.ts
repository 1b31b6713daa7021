/**
 * A conformance check for PettingZoo AEC environments: PettingZoo's `pettingzoo/test/api_test.py` (Terry et al. 2021,
 * arXiv:2009.14471), as `CheckEnv` is Gymnasium's `check_env` for single-agent envs.
 *
 * Actions are drawn from the observation's `action_mask` when it has one, else from `admissibleActions()` when the env
 * has it (text AEC envs such as `GameText`'s), else sampled from the action space.
 *
 * **Checks**: agent iteration (`agentSelection` is live, `agents` within `possibleAgents`), observations in their
 * spaces, action masks (a live agent has a legal action), the keys of `rewards`/`terminations`/`truncations`/`infos`
 * equal `agents`, dead-step rules (a dead agent must be stepped with `null` and then leaves; a live one never leaves
 * without one), `last()`'s reward equals the rewards accumulated since the agent last acted, rewards are finite, and
 * seeding determinism (two rollouts with the same seed and actions match).
 *
 * @example
 * ```ts
 * import { CheckAecEnv, GameRegistry, MultiAgent } from "@autodidact/envs"
 * const report = CheckAecEnv.checkAecEnv(MultiAgent.gameToAec(GameRegistry.loadGame("kuhn_poker")), { numCycles: 100 })
 * report.steps // agent steps taken; throws ApiTestError listing the findings on failure
 * ```
 * @see https://github.com/Farama-Foundation/PettingZoo/blob/master/pettingzoo/test/api_test.py
 * @since 0.2.0
 */
import { Rng, Space } from "@autodidact/core"
import { legalActions, serialize } from "../internal/CheckCommon.js"
import { type AecEnv, ApiTestError } from "../multiagent/AecEnv.js"

/** Options of {@link checkAecEnv}. */
export interface CheckAecEnvOptions {
  /** Agent steps per rollout = `numCycles * possibleAgents.length` (default 1000, as PettingZoo). */
  readonly numCycles?: number | undefined
  /** Seed of the determinism check (default 42). */
  readonly seed?: number | undefined
}

/** What {@link checkAecEnv} saw. */
export interface AecCheckReport {
  /** Agent steps taken in the main rollout (`numCycles * possibleAgents.length`, dead steps included). */
  readonly steps: number
  /** Episodes started in the main rollout (at least 1). */
  readonly episodes: number
}

/** The admissible text commands of a text AEC env (one with `admissibleActions()`, e.g. `GameText`'s), else undefined. */
const textCommands = (env: unknown): ReadonlyArray<string> | undefined =>
  typeof env === "object" && env !== null && "admissibleActions" in env && typeof env.admissibleActions === "function"
    ? (env.admissibleActions as () => ReadonlyArray<string>)()
    : undefined

/** @deprecated Use {@link CheckAecEnvOptions}. */
export type ApiTestOptions = CheckAecEnvOptions
/** @deprecated Use {@link AecCheckReport}. */
export type ApiTestReport = AecCheckReport

/**
 * PettingZoo's `api_test` for an AEC env: plays random legal actions (from the action mask when the observation has
 * one, else sampled from the action space) for `numCycles` cycles, resetting when all agents are gone, and checks the
 * API rules (see the module docs); then replays `min(numCycles, 50)` cycles with seed `seed + 1` twice and compares.
 * The env is reset and stepped: pass one you do not need in a particular state.
 * @returns the number of agent steps and episodes of the main rollout.
 * @throws ApiTestError listing every finding (deduplicated, at most 50).
 */
export const checkAecEnv = <Obs, Act>(env: AecEnv<Obs, Act>, options: CheckAecEnvOptions = {}): AecCheckReport => {
  const findings = new Set<string>()
  const add = (s: string) => {
    if (findings.size < 50) findings.add(s)
  }
  const numCycles = options.numCycles ?? 1000
  const seed = options.seed ?? 42
  const keysMatch = (what: string, rec: object) => {
    const got = Object.keys(rec).sort().join(",")
    const want = [...env.agents].sort().join(",")
    if (got !== want) add(`${what} keys [${got}] differ from agents [${want}]`)
  }
  const checkDicts = () => {
    keysMatch("rewards", env.rewards)
    keysMatch("terminations", env.terminations)
    keysMatch("truncations", env.truncations)
    keysMatch("infos", env.infos)
  }
  if (env.possibleAgents.length === 0) add("possibleAgents is empty")
  for (const a of env.possibleAgents) {
    try {
      env.observationSpace(a)
      env.actionSpace(a)
    } catch (e) {
      add(`observationSpace/actionSpace(${a}) threw ${String(e)}`)
    }
  }
  const rollout = (rngSeed: number): { steps: number; episodes: number } => {
    const rng = Rng.make(rngSeed)
    env.reset({ seed: rngSeed })
    let episodes = 1
    if (env.agents.some((a) => !env.possibleAgents.includes(a))) add(`agents [${env.agents.join(", ")}] not all in possibleAgents`)
    if (env.agents.length > 0 && !env.agents.includes(env.agentSelection)) add(`agentSelection ${env.agentSelection} is not a live agent after reset`)
    checkDicts()
    for (const a of env.agents) {
      if (env.rewards[a] !== 0) add(`reward of ${a} after reset is ${env.rewards[a]}, expected 0`)
    }
    const total = numCycles * Math.max(1, env.possibleAgents.length)
    const sinceActed = new Map<string, number>()
    for (const a of env.agents) sinceActed.set(a, 0)
    let steps = 0
    while (steps < total) {
      if (env.agents.length === 0) {
        env.reset({ seed: rngSeed + episodes })
        episodes++
        sinceActed.clear()
        for (const a of env.agents) sinceActed.set(a, 0)
        checkDicts()
        continue
      }
      const agent = env.agentSelection
      if (!env.agents.includes(agent)) {
        add(`agentSelection ${agent} is not in agents [${env.agents.join(", ")}]`)
        break
      }
      const { observation, reward, termination, truncation } = env.last()
      const obsSpace = env.observationSpace(agent)
      if (!Space.contains(obsSpace, observation)) add(`observation of ${agent} is not in ${Space.describe(obsSpace)}: ${serialize(observation).slice(0, 120)}`)
      if (!Number.isFinite(reward)) add(`reward of ${agent} is ${reward}`)
      const expected = sinceActed.get(agent) ?? 0
      if (Math.abs(expected - reward) > 1e-9) add(`last() reward of ${agent} is ${reward}, but the rewards since it last acted sum to ${expected}`)
      const dead = termination || truncation
      if (termination !== env.terminations[agent] || truncation !== env.truncations[agent]) add(`last() of ${agent} disagrees with terminations/truncations`)
      let action: Act | null = null
      if (!dead) {
        const actSpace = env.actionSpace(agent)
        const legal = legalActions(observation)
        const commands = legal === undefined ? textCommands(env) : undefined
        if (legal !== undefined) {
          if (legal.length === 0) {
            add(`action mask of live agent ${agent} is all zeros`)
            break
          }
          action = legal[rng.integers(legal.length)]! as Act
        } else if (commands !== undefined) {
          if (commands.length === 0) {
            add(`admissibleActions() of live agent ${agent} is empty`)
            break
          }
          action = commands[rng.integers(commands.length)]! as Act
        } else action = Space.sample(actSpace, rng) as Act
        if (!Space.contains(actSpace, action)) add(`sampled action ${String(action)} is not in ${Space.describe(actSpace)}`)
      } else {
        let threw = false
        try {
          env.step(Space.sample(env.actionSpace(agent), rng) as Act)
        } catch {
          threw = true
        }
        if (!threw) {
          add(`stepping dead agent ${agent} with a non-null action did not throw`)
          break
        }
      }
      steps++
      const before = [...env.agents]
      try {
        env.step(action)
      } catch (e) {
        add(`step(${String(action)}) for ${agent} threw ${e instanceof Error ? e.message : String(e)}`)
        break
      }
      sinceActed.set(agent, 0)
      if (dead) {
        if (env.agents.includes(agent)) add(`dead agent ${agent} was not removed from agents by step(null)`)
      } else {
        for (const a of before) if (!env.agents.includes(a)) add(`agent ${a} was removed without a dead step`)
      }
      for (const a of env.agents) {
        const r = env.rewards[a]
        if (r === undefined) continue
        sinceActed.set(a, (sinceActed.get(a) ?? 0) + r)
      }
      checkDicts()
    }
    return { steps, episodes }
  }
  const first = rollout(seed)
  const runA: Array<string> = []
  const runB: Array<string> = []
  const shortCycles = Math.min(numCycles, 50)
  // Seeding determinism: two rollouts with the same seed (and the same action choices) must match.
  const replay = (rec: Array<string>) => {
    const rng = Rng.make(seed + 1)
    env.reset({ seed: seed + 1 })
    for (let k = 0; k < shortCycles * env.possibleAgents.length && env.agents.length > 0; k++) {
      const agent = env.agentSelection
      const last = env.last()
      let action: Act | null = null
      if (!(last.termination || last.truncation)) {
        const obs = last.observation
        const legal = legalActions(obs)
        const commands = legal === undefined ? textCommands(env) : undefined
        if (legal !== undefined) {
          if (legal.length === 0) break
          action = legal[rng.integers(legal.length)]! as Act
        } else if (commands !== undefined) {
          if (commands.length === 0) break
          action = commands[rng.integers(commands.length)]! as Act
        } else action = Space.sample(env.actionSpace(agent), rng) as Act
      }
      rec.push(serialize([agent, last.observation, last.reward, last.termination, last.truncation, action]))
      try {
        env.step(action)
      } catch {
        break
      }
    }
  }
  replay(runA)
  replay(runB)
  if (runA.length !== runB.length || runA.some((x, i) => x !== runB[i])) {
    const i = runA.findIndex((x, k) => x !== runB[k])
    add(`two rollouts with seed ${seed + 1} differ at step ${i}: ${runA[i]?.slice(0, 120)} vs ${runB[i]?.slice(0, 120)}`)
  }
  if (findings.size > 0) throw new ApiTestError({ env: env.metadata.name, findings: [...findings] })
  return first
}

/**
 * PettingZoo's name for {@link checkAecEnv}.
 * @deprecated Use `CheckAecEnv.checkAecEnv` (also `MultiAgent.checkAecEnv`).
 */
export const apiTest: <Obs, Act>(env: AecEnv<Obs, Act>, options?: CheckAecEnvOptions) => AecCheckReport = checkAecEnv
