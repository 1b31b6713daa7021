/** Synthetic run directories for tests and the benchmark (no training needed). */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const tempDir = (prefix = "dashboard-"): string => fs.mkdtempSync(path.join(os.tmpdir(), prefix))

export interface FixtureRun {
  readonly name: string
  readonly config: Record<string, unknown>
  readonly rows: ReadonlyArray<Record<string, unknown>>
  /** Raw text appended after the rows (e.g. a truncated line). */
  readonly tail?: string
}

export const writeRun = (root: string, run: FixtureRun): string => {
  const dir = path.join(root, run.name)
  fs.mkdirSync(path.join(dir, "checkpoints"), { recursive: true })
  fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify(run.config, null, 2) + "\n")
  fs.writeFileSync(path.join(dir, "metrics.jsonl"), run.rows.map((r) => JSON.stringify(r) + "\n").join("") + (run.tail ?? ""))
  return dir
}

export const cartPoleConfig = (seed: number, extra: Record<string, unknown> = {}) => ({
  command: "train",
  env: "CartPole-v1",
  algo: "ppo",
  seed,
  totalSteps: 20000,
  ppo: { learningRate: 0.00025, seed },
  versions: { core: "0.1.0" },
  startedAt: new Date(2026, 0, seed).toISOString(),
  ...extra
})

/** `n` episode rows with a rising, seed-dependent return, plus an update row every 10 episodes. */
export const learningRows = (n: number, seed: number, stepEvery = 20): Array<Record<string, unknown>> => {
  const rows: Array<Record<string, unknown>> = []
  for (let i = 0; i < n; i++) {
    const globalStep = (i + 1) * stepEvery
    const episodeReturn = Math.round(10 + 490 * (1 - Math.exp(-i / (n / 3))) + ((i * 7919 + seed * 104729) % 41) - 20)
    rows.push({ kind: "episode", globalStep, episodeReturn, episodeLength: episodeReturn, wallSeconds: globalStep / 1000 + seed * 0.01 })
    if (i % 10 === 9) {
      rows.push({
        kind: "update",
        globalStep,
        wallSeconds: globalStep / 1000,
        policyLoss: -0.01 * Math.exp(-i / n),
        valueLoss: 50 * Math.exp(-i / n),
        entropy: 0.69 - 0.3 * (i / n),
        approxKl: 0.01,
        clipFraction: 0.1,
        explainedVariance: i / n,
        learningRate: 0.00025 * (1 - i / n)
      })
    }
  }
  return rows
}

/** A skill record as `@autodidact/skills` stores it (`<name>.json`), with `n` admitted versions. */
export const skillRecord = (name: string, n: number, stats: { calls: number; successes: number; meanReturn: number }, active = n) => ({
  name,
  active,
  versions: Array.from({ length: n }, (_, i) => ({
    version: i + 1,
    spec: {
      name,
      description: `${name} v${i + 1}`,
      parameters: { type: "object" },
      result: {},
      source: `export default (args) => ${i}`,
      tests: [],
      provenance: { source: "test" }
    },
    admittedAt: new Date(2026, 0, 1 + i).toISOString()
  })),
  stats
})

/** A skill library directory (`<dir>/skills/<name>.json` + `<name>.js`) in the skills package's format. */
export const writeSkills = (dir: string, records: ReadonlyArray<ReturnType<typeof skillRecord>>): string => {
  const lib = path.join(dir, "skills")
  fs.mkdirSync(lib, { recursive: true })
  for (const r of records) {
    fs.writeFileSync(path.join(lib, `${r.name}.json`), JSON.stringify(r, null, 2) + "\n")
    fs.writeFileSync(path.join(lib, `${r.name}.js`), r.versions.find((v) => v.version === r.active)!.spec.source)
  }
  return lib
}

