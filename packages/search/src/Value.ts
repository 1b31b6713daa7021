/**
 * Where a search gets the value of a new state: random rollouts, rollouts of a policy, or a value function (a learned
 * critic, or a reward model's score wrapped as a function). All are synchronous: they run inside the search loop.
 *
 * **Details**
 * - A rollout steps the env from the new node's state (it is there right after the expansion) with actions from the
 *   uniform random policy or the given policy, for at most `depth` steps or until the episode ends, and returns the
 *   discounted return `r_1 + γ r_2 + ...`. Rollout steps count against the `envSteps` budget; a rollout the budget
 *   cuts short returns its partial return. A rollout policy sees the node's view extended by each rollout step
 *   (`history` and `steps` both grow). The caller may cap the depth further (`depthLeft`: the steps the real
 *   episode has left below the node, e.g. under a step limit).
 * - A value function gets the node's {@link PolicyInput} and its state key and returns a finite number in the
 *   units of the env's return (`NaN`/`Infinity` is an `InvalidOptionError` naming the value). An asynchronous
 *   model (an ONNX critic, a `RewardModel`) must be wrapped to answer synchronously (e.g. precomputed, or batched
 *   outside the search); the search loop itself stays plain.
 * @since 0.1.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import type { Node, Policy, PolicyInput, Simulator, Step } from "./NodeStore.js"

/** A value function: `(state view, state key) => value` (finite). */
export type ValueFunction = (input: PolicyInput, stateKey: string) => number

/** How a search values a new state. */
export type Source =
  | { readonly kind: "random-rollout"; readonly depth: number }
  | { readonly kind: "policy-rollout"; readonly policy: Policy; readonly depth: number }
  | { readonly kind: "function"; readonly fn: ValueFunction }

/** Uniform random rollouts of at most `depth` steps (default 20). */
export const randomRollout = (depth = 20): Source => ({ kind: "random-rollout", depth: checkDepth(depth) })

/** Rollouts of `policy` of at most `depth` steps (default 20). */
export const policyRollout = (policy: Policy, depth = 20): Source => ({ kind: "policy-rollout", policy, depth: checkDepth(depth) })

/** A value function (critic, reward model score). */
export const fromFunction = (fn: ValueFunction): Source => ({ kind: "function", fn })

const checkDepth = (depth: number): number => {
  if (!(Number.isInteger(depth) && depth >= 0)) throw new InvalidOptionError({ option: "rollout depth", value: depth, reason: "expected an integer >= 0" })
  return depth
}

/**
 * What a rollout did, filled in by {@link evaluate} when given one: the state key before each rollout action, the
 * actions, and whether the last step reached the goal (the simulator's goal test). Empty for a value function.
 */
export interface RolloutTrace {
  readonly keys: Array<string>
  readonly actions: Array<string>
  goal: boolean
}

/** An empty {@link RolloutTrace}. */
export const makeTrace = (): RolloutTrace => ({ keys: [], actions: [], goal: false })

/**
 * The value of `node` under `source`; the env must be at `node` when a rollout is asked for (the searches call it
 * right after creating the node). `trace`, when given, is cleared and then records the rollout.
 * @throws InvalidOptionError when a value function returns a non-finite number.
 */
export const evaluate = (source: Source, sim: Simulator, node: Node, gamma: number, rng: Rng, depthLeft = Infinity, trace?: RolloutTrace): number => {
  if (trace !== undefined) {
    trace.keys.length = 0
    trace.actions.length = 0
    trace.goal = false
  }
  if (source.kind === "function") {
    const v = source.fn(sim.input(node), node.key)
    if (!Number.isFinite(v)) throw new InvalidOptionError({ option: "value function result", value: v, reason: `expected a finite number (state ${node.key})` })
    return v
  }
  sim.goTo(node)
  const env = sim.env
  let ret = 0
  let discount = 1
  let history: Array<string> | undefined
  let steps: Array<Step> | undefined
  let observation = node.observation
  const depth = Math.min(source.depth, depthLeft)
  for (let t = 0; t < depth && sim.meter.canStep(); t++) {
    const admissible = env.admissibleActions()
    if (admissible.length === 0) break
    let action: string
    if (source.kind === "random-rollout") action = admissible[rng.integers(admissible.length)]!
    else {
      if (history === undefined || steps === undefined) {
        const input = sim.input(node)
        history = [...input.history]
        steps = [...(input.steps ?? [])]
      }
      action = source.policy({ task: env.task, observation, admissible, history: history.slice(), steps: steps.slice() }, rng)
      history.push(action)
      steps.push({ observation, action })
    }
    if (trace !== undefined) {
      trace.keys.push(env.stateKey())
      trace.actions.push(action)
    }
    const r = sim.step(action)
    ret += discount * r.reward
    discount *= gamma
    observation = r.observation
    if (r.terminated || r.truncated) {
      if (trace !== undefined) trace.goal = sim.isGoal(r.reward, r.terminated, r.info)
      break
    }
  }
  return ret
}

