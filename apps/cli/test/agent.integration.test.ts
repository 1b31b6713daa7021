/**
 * End-to-end tests of `autodidact agent eval|train`: the command, run in process (test/inproc.ts), talks over real HTTP to
 * `@autodidact/llm/testing`'s scripted OpenAI-compatible server (plain `node:http`, independent of the code under test).
 *
 * The scripted model: as a policy it answers `Action: ...`: an inadmissible `dance` on one request in seven, else the
 * optimal move of the slippery lake, except in every third episode, where it cycles through the admissible actions
 * (so the rollouts of one task differ and groups have signal); asked to summarize it answers a fixed summary; asked
 * to compare attempts it answers one lesson; asked to update the library it answers a JSON ADD of that lesson.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startScriptedServer } from "@autodidact/llm/testing"
import { cli as inProcess } from "./inproc.js"

const LESSON = "Check the admissible actions before acting."

/**
 * The optimal action of the slippery 4x4 FrozenLake map at the player's cell (value iteration with γ = 0.99, as in
 * the standard solutions: success ≈ 0.74 from the start), read off the last map of an observation.
 */
const OPTIMAL = ["Left", "Up", "Up", "Up", "Left", "Left", "Left", "Left", "Up", "Down", "Left", "Left", "Left", "Right", "Down", "Left"]
const optimalMove = (text: string): string | undefined => {
  const rows = text.split("\n").filter((l) => /^[P_OGX√]{4}$/u.test(l))
  const cell = rows.join("").indexOf("P")
  return rows.length === 4 && cell >= 0 ? OPTIMAL[cell] : undefined
}

/** The scripted model over `@autodidact/llm/testing`'s server; `counts` splits its requests by purpose. */
const startScripted = async () => {
  const counts = { policy: 0, summarize: 0, compare: 0, update: 0 }
  let episodes = 0
  const server = await startScriptedServer({
    respond: (r) => {
      const all = r.transcript
      const last = typeof r.messages.at(-1)?.content === "string" ? (r.messages.at(-1)!.content as string) : ""
      let content: string
      if (all.includes("Update the library")) {
        counts.update++
        content = JSON.stringify([{ operation: "ADD", content: LESSON }])
      } else if (all.includes("Compare the attempts")) {
        counts.compare++
        content = LESSON
      } else if (all.includes("Summarize the attempt")) {
        counts.summarize++
        content = "The agent moved around."
      } else {
        const admissible = last.split("Admissible actions:\n")[1]?.split("\n").filter((l) => l.startsWith("- ")).map((l) => l.slice(2)) ?? []
        // An episode starts with the env's rules ("Symbols: ..."). Every third episode the model cycles through the
        // admissible list; the others it plays the optimal move (so the rollouts of a group differ and have signal).
        // One request in seven names no admissible action.
        if (last.includes("Symbols:")) episodes++
        const k = counts.policy++
        const choice = k % 7 === 0 ? "dance" : episodes % 3 !== 0 ? (optimalMove(last) ?? admissible[0]!) : admissible[k % admissible.length]!
        content = `Thought: trying option ${counts.policy}\nAction: ${choice}`
      }
      return { content, usage: { prompt_tokens: r.messages.length * 10, completion_tokens: content.split(/\s+/).length } }
    }
  })
  return {
    url: server.baseUrl,
    counts,
    get authorization() {
      return server.requests.map((q) => q.headers.authorization)
    },
    close: () => server.close()
  }
}

/** `autodidact ARGS` in this process (test/inproc.ts) with `env` set for its duration. */
const cli = async (args: Array<string>, env: Record<string, string> = {}) => {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]))
  Object.assign(process.env, env)
  try {
    return await inProcess(args)
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
}

const jsonLines = (s: string) => s.split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>)

