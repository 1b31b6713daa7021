/**
 * A conformance check for PettingZoo Parallel environments: PettingZoo's `pettingzoo/test/parallel_test.py`
 * (`parallel_api_test`) plus its `parallel_seed_test` (Terry et al. 2021, arXiv:2009.14471), as `CheckAecEnv` is its
 * `api_test` for AEC envs. It plays random legal actions for `numCycles` parallel steps, resetting when every agent is
 * gone, and records each broken rule as a finding `property: what was wrong (offending value)`.
 *
 * **When to use**: in the test of a new Parallel env (or an AEC env through `aecToParallel`), in any test runner.
 *
 * **Gotchas**
 * - The env is reset and stepped; pass a fresh one. Stricter than PettingZoo in one place: `reset`'s dicts must
 *   have exactly the live agents as keys (PettingZoo tolerates extra keys such as `"common"`).
 * - The determinism check needs `reset({ seed })` to fix every random draw of the episode.
 *
 * **Checks** (the finding's property name first)
 * - `possibleAgents`: a non-empty list without duplicates.
 * - `spaces`: `observationSpace(agent)` and `actionSpace(agent)` are valid spaces for every possible agent.
 * - `reset`: returns `{ observations, infos }` objects keyed by exactly the live agents (after reset).
 * - `agents`: `agents` has no duplicates, lies within `possibleAgents`, and an agent that finished is never revived.
 * - `observation`: every observation (reset and step) lies in its agent's observation space.
 * - `actionMask`: when an observation has an `action_mask`, it has one 0/1 entry per action of a `Discrete` action
 *   space, and some live agent has a legal action; the check then only plays legal actions (`null` for an agent whose
 *   mask is all zeros).
 * - `step`: `step(actions)` with one action per live agent does not throw and returns the five dicts.
 * - `keys`: the keys of `observations`, `rewards`, `terminations`, `truncations`, `infos` equal the agents that acted
 *   (the live agents before the step).
 * - `reward`: every reward is a finite number.
 * - `flags`: every termination and truncation is a boolean.
 * - `info`: every info is a plain object.
 * - `agentRemoval`: an agent that terminated or was truncated is not in `agents` after the step; one that did not
 *   stays (an agent never leaves without a flag).
 * - `episodeEnd`: when `agents` becomes empty, every possible agent that was live finished with a flag
 *   (PettingZoo's "not all agents finished, some were skipped over").
 * - `determinism`: two rollouts from `reset({ seed })` with the same action choices give the same observations,
 *   rewards and flags (PettingZoo's `parallel_seed_test`).
 * - `unexpected`: the env threw where no call was expected to fail (a getter such as `agents`): reported as a
 *   finding instead of escaping the check.
 *
 * @example
 * ```ts
 * import { CheckParallelEnv, GameRegistry, MultiAgent } from "@autodidact/envs"
 * const report = CheckParallelEnv.checkParallelEnv(MultiAgent.gameToParallel(GameRegistry.loadGame("matrix_rps")))
 * report.steps // parallel steps taken; throws ParallelEnvCheckError listing the findings on failure
 * ```
 * @see https://github.com/Farama-Foundation/PettingZoo/blob/master/pettingzoo/test/parallel_test.py
 * @see https://github.com/Farama-Foundation/PettingZoo/blob/master/pettingzoo/test/seed_test.py
 * @since 0.2.0
 */
import { Rng, Space } from "@autodidact/core"
import { Effect, Schema } from "effect"
import { countOption, errorText, Findings, isInfo, isSpace, legalActions, seedOption, serialize, show } from "../internal/CheckCommon.js"
import type { ParallelEnv, ParallelStepResult } from "../multiagent/ParallelEnv.js"

/**
 * The parallel env breaks the API; `findings` lists every problem found (as `property: message`).
 * @category errors
 */
