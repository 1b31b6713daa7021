/**
 * The LLM path of the household agent, end to end over real HTTP: `@autodidact/llm/testing`'s scripted
 * OpenAI-compatible server (plain `node:http`, independent of the code under test) behind the run's recording gateway.
 *
 * The scripted model: as a policy it plays a small `pick_and_place_simple` routine read off the prompt (move the task's
 * object to the task's receptacle when it can, else take the object, else open a closed receptacle, else go to the
 * receptacle when holding the object or to a place not visited yet), except in every third episode, where it only
 * answers `look` (so the rollouts of a group differ and Training-Free GRPO has signal). Asked to summarize it answers a
 * fixed summary, to compare attempts one lesson, to update the library a JSON ADD of that lesson, and ExpeL's
 * extraction an `ADD:` of an insight.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { TextEpisode } from "@autodidact/core"
import { Runs } from "@autodidact/dashboard"
import { startScriptedServer } from "@autodidact/llm/testing"
import * as LlmAgent from "../src/LlmAgent.js"

const LESSON = "Open closed receptacles before looking for the object elsewhere."
const INSIGHT = "Carry the object straight to the target receptacle."

const policyAnswer = (messages: ReadonlyArray<{ role: string; content: string }>, episode: number): string => {
  const all = messages.map((m) => m.content).join("\n")
  const last = messages[messages.length - 1]!.content
  const admissible = last.split("Admissible actions:\n")[1]?.split("\n").filter((l) => l.startsWith("- ")).map((l) => l.slice(2)) ?? []
  if (episode % 3 === 0) return "look"
  const task = /put (?:a|an|some) (\w+) (?:in|on|in\/on) (\w+)/.exec(all)
  const [obj, recep] = task === null ? ["", ""] : [task[1]!, task[2]!]
  const move = admissible.find((a) => new RegExp(`^move ${obj} \\d+ to ${recep} \\d+$`).test(a))
  if (move !== undefined) return move
  const holding = admissible.some((a) => new RegExp(`^move ${obj} \\d+ to `).test(a))
  const take = admissible.find((a) => new RegExp(`^take ${obj} \\d+ from `).test(a))
  if (!holding && take !== undefined) return take
  const closed = /The (\w+ \d+) is closed/.exec(last.split("Admissible actions:")[0]!)
  if (closed !== null && admissible.includes(`open ${closed[1]}`)) return `open ${closed[1]}`
  const goes = admissible.filter((a) => a.startsWith("go to "))
  if (holding) return goes.find((a) => a.startsWith(`go to ${recep} `)) ?? goes[0] ?? "look"
  const visited = new Set([...all.matchAll(/Action: (go to [\w ]+\d+)/g)].map((m) => m[1]))
  return goes.find((a) => !visited.has(a)) ?? goes[0] ?? "look"
}

/** The scripted model over `@autodidact/llm/testing`'s server; `counts` splits its requests into policy and learner calls. */
const startScripted = async () => {
  const counts = { policy: 0, learn: 0 }
  let episodes = 0
  const server = await startScriptedServer({
    respond: (r) => {
      const messages = r.messages.map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content : "" }))
      const all = r.transcript
      let content: string
      if (all.includes("Update the library")) content = JSON.stringify([{ operation: "ADD", content: LESSON }])
      else if (all.includes("Compare the attempts")) content = LESSON
      else if (all.includes("Summarize the attempt")) content = "The agent searched the room."
      else if (all.includes("Answer with operations on the existing rules")) content = `ADD: ${INSIGHT}`
      else {
        if (messages.length === 2) episodes++ // system + the first observation: a new episode
        counts.policy++
        content = `Thought: step ${counts.policy}\nAction: ${policyAnswer(messages, episodes)}`
      }
      if (!content.startsWith("Thought")) counts.learn++
      return { content, usage: { prompt_tokens: 10, completion_tokens: 5 } }
    }
  })
  return { url: server.baseUrl, counts, requests: server.requests, close: () => server.close() }
}

const rowsOf = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>)

