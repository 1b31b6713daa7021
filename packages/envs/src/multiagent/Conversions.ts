/**
 * Converters between the AEC and Parallel APIs, as PettingZoo's `pettingzoo/utils/conversions.py`
 * (`aec_to_parallel_wrapper`, `parallel_to_aec_wrapper`; Terry et al. 2021, arXiv:2009.14471).
 *
 * **Details**
 * - {@link aecToParallel} needs the AEC agents to act in cycles (every live agent once per parallel step, deaths
 *   only at the end of a cycle) and fails with {@link ApiTestError} otherwise.
 * - {@link parallelToAec} buffers actions and steps the parallel env when the last live agent of the cycle acts.
 *
 * @see https://github.com/Farama-Foundation/PettingZoo/blob/master/pettingzoo/utils/conversions.py
 * @since 0.2.0
 */
import { InvalidActionError } from "@autodidact/core"
import type { Info } from "../Env.js"
import { type AecEnv, ApiTestError } from "./AecEnv.js"
import type { ParallelEnv } from "./ParallelEnv.js"

/**
 * PettingZoo's `aec_to_parallel_wrapper`: each parallel step steps every live AEC agent once, in order.
 * @throws ApiTestError (from `step`) when the AEC env does not cycle through its agents, or kills one mid-cycle.
 */
export const aecToParallel = <Obs, Act>(aec: AecEnv<Obs, Act>): ParallelEnv<Obs, Act> => {
  let agents: Array<string> = []
  return {
    metadata: { ...aec.metadata, is_parallelizable: true },
    possibleAgents: aec.possibleAgents,
    get agents() {
      return agents
    },
    observationSpace: (agent) => aec.observationSpace(agent),
    actionSpace: (agent) => aec.actionSpace(agent),
    reset(options = {}) {
      aec.reset(options)
      agents = [...aec.agents]
      const observations: Record<string, Obs> = {}
      for (const a of aec.agents) if (!aec.terminations[a] && !aec.truncations[a]) observations[a] = aec.observe(a)
      return { observations, infos: { ...aec.infos } }
    },
    step(actions) {
      const rewards: Record<string, number> = {}
      for (const a of aec.agents) rewards[a] = 0
      for (const agent of [...aec.agents]) {
        const sel = aec.agentSelection
        if (agent !== sel) {
          const dead = aec.terminations[sel] === true || aec.truncations[sel] === true
          throw new ApiTestError({
            env: aec.metadata.name,
            findings: [
              dead
                ? `expected agent ${agent} got termination or truncation agent ${sel}. Parallel environment wrapper expects all agent death (setting an agent's terminations or truncations entry to true) to happen only at the end of a cycle.`
                : `expected agent ${agent} got agent ${sel}, Parallel environment wrapper expects agents to step in a cycle.`
            ]
          })
        }
        aec.step(actions[agent] ?? null)
        for (const a of aec.agents) rewards[a] = (rewards[a] ?? 0) + (aec.rewards[a] ?? 0)
      }
      const terminations = { ...aec.terminations }
      const truncations = { ...aec.truncations }
      const infos = { ...aec.infos }
      const observations: Record<string, Obs> = {}
      for (const a of aec.agents) observations[a] = aec.observe(a)
      while (aec.agents.length > 0 && (aec.terminations[aec.agentSelection] === true || aec.truncations[aec.agentSelection] === true)) {
        aec.step(null)
      }
      agents = [...aec.agents]
      return { observations, rewards, terminations, truncations, infos }
    },
    close: () => aec.close()
  }
}

/**
 * PettingZoo's `parallel_to_aec_wrapper`: agents act in `possibleAgents` order; their actions are buffered and the
 * parallel env steps when the last live agent of the cycle acts. Rewards, terminations and truncations then apply to
 * every agent; dead agents are stepped with `null` before the next cycle.
 */
export const parallelToAec = <Obs, Act>(par: ParallelEnv<Obs, Act>): AecEnv<Obs, Act> => {
  let agents: Array<string> = []
  let order: Array<string> = []
  let selection = ""
  let observations: Record<string, Obs> = {}
  let rewards: Record<string, number> = {}
  let cumulative: Record<string, number> = {}
  let terminations: Record<string, boolean> = {}
  let truncations: Record<string, boolean> = {}
  let infos: Record<string, Info> = {}
  let buffered: Record<string, Act | null> = {}
  const isDead = (a: string) => terminations[a] === true || truncations[a] === true
  const next = (after: string): string => {
    const i = order.indexOf(after)
    for (let k = 1; k <= order.length; k++) {
      const a = order[(i + k) % order.length]!
      if (agents.includes(a)) return a
    }
    return agents[0] ?? after
  }
  const env: AecEnv<Obs, Act> = {
    metadata: { ...par.metadata, is_parallelizable: true },
    possibleAgents: par.possibleAgents,
    get agents() {
      return agents
    },
    get agentSelection() {
      return selection
    },
    get rewards() {
      return rewards
    },
    get terminations() {
      return terminations
    },
    get truncations() {
      return truncations
    },
    get infos() {
      return infos
    },
    observationSpace: (agent) => par.observationSpace(agent),
    actionSpace: (agent) => par.actionSpace(agent),
    reset(options = {}) {
      const r = par.reset(options)
      observations = { ...r.observations }
      agents = [...par.agents]
      order = [...agents]
      selection = agents[0] ?? ""
      rewards = {}
      cumulative = {}
      terminations = {}
      truncations = {}
      infos = {}
      for (const a of agents) {
        rewards[a] = 0
        cumulative[a] = 0
        terminations[a] = false
        truncations[a] = false
        infos[a] = r.infos[a] ?? {}
      }
      buffered = {}
    },
    observe: (agent) => observations[agent] as Obs,
    last() {
      return {
        observation: observations[selection] as Obs,
        reward: cumulative[selection] ?? 0,
        termination: terminations[selection] ?? false,
        truncation: truncations[selection] ?? false,
        info: infos[selection] ?? {}
      }
    },
    step(action) {
      const agent = selection
      if (isDead(agent)) {
        if (action !== null) throw new InvalidActionError({ envId: par.metadata.name, action, space: "null (the agent is dead)" })
        delete rewards[agent]
        delete cumulative[agent]
        delete terminations[agent]
        delete truncations[agent]
        delete infos[agent]
        agents = agents.filter((a) => a !== agent)
        selection = agents.find(isDead) ?? agents[0] ?? agent
        for (const a of agents) rewards[a] = 0
        return
      }
      cumulative[agent] = 0
      buffered[agent] = action
      const isLast = agents.filter((a) => !isDead(a)).every((a) => a in buffered)
      if (isLast) {
        const r = par.step(buffered)
        buffered = {}
        observations = { ...observations, ...r.observations }
        for (const a of agents) {
          rewards[a] = r.rewards[a] ?? 0
          cumulative[a] = (cumulative[a] ?? 0) + rewards[a]!
          terminations[a] = r.terminations[a] ?? false
          truncations[a] = r.truncations[a] ?? false
          infos[a] = r.infos[a] ?? {}
        }
        const dead = agents.find(isDead)
        selection = dead ?? next(agent)
      } else {
        for (const a of agents) rewards[a] = 0
        selection = next(agent)
      }
    },
    close: () => par.close()
  }
  return env
}
