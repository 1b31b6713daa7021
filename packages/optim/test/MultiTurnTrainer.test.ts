import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as DrrnPolicy from "../src/text/DrrnPolicy.js"
import * as GroupRollout from "../src/text/GroupRollout.js"
import * as MultiTurnTrainer from "../src/text/MultiTurnTrainer.js"
import { DoorsEnv } from "./fixtures/DoorsEnv.js"
import { sharpDrrn } from "./fixtures/sharpDrrn.js"
import { maxRelativeError, nonZeroIndices } from "./gradientCheck.js"

const texts = [
  { task: "open the red doors", observation: "You are at junction 0.", admissible: ["open red door", "open blue door", "wait"] },
  { task: "open the blue doors", observation: "You are at junction 1.", admissible: ["open red door", "open blue door", "open green door", "wait"] }
]

/** Samples covering both surrogate branches (ratio inside and outside the clip range), both advantage signs. */
const makeSamples = (p: DrrnPolicy.Drrn, ref: DrrnPolicy.Drrn): Array<MultiTurnTrainer.Sample> => {
  const out: Array<MultiTurnTrainer.Sample> = []
  const specs: Array<[number, number, number, number]> = [[0, 0, 1.3, 0], [0, 2, -0.7, 0.5], [1, 1, 0.9, -0.6], [1, 3, -1.1, 0.05]]
  for (const [ti, action, advantage, shift] of specs) {
    const encoded = DrrnPolicy.encode(p, texts[ti]!)
    DrrnPolicy.forward(p, encoded)
    const logp = DrrnPolicy.logProbAt(p, encoded.actions.length, action)
    DrrnPolicy.forward(ref, encoded)
    const refLogProb = DrrnPolicy.logProbAt(ref, encoded.actions.length, action)
    out.push({ encoded, action, advantage, oldLogProb: logp + shift, refLogProb })
  }
  return out
}

describe("MultiTurnTrainer.lossAndGradient", () => {
  for (const klEstimator of ["k1", "k3"] as const) {
    it(`matches central finite differences (clipped surrogate + ${klEstimator} KL + entropy)`, () => {
      const p = sharpDrrn()
      const ref = DrrnPolicy.clone(p)
      for (let k = 0; k < ref.params.length; k++) ref.params[k] = ref.params[k]! * 0.9
      const samples = makeSamples(p, ref)
      const o = { clip: 0.2, klCoef: 0.3, klEstimator, entCoef: 0.05 }
      const inds = [0, 1, 2, 3]
      const grad = new Float64Array(p.params.length)
      const scratch = new Float64Array(8)
      const parts = MultiTurnTrainer.lossAndGradient(p, o, samples, inds, 0, 4, grad, scratch)
      expect(parts.clipFraction).toBeGreaterThan(0) // both branches exercised
      expect(parts.clipFraction).toBeLessThan(1)
      expect(parts.kl).not.toBe(0)
      const lossAt = () => MultiTurnTrainer.lossAndGradient(p, o, samples, inds, 0, 4, new Float64Array(p.params.length), scratch).loss
      const check = nonZeroIndices(grad, 1, (k) => k % 97 === 0)
      expect(check.length).toBeGreaterThan(100)
      expect(maxRelativeError(p.params, grad, lossAt, check, 1e-2)).toBeLessThan(2e-3)
    })
  }

  it("KL terms: k1 = log π − log π_ref, k3 = r − 1 − log r; both 0 against itself", () => {
    const p = DrrnPolicy.make({ buckets: 64, hidden: 6, embed: 4, rng: Rng.make(3) })
    const samples = makeSamples(p, p)
    const g = new Float64Array(p.params.length)
    for (const klEstimator of ["k1", "k3"] as const) {
      expect(MultiTurnTrainer.lossAndGradient(p, { clip: 0.2, klCoef: 1, klEstimator, entCoef: 0 }, samples, [0, 1, 2, 3], 0, 4, g, new Float64Array(8)).kl).toBeCloseTo(0, 12)
    }
    const s = samples[0]!
    s.refLogProb -= 0.5 // log π − log π_ref = 0.5: k1 = 0.5, k3 = e^{−0.5} − 1 + 0.5 = 0.106531
    const one = (klEstimator: "k1" | "k3") =>
      MultiTurnTrainer.lossAndGradient(p, { clip: 0.2, klCoef: 1, klEstimator, entCoef: 0 }, samples, [0], 0, 1, g, new Float64Array(8)).kl
    expect(one("k1")).toBeCloseTo(0.5, 10)
    expect(one("k3")).toBeCloseTo(Math.exp(-0.5) - 0.5, 10)
  })
})