/** A stand-in experience store: a `memory/` folder shaped like a PGlite data directory, with or without counts. */
export const writeMemory = (dir: string, counts?: Record<string, number>): string => {
  const store = path.join(dir, "memory")
  fs.mkdirSync(path.join(store, "base", "1"), { recursive: true })
  fs.writeFileSync(path.join(store, "PG_VERSION"), "17\n")
  if (counts !== undefined) {
    const total = Object.values(counts).reduce((a, b) => a + b, 0)
    fs.writeFileSync(path.join(store, "memory-summary.json"), JSON.stringify({ counts, total, writtenAt: "2026-01-02T03:04:05.000Z" }) + "\n")
  }
  return store
}

/**
 * A `train --cluster` run's rows (the shapes of `@autodidact/cluster`'s Trainer): `updates` updates of 8 episodes of
 * 20 steps each; in every batch the first 5 episodes come from `runners[0]`, the other 3 from `runners[1]` (or
 * `runners[0]` when there is one). After each update: the update row, then one cumulative `runner` row per runner.
 */
export const clusterRows = (runners: ReadonlyArray<string>, updates: number): Array<Record<string, unknown>> => {
  const rows: Array<Record<string, unknown>> = []
  const done = new Map(runners.map((r) => [r, 0]))
  let id = 0
  for (let k = 0; k < updates; k++) {
    for (let j = 0; j < 8; j++) {
      const runner = runners[j < 5 ? 0 : Math.min(1, runners.length - 1)]!
      done.set(runner, done.get(runner)! + 1)
      rows.push({ kind: "episode", globalStep: 160 * k + 20 * (j + 1), episodeReturn: 20, episodeLength: 20, wallSeconds: k + j / 8, episodeId: id++, policyVersion: k, runner })
    }
    const wall = k + 1
    rows.push({ kind: "update", globalStep: 160 * (k + 1), wallSeconds: wall, policyLoss: -0.01, valueLoss: 1, entropy: 0.69, approxKl: 0.01, clipFraction: 0.1, explainedVariance: 0.2, learningRate: 0.00025, policyVersion: k + 1 })
    for (const r of runners) {
      const episodes = done.get(r)!
      rows.push({
        kind: "runner", runner: r, globalStep: 160 * (k + 1), wallSeconds: wall, episodes, steps: 20 * episodes,
        episodesPerSecond: episodes / wall, stepsPerSecond: (20 * episodes) / wall, meanPolicyLag: 0, maxPolicyLag: 0,
        failures: 0, storageRetries: 0, sendRetries: 0, duplicatesDropped: 0
      })
    }
  }
  return rows
}

/**
 * An `autodidact agent train` run's rows (Training-Free GRPO `EpochRow`s of `@autodidact/llm`): epoch `e` has
 * success rate `success[e]`, library size `librarySize[e]`, 1000 (e + 1) input and 100 (e + 1) output tokens and
 * wall time 10 (e + 1) s; after epoch `e < evalSuccess.length`, an `evaluation` row with `evalSuccess[e]` at 10 (e + 1) + 1 s.
 */
export const epochRows = (success: ReadonlyArray<number>, librarySize: ReadonlyArray<number>, evalSuccess: ReadonlyArray<number>): Array<Record<string, unknown>> =>
  success.flatMap((s, e) => [
    {
      kind: "epoch", epoch: e, successRate: s, meanReward: s, episodes: 9, failures: 0, groups: 3, groupsWithSignal: 1, advantages: 1,
      operations: { add: 1, modify: 0, delete: 0, none: 0, skipped: 0, invalid: 0 }, parseFailures: 0, learnFailures: 0,
      libraryVersion: e + 1, librarySize: librarySize[e]!, inputTokens: 1000 * (e + 1), outputTokens: 100 * (e + 1), wallSeconds: 10 * (e + 1)
    },
    ...(e < evalSuccess.length
      ? [{ kind: "evaluation", epoch: e, episodes: 5, successRate: evalSuccess[e]!, episodeReturn: evalSuccess[e]!, episodeLength: 6, failures: 0, inputTokens: 500, outputTokens: 50, wallSeconds: 10 * (e + 1) + 1 }]
      : [])
  ])

