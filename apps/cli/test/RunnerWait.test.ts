/**
 * Waiting for cluster runners, without PostgreSQL: the wait is announced with the command that starts a runner and
 * repeated, a `--timeout` with no episode fails with the typed error naming the seconds and the command, and an
 * episode before the timeout lets the trainer finish.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as RunnerWait from "../src/RunnerWait.js"

const url = "postgres://u@127.0.0.1:5432/db"

describe("awaitingRunners", () => {
  it.live("no episode within the timeout: RunnerWaitTimeoutError, after saying it waits and how to start a runner", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const error = yield* Effect.flip(RunnerWait.awaitingRunners(url, { timeoutSeconds: 0.3, remindEvery: 0.1, say: (l) => void lines.push(l) }, () => Effect.never))
      expect(error).toBeInstanceOf(RunnerWait.RunnerWaitTimeoutError)
      expect(error.message).toBe(`no runner sent an episode within --timeout 0.3 s (cluster ${url}); start one with \`autodidact runner --cluster ${url}\``)
      expect(lines[0]).toBe(`waiting for runners: start one with \`autodidact runner --cluster ${url}\``)
      expect(lines.length).toBeGreaterThanOrEqual(2) // reminded while waiting
      expect(lines[1]).toMatch(/^still waiting after 0\.1 s for runners/)
    }))

  it.live("an episode before the timeout: the trainer's result, and no timeout afterwards", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const result = yield* RunnerWait.awaitingRunners(url, { timeoutSeconds: 0.2, say: (l) => void lines.push(l) }, (arrived) =>
        Effect.gen(function* () {
          yield* Effect.sleep("50 millis")
          arrived()
          yield* Effect.sleep("400 millis") // past the timeout: runners are there, so it no longer applies
          return 42
        }))
      expect(result).toBe(42)
      expect(lines[0]).toMatch(/^waiting for runners/)
      expect(lines.at(-1)).toMatch(/^first episode from a runner after 0\.\d s$/)
    }))
})
