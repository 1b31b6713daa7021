/**
 * Reward-guided search for text environments that can be reset to a state: Best-of-N over whole episodes and
 * step-level beam search scored by a {@link RewardModel} (AgentRM, Xia et al. 2025).
 *
 * **Details**
 * - Reaching a state: beam search keeps each beam's env snapshot when the env is restorable (`snapshot()` /
 *   `restore()`, `TextEnv.isRestorableTextEnv`: TextHousehold, TextSokoban, TextFrozenLake), so jumping to a beam costs
 *   one restore. Other text envs are deterministic given `reset({ seed, options })`, so a state is also named by its
 *   task and the action prefix that led to it; {@link restore} resets and replays the prefix (O(prefix) steps). Both
 *   give the same search (tested).
 * - Policies are functions of what the agent sees ({@link Policy}); {@link randomPolicy} is the uniform-admissible
 *   baseline. An `optim` `TextPolicy` adapts in one line (`(input, rng) => p.act(p.encode(input), input, rng, false).action`).
 * - Step views given to the model: `state` = the observation the action was taken on, `history` (the previous actions)
 *   folded into the state text after a `||` separator, the candidate's `task` set.
 * - Best-of-N: N episodes from the policy, each scored by the model (`scoreSteps` aggregated by `"last"`, `"min"` or
 *   `"mean"`, or `scoreOutcome` with `"outcome"`); the best is returned. Policy samples: the sum of episode lengths.
 * - Beam search: `beamWidth` beams; at each step each live beam proposes `expansions` actions from the policy
 *   (duplicates merged), the model scores every (beam, action), the top `beamWidth` are executed. A beam that ends
 *   (terminated or truncated) stays in the pool; the result is the first successful beam, else the best-scored one.
 *   Policy samples: `expansions` per live beam per step.
 * @see Xia et al., "AgentRM: Enhancing Agent Generalization with Reward Modeling", arXiv:2502.18407
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import { TextEnv as TextEnvModule } from "@autodidact/envs"
import type { Snapshot } from "@autodidact/envs"
type TextEnv = TextEnvModule.TextEnv
import { Effect } from "effect"
import type { ScoreError } from "./RewardError.js"
import type { Candidate, RewardModelShape, StepView } from "./RewardModel.js"

/** A task: the reset arguments that reproduce its initial state. */
export interface Task {
  readonly seed: number
  readonly options?: { readonly [key: string]: unknown } | undefined
}

/** What a policy sees. */
export interface PolicyInput {
  readonly task: string
  readonly observation: string
  readonly admissible: ReadonlyArray<string>
  readonly history: ReadonlyArray<string>
}

/** A policy: picks one admissible action. */
export type Policy = (input: PolicyInput, rng: Rng) => string

/** The uniform random policy over the admissible actions (`rng.integers(admissible.length)`); the admissible list must not be empty. */
export const randomPolicy: Policy = (input, rng) => input.admissible[rng.integers(input.admissible.length)]!

/** One executed episode. */
export interface Episode {
  readonly task: string
  readonly actions: Array<string>
  /** Observation before each action. */
  readonly observations: Array<string>
  readonly success: boolean
  readonly return: number
  /** Whether the episode ended (terminated or truncated). */
  readonly done: boolean
  /** The observation after the last action. */
  readonly last: string
}

/** The state text the models see: `"<observation> || <last `keep` (default 4) actions joined by \" ; \">"`. */
export const stateText = (observation: string, history: ReadonlyArray<string>, keep = 4): string =>
  `${observation} || ${history.slice(-keep).join(" ; ")}`

/** An episode's steps as {@link StepView}s: step t's state text (observation before it and the actions before it), its action and history. */
export const stepViews = (e: Episode): Array<StepView> =>
  e.actions.map((action, t) => ({ state: stateText(e.observations[t]!, e.actions.slice(0, t)), action, history: e.actions.slice(0, t) }))

/** An episode as a {@link Candidate}: its task, its step views, and its actions joined by newlines as the `response`. */
export const candidate = (e: Episode): Candidate => ({ task: e.task, steps: stepViews(e), response: e.actions.join("\n") })

/**
 * Reset `env` to `task` (`reset({ seed, options })`) and replay `actions`; returns the episode so far (stopping at
 * the first terminated/truncated step; success = terminated with a positive reward). O(actions) env steps.
 */
export const restore = (env: TextEnv, task: Task, actions: ReadonlyArray<string>): Episode => {
  const r = env.reset({ seed: task.seed, options: task.options })
  const ep: Running = { task: env.task, actions: [], observations: [], success: false, return: 0, done: false, last: r.observation }
  for (const a of actions) if (advance(env, ep, a)) break
  return ep
}

type Running = { -readonly [K in keyof Episode]: Episode[K] }

/** Take action `a` from the running episode (recording the observation it was taken on); true when the episode ended. */
const advance = (env: TextEnv, ep: Running, a: string): boolean => {
  ep.observations.push(ep.last)
  ep.actions.push(a)
  const s = env.step(a)
  ep.last = s.observation
  ep.return += s.reward
  if (s.terminated || s.truncated) {
    ep.done = true
    ep.success = s.terminated && s.reward > 0
  }
  return ep.done
}

/**
 * Restore `prefix` (see {@link restore}), then act with `policy` until the episode terminates or truncates or has
 * `maxSteps` actions in all (prefix included); returns the whole episode.
 */
