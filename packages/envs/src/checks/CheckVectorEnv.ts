/**
 * A conformance check for vector environments (`SyncVectorEnv`, `AsyncVectorEnv`, your own {@link VectorEnv}):
 * Gymnasium 1.x's vector API (`gymnasium/vector/vector_env.py`, the `AutoresetMode`s of
 * `gymnasium/vector/sync_vector_env.py`) with this package's batch layouts (`vector/VectorEnv.ts`). It plays random
 * actions from `reset({ seed })` until every sub-env has ended once (or `steps` run out) and records each broken
 * rule as a finding `property: what was wrong (offending value)`.
 *
 * Pass a factory `(autoresetMode) => VectorEnv` to check all three autoreset modes and compare them with each
 * other (the strongest check), or one vector env to check its own mode. Sub-envs must be copies of one environment
 * (as `makeVec` builds them), and must end now and then under random actions: a check in which no sub-env ended
 * fails with an `autoreset` finding rather than passing without checking the mode.
 *
 * **When to use**: in the test of a new vector env class (a factory over its modes), or on one instance of a
 * costly vector env such as `AsyncVectorEnv` (its own mode only).
 *
 * **Gotchas**
 * - The vector envs are closed at the end (the `close` check); a single env passed in cannot be used afterwards.
 * - `Disabled`'s "throws until reset" rule is this package's documented one (`VectorEnv.step` throws
 *   `ResetNeededError` for an ended sub-env); a vector env that steps it anyway fails the check.
 *
 * **Checks** (the finding's property name first)
 * - `spaces`: `numEnvs` is a positive integer, `singleObservationSpace`/`singleActionSpace` are valid spaces, and
 *   `autoresetMode` is the mode asked for (one of `NextStep`, `SameStep`, `Disabled`).
 * - `reset`: `reset({ seed })` returns `{ observations, infos }` and does not throw.
 * - `observation`: every observation batch has the documented layout (`Box`: a typed array of its dtype with
 *   `numEnvs * size` elements; `Discrete`: an `Int32Array(numEnvs)`; other spaces: an array of `numEnvs` values), each
 *   row in `singleObservationSpace`.
 * - `step`: `step(actions)` with a batch of sampled actions does not throw and returns the five fields.
 * - `reward`: `rewards` is a `Float64Array(numEnvs)` of finite numbers.
 * - `flags`: `terminations` and `truncations` are `Uint8Array(numEnvs)`s of 0/1.
 * - `info`: `infos.infos` has one plain object per sub-env.
 * - `seeding`: `reset({ seed })` gives sub-env i the seed `seed + i`: twice the same seed gives the same batch, the
 *   array `[seed, seed + 1, ...]` gives the same batch, and base seed `seed + 1` gives row i the first observation
 *   that base `seed` gave row i + 1.
 * - `determinism`: replaying the same seed and actions gives the same observations, rewards and flags.
 * - `autoreset`, per mode (Gymnasium 1.x `AutoresetMode`):
 *   - `NextStep`: the step after sub-env i ended is a reset step: reward 0, terminated and truncated 0, and its
 *     action is ignored (a replay with another action in row i gives the same result).
 *   - `SameStep`: the step in which sub-env i ends returns `infos.finalObservation[i]` (in the space) and
 *     `infos.finalInfo[i]` (an object), and no final observation for sub-envs that did not end.
 *   - `Disabled`: after sub-env i ended, `step` throws `ResetNeededError` until `reset({ options: { resetMask } })`,
 *     which resets the marked rows only (the others keep their observations).
 *   - Across modes (factory only): until sub-env i first ends, the three modes agree on it; at that step NextStep's
 *     and Disabled's observation is SameStep's final observation, and SameStep's observation (the reset one) is
 *     NextStep's next observation and the one Disabled's masked reset returns.
 * - `close`: `close()` is idempotent, and `step` after it throws.
 * - `unexpected`: the vector env threw where no call was expected to fail (a getter of a result): reported as a
 *   finding instead of escaping the check.
 *
 * @example
 * ```ts
 * import { CheckVectorEnv, Registry } from "@autodidact/envs"
 * const report = CheckVectorEnv.checkVectorEnv((autoresetMode) => Registry.makeVec("CartPole-v1", 3, { autoresetMode }))
 * report.modes.map((m) => m.episodesEnded) // throws VectorEnvCheckError listing the findings on failure
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/vector/sync_vector_env.py
 * @see https://farama.org/Vector-Autoreset-Mode (the three autoreset modes)
 * @since 0.2.0
 */
