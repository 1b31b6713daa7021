import { InvalidActionError, InvalidOptionError, ResetNeededError, Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as CheckVectorEnv from "../src/checks/CheckVectorEnv.js"
import { CartPoleBatch } from "../src/classic/CartPoleBatch.js"
import * as Registry from "../src/Registry.js"
import * as SokobanGenerator from "../src/sokoban/SokobanGenerator.js"
import * as SokobanLevel from "../src/sokoban/SokobanLevel.js"
import type { AutoresetMode, VectorEnv, VectorStepResult } from "../src/vector/VectorEnv.js"

const dataPath = fileURLToPath(new URL("../../../../shared/data/gymnasium/cartpole_public.json", import.meta.url))
const hasData = existsSync(dataPath)
if (!hasData) console.warn(`batched CartPole replay skipped: reference data not found at ${dataPath}`)

const MODES: ReadonlyArray<AutoresetMode> = ["NextStep", "SameStep", "Disabled"]

/** Copy of everything a step shows, for exact comparison. */
const snap = (r: VectorStepResult) => ({
  observations: Array.from(r.observations as ArrayLike<number>),
  rewards: Array.from(r.rewards),
  terminations: Array.from(r.terminations),
  truncations: Array.from(r.truncations),
  infos: r.infos.infos,
  finalObservation: r.infos.finalObservation?.map((o) => (o === undefined ? undefined : Array.from(o as ArrayLike<number>))),
  finalInfo: r.infos.finalInfo
})

/**
 * Step `SyncVectorEnv` over `make(id)` and the batched env side by side with the same seeds and actions; every step
 * must match exactly. `policy(t, i, obs)` picks row i's action. Returns the episode ends seen (terminated, truncated).
 */
const lockstep = (
  id: string,
  n: number,
  steps: number,
  mode: AutoresetMode,
  kwargs: Registry.Kwargs,
  policy: (t: number, i: number, obs: ArrayLike<number>) => number
): { terminated: number; truncated: number } => {
  const sync = Registry.makeVec(id, n, { autoresetMode: mode, kwargs })
  const batch = Registry.makeVec(id, n, { autoresetMode: mode, kwargs, vectorizationMode: "batched" })
  const r0 = sync.reset({ seed: 7 })
  const b0 = batch.reset({ seed: 7 })
  expect(Array.from(b0.observations as ArrayLike<number>)).toEqual(Array.from(r0.observations as ArrayLike<number>))
  expect(b0.infos.infos).toEqual(r0.infos.infos)
  let terminated = 0
  let truncated = 0
  const actions = new Int32Array(n)
  for (let t = 0; t < steps; t++) {
    const obs = (batch as unknown as { observations: ArrayLike<number> }).observations
    for (let i = 0; i < n; i++) actions[i] = policy(t, i, obs)
    const s = snap(sync.step(actions))
    const b = snap(batch.step(actions))
    expect(b).toEqual(s)
    for (let i = 0; i < n; i++) {
      terminated += s.terminations[i]!
      truncated += s.truncations[i]!
    }
    if (mode === "Disabled") {
      const resetMask = s.terminations.map((x, i) => x === 1 || s.truncations[i] === 1)
      if (resetMask.some((x) => x)) {
        const rs = sync.reset({ options: { resetMask } })
        const rb = batch.reset({ options: { resetMask } })
        expect(Array.from(rb.observations as ArrayLike<number>)).toEqual(Array.from(rs.observations as ArrayLike<number>))
        expect(rb.infos.infos).toEqual(rs.infos.infos)
      }
    }
  }
  sync.close()
  batch.close()
  return { terminated, truncated }
}

const randomPolicy = (actions: number, seed: number) => {
  const rng = Rng.make(seed)
  return () => rng.integers(actions)
}

describe("batched vector envs are bit-identical to SyncVectorEnv over make()", () => {
  for (const mode of MODES) {
    it(`CartPole-v1, ${mode}: random rows terminate, balanced rows reach TimeLimit(500)`, () => {
      const rnd = randomPolicy(2, 1)
      // rows 0-2 push toward where the pole is falling, theta + theta_dot / 2 (survives 500 steps); rows 3-7 at random
      const ends = lockstep("CartPole-v1", 8, 620, mode, {}, (_t, i, obs) => (i < 3 ? (obs[4 * i + 2]! + 0.5 * obs[4 * i + 3]! > 0 ? 1 : 0) : rnd()))
      expect(ends.terminated).toBeGreaterThan(50)
      expect(ends.truncated).toBeGreaterThanOrEqual(3)
    })

    it(`FrozenLake-v1, ${mode}: slippery random walks, and rows stuck at the start until TimeLimit(100)`, () => {
      const rnd = randomPolicy(4, 2)
      const slippery = lockstep("FrozenLake-v1", 6, 150, mode, {}, () => rnd())
      expect(slippery.terminated).toBeGreaterThan(20)
      // dry ice: rows 0-1 push left into the corner forever (truncated at 100), rows 2-5 walk at random
      const dry = lockstep("FrozenLake-v1", 6, 230, mode, { isSlippery: false }, (_t, i) => (i < 2 ? 0 : rnd()))
      expect(dry.truncated).toBeGreaterThanOrEqual(4)
      expect(dry.terminated).toBeGreaterThan(10)
    })

    it(`Sokoban-v0, ${mode}: one-push levels (solved and truncated) and generated 10x10 levels`, () => {
      const rnd = randomPolicy(9, 3)
      const levels = SokobanLevel.parseLevelsSync("; a\n#####\n#@$.#\n#####\n\n; b\n#####\n#.$@#\n#####\n", { width: 5, height: 3 })
      const small = lockstep("Sokoban-v0", 6, 60, mode, { levels, maxSteps: 12 }, () => rnd())
      expect(small.terminated).toBeGreaterThan(5)
      expect(small.truncated).toBeGreaterThan(5)
      const generated = [0, 1, 2].map((s) => SokobanGenerator.generate(Rng.make(s), { id: `g${s}` }))
      const onehot = mode === "SameStep" ? { observationMode: "onehot" } : {}
      const big = lockstep("Sokoban-v0", 3, 130, mode, { levels: generated, ...onehot }, () => rnd())
      expect(big.truncated).toBeGreaterThanOrEqual(3)
      if (mode === "NextStep") lockstep("Sokoban-v0", 2, 4, mode, {}, () => rnd()) // default kwargs: a level generated per reset
    })
  }
})

describe("batched vector envs", () => {
  it.skipIf(!hasData)("replay Gymnasium 1.4 CartPole reference episodes bit for bit (one row per episode)", () => {
    const data = JSON.parse(readFileSync(dataPath, "utf8")) as {
      episodes: Array<{ initialState: Array<number>; steps: Array<{ action: number; observation: Array<number>; reward: number; terminated: boolean; truncated: boolean }> }>
    }
    const eps = data.episodes
    const n = eps.length
    const expected = eps.flatMap((ep) => ep.steps.map((ref) => [...ref.observation.map((v) => Math.fround(v)), ref.reward, ref.terminated ? 1 : 0, ref.truncated ? 1 : 0]))
    for (const wasm of [true, false]) {
      const envs = new CartPoleBatch(n, { wasm })
      eps.forEach((ep, i) => envs.reset({ options: { state: ep.initialState, resetMask: eps.map((_, j) => j === i) } }))
      const longest = Math.max(...eps.map((e) => e.steps.length))
      const actions = new Int32Array(n)
      const got: Array<Array<Array<number>>> = eps.map(() => [])
      for (let t = 0; t < longest; t++) {
        eps.forEach((ep, i) => (actions[i] = ep.steps[t]?.action ?? 0))
        const r = envs.step(actions)
        const obs = r.observations as Float32Array
        eps.forEach((ep, i) => {
          if (t < ep.steps.length) got[i]!.push([obs[4 * i]!, obs[4 * i + 1]!, obs[4 * i + 2]!, obs[4 * i + 3]!, r.rewards[i]!, r.terminations[i]!, r.truncations[i]!])
        })
      }
      expect(got.flat()).toEqual(expected)
    }
  })

  it("CartPoleBatch steps with WebAssembly SIMD here, with the JavaScript loop's bits (odd row count, SameStep)", () => {
    const n = 7
    const wasm = new CartPoleBatch(n, { autoresetMode: "SameStep" })
    const js = new CartPoleBatch(n, { autoresetMode: "SameStep", wasm: false })
    expect([wasm.engine, js.engine]).toEqual(["wasm-simd", "js"])
    wasm.reset({ seed: 11 })
    js.reset({ seed: 11 })
    const rnd = randomPolicy(2, 4)
    const actions = new Int32Array(n)
    let ends = 0
    let truncations = 0
    for (let t = 0; t < 560; t++) {
      // rows 0-1 balance (truncated at 500), the others act at random
      for (let i = 0; i < n; i++) actions[i] = i < 2 ? (js.theta[i]! + 0.5 * js.thetaDot[i]! > 0 ? 1 : 0) : rnd()
      const a = snap(wasm.step(actions))
      const b = snap(js.step(actions))
      expect(a).toEqual(b)
      ends += a.terminations.reduce((x, y) => x + y, 0) + a.truncations.reduce((x, y) => x + y, 0)
      truncations += a.truncations.reduce((x, y) => x + y, 0)
    }
    expect(truncations).toBeGreaterThanOrEqual(2)
    expect(Array.from(wasm.theta.subarray(0, n))).toEqual(Array.from(js.theta))
    expect(ends).toBeGreaterThan(100)
  })

  it("pass CheckVectorEnv in every autoreset mode", () => {
    for (const id of ["CartPole-v1", "FrozenLake-v1", "Sokoban-v0"]) {
      const kwargs = id === "Sokoban-v0"
        ? { levels: SokobanLevel.parseLevelsSync("#####\n#@$.#\n#####\n", { width: 5, height: 3 }), maxSteps: 8 }
        : {}
      const report = CheckVectorEnv.checkVectorEnv((autoresetMode) => Registry.makeVec(id, 3, { autoresetMode, kwargs, vectorizationMode: "batched" }), { envId: id })
      expect(report.modes.every((m) => m.episodesEnded > 0)).toBe(true)
    }
  })

  it("validate actions before moving any row, and refuse to step before reset or after close", () => {
    const envs: VectorEnv = Registry.makeVec("CartPole-v1", 3, { vectorizationMode: "batched" })
    expect(() => envs.step(new Int32Array([0, 1, 0]))).toThrow(ResetNeededError)
    const first = Array.from(envs.reset({ seed: 1 }).observations as Float32Array)
    expect(() => envs.step(new Int32Array([0, 2, 0]))).toThrow(InvalidActionError)
    expect(() => envs.step(new Int32Array([0, -1, 0]))).toThrow(/CartPole-v1\)\[1\]/)
    expect(() => envs.step([0, 0.5, 1])).toThrow(InvalidActionError)
    expect(() => envs.step(new Int32Array(2))).toThrow(InvalidActionError)
    expect(Array.from((envs as CartPoleBatch).observations)).toEqual(first)
    envs.close()
    expect(() => envs.step(new Int32Array(3))).toThrow(ResetNeededError)
  })

  it("makeVec('batched') rejects ids without a batched implementation and bad options", () => {
    expect(() => Registry.makeVec("TextFrozenLake-v1", 2, { vectorizationMode: "batched" })).toThrow(InvalidOptionError)
    expect(() => Registry.makeVec("FrozenLake-v1", 2, { vectorizationMode: "batched", kwargs: { mapName: null } })).toThrow(InvalidOptionError)
    expect(() => new CartPoleBatch(0)).toThrow(InvalidOptionError)
    expect(() => Registry.spec("CartPole-v1")).not.toThrow()
    expect("vectorEntryPoint" in Registry.spec("CartPole-v1")).toBe(false)
  })
})
