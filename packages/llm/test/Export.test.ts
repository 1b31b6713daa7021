import { Export, Recorder } from "@autodidact/llm"
import { Advantages } from "@autodidact/optim"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const x = (id: string, episode: string, messages: Array<unknown>, response: Partial<NonNullable<Recorder.Exchange["response"]>>, extra: Partial<Recorder.Exchange> = {}): Recorder.Exchange => ({
  type: "exchange",
  id,
  session: "s",
  episode,
  startedAt: 0,
  latencyMs: 1,
  stream: false,
  request: { model: "m", messages, sampling: {} },
  status: 200,
  response: { content: null, toolCalls: [], ...response },
  ...extra
})
const tool = { type: "function", function: { name: "lookup", parameters: { type: "object" } } }
const call = { id: "c1", type: "function", function: { name: "lookup", arguments: "{\"q\":\"x\"}" } }
const rows: Array<Recorder.Row> = [
  x("x1", "e1", [{ role: "user", content: "hi" }], { content: "hello" }),
  x("x2", "e1", [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, { role: "user", content: "go" }], { toolCalls: [call] }, { request: { model: "m", messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, { role: "user", content: "go" }], tools: [tool], sampling: {} } }),
  x("x3", "e1", [{ role: "user", content: "fail" }], {}, { status: 500, error: { kind: "upstream-status", message: "boom", status: 500 } }),
  x("x4", "e2", [{ role: "user", content: "other" }], { content: "ok" }),
  { type: "reward", id: "r1", session: "s", exchangeId: "x1", reward: 0.5, at: 1 },
  { type: "reward", id: "r2", session: "s", episode: "e1", reward: 1, success: true, at: 2 },
  { type: "reward", id: "r3", session: "s", reward: 2, at: 3 },
  { type: "reward", id: "r4", session: "other", reward: 100, at: 4 }
]

const traj = {
  envId: "TextFrozenLake-v1",
  task: "reach the goal",
  seed: 1,
  steps: [
    { observation: "o0", action: "Up", reward: 0, terminated: false, truncated: false, admissible: ["Up", "Down"] },
    { observation: "o1", action: "Down", reward: 1, terminated: true, truncated: false, advantage: 0.7 }
  ],
  return: 1,
  length: 2,
  success: true
}

describe("Export from gateway rows", () => {
  const episodes = Export.fromGatewayRows(rows)

  it("groups successful exchanges by (session, episode) and places rewards", () => {
    expect(episodes.map((e) => [e.id, e.group, e.turns.length, e.return, e.success])).toEqual([
      ["s/e1", "s", 2, 3.5, true],
      ["s/e2", "s", 1, 2, undefined]
    ])
    // x1: 0.5 (its own); x2: 1 (episode) + 2 (session) ; x4: 2 (session)
    expect(episodes[0]!.turns.map((t) => t.reward)).toEqual([0.5, 3])
    expect(episodes[1]!.turns.map((t) => t.reward)).toEqual([2])
  })

  it("chat rows: the last turn's prompt plus the assistant message, tool calls and tools kept", () => {
    expect(Export.toChat(episodes)).toEqual([
      {
        messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, { role: "user", content: "go" }, { role: "assistant", content: null, tool_calls: [call] }],
        tools: [tool]
      },
      { messages: [{ role: "user", content: "other" }, { role: "assistant", content: "ok" }] }
    ])
    expect(Export.toChat(episodes, { per: "turn" }).map((r) => r.messages.length)).toEqual([2, 4, 2])
  })

  it("verl rows field by field, with GRPO advantages within the session group", () => {
    const v = Export.toVerl(episodes, { advantage: "grpo" })
    expect(v.length).toBe(3)
    // returns 3.5 and 2: mean 2.75, sample std √((0.75² + 0.75²)/(2 − 1)) = 0.75·√2 = 1.06066
    const a = 0.75 / (Math.sqrt(1.125) + 1e-6)
    expect(a).toBeCloseTo(0.70711, 4)
    expect(v[0]).toEqual({
      data_source: "gateway",
      prompt: [{ role: "user", content: "hi" }],
      response: "hello",
      tool_calls: [],
      reward: 0.5,
      episode_return: 3.5,
      advantage: a,
      episode_index: 0,
      group_index: 0,
      step_index: 0,
      uid: "s",
      traj_uid: "s/e1",
      done: false,
      success: true
    })
    expect(v[1]).toMatchObject({ response: JSON.stringify([call]), tool_calls: [call], reward: 3, step_index: 1, done: true, advantage: a })
    expect(v[2]).toMatchObject({ episode_index: 1, group_index: 0, step_index: 0, done: true, advantage: -a, success: null, traj_uid: "s/e2" })
    for (const r of v) expect(Schema.is(Export.VerlRow)(r)).toBe(true)
    expect(Export.toVerl(episodes).map((r) => r.advantage)).toEqual([null, null, null])
  })
})