import { InvalidOptionError, Rng, Space } from "@autodidact/core"
import { Effect, Schema } from "effect"
import { countOption, errorText, Findings, isInfo, isSpace, seedOption, serialize, show } from "../internal/CheckCommon.js"
import * as VectorBatch from "../vector/VectorBatch.js"
import type { AutoresetMode, Batch, VectorEnv, VectorStepResult } from "../vector/VectorEnv.js"

/**
 * The vector env breaks the API; `findings` lists every problem found (as `property: message`).
 * @category errors
 */
export class VectorEnvCheckError extends Schema.TaggedError<VectorEnvCheckError>()("VectorEnvCheckError", {
  envId: Schema.String,
  findings: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.envId} failed the vector env check:\n${this.findings.map((f) => `  - ${f}`).join("\n")}`
  }
}

/** Builds a fresh vector env in the given autoreset mode. */
export type VectorEnvFactory = (autoresetMode: AutoresetMode) => VectorEnv

/** Options of {@link checkVectorEnv}. */
export interface CheckVectorEnvOptions {
  /** Base seed of every reset and of the sampled actions. Default 0. */
  readonly seed?: number | undefined
  /** Most steps per mode (the rollout stops earlier once every sub-env has ended). Default 300. */
  readonly steps?: number | undefined
  /** Modes checked with a factory. Default all three. */
  readonly modes?: ReadonlyArray<AutoresetMode> | undefined
  /** The name in the error. Default `VectorEnv`. */
  readonly envId?: string | undefined
}

/** What {@link checkVectorEnv} saw in one mode. */
export interface VectorModeReport {
  /** The autoreset mode. */
  readonly mode: AutoresetMode
  /** Steps of the rollout. */
  readonly steps: number
  /** Sub-env episodes that ended (terminated or truncated) in the rollout. */
  readonly episodesEnded: number
}

/** What {@link checkVectorEnv} saw. */
export interface VectorCheckReport {
  /** Sub-envs per vector env. */
  readonly numEnvs: number
  /** One entry per mode checked. */
  readonly modes: ReadonlyArray<VectorModeReport>
}

const MODES: ReadonlyArray<AutoresetMode> = ["NextStep", "SameStep", "Disabled"]
const isTagged = (e: unknown, tag: string): boolean => typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === tag

/** A copy of one step: each row serialized. */
interface Snapshot {
  readonly obs: ReadonlyArray<string>
  readonly rewards: ReadonlyArray<number>
  readonly terminations: ReadonlyArray<number>
  readonly truncations: ReadonlyArray<number>
  readonly final: ReadonlyArray<string | undefined> | undefined
  /** Rows after a `Disabled` masked reset of the rows that ended (else undefined). */
  readonly afterReset: ReadonlyArray<string> | undefined
}

interface Rollout {
  readonly first: ReadonlyArray<string>
  readonly steps: ReadonlyArray<Snapshot>
  /** Step at which each sub-env first ended (-1 when it did not). */
  readonly firstEnd: ReadonlyArray<number>
  readonly ended: number
}

/**
 * Check a vector env, or every autoreset mode of a factory's vector envs (see the module docs for the properties).
 * The vector envs are reset, stepped and closed.
 * @returns per mode, the steps played and the sub-env episodes that ended.
 * @throws VectorEnvCheckError listing every finding (deduplicated, at most 50); InvalidOptionError for a `steps`
 *   or `seed` that is not a non-negative integer, or a mode in `modes` that is not an autoreset mode.
 */
export const checkVectorEnv = (target: VectorEnv | VectorEnvFactory, options: CheckVectorEnvOptions = {}): VectorCheckReport => {
  const seed = seedOption(options.seed, 0)
  const maxSteps = countOption("steps", options.steps, 300)
  const findings = new Findings()
  const add = (property: string, message: string) => findings.add(property, message)
  const envId = options.envId ?? "VectorEnv"
  const fail = (): never => {
    throw new VectorEnvCheckError({ envId, findings: findings.list() })
  }
  const modes = typeof target === "function" ? options.modes ?? MODES : [target.autoresetMode]
  for (const m of options.modes ?? []) {
    if (!MODES.includes(m)) throw new InvalidOptionError({ option: "modes", value: options.modes, reason: `expected modes among ${MODES.join(", ")}` })
  }
  const reports: Array<VectorModeReport> = []
  const rollouts = new Map<AutoresetMode, Rollout>()
  let numEnvs = 0

  for (const mode of modes) {
    let env: VectorEnv
    try {
      env = typeof target === "function" ? target(mode) : target
    } catch (e) {
      add("spaces", `${mode}: building the vector env threw: ${errorText(e)}`)
      continue
    }
    try {
      const r = checkOne(env, mode, typeof target === "function", seed, maxSteps, add)
      if (r !== undefined) {
        rollouts.set(mode, r)
        numEnvs = env.numEnvs
        reports.push({ mode, steps: r.steps.length, episodesEnded: r.ended })
      }
    } catch (e) {
      add("unexpected", `${mode}: the vector env threw outside the calls the check guards: ${errorText(e)}`)
    } finally {
      checkClose(env, mode, add)
    }
  }
  if (findings.empty) crossModes(rollouts, add)
  if (!findings.empty) fail()
  return { numEnvs, modes: reports }
}

/** {@link checkVectorEnv} as an Effect: fails with {@link VectorEnvCheckError}, succeeds with the report. */
export const check = (
  target: VectorEnv | VectorEnvFactory,
  options: CheckVectorEnvOptions = {}
): Effect.Effect<VectorCheckReport, VectorEnvCheckError> =>
  Effect.try({
    try: () => checkVectorEnv(target, options),
    catch: (e) => e instanceof VectorEnvCheckError ? e : new VectorEnvCheckError({ envId: options.envId ?? "VectorEnv", findings: [`check: ${errorText(e)}`] })
  })

type Add = (property: string, message: string) => void

const checkOne = (env: VectorEnv, mode: AutoresetMode, fromFactory: boolean, seed: number, maxSteps: number, add: Add): Rollout | undefined => {
  const n = env.numEnvs
  const obsSpace = env.singleObservationSpace
  const actSpace = env.singleActionSpace
  let ok = true
  const bad = (property: string, message: string) => {
    ok = false
    add(property, `${mode}: ${message}`)
  }
  if (!Number.isInteger(n) || n <= 0) bad("spaces", `numEnvs is not a positive integer: ${show(n)}`)
  if (!isSpace(obsSpace)) bad("spaces", `singleObservationSpace is not a valid space: ${show(obsSpace)}`)
  if (!isSpace(actSpace)) bad("spaces", `singleActionSpace is not a valid space: ${show(actSpace)}`)
  if (!MODES.includes(env.autoresetMode)) bad("spaces", `autoresetMode ${show(env.autoresetMode)} is not one of ${MODES.join(", ")}`)
  else if (env.autoresetMode !== mode) bad("spaces", `autoresetMode is ${show(env.autoresetMode)}${fromFactory ? `, but the factory was asked for ${mode}` : ""}`)
  if (!ok) return undefined

  /** The rows of an observation batch (serialized), after checking its layout and that each row is in the space. */
  const rows = (batch: unknown, when: string): Array<string> | undefined => {
    if (obsSpace._tag === "Box") {
      const size = Space.boxSize(obsSpace)
      const want = Space.allocate(obsSpace.dtype, 0).constructor
      if (!(batch instanceof want) || (batch as ArrayLike<number>).length !== n * size) {
        bad("observation", `${when}: observations are not a ${want.name} of ${n * size} elements: ${show(batch)}`)
        return undefined
      }
    } else if (obsSpace._tag === "Discrete") {
      if (!(batch instanceof Int32Array) || batch.length !== n) {
        bad("observation", `${when}: observations are not an Int32Array(${n}): ${show(batch)}`)
        return undefined
      }
    } else if (!Array.isArray(batch) || batch.length !== n) {
      bad("observation", `${when}: observations are not an array of ${n} values: ${show(batch)}`)
      return undefined
    }
    const out: Array<string> = []
    for (let i = 0; i < n; i++) {
      const row = VectorBatch.read(obsSpace, batch as Batch, i)
      if (!Space.contains(obsSpace, row)) bad("observation", `${when}: row ${i} is not in ${Space.describe(obsSpace)}: ${show(row)}`)
      out.push(serialize(row))
    }
    return out
  }
  const checkInfos = (infos: unknown, when: string) => {
    const list = (infos as { infos?: unknown } | undefined)?.infos
    if (!Array.isArray(list) || list.length !== n) bad("info", `${when}: infos.infos is not an array of ${n} objects: ${show(list)}`)
    else list.forEach((x, i) => {
      if (!isInfo(x)) bad("info", `${when}: infos.infos[${i}] is not an object: ${show(x)}`)
    })
  }
  const reset = (opts: Parameters<VectorEnv["reset"]>[0], when: string): Array<string> | undefined => {
    let r: unknown
    try {
      r = env.reset(opts)
    } catch (e) {
      bad("reset", `${when} threw: ${errorText(e)}`)
      return undefined
    }
    if (r === null || typeof r !== "object" || !("observations" in r)) {
      bad("reset", `${when} did not return { observations, infos }: ${show(r)}`)
      return undefined
    }
    checkInfos((r as { infos?: unknown }).infos, when)
    return rows((r as { observations: unknown }).observations, when)
  }
  const checkStep = (r: unknown, t: number): r is VectorStepResult => {
    if (r === null || typeof r !== "object" || !("observations" in r) || !("rewards" in r) || !("terminations" in r) || !("truncations" in r)) {
      bad("step", `step ${t} did not return { observations, rewards, terminations, truncations, infos }: ${show(r)}`)
      return false
    }
    const s = r as VectorStepResult
    if (!(s.rewards instanceof Float64Array) || s.rewards.length !== n) bad("reward", `step ${t}: rewards are not a Float64Array(${n}): ${show(s.rewards)}`)
    else s.rewards.forEach((x, i) => {
      if (!Number.isFinite(x)) bad("reward", `step ${t}: reward of sub-env ${i} is not finite: ${x}`)
    })
    for (const f of ["terminations", "truncations"] as const) {
      const v = s[f]
      if (!(v instanceof Uint8Array) || v.length !== n || v.some((x) => x > 1)) bad("flags", `step ${t}: ${f} are not a Uint8Array(${n}) of 0/1: ${show(v)}`)
    }
    checkInfos(s.infos, `step ${t}`)
    return ok
  }

  // Seeding: sub-env i gets seed + i.
  const a = reset({ seed }, `reset({ seed: ${seed} })`)
  if (a === undefined) return undefined
  const b = reset({ seed }, `reset({ seed: ${seed} }) again`)
  const arr = reset({ seed: Array.from({ length: n }, (_, i) => seed + i) }, `reset({ seed: [${seed}, ${seed + 1}, ...] })`)
  const shifted = reset({ seed: seed + 1 }, `reset({ seed: ${seed + 1} })`)
  if (b === undefined || arr === undefined || shifted === undefined) return undefined
  if (serialize(a) !== serialize(b)) bad("seeding", `two reset({ seed: ${seed} }) gave different observations: ${show(a)} vs ${show(b)}`)
  if (serialize(a) !== serialize(arr)) bad("seeding", `reset({ seed: ${seed} }) and reset({ seed: [${seed}, ${seed + 1}, ...] }) differ: ${show(a)} vs ${show(arr)}`)
  for (let i = 0; i + 1 < n; i++) {
    if (shifted[i] !== a[i + 1]) {
      bad("seeding", `row ${i} of reset({ seed: ${seed + 1} }) is ${shifted[i]!.slice(0, 60)}, but row ${i + 1} of reset({ seed: ${seed} }) (the same sub-env seed ${seed + 1}) is ${a[i + 1]!.slice(0, 60)}`)
      break
    }
  }
  if (!ok) return undefined

  // The actions of every step, from one generator (the same in every mode).
  const rng = Rng.make(seed)
  const actions: Array<Batch> = []
  const actionsAt = (t: number): Batch => {
    while (actions.length <= t) {
      const batch = VectorBatch.create(actSpace, n)
      for (let i = 0; i < n; i++) VectorBatch.write(actSpace, batch, i, Space.sample(actSpace, rng))
      actions.push(batch)
    }
    return actions[t]!
  }
  const copy = (batch: Batch): Batch => (Array.isArray(batch) ? [...batch] : batch.slice())

  /**
   * Reset with `seed`, then step; `limit` steps at most, or (when undefined) until every sub-env ended and two more
   * steps ran. `alter` replaces the action of one row at one step. In `Disabled` mode the sub-envs that ended are
   * reset by mask after each step, except after the last step of a limited replay.
   */
  const play = (limit: number | undefined, alter?: { readonly t: number; readonly i: number }): Rollout | undefined => {
    const first = reset({ seed }, `reset({ seed: ${seed} }) before the rollout`)
    if (first === undefined) return undefined
    const steps: Array<Snapshot> = []
    const firstEnd = new Array<number>(n).fill(-1)
    let ended = 0
    let prevEnded: Array<boolean> = new Array<boolean>(n).fill(false)
    let lastNew = -1
    for (let t = 0; limit === undefined ? t < maxSteps && (firstEnd.includes(-1) || t <= lastNew + 2) : t < limit; t++) {
      let act = actionsAt(t)
      if (alter !== undefined && alter.t === t) {
        act = copy(act)
        VectorBatch.write(actSpace, act, alter.i, otherAction(actSpace, VectorBatch.read(actSpace, act, alter.i), rng))
      }
      let r: unknown
      try {
        r = env.step(act)
      } catch (e) {
        bad("step", `step ${t} threw: ${errorText(e)}`)
        return undefined
      }
      if (!checkStep(r, t)) return undefined
      const obs = rows(r.observations, `step ${t}`)
      if (obs === undefined) return undefined
      const done = Array.from({ length: n }, (_, i) => r.terminations[i] === 1 || r.truncations[i] === 1)
      // Autoreset rules that one mode shows alone.
      const finalObs = r.infos?.finalObservation
      let final: Array<string | undefined> | undefined
      if (mode === "NextStep") {
        for (let i = 0; i < n; i++) {
          if (prevEnded[i] && (r.rewards[i] !== 0 || r.terminations[i] !== 0 || r.truncations[i] !== 0)) {
            bad("autoreset", `step ${t}: sub-env ${i} ended at step ${t - 1}, so this is its reset step, but reward is ${r.rewards[i]}, terminated ${r.terminations[i]}, truncated ${r.truncations[i]} (expected 0, 0, 0)`)
          }
        }
      } else if (mode === "SameStep") {
        final = []
        for (let i = 0; i < n; i++) {
          const fo = finalObs?.[i]
          const fi = r.infos?.finalInfo?.[i]
          if (done[i]) {
            if (fo === undefined || !Space.contains(obsSpace, fo)) bad("autoreset", `step ${t}: sub-env ${i} ended but infos.finalObservation[${i}] is not an observation in ${Space.describe(obsSpace)}: ${show(fo)}`)
            if (!isInfo(fi)) bad("autoreset", `step ${t}: sub-env ${i} ended but infos.finalInfo[${i}] is not an object: ${show(fi)}`)
            final.push(serialize(fo))
          } else {
            if (fo !== undefined) bad("autoreset", `step ${t}: sub-env ${i} did not end but has infos.finalObservation[${i}] ${show(fo)}`)
            final.push(undefined)
          }
        }
      }
      let afterReset: Array<string> | undefined
      if (mode === "Disabled" && done.some(Boolean) && t !== (limit ?? 0) - 1) {
        afterReset = reset({ options: { resetMask: done } }, `step ${t}: reset({ options: { resetMask: ${show(done.map(Number))} } })`)
        if (afterReset === undefined) return undefined
        for (let i = 0; i < n; i++) {
          if (!done[i] && afterReset[i] !== obs[i]) bad("autoreset", `step ${t}: the masked reset changed row ${i}, which was not in resetMask ${show(done.map(Number))}`)
        }
      }
      steps.push({ obs, rewards: Array.from(r.rewards), terminations: Array.from(r.terminations), truncations: Array.from(r.truncations), final, afterReset })
      for (let i = 0; i < n; i++) {
        if (!done[i]) continue
        ended++
        if (firstEnd[i] === -1) {
          firstEnd[i] = t
          lastNew = t
        }
      }
      prevEnded = done
      if (!ok) return undefined
    }
    return { first, steps, firstEnd, ended }
  }

  const main = play(undefined)
  if (main === undefined) return undefined
  const t0 = Math.min(...main.firstEnd.map((t) => (t < 0 ? Infinity : t)))
  if (!Number.isFinite(t0)) {
    bad("autoreset", `no sub-env ended within ${maxSteps} steps of random actions, so the autoreset mode could not be checked (raise \`steps\` or use an env that ends)`)
    return undefined
  }
  const row = main.firstEnd.indexOf(t0)
  // Determinism (and, in NextStep, that the reset step ignores its action): replay the start with the same seed.
  const upTo = Math.min(main.steps.length, t0 + 2)
  const alter = mode === "NextStep" && t0 + 1 < main.steps.length ? { t: t0 + 1, i: row } : undefined
  const replay = play(mode === "Disabled" ? t0 + 1 : upTo, alter)
  if (replay === undefined) return undefined
  const outcome = (s: Snapshot) => serialize([s.obs, s.rewards, s.terminations, s.truncations, s.final])
  for (let t = 0; t < replay.steps.length; t++) {
    if (outcome(replay.steps[t]!) !== outcome(main.steps[t]!)) {
      if (alter !== undefined && t === alter.t) {
        bad("autoreset", `step ${t}: sub-env ${row} ended at step ${t - 1}; its reset step must ignore the action, but another action gave a different result: ${show(replay.steps[t]!.obs[row])} vs ${show(main.steps[t]!.obs[row])}`)
      } else bad("determinism", `the same seed and actions gave a different step ${t}: ${show(replay.steps[t])} vs ${show(main.steps[t])}`)
      break
    }
  }
  if (mode === "Disabled" && ok) {
    // The replay stopped right after sub-env `row` ended, without a reset: stepping now must throw.
    let threw: unknown = undefined
    try {
      env.step(actionsAt(t0 + 1))
    } catch (e) {
      threw = e
    }
    if (threw === undefined) bad("autoreset", `step ${t0 + 1}: sub-env ${row} ended at step ${t0} and was not reset, but step did not throw ResetNeededError`)
    else if (!isTagged(threw, "ResetNeededError")) bad("autoreset", `step ${t0 + 1} after sub-env ${row} ended threw ${errorText(threw)}, not ResetNeededError`)
  }
  return ok ? main : undefined
}

