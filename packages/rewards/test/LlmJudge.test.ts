import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { type ScriptedServer, startScriptedServer } from "@autodidact/llm/testing"
import { JudgeAnswerError, JudgeHttpError, JudgeUnreachableError, LlmJudge, RewardModel } from "../src/index.js"

interface Seen {
  readonly url: string
  readonly auth: string | undefined
  readonly body: { model: string; messages: Array<{ role: string; content: string }>; temperature: number }
}

/** A canned chat-completions server (`@autodidact/llm/testing`): each request takes the next reply from `replies` (or the fallback). */
let server: ScriptedServer
let baseUrl = ""
const seen: Array<Seen> = []
interface Reply {
  readonly status: number
  readonly content?: string
  readonly raw?: string
}
let replies: Array<Reply> = []
let fallback: (body: Seen["body"]) => Reply = () => ({ status: 200, content: "5" })

beforeAll(async () => {
  server = await startScriptedServer({
    respond: (request) => {
      const body = request.body as Seen["body"]
      seen.push({ url: request.path, auth: request.headers.authorization, body })
      const r = replies.shift() ?? fallback(body)
      if (r.raw !== undefined) return { status: r.status, raw: r.raw }
      return r.status === 200 ? { content: r.content ?? "", usage: null } : { status: r.status, body: { error: { message: "overloaded" } } }
    }
  })
  baseUrl = server.baseUrl
})

afterAll(async () => {
  await server.close()
})

const reset = (r: typeof replies) => {
  seen.length = 0
  replies = r
  fallback = () => ({ status: 200, content: "5" })
}

const rubric = "Reward exact arithmetic; the answer must be the number alone."

const run = <A, E>(f: (judge: RewardModel.RewardModelShape) => Effect.Effect<A, E>, config: Partial<LlmJudge.Config> = {}) =>
  Effect.runPromiseExit(
    Effect.flatMap(LlmJudge.make({ baseUrl, model: "judge-1", apiKey: "sk-test", rubric, retryBase: "10 millis", ...config }), f).pipe(
      Effect.provide(FetchHttpClient.layer)
    )
  )

describe("LlmJudge parsing", () => {
  it("takes the first number within the scale", () => {
    expect(LlmJudge.parseScore("8", [0, 10])).toBe(8)
    expect(LlmJudge.parseScore("Score: 7.5/10", [0, 10])).toBe(7.5)
    expect(LlmJudge.parseScore("Rating: [[3]]", [1, 5])).toBe(3)
    expect(LlmJudge.parseScore("On a 1-100 scale I'd give 42", [0, 10])).toBe(1)
    expect(LlmJudge.parseScore("I would say 15, no, 9", [0, 10])).toBe(9)
    expect(LlmJudge.parseScore("excellent", [0, 10])).toBeUndefined()
  })
})

