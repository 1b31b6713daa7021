/**
 * End-to-end tests of `autodidact gateway`, `autodidact export` and `autodidact serve-env`: the real bin runs in a
 * child process (async `spawn`: the test serves the scripted upstream meanwhile) and is driven over real HTTP, by
 * the official `openai` client for the gateway and by plain `fetch` (the AgentGym protocol) for serve-env.
 *
 * The upstream is `@autodidact/llm/testing`'s scripted server (plain `node:http`, independent of the code under test)
 * with its default script: it answers `echo: <last user text>`, non-streaming or as OpenAI-style SSE chunks (one per
 * word, then a usage chunk when asked), with usage `prompt_tokens = 10 × messages`, `completion_tokens = words of the
 * answer`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { startScriptedServer } from "@autodidact/llm/testing"
import OpenAI from "openai"
import { run, start, stop } from "./procs.js"

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-cli-llm-"))
const readJsonl = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))

describe("autodidact gateway + export", () => {
  it("records an openai-client conversation by session/episode, takes rewards, stops on SIGINT, exports chat and verl rows", async () => {
    const upstream = await startScriptedServer()
    const dir = tmp()
    const store = path.join(dir, "recorded")
    const gw = start(["gateway", "--upstream", upstream.baseUrl, "--port", "0", "--store", store])
    try {
      const line = await gw.waitFor((l) => l.startsWith("Gateway on "), 45_000)
      const baseURL = /^Gateway on (http:\/\/127\.0\.0\.1:\d+\/v1) /.exec(line)?.[1]
      expect(baseURL, line).toBeDefined()
      const client = (episode: string) =>
        new OpenAI({ baseURL: baseURL!, apiKey: "sk-test", maxRetries: 0, defaultHeaders: { "x-autodidact-session": "s1", "x-autodidact-episode": episode } })

      // episode e1: two turns, the second streamed, the agent keeping its history
      const history: Array<OpenAI.Chat.ChatCompletionMessageParam> = [
        { role: "system", content: "You are terse." },
        { role: "user", content: "hello world" }
      ]
      const { data: first, response } = await client("e1").chat.completions.create({ model: "scripted", messages: history, temperature: 0.3 }).withResponse()
      expect(first.choices[0]!.message.content).toBe("echo: hello world")
      expect(first.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 })
      expect(response.headers.get("x-autodidact-session")).toBe("s1")
      expect(response.headers.get("x-autodidact-exchange-id")).toMatch(/.+/)
      history.push({ role: "assistant", content: first.choices[0]!.message.content! }, { role: "user", content: "and again" })
      const stream = await client("e1").chat.completions.create({ model: "scripted", messages: history, stream: true, stream_options: { include_usage: true } })
      let streamed = ""
      let streamUsage: unknown
      for await (const chunk of stream) {
        streamed += chunk.choices[0]?.delta.content ?? ""
        if (chunk.usage) streamUsage = chunk.usage
      }
      expect(streamed).toBe("echo: and again")
      expect(streamUsage).toMatchObject({ prompt_tokens: 40, completion_tokens: 3 })

      // episode e2: one turn
      const other = await client("e2").chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "bye" }] })
      expect(other.choices[0]!.message.content).toBe("echo: bye")

      // the upstream saw the client's key and sampling parameters unchanged
      expect(upstream.requests).toHaveLength(3)
      expect(upstream.requests.every((r) => r.headers.authorization === "Bearer sk-test")).toBe(true)
      expect(upstream.requests[0]!.body.temperature).toBe(0.3)

      // rewards, attached afterwards by HTTP
      for (const [episode, reward, success] of [["e1", 1, true], ["e2", 0, false]] as const) {
        const r = await fetch(`${baseURL}/rewards`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ session: "s1", episode, reward, success })
        })
        expect(r.status, await r.clone().text()).toBe(200)
        expect(await r.json()).toMatchObject({ session: "s1", episode })
      }
    } finally {
      await stop(gw)
      await upstream.close()
    }
    // Ctrl-C (SIGINT to the bin) ends it cleanly: interrupted (exit code 130, not the SIGKILL fallback), no error
    // line, no stack trace
    expect(await gw.exited, gw.stderr()).toEqual({ code: 130, signal: null })
    expect(gw.stderr()).not.toMatch(/error:|Error\b/)

    // the recording: one session file with 3 exchanges (2xx, usage, latency) and 2 rewards
    const files = fs.readdirSync(path.join(store, "sessions"))
    expect(files).toHaveLength(1)
    const rows = readJsonl(path.join(store, "sessions", files[0]!))
    const exchanges = rows.filter((r) => r.type === "exchange")
    expect(exchanges.map((x) => [x.session, x.episode, x.status])).toEqual([["s1", "e1", 200], ["s1", "e1", 200], ["s1", "e2", 200]])
    expect(exchanges[0].usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 3 })
    expect(exchanges[1].usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 3 }) // from the stream's usage chunk
    expect(exchanges[0].request.sampling).toMatchObject({ temperature: 0.3 })
    expect(rows.filter((r) => r.type === "reward")).toHaveLength(2)

    // chat export: one row per episode, the last turn's whole conversation plus the answer
    const chatFile = path.join(dir, "chat.jsonl")
    const chat = await run(["export", "--from", store, "--format", "chat", "--out", chatFile, "--json"])
    expect(chat.code, chat.stderr).toBe(0)
    expect(JSON.parse(chat.stdout.trim().split("\n").at(-1)!)).toMatchObject({ format: "chat", episodes: 2, rows: 2 })
    const chatRows = readJsonl(chatFile)
    expect(chatRows.map((r) => r.messages.map((m: { role: string; content: string }) => `${m.role}:${m.content}`))).toEqual([
      ["system:You are terse.", "user:hello world", "assistant:echo: hello world", "user:and again", "assistant:echo: and again"],
      ["user:bye", "assistant:echo: bye"]
    ])

    // verl export: one row per turn; the episode reward on its last turn; GRPO advantages within session s1
    // (returns 1 and 0: mean 0.5, sample std √0.5 (n − 1, optim's GRPO rule), so ±0.5 / (√0.5 + 1e-6))
    const verlFile = path.join(dir, "verl.jsonl")
    const verl = await run(["export", "--from", store, "--format", "verl", "--advantage", "grpo", "--out", verlFile, "--json"])
    expect(verl.code, verl.stderr).toBe(0)
    const verlRows = readJsonl(verlFile)
    expect(verlRows.map((r) => [r.traj_uid, r.step_index, r.reward, r.episode_return, r.done, r.success, r.uid, r.response])).toEqual([
      ["s1/e1", 0, 0, 1, false, true, "s1", "echo: hello world"],
      ["s1/e1", 1, 1, 1, true, true, "s1", "echo: and again"],
      ["s1/e2", 0, 0, 0, true, false, "s1", "echo: bye"]
    ])
    const a = 0.5 / (Math.sqrt(0.5) + 1e-6)
    expect(verlRows.map((r) => r.advantage)).toEqual([expect.closeTo(a, 12), expect.closeTo(a, 12), expect.closeTo(-a, 12)])
    expect(verlRows[1].prompt).toHaveLength(4)

    // a missing input is a typed error naming it
    const bad = await run(["export", "--from", path.join(dir, "nope"), "--format", "chat", "--out", path.join(dir, "x.jsonl")])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^error: ExportInputError: .*nope/m)
  }, 60_000)

  it("SIGTERM also stops the gateway (the bin passes it on to the command)", async () => {
    const dir = tmp()
    const gw = start(["gateway", "--upstream", "http://127.0.0.1:9/v1", "--port", "0", "--store", path.join(dir, "rec")])
    await gw.waitFor((l) => l.startsWith("Gateway on "), 45_000)
    const timer = setTimeout(() => gw.kill("SIGKILL"), 10_000)
    gw.kill("SIGTERM")
    const exit = await gw.exited
    clearTimeout(timer)
    expect(exit).toEqual({ code: 130, signal: null }) // interrupted, not the SIGKILL fallback
    expect(gw.stderr()).not.toMatch(/error:/)
  }, 60_000)
})

describe("autodidact gateway: bad input", () => {
  it("a port already in use is a typed ServerStartError naming host and port, exit code 1", async () => {
    const busy = http.createServer()
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", () => r()))
    const port = (busy.address() as AddressInfo).port
    try {
      const r = await run(["gateway", "--upstream", "http://127.0.0.1:9/v1", "--port", String(port), "--store", path.join(tmp(), "rec")])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(new RegExp(`^error: ServerStartError: cannot serve on 127\\.0\\.0\\.1:${port}: `, "m"))
    } finally {
      await new Promise((r) => busy.close(r))
    }
  }, 60_000)
})

describe("autodidact serve-env", () => {
  it("serves TextFrozenLake-v1 with the AgentGym protocol: create, reset, observation, available_actions, step, close", async () => {
    const server = start(["serve-env", "--env", "TextFrozenLake-v1", "--port", "0"])
    try {
      const line = await server.waitFor((l) => l.startsWith("TextFrozenLake-v1 on "), 45_000)
      const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)![1]!
      const post = async (route: string, body: unknown) => {
        const r = await fetch(`${url}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
        return { status: r.status, body: (await r.json()) as any }
      }
      expect(await (await fetch(`${url}/`)).json()).toBe("This is environment TextFrozenLake-v1.")

      const a = (await post("/create", {})).body.id as string
      const b = (await post("/create", {})).body.id as string
      // session ids are unguessable UUIDs (issue 21), distinct per session
      const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
      expect(uuid.test(a) && uuid.test(b) && a !== b).toBe(true)

      const reset = await post("/reset", { id: a, data_idx: 3 })
      expect(reset.status).toBe(200)
      expect(reset.body.id).toBe(a)
      expect(typeof reset.body.observation).toBe("string")
      expect([...reset.body.available_actions].sort()).toEqual(["Down", "Left", "Right", "Up"])
      // the same data_idx gives the same task on another session
      const resetB = await post("/reset", { id: b, data_idx: 3 })
      expect(resetB.body.observation).toBe(reset.body.observation)

      const obs = await (await fetch(`${url}/observation?id=${a}`)).json()
      expect(obs).toBe(reset.body.observation)
      expect(await (await fetch(`${url}/available_actions?id=${a}`)).json()).toEqual(reset.body.available_actions)

      // step until the episode ends (FrozenLake ends in a hole, at the goal, or at the time limit)
      let steps = 0
      let last: any
      do {
        last = (await post("/step", { id: a, action: "Left" })).body
        steps++
        expect(typeof last.observation).toBe("string")
        expect(typeof last.reward).toBe("number")
        expect(last.done).toBe(last.terminated || last.truncated)
      } while (!last.done && steps < 200)
      expect(last.done).toBe(true)
      // a finished episode refuses another step (409) until reset; session b is untouched
      expect((await post("/step", { id: a, action: "Left" })).status).toBe(409)
      expect(await (await fetch(`${url}/observation?id=${b}`)).json()).toBe(resetB.body.observation)

      expect((await post("/close", { id: a })).body).toEqual({ closed: true })
      expect((await post("/step", { id: a, action: "Up" })).status).toBe(404)
      const badId = await post("/reset", { id: "zzz" })
      expect(badId.status).toBe(400)
      expect(badId.body.error).toContain("zzz")
    } finally {
      await stop(server)
    }
    expect(await server.exited, server.stderr()).toEqual({ code: 130, signal: null })
  }, 60_000)

  it("--max-sessions caps live sessions (503) and --idle-ttl reaps idle ones (404 naming the reaping)", async () => {
    const server = start(["serve-env", "--env", "TextFrozenLake-v1", "--port", "0", "--idle-ttl", "1", "--max-sessions", "2"])
    try {
      const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(await server.waitFor((l) => l.startsWith("TextFrozenLake-v1 on "), 45_000))![1]!
      const create = async () => {
        const r = await fetch(`${url}/create`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
        return { status: r.status, body: (await r.json()) as any }
      }
      const a = await create()
      expect((await create()).status).toBe(200)
      expect((await create()).status).toBe(503)
      // idle for 1 s, reaped by a sweep every 0.5 s: both sessions are gone, and a new one can be created
      await new Promise((r) => setTimeout(r, 2500))
      const gone = await fetch(`${url}/observation?id=${a.body.id}`)
      expect(gone.status).toBe(404)
      expect(((await gone.json()) as any).error).toContain("reaped")
      expect((await create()).status).toBe(200)
    } finally {
      await stop(server)
    }
    expect(await server.exited, server.stderr()).toEqual({ code: 130, signal: null })
  }, 60_000)

  it("an unknown environment is refused with a typed error", async () => {
    const r = await run(["serve-env", "--env", "NoSuchEnv-v9", "--port", "0"])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error: \w+: .*NoSuchEnv-v9/m)
  }, 60_000)
})