/** An action of `space` other than `action` (when the space has another). */
const otherAction = (space: Space.Space, action: unknown, rng: Rng): unknown => {
  if (space._tag === "Discrete") return space.n > 1 ? space.start + ((Number(action) - space.start + 1) % space.n) : action
  for (let k = 0; k < 10; k++) {
    const x = Space.sample(space, rng)
    if (serialize(x) !== serialize(action)) return x
  }
  return action
}

const checkClose = (env: VectorEnv, mode: AutoresetMode, add: Add): void => {
  try {
    env.close()
    env.close()
  } catch (e) {
    add("close", `${mode}: close() twice threw: ${errorText(e)}`)
    return
  }
  let threw = false
  try {
    env.step(VectorBatch.create(env.singleActionSpace, env.numEnvs))
  } catch {
    threw = true
  }
  if (!threw) add("close", `${mode}: step after close() did not throw`)
}

/** Until each sub-env first ends, the modes agree; then the final and reset observations match across modes. */
const crossModes = (rollouts: ReadonlyMap<AutoresetMode, Rollout>, add: Add): void => {
  const next = rollouts.get("NextStep")
  const same = rollouts.get("SameStep")
  const disabled = rollouts.get("Disabled")
  const pairs: Array<[string, Rollout, string, Rollout]> = []
  if (next !== undefined && same !== undefined) pairs.push(["NextStep", next, "SameStep", same])
  if (next !== undefined && disabled !== undefined) pairs.push(["NextStep", next, "Disabled", disabled])
  if (same !== undefined && disabled !== undefined) pairs.push(["SameStep", same, "Disabled", disabled])
  for (const [na, a, nb, b] of pairs) {
    const n = a.firstEnd.length
    for (let i = 0; i < n; i++) {
      const end = a.firstEnd[i]!
      if (end !== b.firstEnd[i]) {
        add("autoreset", `sub-env ${i} first ended at step ${end} in ${na} but at step ${b.firstEnd[i]} in ${nb}, for the same seed and actions`)
        continue
      }
      if (end < 0) continue
      for (let t = 0; t <= end; t++) {
        const sa = a.steps[t]!
        const sb = b.steps[t]!
        // At the end step SameStep shows the reset observation; its final observation is the one to compare.
        const oa = na === "SameStep" && t === end ? sa.final?.[i] : sa.obs[i]
        const ob = nb === "SameStep" && t === end ? sb.final?.[i] : sb.obs[i]
        const fa = [oa, sa.rewards[i], sa.terminations[i], sa.truncations[i]]
        const fb = [ob, sb.rewards[i], sb.terminations[i], sb.truncations[i]]
        if (serialize(fa) !== serialize(fb)) {
          add("autoreset", `sub-env ${i} at step ${t} (before or at its first end): ${na} gave ${show(fa)}, ${nb} gave ${show(fb)}`)
          break
        }
      }
    }
  }
  // The reset observation after the first end: SameStep's observation at the end step, NextStep's next one, Disabled's masked reset.
  const resets: Array<[string, (i: number, end: number) => string | undefined]> = []
  if (same !== undefined) resets.push(["SameStep (observation at the end step)", (i, end) => same.steps[end]?.obs[i]])
  if (next !== undefined) resets.push(["NextStep (observation of the reset step)", (i, end) => next.steps[end + 1]?.obs[i]])
  if (disabled !== undefined) resets.push(["Disabled (masked reset)", (i, end) => disabled.steps[end]?.afterReset?.[i]])
  const ref = next ?? same ?? disabled
  if (ref === undefined || resets.length < 2) return
  for (let i = 0; i < ref.firstEnd.length; i++) {
    const end = ref.firstEnd[i]!
    if (end < 0) continue
    const seen = resets.map(([name, f]) => [name, f(i, end)] as const).filter(([, x]) => x !== undefined)
    const differ = seen.find(([, x]) => x !== seen[0]![1])
    if (differ !== undefined) {
      add("autoreset", `sub-env ${i} after its first end (step ${end}): the reset observation of ${seen[0]![0]} is ${seen[0]![1]!.slice(0, 60)}, of ${differ[0]} ${differ[1]!.slice(0, 60)}`)
    }
  }
}
