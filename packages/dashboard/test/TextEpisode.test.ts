import { TextEpisode, Trajectory } from "@autodidact/core"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import { DashboardError } from "../src/Errors.js"
import * as Runs from "../src/Runs.js"
import { serve } from "../src/Server.js"
import { cartPoleConfig, tempDir, writeRun } from "./fixtures.js"

/** Two TextHousehold-v0 episodes as the CLI's `--save-trajectories` writes them (one line each). */
const won = TextEpisode.make(
  "TextHousehold-v0",
  [
    { observation: "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room.\n\nYour task is to: put a mug in cabinet.", action: "go to countertop 1", reward: 0, terminated: false, truncated: false },
    { observation: "You arrive at countertop 1. On the countertop 1, you see a mug 1.", action: "take mug 1 from countertop 1", reward: 0, terminated: false, truncated: false },
    { observation: "You pick up the mug 1 from the countertop 1.", action: "put mug 1 in/on cabinet 1", reward: 1, terminated: true, truncated: false }
  ],
  { seed: 7, task: "put a mug in cabinet", finalObservation: "You put the mug 1 in/on the cabinet 1.", success: true }
)
const cut = TextEpisode.make("TextHousehold-v0", [{ observation: "You are in the middle of a room.", action: "look", reward: 0, terminated: false, truncated: true }], { seed: 8 })

interface Turn {
  readonly step: number
  readonly observation: string
  readonly action: string | undefined
  readonly status: string
  readonly flags: string
  readonly notes: ReadonlyArray<{ kind: string; text: string }>
  readonly current: boolean
}
/** The viewer's pure helpers (`ui/episode.js`, plain JS served to the browser). */
const ui = (await import(pathToFileURL(path.join(import.meta.dirname, "..", "ui", "episode.js")).href)) as {
  isTextEpisode: (ep: unknown) => boolean
  textTurns: (ep: unknown, at: number) => Array<Turn>
  stepNotes: (step: unknown) => Array<{ kind: string; text: string }>
}

