/**
 * A trained DRRN text policy (`@autodidact/optim`'s `DrrnPolicy`) as the parts a search needs: PUCT's prior (the
 * policy's action probabilities), a rollout policy, and a value source (rollouts of that policy). The DRRN has no
 * value head (it is trained critic-free), so its value of a state is the discounted return of a rollout of the
 * policy from the state: greedy by default, which on a deterministic env is exactly "what the policy alone would
 * get from here" (AlphaGo's rollout-policy leaf evaluation, Silver et al. 2016, with the policy net as the rollout
 * policy; PUCT's prior as in AlphaZero, Silver et al. 2017, arXiv:1712.01815).
 *
 * **Details**
 * - The DRRN reads `{ task, observation, admissible, history }` with `history` the earlier `(observation, action)`
 *   pairs of the episode (its recent-step features and its relational episode summary read them). The search's
 *   {@link PolicyInput} carries them as `steps` (filled in by every search of this package, with the real episode's
 *   steps before the root when the search is given them: `SearchPolicy.runEpisode` does); an input without `steps`
 *   pairs each action of `history` with an empty observation ({@link stepsOf}).
 * - `temperature` (default 1) divides the DRRN's scores before the softmax of the prior: above 1 flattens it
 *   (more exploration), below 1 sharpens it. A positive finite number, else an `InvalidOptionError`.
 * - One `DrrnPolicy.forward` per call (the policy's scratch is reused: not re-entrant, as the DRRN itself).
 * @see He et al. 2016, "Deep Reinforcement Learning with a Natural Language Action Space", arXiv:1511.04636
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { DrrnPolicy, DrrnValue } from "@autodidact/optim"
import type { Prior } from "./Mcts.js"
import { type Policy, type PolicyInput, stepsOf } from "./NodeStore.js"
import * as Value from "./Value.js"

/** The DRRN's view of a search input (`history` from `steps`). */
export const inputOf = (input: PolicyInput): DrrnPolicy.Input => ({
  task: input.task,
  observation: input.observation,
  admissible: input.admissible,
  history: stepsOf(input)
})

const checkTemperature = (t: number): number => {
  if (!(typeof t === "number" && t > 0 && Number.isFinite(t))) throw new InvalidOptionError({ option: "temperature", value: t, reason: "expected a positive finite number" })
  return t
}

/**
 * The policy's probabilities over `input.admissible` (softmax of the scores divided by `temperature`), a new array
 * of `admissible.length` entries summing to 1.
 * @throws InvalidOptionError for a bad temperature; RangeError (DrrnPolicy.forward) when nothing is admissible.
 */
export const probabilities = (policy: DrrnPolicy.Drrn, input: PolicyInput, temperature = 1): Float64Array => {
  checkTemperature(temperature)
  const k = input.admissible.length
  DrrnPolicy.forward(policy, DrrnPolicy.encode(policy, inputOf(input)))
  const out = new Float64Array(k)
  if (temperature === 1) {
    out.set(DrrnPolicy.probsOf(policy).subarray(0, k))
    return out
  }
  const logits = DrrnPolicy.logitsOf(policy)
  let max = -Infinity
  for (let a = 0; a < k; a++) if (logits[a]! > max) max = logits[a]!
  let total = 0
  for (let a = 0; a < k; a++) {
    out[a] = Math.exp((logits[a]! - max) / temperature)
    total += out[a]!
  }
  for (let a = 0; a < k; a++) out[a] = out[a]! / total
  return out
}

/**
 * PUCT's prior from the policy: {@link probabilities} at each new node.
 * @throws InvalidOptionError for a bad temperature (when made).
 */
export const prior = (policy: DrrnPolicy.Drrn, options: { readonly temperature?: number | undefined } = {}): Prior => {
  const temperature = checkTemperature(options.temperature ?? 1)
  return (input) => probabilities(policy, input, temperature)
}

/**
 * The policy as a text policy: its most probable action with `greedy` (default true; first on ties), else one
 * sampled with the given `rng`.
 */
export const policy = (drrn: DrrnPolicy.Drrn, options: { readonly greedy?: boolean | undefined } = {}): Policy => {
  const greedy = options.greedy ?? true
  return (input, rng) => input.admissible[DrrnPolicy.sample(drrn, DrrnPolicy.encode(drrn, inputOf(input)), rng, greedy).index]!
}

/**
 * The value source: rollouts of {@link policy} (greedy by default) of at most `depth` steps (default 50, TextHousehold-v0's
 * step limit; the search's `horizon` cuts them further).
 * @throws InvalidOptionError for a bad depth.
 */
export const rolloutValue = (
  drrn: DrrnPolicy.Drrn,
  options: { readonly depth?: number | undefined; readonly greedy?: boolean | undefined } = {}
): Value.Source => Value.policyRollout(policy(drrn, { greedy: options.greedy }), options.depth ?? 50)


/**
 * A learned value function from a value head fitted on the policy's rollouts (`@autodidact/optim`'s
 * `DrrnValue.fit`): `DrrnValue.predict` of the state's DRRN input (best-first priority, MCTS leaf value via
 * `Value.fromFunction`). One DRRN forward per call.
 * @since 0.2.0
 */
export const valueHead = (head: DrrnValue.ValueHead): Value.ValueFunction => (input) => DrrnValue.predict(head, inputOf(input))