export class ParallelEnvCheckError extends Schema.TaggedError<ParallelEnvCheckError>()("ParallelEnvCheckError", {
  envId: Schema.String,
  findings: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.envId} failed the parallel env check:\n${this.findings.map((f) => `  - ${f}`).join("\n")}`
  }
}

/** Options of {@link checkParallelEnv}. */
export interface CheckParallelEnvOptions {
  /** Parallel steps of the main rollout (PettingZoo's `num_cycles`, default 1000). */
  readonly numCycles?: number | undefined
  /** Seed of the main rollout; the determinism check replays `min(numCycles, 50)` steps with `seed + 1` twice. Default 42. */
  readonly seed?: number | undefined
}

/** What {@link checkParallelEnv} saw. */
export interface ParallelCheckReport {
  /** Parallel steps taken in the main rollout. */
  readonly steps: number
  /** Episodes started in the main rollout (at least 1). */
  readonly episodes: number
  /** Agent actions taken in the main rollout (`null` actions of agents without a legal action not counted). */
  readonly agentActions: number
}

type Dict = { readonly [agent: string]: unknown }
const isDict = (x: unknown): x is Dict => x !== null && typeof x === "object" && !Array.isArray(x)
const keyList = (d: Dict): string => Object.keys(d).sort().join(",")

/**
 * PettingZoo's `parallel_api_test` (and `parallel_seed_test`) for `env` (see the module docs for the properties). The
 * env is reset and stepped: pass one you do not need in a particular state.
 * @returns the number of parallel steps, episodes and agent actions of the main rollout.
 * @throws ParallelEnvCheckError listing every finding (deduplicated, at most 50); InvalidOptionError for a
 *   `numCycles` or `seed` that is not a non-negative integer.
 */
export const checkParallelEnv = <Obs, Act>(env: ParallelEnv<Obs, Act>, options: CheckParallelEnvOptions = {}): ParallelCheckReport => {
  const numCycles = countOption("numCycles", options.numCycles, 1000)
  const seed = seedOption(options.seed, 42)
  const findings = new Findings()
  const add = (property: string, message: string) => findings.add(property, message)
  const possible = env.possibleAgents
  const envId = typeof env.metadata?.name === "string" ? env.metadata.name : "ParallelEnv"
  const fail = (): never => {
    throw new ParallelEnvCheckError({ envId, findings: findings.list() })
  }

  const body = (): ParallelCheckReport => {
    if (!Array.isArray(possible) || possible.length === 0) add("possibleAgents", `expected a non-empty list, got ${show(possible)}`)
    else if (new Set(possible).size !== possible.length) add("possibleAgents", `has duplicates: ${show(possible)}`)
    for (const a of Array.isArray(possible) ? possible : []) {
      for (const [what, f] of [["observationSpace", () => env.observationSpace(a)], ["actionSpace", () => env.actionSpace(a)]] as const) {
        try {
          const s = f()
          if (!isSpace(s)) add("spaces", `${what}(${a}) is not a valid space: ${show(s)}`)
        } catch (e) {
          add("spaces", `${what}(${a}) threw: ${errorText(e)}`)
        }
      }
    }
    if (!findings.empty) fail()

    const inSpace = (agent: string, obs: unknown, when: string) => {
      if (!possible.includes(agent)) return
      const space = env.observationSpace(agent)
      if (!Space.contains(space, obs)) add("observation", `${when}: observation of ${agent} is not in ${Space.describe(space)}: ${show(obs)}`)
    }
    const checkAgents = (finished: ReadonlySet<string>, when: string) => {
      const agents = env.agents
      if (new Set(agents).size !== agents.length) add("agents", `${when}: agents has duplicates: ${show(agents)}`)
      for (const a of agents) {
        if (!possible.includes(a)) add("agents", `${when}: agent ${a} is not in possibleAgents [${possible.join(", ")}]`)
        if (finished.has(a)) add("agents", `${when}: agent ${a} finished earlier in the episode but is in agents again`)
      }
    }
    const doReset = (s: number): Dict | undefined => {
      let r: unknown
      try {
        r = env.reset({ seed: s })
      } catch (e) {
        add("reset", `reset({ seed: ${s} }) threw: ${errorText(e)}`)
        return undefined
      }
      if (!isDict(r) || !isDict(r["observations"]) || !isDict(r["infos"])) {
        add("reset", `reset({ seed: ${s} }) did not return { observations, infos } objects: ${show(r)}`)
        return undefined
      }
      const observations = r["observations"]
      const infos = r["infos"]
      const want = [...env.agents].sort().join(",")
      if (keyList(observations) !== want) add("reset", `observations keys [${keyList(observations)}] differ from agents [${want}]`)
      if (keyList(infos) !== want) add("reset", `infos keys [${keyList(infos)}] differ from agents [${want}]`)
      for (const [a, info] of Object.entries(infos)) if (!isInfo(info)) add("info", `reset info of ${a} is not an object: ${show(info)}`)
      checkAgents(new Set(), "after reset")
      for (const [a, o] of Object.entries(observations)) inSpace(a, o, "reset")
      return observations
    }

    /** One action per live agent: legal under its mask, else sampled; undefined when no live agent can act. */
    const chooseActions = (obs: Dict, live: ReadonlyArray<string>, rng: Rng): Record<string, Act | null> | undefined => {
      const actions: Record<string, Act | null> = {}
      let masked = 0
      let empty = 0
      for (const a of live) {
        const space = env.actionSpace(a)
        const legal = legalActions(obs[a])
        if (legal === undefined) {
          actions[a] = Space.sample(space, rng) as Act
          continue
        }
        masked++
        const mask = (obs[a] as { readonly action_mask: unknown }).action_mask as ArrayLike<number>
        if (space._tag !== "Discrete") add("actionMask", `${a} has an action_mask but its action space is ${Space.describe(space)}, not Discrete`)
        else if (mask.length !== space.n) add("actionMask", `action_mask of ${a} has ${mask.length} entries for ${Space.describe(space)}`)
        if (Array.from(mask).some((m) => m !== 0 && m !== 1)) add("actionMask", `action_mask of ${a} is not 0/1: ${show(mask)}`)
        if (legal.length === 0) {
          empty++
          actions[a] = null
          continue
        }
        const start = space._tag === "Discrete" ? space.start : 0
        actions[a] = (start + legal[rng.integers(legal.length)]!) as Act
      }
      if (live.length > 0 && masked === live.length && empty === live.length) {
        add("actionMask", `every live agent [${live.join(", ")}] has an all-zero action_mask: no agent can act`)
        return undefined
      }
      return actions
    }

    const checkResult = (r: unknown, live: ReadonlyArray<string>, t: number): r is ParallelStepResult<Obs> => {
      const fields = ["observations", "rewards", "terminations", "truncations", "infos"] as const
      if (!isDict(r) || fields.some((f) => !isDict(r[f]))) {
        add("step", `step ${t} did not return { observations, rewards, terminations, truncations, infos } objects: ${show(r)}`)
        return false
      }
      const want = [...live].sort().join(",")
      for (const f of fields) {
        const got = keyList(r[f] as Dict)
        if (got !== want) add("keys", `step ${t}: ${f} keys [${got}] differ from the agents that acted [${want}]`)
      }
      for (const [a, x] of Object.entries(r["rewards"] as Dict)) {
        if (typeof x !== "number" || !Number.isFinite(x)) add("reward", `step ${t}: reward of ${a} is not a finite number: ${show(x)}`)
      }
      for (const f of ["terminations", "truncations"] as const) {
        for (const [a, x] of Object.entries(r[f] as Dict)) {
          if (typeof x !== "boolean") add("flags", `step ${t}: ${f} of ${a} is not a boolean: ${show(x)}`)
        }
      }
      for (const [a, x] of Object.entries(r["infos"] as Dict)) if (!isInfo(x)) add("info", `step ${t}: info of ${a} is not an object: ${show(x)}`)
      for (const [a, o] of Object.entries(r["observations"] as Dict)) inSpace(a, o, `step ${t}`)
      return true
    }

    /** Plays `cycles` parallel steps from `reset({ seed: s })`; `record` gets one line per reset and step. */
    const rollout = (s: number, cycles: number, record?: Array<string>): ParallelCheckReport => {
      const rng = Rng.make(s)
      let obs = doReset(s)
      let episodes = 1
      let steps = 0
      let agentActions = 0
      const finished = new Set<string>()
      const everLive = new Set<string>(env.agents)
      record?.push(serialize([env.agents, obs]))
      while (obs !== undefined && steps < cycles) {
        if (env.agents.length === 0) {
          const skipped = [...everLive].filter((a) => !finished.has(a))
          if (skipped.length > 0) add("episodeEnd", `agents is empty but [${skipped.join(", ")}] never terminated or were truncated`)
          obs = doReset(s + episodes)
          episodes++
          finished.clear()
          everLive.clear()
          for (const a of env.agents) everLive.add(a)
          record?.push(serialize([env.agents, obs]))
          continue
        }
        const live = [...env.agents]
        const actions = chooseActions(obs, live, rng)
        if (actions === undefined) break
        let r: unknown
        try {
          r = env.step(actions)
        } catch (e) {
          add("step", `step ${steps} with actions ${show(actions)} threw: ${errorText(e)}`)
          break
        }
        steps++
        agentActions += Object.values(actions).filter((a) => a !== null).length
        if (!checkResult(r, live, steps - 1)) break
        const after = env.agents
        for (const a of live) {
          const ended = r.terminations[a] === true || r.truncations[a] === true
          if (ended) {
            finished.add(a)
            if (after.includes(a)) add("agentRemoval", `step ${steps - 1}: ${a} terminated or was truncated but is still in agents [${after.join(", ")}]`)
          } else if (!after.includes(a)) {
            add("agentRemoval", `step ${steps - 1}: ${a} left agents without terminating or being truncated`)
          }
        }
        checkAgents(finished, `after step ${steps - 1}`)
        for (const a of after) everLive.add(a)
        record?.push(serialize([actions, r.rewards, r.terminations, r.truncations, r.observations]))
        obs = r.observations as Dict
      }
      return { steps, episodes, agentActions }
    }

    const report = rollout(seed, numCycles)
    if (findings.empty) {
      const a: Array<string> = []
      const b: Array<string> = []
      const short = Math.min(numCycles, 50)
      rollout(seed + 1, short, a)
      rollout(seed + 1, short, b)
      const i = a.findIndex((x, k) => x !== b[k])
      if (i >= 0 || a.length !== b.length) {
        const k = i >= 0 ? i : Math.min(a.length, b.length)
        add("determinism", `two rollouts from reset({ seed: ${seed + 1} }) with the same actions differ at record ${k}: ${(a[k] ?? "(none)").slice(0, 120)} vs ${(b[k] ?? "(none)").slice(0, 120)}`)
      }
    }
    if (!findings.empty) fail()
    return report
  }
  try {
    return body()
  } catch (e) {
    if (e instanceof ParallelEnvCheckError) throw e
    add("unexpected", `the env threw outside the calls the check guards: ${errorText(e)}`)
    return fail()
  }
}

/** {@link checkParallelEnv} as an Effect: fails with {@link ParallelEnvCheckError}, succeeds with the report. */
export const check = <Obs, Act>(
  env: ParallelEnv<Obs, Act>,
  options: CheckParallelEnvOptions = {}
): Effect.Effect<ParallelCheckReport, ParallelEnvCheckError> =>
  Effect.try({
    try: () => checkParallelEnv(env, options),
    catch: (e) => e instanceof ParallelEnvCheckError ? e : new ParallelEnvCheckError({ envId: "ParallelEnv", findings: [`check: ${errorText(e)}`] })
  })