/**
 * `system` rows (core `Metrics.SystemRow`) every `every` episode rows of `rows`: steps/s from the previous system
 * row, a CPU share and memory figures that depend on `seed`, so runs differ.
 */
export const withSystemRows = (rows: ReadonlyArray<Record<string, unknown>>, seed: number, every = 10): Array<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  let episodes = 0
  let lastStep = 0
  let lastWall = 0
  for (const r of rows) {
    out.push(r)
    if (r["kind"] !== "episode" || ++episodes % every !== 0) continue
    const globalStep = r["globalStep"] as number
    const wallSeconds = r["wallSeconds"] as number
    out.push({
      kind: "system", globalStep, wallSeconds,
      stepsPerSecond: wallSeconds > lastWall ? (globalStep - lastStep) / (wallSeconds - lastWall) : 0,
      cpuPercent: 50 + 10 * seed + (episodes % 7), rssMB: 100 + 20 * seed + episodes / 10, heapUsedMB: 40 + seed
    })
    lastStep = globalStep
    lastWall = wallSeconds
  }
  return out
}

/**
 * The runs directory of the views' end-to-end test: two environments (three CartPole-v1 PPO runs, two learning
 * rates, seeds 1–2; two FrozenLake-v1 DQN runs with different gammas), with system rows and a final evaluation
 * row (success rate), plus a Kuhn poker CFR+ solver run (nashConv rows).
 */
export const viewsRuns = (root: string): void => {
  const cart = [
    { name: "cart-lr1-s1", seed: 1, lr: 0.00025, success: 0.6 },
    { name: "cart-lr1-s2", seed: 2, lr: 0.00025, success: 0.7 },
    { name: "cart-lr4-s1", seed: 1, lr: 0.001, success: 0.9 }
  ]
  for (const c of cart) {
    const rows = withSystemRows(learningRows(120, c.seed), c.seed)
    rows.push({ kind: "evaluation", globalStep: 2400, wallSeconds: 2.5, episodes: 10, meanReturn: 400 + 100 * c.success, successRate: c.success })
    writeRun(root, { name: c.name, config: cartPoleConfig(c.seed, { ppo: { learningRate: c.lr, seed: c.seed, clipCoef: 0.2 } }), rows })
  }
  for (const [name, seed, gamma] of [["frozen-g90", 1, 0.9], ["frozen-g99", 2, 0.99]] as const) {
    const rows = withSystemRows(learningRows(60, seed, 8).map((r) => (r["kind"] === "episode" ? { ...r, episodeReturn: (r["episodeReturn"] as number) > 300 ? 1 : 0 } : r)), seed)
    rows.push({ kind: "evaluation", globalStep: 480, wallSeconds: 0.6, episodes: 10, meanReturn: gamma, successRate: gamma })
    writeRun(root, { name, config: { command: "train", env: "FrozenLake-v1", algo: "dqn", seed, totalSteps: 480, dqn: { gamma, learningRate: 0.0005 } }, rows })
  }
  // a text episode of an agent that retrieves exemplars and uses skills (step info), in frozen-g90's trajectories
  fs.mkdirSync(path.join(root, "frozen-g90", "trajectories"))
  fs.writeFileSync(
    path.join(root, "frozen-g90", "trajectories", "agent.jsonl"),
    JSON.stringify({
      envId: "TextHousehold-v0", seed: 3, task: "put a mug in cabinet", finalObservation: "You put the mug 1 in/on the cabinet 1.", return: 1, length: 2,
      steps: [
        { observation: "You are in the middle of a room.", action: "go to countertop 1", reward: 0, terminated: false, truncated: false, info: { exemplars: [{ task: "put a cup in cabinet", score: 0.8 }, "put a mug in drawer"], skill: "goto" } },
        { observation: "On the countertop 1, you see a mug 1.", action: "put mug 1 in/on cabinet 1", reward: 1, terminated: true, truncated: false, info: { skills: ["pick_and_place"] } }
      ]
    }) + "\n"
  )
  writeRun(root, {
    name: "kuhn-cfr",
    config: { command: "games", game: "kuhn_poker", solver: "cfr+" },
    rows: Array.from({ length: 50 }, (_, i) => ({ kind: "iteration", iteration: i + 1, nashConv: 0.5 / (i + 1) }))
  })
}