describe("LlmAgent", () => {
  it("runs a short stream through the recording gateway, writes stream rows, learn and gate rows and the summary", async () => {
    const server = await startScripted()
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "household-llm-"))
    try {
      const streamFile = path.join(dir, "stream.jsonl")
      fs.writeFileSync(streamFile, [3, 5, 3, 8].map((seed) => JSON.stringify({ family: "pick_and_place_simple", split: "train", seed })).join("\n"))
      const out = path.join(dir, "run")
      const summary = await Effect.runPromise(LlmAgent.run({
        out,
        llmBaseUrl: server.url,
        llmModel: "scripted",
        env: {},
        stream: streamFile,
        tasks: 4,
        difficulty: "easy",
        maxSteps: 15,
        groupSize: 3,
        learnEvery: 2,
        gateTasks: 2
      }))
      const rows = rowsOf(path.join(out, "metrics.jsonl"))
      const stream = rows.filter((r) => r["kind"] === "stream")
      expect(stream.map((r) => r["streamIndex"])).toEqual([0, 1, 2, 3])
      // task 2 re-visits task 0 (same family, split and seed)
      expect(stream.map((r) => r["revisit"])).toEqual([false, false, true, false])
      for (const r of stream) expect([0, 1 / 3, 2 / 3, 1]).toContainEqual(r["taskSuccess"])
      // the stream success is the mean of the task outcomes (Evo-Memory's success over the stream)
      const outcomes = stream.map((r) => r["taskSuccess"] as number)
      expect(summary.streamSuccess).toBeCloseTo(outcomes.reduce((a, b) => a + b, 0) / outcomes.length, 12)
      // the routine solves some pick-and-place episodes and `look` none: groups have signal
      expect(outcomes.some((s) => s > 0 && s < 1)).toBe(true)
      const learn = rows.filter((r) => r["kind"] === "learn")
      const gate = rows.filter((r) => r["kind"] === "gate")
      expect(learn).toHaveLength(2)
      expect(gate).toHaveLength(2)
      expect(summary.gateDecisions).toBe(2)
      // the first candidate adds the lesson and the insight, so the gate evaluates it on the 2 held-out tasks
      expect(gate[0]!["tasks"]).toBe(2)
      expect(typeof gate[0]!["accepted"]).toBe("boolean")
      expect(learn[0]!["candidateLibrarySize"]).toBe(1)
      expect(learn[0]!["candidateInsights"]).toBe(1)
      expect(summary.promotions).toBe(gate.filter((g) => g["accepted"] === true).length)
      if (summary.promotions > 0) {
        const saved = JSON.parse(fs.readFileSync(path.join(out, "experiences.json"), "utf8"))
        expect(saved.library.experiences[0].text).toBe(LESSON)
      } else expect(fs.existsSync(path.join(out, "experiences.json"))).toBe(false)
      expect(rows[rows.length - 1]!["kind"]).toBe("summary")
      // every rollout as a core TextEpisode the dashboard reads: 4 tasks x 3 attempts, labelled, thoughts as notes,
      // and each task's success share equal to its stream row
      const transcriptFile = path.join(out, "trajectories", "stream.jsonl")
      const lines = fs.readFileSync(transcriptFile, "utf8").split("\n").filter((l) => l !== "")
      expect(lines).toHaveLength(12)
      const episodes = lines.map((l) => TextEpisode.decode(JSON.parse(l)))
      for (const [i, ep] of episodes.entries()) {
        expect(Runs.episodeProblem(JSON.parse(lines[i]!))).toBeUndefined()
        expect(ep.envId).toBe("TextHousehold-v0")
        expect(ep.task).toContain(`[stream ${Math.floor(i / 3)}, seen${i >= 6 && i < 9 ? ", revisit" : ""}, attempt ${(i % 3) + 1}/3]`)
        expect(ep.length).toBeGreaterThan(0)
        expect(ep.steps.every((st, k) => /^Thought: step \d+$/.test((st.info?.["notes"] as Array<string>)[0]!) && (k > 0 || st.observation.length > 0))).toBe(true)
        expect(ep.return).toBeCloseTo(ep.steps.reduce((a, st) => a + st.reward, 0), 12)
      }
      stream.forEach((r, t) => expect(episodes.slice(3 * t, 3 * t + 3).filter((ep) => ep.success === true).length / 3).toBeCloseTo(r["taskSuccess"] as number, 12))
      // the thoughts are the model's: every step's thought number is one of its policy answers
      const thoughts = episodes.flatMap((ep) => ep.steps.map((st) => Number(/\d+/.exec((st.info?.["notes"] as Array<string>)[0]!)![0])))
      expect(new Set(thoughts).size).toBe(thoughts.length)
      expect(Math.max(...thoughts)).toBeLessThanOrEqual(server.counts.policy)
      // every request reached the endpoint through the gateway, and each was recorded
      const sessions = path.join(out, "llm", "sessions")
      const exchanges = fs.readdirSync(sessions).flatMap((f) => rowsOf(path.join(sessions, f))).filter((r) => r["type"] === "exchange")
      expect(exchanges.length).toBe(server.counts.policy + server.counts.learn)
      expect(server.requests.length).toBe(exchanges.length)
      expect(server.counts.learn).toBeGreaterThan(0)
      expect(new Set(exchanges.map((x) => x["session"]))).toEqual(new Set(["household-1"]))
      const config = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
      expect(config.policy).toBe("llm")
      expect(config.model).toBe("scripted")
    } finally {
      await server.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it("refuses a --llm-base-url that is not a URL with a typed error naming the flag, before writing anything", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "household-llm-"))
    try {
      const out = path.join(dir, "run")
      const err = await Effect.runPromise(Effect.flip(LlmAgent.run({ out, llmBaseUrl: "not a url", llmModel: "m", env: {} })))
      expect(err).toMatchObject({ _tag: "LlmConfigError", option: "--llm-base-url", value: "not a url" })
      expect(fs.existsSync(out)).toBe(false)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("names an unset --llm-api-key-env variable, and the command line dispatches on --llm-base-url", async () => {
    const err = await Effect.runPromise(Effect.flip(LlmAgent.resolveEndpoint({ llmBaseUrl: "https://api.example.com/v1", llmModel: "m", llmApiKeyEnv: "NO_SUCH_KEY", env: {} })))
    expect(err).toMatchObject({ _tag: "LlmConfigError", option: "--llm-api-key-env" })
    expect(LlmAgent.wanted(["--out", "x", "--llm-base-url=http://127.0.0.1:1/v1"])).toBe(true)
    expect(LlmAgent.wanted(["--out", "x", "--steps", "10"])).toBe(false)
    expect(LlmAgent.parse(["--out", "x", "--llm-base-url", "http://h/v1", "--tasks", "12", "--learner", "expel", "--quiet"])).toEqual({ out: "x", llmBaseUrl: "http://h/v1", tasks: 12, learner: "expel" })
    expect(() => LlmAgent.parse(["--out", "x", "--llm-base-url", "http://h/v1", "--tasks", "many"])).toThrow(/--tasks/)
  })
})