describe("autodidact agent", () => {
  it("agent eval plays N episodes through the endpoint and reports success rate and token usage", async () => {
    const server = await startScripted()
    try {
      const r = await cli(["agent", "eval", "--env", "TextFrozenLake-v1", "--episodes", "3", "--concurrency", "2", "--base-url", server.url, "--model", "scripted", "--json"])
      expect(r.code, r.stderr).toBe(0)
      const rows = jsonLines(r.stdout)
      const episodes = rows.filter((x) => x["kind"] === "episode")
      expect(episodes).toHaveLength(3)
      const summary = rows[rows.length - 1]!
      expect(summary["episodes"]).toBe(3)
      // the summary's success rate is the share of the episode rows that succeeded (not a constant, not a mean return)
      for (const e of episodes) expect(typeof e["success"]).toBe("boolean")
      expect(summary["successRate"]).toBe(episodes.filter((e) => e["success"] === true).length / episodes.length)
      // Every step is one policy request, plus one re-ask per invalid answer (fallback "first" then acts).
      const steps = episodes.reduce((n, e) => n + (e["episodeLength"] as number), 0)
      expect(server.counts.policy).toBeGreaterThan(steps)
      expect(server.counts.policy).toBeLessThanOrEqual(2 * steps)
      // The server's usage (10 prompt tokens per message) reaches the summary.
      expect(summary["inputTokens"]).toBeGreaterThanOrEqual(steps * 30)
      // Loopback endpoint, no key given: no Authorization header is invented.
      expect(server.authorization.every((a) => a === undefined)).toBe(true)
    } finally {
      await server.close()
    }
  }, 120_000)

  it("agent train runs Training-Free GRPO epochs, writes metrics rows and the experience library", async () => {
    const server = await startScripted()
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-agent-")), "run")
    try {
      const r = await cli([
        "agent", "train", "--env", "TextFrozenLake-v1", "--epochs", "2", "--group-size", "3", "--tasks", "3",
        "--max-steps", "100", "--concurrency", "1", "--fallback", "invalid", "--run", dir, "--base-url", server.url, "--model", "scripted", "--json"
      ])
      expect(r.code, r.stderr).toBe(0)
      const metrics = fs.readFileSync(path.join(dir, "metrics.jsonl"), "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))
      const epochs = metrics.filter((m) => m.kind === "epoch")
      expect(epochs.map((e) => e.epoch)).toEqual([0, 1])
      for (const e of epochs) expect(e.episodes).toBe(9)
      // One comparison request per group whose rewards differ, one summary per rollout of such a group.
      const withSignal = epochs.reduce((n, e) => n + e.groupsWithSignal, 0)
      expect(withSignal, JSON.stringify(epochs)).toBeGreaterThan(0)
      expect(server.counts.compare).toBe(withSignal)
      expect(server.counts.summarize).toBe(withSignal * 3)
      // One batch update per epoch with signal; the library file holds the scripted lesson, one version per update.
      expect(server.counts.update).toBe(epochs.filter((e) => e.groupsWithSignal > 0).length)
      const library = JSON.parse(fs.readFileSync(path.join(dir, "library.json"), "utf8"))
      const latest = library.versions[library.versions.length - 1]
      expect(latest.experiences.map((x: { text: string }) => x.text)).toContain(LESSON)
      expect(epochs[epochs.length - 1].librarySize).toBe(latest.experiences.length)
      expect(JSON.parse(fs.readFileSync(path.join(dir, "config.json"), "utf8")).method).toBe("training-free-grpo")
    } finally {
      await server.close()
    }
  }, 180_000)

  it("a non-loopback endpoint without an API key is refused with a typed error", async () => {
    const r = await cli(["agent", "eval", "--env", "TextFrozenLake-v1", "--episodes", "1", "--base-url", "https://llm.example.com/v1", "--model", "m"], {
      AUTODIDACT_LLM_API_KEY: "",
      OPENAI_API_KEY: ""
    })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error: LlmConfigError: .*API key/m)
  }, 60_000)
})