/**
 * Run directories as the reference app `apps/household-agent` writes them (`src/Agent.ts`), without training: for
 * each of `full-s1` (memory, skills, PRM on) and `gigpo-s1` (all off, plain GiGPO), `config.json` (command
 * `household-agent`, env `TextHousehold-v0`, algo `gigpo`, `components`), `metrics.jsonl` (episode and update rows
 * of the trainer, one `stream` row per stream task with the Evo-Memory streaming metrics, `memory`/`skills`/`prm`
 * rows for the components that are on, `system` rows, an `evaluation` row and the `summary` row),
 * `trajectories/stream.jsonl` (one text-episode transcript per stream task; full-s1's steps carry the exemplar plan
 * and the skill calls in `info`), `checkpoints/policy.json`, and for full-s1 a `skills/` library.
 */
export const householdAgentRuns = (root: string): void => {
  const variants = [
    { name: "full-s1", on: true, success: [0, 0, 1, 1, 0, 1, 1, 1], evalSuccess: 0.6 },
    { name: "gigpo-s1", on: false, success: [0, 0, 0, 1, 0, 0, 1, 0], evalSuccess: 0.2 }
  ]
  const families = ["pick_and_place_simple", "pick_heat_then_place_in_recep", "pick_and_place_simple", "look_at_obj_in_light", "pick_cool_then_place_in_recep", "pick_and_place_simple", "pick_two_obj_and_place", "pick_heat_then_place_in_recep"]
  const novelty = ["seen", "seen", "seen", "seen", "unseen-family", "seen", "unseen-family", "seen"]
  for (const v of variants) {
    const rows: Array<Record<string, unknown>> = []
    let step = 0
    let wall = 0
    let solved = 0
    let unseen = 0
    let unseenSolved = 0
    for (let k = 0; k < 8; k++) {
      // four episodes of the task's group, then the update and the stream task's row
      for (let e = 0; e < 4; e++) {
        const length = v.success[k] === 1 && e % 2 === 0 ? 6 : 25
        step += length
        wall += 0.05
        rows.push({ kind: "episode", globalStep: step, episodeReturn: length < 25 ? 1 : 0, episodeLength: length, wallSeconds: wall, success: length < 25, decisions: step, envStepsInEpisode: length })
      }
      rows.push({ kind: "update", globalStep: step, wallSeconds: wall, policyLoss: 0.02 - 0.002 * k, entropy: 2.2 - 0.1 * k, approxKl: 0.01, clipFraction: 0.1, learningRate: 0.005, successRate: v.success[k]! / 2, decisions: step })
      const s = v.success[k]!
      solved += s
      if (novelty[k] !== "seen") {
        unseen++
        unseenSolved += s
      }
      rows.push({
        kind: "stream", globalStep: step, wallSeconds: wall, streamIndex: k, family: families[k], novelty: novelty[k], revisit: k === 5, taskSuccess: s,
        ...(novelty[k] === "seen" ? {} : { baselineSuccess: 0 }),
        tasks: k + 1, streamSuccess: solved / (k + 1), seenSuccess: (solved - unseenSolved) / (k + 1 - unseen), revisits: k >= 5 ? 1 : 0, unseenTasks: unseen,
        ...(unseen === 0 ? {} : { unseenSuccess: unseenSolved / unseen, forwardTransfer: unseenSolved / unseen }),
        ...(k >= 5 ? { forgetting: 0 } : {})
      })
      if (v.on) rows.push({ kind: "memory", globalStep: step, wallSeconds: wall, storedEpisodes: 4 * (k + 1), exemplarShare: k === 0 ? 0 : 0.5 })
      if (v.on && k === 3) rows.push({ kind: "skills", globalStep: step, wallSeconds: wall, candidates: 3, admittedNow: 1, admittedSkills: 1, names: ["u4-0-go-take"] })
      if (v.on && k % 4 === 3) rows.push({ kind: "prm", globalStep: step, wallSeconds: wall, prmLoss: 0.1 - 0.02 * k / 4, prmSteps: step, prmPositiveShare: 0.2 })
      if (k % 2 === 1) rows.push({ kind: "system", globalStep: step, wallSeconds: wall, stepsPerSecond: step / wall, cpuPercent: 90, rssMB: 600 + k, heapUsedMB: 140 })
    }
    rows.push({ kind: "evaluation", globalStep: step, wallSeconds: wall, successRate: v.evalSuccess, episodeReturn: v.evalSuccess, episodeLength: 20, split: "test", decisions: step })
    rows.push({
      kind: "summary", run: v.name, seed: 1, components: { memory: v.on, skills: v.on, prm: v.on }, envSteps: step, decisions: step, updates: 8, streamTasks: 8,
      streamSuccess: solved / 8, evalSuccess: v.evalSuccess, storedEpisodes: v.on ? 32 : 0, admittedSkills: v.on ? ["u4-0-go-take"] : [], skillCalls: v.on ? 1 : 0, prmFits: v.on ? 2 : 0, wallSeconds: wall
    })
    const dir = writeRun(root, {
      name: v.name,
      config: {
        command: "household-agent", env: "TextHousehold-v0", algo: "gigpo", seed: 1, totalSteps: 1200,
        components: { memory: v.on, skills: v.on, prm: v.on },
        stream: { kind: "generator", seed: 1, seenSteps: 600 },
        agent: { seed: 1, steps: 1200, memory: v.on, skills: v.on, prm: v.on, exemplarLine: "first-step", groupSize: 4, tasksPerBatch: 1 },
        startedAt: "2026-11-27T12:00:00.000Z"
      },
      rows
    })
    fs.writeFileSync(path.join(dir, "checkpoints", "policy.json"), "{}\n")
    const plan = "go to countertop 1, take mug 1 from countertop 1, go to cabinet 1, put mug 1 in/on cabinet 1"
    const info = (extra: Record<string, unknown>) => (v.on ? { exemplar: plan, ...extra } : {})
    const transcripts = [
      {
        envId: "TextHousehold-v0", seed: 11, task: "put a mug in cabinet. [stream 0, seen]", return: 1, length: 3, success: true,
        steps: [
          { observation: "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 1, and a sinkbasin 1.\n\nYour task is to: put a mug in cabinet.", action: "go to countertop 1", reward: 0, terminated: false, truncated: false, info: info({}) },
          { observation: "You arrive at countertop 1. On the countertop 1, you see a mug 1.", action: v.on ? "skill u4-0-go-take cabinet 1 mug 1" : "take mug 1 from countertop 1", reward: 0, terminated: false, truncated: false, info: info({ skill: "skill u4-0-go-take cabinet 1 mug 1", primitiveSteps: 2 }) },
          { observation: "You arrive at cabinet 1. The cabinet 1 is open. You are carrying a mug 1.", action: "put mug 1 in/on cabinet 1", reward: 1, terminated: true, truncated: false, info: info({}) }
        ],
        finalObservation: "You put the mug 1 in/on the cabinet 1."
      },
      {
        envId: "TextHousehold-v0", seed: 12, task: "heat some egg and put it in fridge. [stream 1, seen]", return: 0, length: 1, success: false,
        steps: [{ observation: "You are in the middle of a room.", action: "look", reward: 0, terminated: false, truncated: true, info: {} }]
      }
    ]
    fs.mkdirSync(path.join(dir, "trajectories"))
    fs.writeFileSync(path.join(dir, "trajectories", "stream.jsonl"), transcripts.map((t) => JSON.stringify(t) + "\n").join(""))
    if (v.on) writeSkills(dir, [skillRecord("u4-0-go-take", 1, { calls: 1, successes: 1, meanReturn: 1 })])
  }
}