describe("MultiTurnTrainer.train", () => {
  it.effect("rejects gae (critic-free policy) and unknown estimators with InvalidOptionError", () =>
    Effect.gen(function* () {
      for (const algo of ["gae", "nope"]) {
        const exit = yield* Effect.exit(MultiTurnTrainer.train([new DoorsEnv()], { algo }))
        expect(Exit.isFailure(exit)).toBe(true)
        if (Exit.isFailure(exit)) expect(JSON.stringify(exit.cause)).toContain("InvalidOptionError")
      }
    }))

  it.effect("fails with RolloutFailedError when every trajectory fails", () =>
    Effect.gen(function* () {
      const env = new DoorsEnv()
      env.failOnReset = () => true
      const exit = yield* Effect.exit(MultiTurnTrainer.train([env], { totalEnvSteps: 10 }))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(JSON.stringify(exit.cause)).toContain("RolloutFailedError")
    }))

  const smoke = { totalEnvSteps: 12_000, maxSteps: 8, evalEvery: 0, evalEpisodes: 100, policy: { buckets: 1024, hidden: 32, embed: 16, history: 0 } }

  it.effect("CI smoke: GRPO on the Doors env learns (success well above the random policy)", () =>
    Effect.gen(function* () {
      const envs = [new DoorsEnv()]
      const random = MultiTurnTrainer.evaluate(envs, GroupRollout.randomPolicy, (k) => ({ seed: 1_000_000 + k }), 100, Rng.make(0), { maxSteps: 8 })
      const updates: Array<MultiTurnTrainer.UpdateRow> = []
      let episodes = 0
      const r = yield* MultiTurnTrainer.train(envs, { ...smoke, algo: "grpo", seed: 1 }, { onUpdate: (u) => updates.push(u), onEpisode: () => episodes++ })
      expect(random.successRate).toBeLessThan(0.2)
      expect(r.final.successRate).toBeGreaterThan(random.successRate + 0.4)
      expect(r.globalStep).toBeGreaterThanOrEqual(12_000)
      expect(episodes).toBe(updates.length * 64)
      for (const key of ["globalStep", "wallSeconds", "policyLoss", "entropy", "approxKl", "clipFraction", "successRate"] as const) {
        expect(Number.isFinite(updates[0]![key])).toBe(true)
      }
      expect(updates[updates.length - 1]!.entropy!).toBeLessThan(updates[0]!.entropy!)
      // every trajectory of a group starts in the same state, so at least that anchor group is shared
      for (const u of updates) {
        expect(u.anchorGroupShare).toBeGreaterThan(0)
        expect(u.anchorGroupShare).toBeLessThanOrEqual(1)
      }
    }), 30_000)

  it.effect("GiGPO runs and is reproducible: the same seed gives the same run", () =>
    Effect.gen(function* () {
      const run = () => MultiTurnTrainer.train([new DoorsEnv()], { ...smoke, totalEnvSteps: 1500, algo: "gigpo", seed: 4, klCoef: 0.01 })
      const a = yield* run()
      const b = yield* run()
      expect(a.globalStep).toBe(b.globalStep)
      expect(a.final.successRate).toBe(b.final.successRate)
      expect(Array.from(a.policy.params.subarray(0, 200))).toEqual(Array.from(b.policy.params.subarray(0, 200)))
    }), 30_000)

  it.effect("the unoptimized implementation runs the same method: same steps and success, parameters equal to rounding", () =>
    Effect.gen(function* () {
      const options = { ...smoke, totalEnvSteps: 1500, algo: "gigpo", seed: 4, klCoef: 0.01 }
      const fast = yield* MultiTurnTrainer.train([new DoorsEnv()], options)
      const plain = yield* MultiTurnTrainer.train([new DoorsEnv()], { ...options, implementation: { kernel: "reference", encodingCache: 0, actionMemo: false } })
      expect(plain.globalStep).toBe(fast.globalStep)
      expect(plain.final.successRate).toBe(fast.final.successRate)
      let maxDiff = 0
      let moved = 0
      const init = DrrnPolicy.make({ ...options.policy, rng: Rng.make(4).spawn(4)[0]! })
      for (let i = 0; i < fast.policy.params.length; i++) {
        maxDiff = Math.max(maxDiff, Math.abs(fast.policy.params[i]! - plain.policy.params[i]!))
        if (fast.policy.params[i] !== init.params[i]) moved++
      }
      expect(moved).toBeGreaterThan(1000) // training changed the weights
      expect(maxDiff).toBeLessThan(1e-4)
      // no memo of activations outlives the run: the returned policy may be written
      expect(DrrnPolicy.implementationOf(fast.policy).actionMemo).toBe(false)
    }), 30_000)

  it.effect("annealLr: each update's learning rate is lr · (1 − env steps before it / totalEnvSteps); a non-boolean is rejected", () =>
    Effect.gen(function* () {
      const updates: Array<MultiTurnTrainer.UpdateRow> = []
      yield* MultiTurnTrainer.train([new DoorsEnv()], { ...smoke, totalEnvSteps: 1500, learningRate: 0.004, annealLr: true, seed: 2 }, { onUpdate: (u) => updates.push(u) })
      expect(updates.length).toBeGreaterThan(2)
      let before = 0
      for (const u of updates) {
        expect(u.learningRate).toBeCloseTo(0.004 * Math.max(0, 1 - before / 1500), 15)
        before = u.globalStep
      }
      expect(updates[0]!.learningRate).toBe(0.004)
      expect(updates[updates.length - 1]!.learningRate).toBeLessThan(0.004 * 0.5)
      const exit = yield* Effect.exit(MultiTurnTrainer.train([new DoorsEnv()], { annealLr: "yes" as never }))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(JSON.stringify(exit.cause)).toContain("annealLr")
    }), 30_000)

  it.effect("targetKl: an update stops at the first minibatch whose approximate KL exceeds 1.5 · targetKl (SB3); a loose one changes nothing", () =>
    Effect.gen(function* () {
      const options = { ...smoke, totalEnvSteps: 1500, algo: "gigpo", seed: 3 }
      const rowsOf = (more: Partial<MultiTurnTrainer.Options>) =>
        Effect.gen(function* () {
          const rows: Array<MultiTurnTrainer.UpdateRow> = []
          const result = yield* MultiTurnTrainer.train([new DoorsEnv()], { ...options, ...more }, { onUpdate: (u) => rows.push(u) })
          return { rows, result }
        })
      const full = yield* rowsOf({})
      const steps = MultiTurnTrainer.defaults.epochs * MultiTurnTrainer.defaults.minibatches
      for (const u of full.rows) expect(u.optimizerSteps).toBe(steps)
      // the first minibatch's KL is exactly 0 (the rollout's parameters); after one Adam step it is positive
      const tight = yield* rowsOf({ targetKl: 1e-12 })
      for (const u of tight.rows) {
        expect(u.optimizerSteps).toBe(1)
        expect(u.approxKl).toBeGreaterThan(1.5e-12) // the row reports the stopping minibatch's KL
      }
      // a bound no update reaches: the same run bit for bit
      const loose = yield* rowsOf({ targetKl: 1e6 })
      expect(loose.rows.map((u) => [u.optimizerSteps, u.approxKl])).toEqual(full.rows.map((u) => [u.optimizerSteps, u.approxKl]))
      expect(Array.from(loose.result.policy.params)).toEqual(Array.from(full.result.policy.params))
      for (const bad of [0, -0.1, Number.NaN, Infinity]) {
        const exit = yield* Effect.exit(MultiTurnTrainer.train([new DoorsEnv()], { targetKl: bad }))
        expect(Exit.isFailure(exit)).toBe(true)
        if (Exit.isFailure(exit)) expect(JSON.stringify(exit.cause)).toContain("targetKl")
      }
    }), 30_000)

  it.effect("rejects an unknown implementation with InvalidOptionError", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(MultiTurnTrainer.train([new DoorsEnv()], { implementation: { kernel: "gpu" as never } }))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(JSON.stringify(exit.cause)).toContain("kernel must be factored or reference, got gpu")
    }))

  it.effect("stepAdvantages hook: its advantages drive the update (a 'wait'-rewarding shaping is learnt); undefined keeps the run", () =>
    Effect.gen(function* () {
      const options = { ...smoke, totalEnvSteps: 3000, algo: "grpo", seed: 2 }
      const seen: Array<number> = []
      // a process reward that contradicts the env: +1 for every "wait", -1 for anything else
      const shaped = yield* MultiTurnTrainer.train([new DoorsEnv()], options, {
        stepAdvantages: (group, estimated) => {
          seen.push(group.trajectories.length)
          expect(estimated.map((a) => a.length)).toEqual(group.trajectories.map((tr) => tr.steps.length))
          return group.trajectories.map((tr) => tr.steps.map((st) => (st.action === "wait" ? 1 : -1)))
        }
      })
      expect(seen.length).toBeGreaterThan(0)
      const input = { task: "open the red doors to reach the end", observation: "You are at junction 0. There are red, blue and green doors.", admissible: ["open red door", "open blue door", "open green door", "wait"] }
      const pWait = (p: DrrnPolicy.Drrn) => {
        const enc = DrrnPolicy.encode(p, input)
        DrrnPolicy.forward(p, enc)
        return Math.exp(DrrnPolicy.logProbAt(p, enc.actions.length, 3))
      }
      const plain = yield* MultiTurnTrainer.train([new DoorsEnv()], options)
      expect(pWait(shaped.policy)).toBeGreaterThan(0.9)
      expect(pWait(plain.policy)).toBeLessThan(0.25)
      expect(shaped.final.successRate).toBeLessThan(plain.final.successRate)
      // a hook that keeps the estimator's advantages reproduces the run without a hook exactly
      const kept = yield* MultiTurnTrainer.train([new DoorsEnv()], options, { stepAdvantages: () => undefined })
      expect(Array.from(kept.policy.params.subarray(0, 300))).toEqual(Array.from(plain.policy.params.subarray(0, 300)))
    }), 60_000)

  it.effect("stepAdvantages hook: wrong shapes or non-finite values fail with AdvantageInputError", () =>
    Effect.gen(function* () {
      const run = (hook: NonNullable<MultiTurnTrainer.Hooks["stepAdvantages"]>) =>
        Effect.flip(MultiTurnTrainer.train([new DoorsEnv()], { ...smoke, totalEnvSteps: 200 }, { stepAdvantages: hook }))
      const short = yield* run((g) => g.trajectories.slice(1).map((tr) => new Float64Array(tr.steps.length)))
      expect(short).toMatchObject({ _tag: "AdvantageInputError", reason: "lengthMismatch", estimator: "stepAdvantages", group: 0 })
      const steps = yield* run((g) => g.trajectories.map((tr, i) => new Float64Array(tr.steps.length + (i === 2 ? 1 : 0))))
      expect(steps).toMatchObject({ reason: "lengthMismatch", trajectory: 2 })
      const nan = yield* run((g) => g.trajectories.map((tr) => tr.steps.map((_, t) => (t === 0 ? Number.NaN : 0))))
      expect(nan).toMatchObject({ reason: "nonFinite", trajectory: 0, step: 0 })
    }), 30_000)

  it.effect("stepRewards hook: returning the env rewards reproduces the run without a hook bit for bit", () =>
    Effect.gen(function* () {
      const options = { ...smoke, totalEnvSteps: 600, algo: "gigpo", seed: 3 }
      const plain = yield* MultiTurnTrainer.train([new DoorsEnv()], options)
      let calls = 0
      const same = yield* MultiTurnTrainer.train([new DoorsEnv()], options, {
        stepRewards: (g, gi) => {
          expect(gi).toBe(calls++ % 8) // the default 8 tasks per batch, all non-empty
          return g.trajectories.map((tr) => Float64Array.from(tr.steps, (s) => s.reward))
        }
      })
      expect(calls).toBeGreaterThan(0)
      expect(Array.from(same.policy.params)).toEqual(Array.from(plain.policy.params))
      const kept = yield* MultiTurnTrainer.train([new DoorsEnv()], options, { stepRewards: () => undefined })
      expect(Array.from(kept.policy.params)).toEqual(Array.from(plain.policy.params))
    }), 30_000)

  it.effect("stepRewards hook: the estimator sees the shaped rewards (hand-computed Dr. GRPO and GiGPO advantages)", () =>
    Effect.gen(function* () {
      // one update; the shaped reward of step t is 0.5 + t (env rewards ignored); stepAdvantages only records
      const once = (algo: string) =>
        Effect.gen(function* () {
          const ctl = new AbortController()
          const seen: Array<{ group: GroupRollout.GroupResult<unknown>; adv: Array<Array<number>> }> = []
          yield* MultiTurnTrainer.train([new DoorsEnv()], { ...smoke, algo, normalize: "none", gamma: 0.5, evalEpisodes: 1, tasksPerBatch: 2, groupSize: 4, seed: 5 }, {
            signal: ctl.signal,
            onUpdate: () => ctl.abort(),
            stepRewards: (g) => g.trajectories.map((tr) => tr.steps.map((_, t) => 0.5 + t)),
            stepAdvantages: (group, adv) => {
              seen.push({ group, adv: adv.map((a) => Array.from(a)) })
              return undefined
            }
          })
          return seen
        })
      const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
      // R_i = Σ_{t<L} (0.5 + t) = L²/2
      const ret = (L: number) => (L * L) / 2
      for (const { group, adv } of yield* once("dr-grpo")) {
        const Ls = group.trajectories.map((tr) => tr.steps.length)
        const m = mean(Ls.map(ret))
        adv.forEach((a, i) => a.forEach((v) => expect(v).toBeCloseTo(ret(Ls[i]!) - m, 12)))
      }
      // GiGPO, F_norm = 1, ω = 1: (R_i − mean R) + (G_{i,t} − mean of G over the anchor group of state key s_{i,t}),
      // G_{i,t} = Σ_{k≥t} 0.5^{k−t} (0.5 + k)
      let anchored = 0
      for (const { group, adv } of yield* once("gigpo")) {
        const trs = group.trajectories
        const m = mean(trs.map((tr) => ret(tr.steps.length)))
        const G = trs.map((tr) => tr.steps.map((_, t) => {
          let g = 0
          for (let k = tr.steps.length - 1; k >= t; k--) g = 0.5 + k + 0.5 * g
          return g
        }))
        const byKey = new Map<string, Array<number>>()
        trs.forEach((tr, i) => tr.steps.forEach((s, t) => byKey.set(s.stateKey, [...(byKey.get(s.stateKey) ?? []), G[i]![t]!])))
        trs.forEach((tr, i) => tr.steps.forEach((s, t) => {
          const members = byKey.get(s.stateKey)!
          if (members.length > 1 && new Set(members).size > 1) anchored++
          const step = members.length > 1 ? G[i]![t]! - mean(members) : 0
          expect(adv[i]![t]!).toBeCloseTo(ret(tr.steps.length) - m + step, 10)
        }))
      }
      expect(anchored).toBeGreaterThan(0) // the shaped rewards reached some non-trivial anchor-state group
    }), 30_000)

  it.effect("stepRewards hook: wrong shapes or non-finite rewards fail with AdvantageInputError naming where", () =>
    Effect.gen(function* () {
      const run = (hook: NonNullable<MultiTurnTrainer.Hooks["stepRewards"]>) =>
        Effect.flip(MultiTurnTrainer.train([new DoorsEnv()], { ...smoke, totalEnvSteps: 200 }, { stepRewards: hook }))
      const short = yield* run((g) => g.trajectories.slice(1).map((tr) => new Float64Array(tr.steps.length)))
      expect(short).toMatchObject({ _tag: "AdvantageInputError", reason: "lengthMismatch", estimator: "stepRewards", group: 0 })
      const steps = yield* run((g, gi) => g.trajectories.map((tr, i) => new Float64Array(tr.steps.length + (gi === 1 && i === 2 ? 1 : 0))))
      expect(steps).toMatchObject({ reason: "lengthMismatch", group: 1, trajectory: 2 })
      const inf = yield* run((g) => g.trajectories.map((tr, i) => tr.steps.map((_, t) => (i === 1 && t === 0 ? Number.POSITIVE_INFINITY : 0))))
      expect(inf).toMatchObject({ reason: "nonFinite", group: 0, trajectory: 1, step: 0, value: Number.POSITIVE_INFINITY })
      expect(inf.message).toContain("group 0, trajectory 1, step 0 (value Infinity)")
    }), 30_000)

  it.effect("betweenUpdates: awaited after each update, before the next batch; an abort in it stops the run", () =>
    Effect.gen(function* () {
      const ctl = new AbortController()
      const order: Array<string> = []
      const r = yield* MultiTurnTrainer.train([new DoorsEnv()], { ...smoke, evalEpisodes: 5, tasksPerBatch: 2, groupSize: 2 }, {
        signal: ctl.signal,
        onEpisode: () => order.push("episode"),
        onUpdate: (u) => order.push(`update ${u.globalStep}`),
        betweenUpdates: (u) =>
          Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 5))).pipe(Effect.andThen(Effect.sync(() => {
            order.push(`between ${u.globalStep}`)
            if (order.filter((o) => o.startsWith("between")).length === 2) ctl.abort()
          })))
      })
      expect(r.stopReason).toBe("aborted")
      expect(r.updates).toBe(2)
      // each update's asynchronous work finished before the next batch's episodes were rolled out
      const firstBetween = order.findIndex((o) => o.startsWith("between"))
      expect(order[firstBetween - 1]).toMatch(/^update /)
      expect(order.slice(firstBetween + 1, firstBetween + 5)).toEqual(["episode", "episode", "episode", "episode"])
      expect(order[order.length - 1]).toMatch(/^between /)
    }))

  it.effect("an abort signal stops after the current batch with stopReason 'aborted'", () =>
    Effect.gen(function* () {
      const ctl = new AbortController()
      const r = yield* MultiTurnTrainer.train([new DoorsEnv()], { ...smoke, evalEpisodes: 5 }, { signal: ctl.signal, onUpdate: () => ctl.abort() })
      expect(r.stopReason).toBe("aborted")
      expect(r.updates).toBe(1)
    }))
})