describe("Export from environment trajectories", () => {
  it("builds the chat conversation and per-step rows; recorded advantages and admissible actions kept", () =>
    Effect.gen(function*() {
      const [e] = yield* Export.parseTrajectories("t.jsonl", JSON.stringify(traj) + "\n")
      expect(Export.toChat([e!])).toEqual([{
        messages: [
          { role: "system", content: "Task: reach the goal" },
          { role: "user", content: "o0\nAdmissible actions: Up, Down" },
          { role: "assistant", content: "Up" },
          { role: "user", content: "o1" },
          { role: "assistant", content: "Down" }
        ]
      }])
      const v = Export.toVerl([e!])
      expect(v.map((r) => [r.data_source, r.step_index, r.reward, r.advantage, r.done, r.uid, r.traj_uid, r.prompt.length, r.response])).toEqual([
        ["TextFrozenLake-v1", 0, 0, null, false, "TextFrozenLake-v1|reach the goal|1", "t.jsonl#1", 2, "Up"],
        ["TextFrozenLake-v1", 1, 1, 0.7, true, "TextFrozenLake-v1|reach the goal|1", "t.jsonl#1", 4, "Down"]
      ])
    }))

  it("GRPO groups trajectories by (env, task, seed); a group of one gets 0", () => {
    const mk = (ret: number, seed: number) => Export.fromTrajectory({ ...traj, seed, return: ret, steps: traj.steps.slice(0, 1) }, `t${ret}`)
    const adv = Export.grpoAdvantages([mk(1, 1), mk(0, 1), mk(0, 1), mk(1, 1), mk(5, 2)])
    // group seed 1: returns 1,0,0,1: mean 0.5, sample std √(4·0.25/3) = √(1/3) = 0.57735 -> ±0.86603 (minus eps)
    const a = 0.5 / (Math.sqrt(1 / 3) + 1e-6)
    expect(a).toBeCloseTo(0.86603, 4)
    expect(Array.from(adv)).toEqual([a, -a, -a, a, 0])
  })

  it("verl's advantage: \"grpo\" is optim's GRPO on the same returns (one rule: sample std, one-member group 0)", () => {
    const mk = (ret: number, seed: number, i: number) => Export.fromTrajectory({ ...traj, seed, return: ret, steps: traj.steps.slice(0, 1) }, `t${i}`)
    // groups (by seed): {3, −1, 2} and {0.5, 4.5} and {7}; interleaved in the episode list
    const returns = [3, 0.5, -1, 7, 2, 4.5]
    const seeds = [1, 2, 1, 3, 1, 2]
    const episodes = returns.map((r, i) => mk(r, seeds[i]!, i))
    const rows = Export.toVerl(episodes, { advantage: "grpo" })
    const optim = Advantages.grpo([[{ rewards: [3] }, { rewards: [-1] }, { rewards: [2] }], [{ rewards: [0.5] }, { rewards: [4.5] }], [{ rewards: [7] }]], Advantages.defaults)
    const expected = [optim[0]![0]![0], optim[1]![0]![0], optim[0]![1]![0], optim[2]![0]![0], optim[0]![2]![0], optim[1]![1]![0]]
    expect(rows.map((r) => r.advantage)).toEqual(expected)
    // and by hand: {3, −1, 2}: mean 4/3, sample std √((25/9 + 49/9 + 4/9)/2) = √(13/3); {0.5, 4.5}: ∓2/√8; {7}: 0
    const s = Math.sqrt(13 / 3) + 1e-6
    const t = Math.sqrt(8) + 1e-6
    const hand = [(3 - 4 / 3) / s, -2 / t, (-1 - 4 / 3) / s, 0, (2 - 4 / 3) / s, 2 / t]
    rows.forEach((r, k) => expect(r.advantage).toBeCloseTo(hand[k]!, 12))
  })

  it("bad lines fail with the file and line number", () =>
    Effect.gen(function*() {
      const e1 = yield* Effect.flip(Export.parseTrajectories("t.jsonl", JSON.stringify(traj) + "\n{oops\n"))
      expect([e1._tag, e1.file, e1.line, e1.reason]).toEqual(["ExportInputError", "t.jsonl", 2, "not JSON"])
      const e2 = yield* Effect.flip(Export.parseTrajectories("t.jsonl", "\n" + JSON.stringify({ envId: "x", steps: "nope" })))
      expect(e2.line).toBe(2)
      expect(e2.reason).toContain("not a trajectory")
      expect(e2.message).toContain("t.jsonl:2")
    }))
})

describe("Export.read", () => {
  it.effect("reads a gateway directory, a run directory and files; writes JSONL atomically", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "export-"))
      try {
        fs.mkdirSync(path.join(dir, "gw", "sessions"), { recursive: true })
        fs.writeFileSync(path.join(dir, "gw", "sessions", "s.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n")
        const g = yield* Export.read(path.join(dir, "gw"))
        expect(g.map((e) => e.id)).toEqual(["s/e1", "s/e2"])
        fs.mkdirSync(path.join(dir, "run", "trajectories"), { recursive: true })
        fs.writeFileSync(path.join(dir, "run", "trajectories", "eval.jsonl"), JSON.stringify(traj) + "\n" + JSON.stringify(traj) + "\n")
        const t = yield* Export.read(path.join(dir, "run"))
        expect(t.map((e) => e.id)).toEqual(["eval.jsonl#1", "eval.jsonl#2"])
        const f = yield* Export.read(path.join(dir, "run", "trajectories", "eval.jsonl"))
        expect(f.length).toBe(2)
        fs.writeFileSync(path.join(dir, "gw", "sessions", "bad.jsonl"), JSON.stringify(rows[0]) + "\n{\"type\":\"exchange\"}\n")
        const bad = yield* Effect.flip(Export.read(path.join(dir, "gw")))
        expect([bad.line, path.basename(bad.file)]).toEqual([2, "bad.jsonl"])
        const missing = yield* Effect.flip(Export.read(path.join(dir, "nope")))
        expect(missing.reason).toBe("no such file or directory")
        const out = path.join(dir, "out", "chat.jsonl")
        yield* Export.writeJsonl(out, Export.toChat(t))
        const lines = fs.readFileSync(out, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l))
        expect(lines.length).toBe(2)
        expect(lines[0].messages.at(-1)).toEqual({ role: "assistant", content: "Down" })
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }))
})