describe("TextEpisode", () => {
  it("is core's Trajectory with text observations and actions: return and length from the steps, one JSON line each", () => {
    expect(won).toMatchObject({ envId: "TextHousehold-v0", seed: 7, return: 1, length: 3 })
    const line = TextEpisode.toJsonLine(won)
    expect(line.endsWith("\n")).toBe(true)
    expect(line.slice(0, -1).includes("\n")).toBe(false)
    const back = TextEpisode.decode(JSON.parse(line))
    expect(back).toEqual(won)
    // every text episode is a core Trajectory, so every other reader of trajectories/*.jsonl accepts it
    expect(Schema.is(Trajectory.Trajectory)(back)).toBe(true)
  })

  it("rejects rows that are not text episodes, naming the field", () => {
    const numeric = { ...won, steps: [{ ...won.steps[0]!, action: 2 }] }
    expect(TextEpisode.is(numeric)).toBe(false)
    expect(() => TextEpisode.decode(numeric)).toThrow(/action/)
    expect(() => TextEpisode.decode({ env: "TextHousehold-v0", steps: [], return: 0 })).toThrow(/envId/)
    expect(() => TextEpisode.decode({ ...won, steps: [{ observation: "x", action: "y", reward: 0, terminated: false }] })).toThrow(/truncated/)
  })

  it("is served by /api/trajectory and shown by the viewer as observation, action, reward and terminated/truncated per step", async () => {
    const root = tempDir()
    const dir = writeRun(root, { name: "text", config: { ...cartPoleConfig(7), env: "TextHousehold-v0" }, rows: [] })
    fs.mkdirSync(path.join(dir, "trajectories"))
    fs.writeFileSync(path.join(dir, "trajectories", "eval.jsonl"), TextEpisode.toJsonLine(won) + TextEpisode.toJsonLine(cut))
    const [files, first, second] = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const d = yield* serve({ runsDir: root, port: 0 })
          const get = (p: string) => Effect.promise(async () => (await fetch(d.url + p)).json() as Promise<unknown>)
          return [yield* get("api/trajectories?run=text"), yield* get("api/trajectory?run=text&file=eval.jsonl&index=0"), yield* get("api/trajectory?run=text&file=eval.jsonl&index=1")]
        })
      )
    )
    expect(files).toEqual({ files: [{ file: "eval.jsonl", episodes: 2 }] })
    expect(TextEpisode.decode(first)).toEqual(won)
    expect(ui.isTextEpisode(first)).toBe(true)
    expect(ui.textTurns(first, 2)).toEqual([
      { step: 0, observation: won.steps[0]!.observation, action: "go to countertop 1", status: "reward 0 · terminated false · truncated false", flags: "", notes: [], current: false },
      { step: 1, observation: won.steps[1]!.observation, action: "take mug 1 from countertop 1", status: "reward 0 · terminated false · truncated false", flags: "", notes: [], current: false },
      { step: 2, observation: won.steps[2]!.observation, action: "put mug 1 in/on cabinet 1", status: "reward 1 · terminated true · truncated false", flags: "terminated", notes: [], current: true },
      { step: 3, observation: "You put the mug 1 in/on the cabinet 1.", action: undefined, status: "end · return 1", flags: "", notes: [], current: false }
    ])
    expect(ui.textTurns(second, 0)).toEqual([
      { step: 0, observation: "You are in the middle of a room.", action: "look", status: "reward 0 · terminated false · truncated true", flags: "truncated", notes: [], current: true }
    ])
    // grid and CartPole episodes are not text episodes
    expect(ui.isTextEpisode({ envId: "FrozenLake-v1", steps: [{ observation: 0, action: 1, reward: 0, terminated: false, truncated: false }], return: 0, length: 1 })).toBe(false)
    expect(ui.isTextEpisode({ envId: "Sokoban-v0", steps: [{ observation: "#@$.#", action: 2, reward: 0, terminated: false, truncated: false }], return: 0, length: 1 })).toBe(false)
  })

  it("shows the exemplars retrieved and the skills used at a step (from its info)", () => {
    expect(ui.stepNotes({ info: { exemplars: ["put a cup in cabinet", { task: "heat a mug", score: 0.9 }, { id: 42 }], skill: "goto" } })).toEqual([
      { kind: "exemplars", text: "exemplars (3): put a cup in cabinet · heat a mug · 42" },
      { kind: "skill", text: "skill: goto" }
    ])
    expect(ui.stepNotes({ info: { retrieved: "one", skills: ["a", "b"] } })).toEqual([
      { kind: "exemplars", text: "exemplars (1): one" },
      { kind: "skill", text: "skill: a, b" }
    ])
    // the reference app (apps/household-agent): one exemplar plan, a skill call with the env steps it took
    expect(ui.stepNotes({ info: { exemplar: "go to countertop 1, take mug 1 from countertop 1", skill: "skill u4-0 mug 1", primitiveSteps: 3 } })).toEqual([
      { kind: "exemplars", text: "exemplars (1): go to countertop 1, take mug 1 from countertop 1" },
      { kind: "skill", text: "skill: skill u4-0 mug 1 (3 env steps)" }
    ])
    expect(ui.stepNotes({ info: { notes: ["prm 0.8", "replanned"] } })).toEqual([
      { kind: "note", text: "prm 0.8" },
      { kind: "note", text: "replanned" }
    ])
    expect(ui.stepNotes({ info: { other: 1, exemplars: [] } })).toEqual([])
    expect(ui.stepNotes({})).toEqual([])
  })

  it("Runs.trajectory checks each line: a line that is not JSON or whose step extras have the wrong type is a DashboardError naming the file and line (422 from the server)", async () => {
    const root = tempDir()
    const dir = writeRun(root, { name: "text", config: { ...cartPoleConfig(7), env: "TextHousehold-v0" }, rows: [] })
    fs.mkdirSync(path.join(dir, "trajectories"))
    const withExtras = TextEpisode.make("TextHousehold-v0", [
      { observation: "You are in a room.", action: "skill u4-0 mug 1", reward: 1, terminated: true, truncated: false, info: { exemplar: "go to countertop 1", skill: "skill u4-0 mug 1", primitiveSteps: 3 } }
    ])
    const badSkill = { ...withExtras, steps: [{ ...withExtras.steps[0]!, info: { skill: 7 } }] }
    const badSteps = { ...withExtras, steps: [{ ...withExtras.steps[0]!, info: { primitiveSteps: -1 } }] }
    // blank lines do not count as episodes, but line numbers are the file's own
    fs.writeFileSync(path.join(dir, "trajectories", "stream.jsonl"), TextEpisode.toJsonLine(withExtras) + "\n{oops\n" + JSON.stringify(badSkill) + "\n" + JSON.stringify(badSteps) + "\n")
    expect(await Runs.trajectory(dir, "stream.jsonl", 0)).toEqual(withExtras)
    const failure = async (index: number) => {
      try {
        await Runs.trajectory(dir, "stream.jsonl", index)
      } catch (e) {
        return e
      }
      return undefined
    }
    const notJson = await failure(1)
    expect(notJson).toBeInstanceOf(DashboardError)
    expect((notJson as DashboardError).message).toMatch(/^trajectories\/stream\.jsonl: line 3 is not JSON/)
    expect(((await failure(2)) as DashboardError).message).toMatch(/^trajectories\/stream\.jsonl: line 4: steps\[0\]\.info: .*skill/s)
    expect(((await failure(3)) as DashboardError).message).toMatch(/^trajectories\/stream\.jsonl: line 5: steps\[0\]\.info: .*primitiveSteps/s)
    expect(await Runs.trajectory(dir, "stream.jsonl", 4)).toBeUndefined()
    const answer = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const d = yield* serve({ runsDir: root, port: 0 })
          return yield* Effect.promise(async () => {
            const res = await fetch(d.url + "api/trajectory?run=text&file=stream.jsonl&index=2")
            return { status: res.status, body: (await res.json()) as { error: string } }
          })
        })
      )
    )
    expect(answer.status).toBe(422)
    expect(answer.body.error).toMatch(/trajectories\/stream\.jsonl: line 4: /)
  })
})