export const rollout = (env: TextEnv, task: Task, policy: Policy, rng: Rng, maxSteps: number, prefix: ReadonlyArray<string> = []): Episode => {
  const ep: Running = restore(env, task, prefix)
  while (!ep.done && ep.actions.length < maxSteps) {
    const a = policy({ task: env.task, observation: ep.last, admissible: env.admissibleActions(), history: ep.actions }, rng)
    advance(env, ep, a)
  }
  return ep
}

/** How Best-of-N turns a model's scores into one number per episode. */
export type Aggregate = "last" | "min" | "mean" | "outcome"

/** A search result. */
export interface SearchResult {
  readonly best: Episode
  readonly policySamples: number
  readonly candidates: number
}

const aggregate = (rm: RewardModelShape, eps: ReadonlyArray<Episode>, how: Aggregate): Effect.Effect<Array<number>, ScoreError> =>
  how === "outcome"
    ? rm.scoreOutcome(eps.map(candidate))
    : Effect.map(rm.scoreSteps(eps.map(candidate)), (rows) =>
      rows.map((r) => (how === "last" ? r[r.length - 1]! : how === "min" ? Math.min(...r) : r.reduce((a, b) => a + b, 0) / r.length)))

/**
 * Best-of-N over whole episodes (AgentRM, Xia et al. 2025, arXiv:2502.18407): `n` episodes from `policy`, each
 * scored by `rm` (`aggregate`: the last, min or mean step score, or `"outcome"`), the highest returned (the first on
 * ties; episodes with no action are skipped). `policySamples` counts policy calls, `candidates` episodes.
 * @returns fails with the model's ScoreError.
 */
export const bestOfN = (
  env: TextEnv,
  task: Task,
  policy: Policy,
  rm: RewardModelShape,
  options: { readonly n: number; readonly maxSteps: number; readonly rng: Rng; readonly aggregate?: Aggregate | undefined }
): Effect.Effect<SearchResult, ScoreError> =>
  Effect.gen(function* () {
    const eps = Array.from({ length: options.n }, () => rollout(env, task, policy, options.rng, options.maxSteps))
    const withSteps = eps.filter((e) => e.actions.length > 0)
    const scores = yield* aggregate(rm, withSteps, options.aggregate ?? "last")
    let best = 0
    for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i
    return { best: withSteps[best]!, policySamples: eps.reduce((a, e) => a + e.actions.length, 0), candidates: eps.length }
  })

/**
 * Step-level beam search guided by `rm`'s step scores (AgentRM, arXiv:2502.18407): `beamWidth` beams, each live
 * beam proposing `expansions` actions per step (duplicates merged), the best `beamWidth` (beam, action) pairs
 * executed, up to `maxSteps` steps. Returns the first successful beam, else the best scored one; `policySamples`
 * counts policy calls, `candidates` scored proposals.
 * @returns fails with the model's ScoreError.
 */
export const beamSearch = (
  env: TextEnv,
  task: Task,
  policy: Policy,
  rm: RewardModelShape,
  options: { readonly beamWidth: number; readonly expansions: number; readonly maxSteps: number; readonly rng: Rng }
): Effect.Effect<SearchResult, ScoreError> =>
  Effect.gen(function* () {
    // a beam's state: its snapshot when the env has them, else its task and action prefix (reset + replay)
    const restorable = TextEnvModule.isRestorableTextEnv(env) ? env : undefined
    type Beam = { ep: Episode; score: number; snap: Snapshot.EnvSnapshot | undefined }
    const goTo = (b: Beam) => (restorable !== undefined && b.snap !== undefined ? restorable.restore(b.snap) : restore(env, task, b.ep.actions))
    const start = restore(env, task, [])
    let beams: Array<Beam> = [{ ep: start, score: 0, snap: restorable?.snapshot() }]
    let samples = 0, candidates = 0
    for (let t = 0; t < options.maxSteps; t++) {
      const won = beams.find((b) => b.ep.success)
      if (won !== undefined) return { best: won.ep, policySamples: samples, candidates }
      const live = beams.filter((b) => !b.ep.done)
      if (live.length === 0) break
      const proposals: Array<{ beam: Beam; action: string }> = []
      for (const b of live) {
        goTo(b)
        const input: PolicyInput = { task: b.ep.task, observation: b.ep.last, admissible: env.admissibleActions(), history: b.ep.actions }
        const seen = new Set<string>()
        for (let k = 0; k < options.expansions; k++) {
          const a = policy(input, options.rng)
          samples++
          if (!seen.has(a)) {
            seen.add(a)
            proposals.push({ beam: b, action: a })
          }
        }
      }
      candidates += proposals.length
      const scores = yield* Effect.map(
        rm.scoreSteps(proposals.map((p) => ({ task: p.beam.ep.task, steps: [{ state: stateText(p.beam.ep.last, p.beam.ep.actions), action: p.action, history: p.beam.ep.actions }] }))),
        (r) => r.map((x) => x[0]!)
      )
      const order = proposals.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]!).slice(0, options.beamWidth)
      const next = order.map((i): Beam => {
        const { beam, action } = proposals[i]!
        goTo(beam)
        const ep: Running = { ...beam.ep, actions: [...beam.ep.actions], observations: [...beam.ep.observations] }
        advance(env, ep, action)
        return { ep, score: scores[i]!, snap: restorable?.snapshot() }
      })
      beams = [...beams.filter((b) => b.ep.done), ...next].sort((a, b) => b.score - a.score).slice(0, Math.max(options.beamWidth, 1))
    }
    const won = beams.find((b) => b.ep.success)
    return { best: (won ?? beams[0]!).ep, policySamples: samples, candidates }
  })