describe("LlmJudge against a local chat-completions server", () => {
  it("scores outcomes, sends model/rubric/response, normalizes to [0, 1]", async () => {
    reset([{ status: 200, content: "8" }, { status: 200, content: "Score: 2.5" }])
    const exit = await run((j) => j.scoreOutcome([{ prompt: "6*7?", response: "42" }, { prompt: "2+2?", response: "five" }]), { maxConcurrency: 1 })
    expect(exit).toStrictEqual(Exit.succeed([0.8, 0.25]))
    expect(seen).toHaveLength(2)
    const first = seen[0]!
    expect(first.url).toBe("/v1/chat/completions")
    expect(first.auth).toBe("Bearer sk-test")
    expect(first.body.model).toBe("judge-1")
    expect(first.body.temperature).toBe(0)
    expect(first.body.messages.map((m) => m.role)).toEqual(["system", "user"])
    expect(first.body.messages[0]!.content).toContain(rubric)
    expect(first.body.messages[0]!.content).toContain("single number from 0 to 10")
    expect(first.body.messages[1]!.content).toBe("[Task]\n6*7?\n\n[Response]\n42")
    expect(seen[1]!.body.messages[1]!.content).toContain("five")
  })

  it("retries a 503 with backoff and then succeeds", async () => {
    reset([{ status: 503 }, { status: 200, content: "10" }])
    const exit = await run((j) => j.scoreOutcome([{ prompt: "p", response: "r" }]))
    expect(exit).toStrictEqual(Exit.succeed([1]))
    expect(seen).toHaveLength(2)
    expect(seen[1]!.body).toEqual(seen[0]!.body)
  })

  it("fails with JudgeHttpError naming the status when 5xx persists past the retries, and at once on 400", async () => {
    reset([])
    fallback = () => ({ status: 500 })
    const exit = await run((j) => j.scoreOutcome([{ prompt: "p", response: "r" }]), { retries: 2 })
    expect(seen).toHaveLength(3)
    expect(Exit.isFailure(exit)).toBe(true)
    const err = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
    expect(err?._tag === "Fail" ? err.error : undefined).toBeInstanceOf(JudgeHttpError)
    expect(err?._tag === "Fail" ? (err.error as JudgeHttpError).status : 0).toBe(500)

    reset([{ status: 400 }])
    const bad = await run((j) => j.scoreOutcome([{ prompt: "p", response: "r" }]))
    expect(seen).toHaveLength(1)
    const r = Exit.isFailure(bad) ? bad.cause.reasons[0] : undefined
    expect(r?._tag === "Fail" ? (r.error as JudgeHttpError).status : 0).toBe(400)
  })

  it("fails with JudgeAnswerError naming a non-numeric answer (no retry)", async () => {
    reset([{ status: 200, content: "The response is excellent." }])
    const exit = await run((j) => j.scoreOutcome([{ prompt: "p", response: "r" }]))
    expect(seen).toHaveLength(1)
    const r = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
    const e = r?._tag === "Fail" ? r.error : undefined
    expect(e).toBeInstanceOf(JudgeAnswerError)
    expect((e as JudgeAnswerError).answer).toBe("The response is excellent.")
    expect((e as JudgeAnswerError).message).toContain("The response is excellent.")

    reset([{ status: 200, raw: "{\"choices\":[]}" }])
    const empty = await run((j) => j.scoreOutcome([{ prompt: "p", response: "r" }]))
    const r2 = Exit.isFailure(empty) ? empty.cause.reasons[0] : undefined
    expect(r2?._tag === "Fail" ? r2.error : undefined).toBeInstanceOf(JudgeAnswerError)
  })

  it("fails with JudgeUnreachableError for a closed port", async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const exit = await run((j) => j.scoreOutcome([{ prompt: "p", response: "r" }]), { baseUrl: `http://127.0.0.1:${port}/v1`, retries: 1 })
    const r = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
    const e = r?._tag === "Fail" ? r.error : undefined
    expect(e).toBeInstanceOf(JudgeUnreachableError)
    expect((e as JudgeUnreachableError).url).toBe(`http://127.0.0.1:${port}/v1/chat/completions`)
  })

  it("scores trajectories and each step in context, on a custom scale", async () => {
    reset([])
    // Score a step 5 when its action is "open drawer", else 1; outcomes 4 — on a [1, 5] scale.
    fallback = (body) => {
      const user = body.messages[1]!.content
      if (user.includes("[Action to judge]")) return { status: 200, content: user.endsWith("open drawer") ? "5" : "1" }
      return { status: 200, content: "4" }
    }
    const candidate = {
      task: "find the key",
      steps: [
        { state: "You are in a room.", action: "look" },
        { state: "You see a drawer.", action: "open drawer", history: ["look"] }
      ]
    }
    const exit = await run((j) => Effect.all([j.scoreOutcome([candidate]), j.scoreSteps([candidate])]), { scale: [1, 5], rubric: undefined })
    expect(exit).toStrictEqual(Exit.succeed([[0.75], [[0, 1]]]))
    const outcome = seen.find((s) => s.body.messages[1]!.content.includes("[Trajectory]"))!
    expect(outcome.body.messages[0]!.content).toContain(LlmJudge.defaultRubric)
    expect(outcome.body.messages[1]!.content).toBe(
      "[Task]\nfind the key\n\n[Trajectory]\nStep 1\nState: You are in a room.\nAction: look\nStep 2\nState: You see a drawer.\nAction: open drawer"
    )
    const step2 = seen.find((s) => s.body.messages[1]!.content.endsWith("open drawer") && s.body.messages[1]!.content.includes("[Action to judge]"))!
    expect(step2.body.messages[0]!.content).toContain(LlmJudge.defaultStepRubric)
    expect(step2.body.messages[0]!.content).toContain("single number from 1 to 5")
    expect(step2.body.messages[1]!.content).toBe("[Task]\nfind the key\n\n[Previous steps]\n1. look\n\n[Current state]\nYou see a drawer.\n\n[Action to judge]\nopen drawer")
  })

  it("ensembles with a rule verifier (weighted and gated)", async () => {
    reset([])
    fallback = (body) => ({ status: 200, content: body.messages[1]!.content.endsWith("42") ? "9" : "6" })
    const exact = RewardModel.rules("exact", { outcome: (c) => (c.response === "42" ? 1 : 0) })
    const batch = [{ prompt: "6*7?", response: "42" }, { prompt: "6*7?", response: "41" }]
    const exit = await run((judge) =>
      Effect.all([
        RewardModel.ensemble("weighted", [exact, judge], { _tag: "weighted", weights: [0.5, 0.5] }).scoreOutcome(batch),
        RewardModel.ensemble("gated", [exact, judge], { _tag: "gated", gate: 0, threshold: 1, weights: [0, 1] }).scoreOutcome(batch)
      ])
    )
    expect(Exit.isSuccess(exit)).toBe(true)
    const [weighted, gated] = Exit.isSuccess(exit) ? exit.value : [[], []]
    expect(weighted[0]).toBeCloseTo(0.95)
    expect(weighted[1]).toBeCloseTo(0.3)
    expect(gated[0]).toBeCloseTo(0.9)
    expect(gated[1]).toBe(-1)
  })

  it("provides the RewardModel service through layerFetch", async () => {
    reset([{ status: 200, content: "7" }])
    const scores = await Effect.runPromise(
      Effect.gen(function* () {
        const rm = yield* RewardModel.RewardModel
        return yield* rm.scoreOutcome([{ prompt: "p", response: "r" }])
      }).pipe(
        Effect.provide(LlmJudge.layerFetch({ baseUrl, model: "judge-1" }))
      )
    )
    expect(scores).toEqual([0.7])
    expect(seen[0]!.auth).toBeUndefined()
  })
})
