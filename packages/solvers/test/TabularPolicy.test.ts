import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { KuhnPoker } from "@autodidact/envs"
import * as TabularPolicy from "../src/tree/TabularPolicy.js"
import { tinyGame } from "./TinyGame.js"

describe("TabularPolicy", () => {
  it("uniform: every legal action equally likely, looked up by info-state string", () => {
    const policy = TabularPolicy.uniform(KuhnPoker.make())
    expect(policy.size).toBe(12)
    expect(policy.actionProbabilities("2pb")).toEqual([[0, 0.5], [1, 0.5]])
    expect(policy.probability("0", 1)).toBe(0.5)
    expect(policy.probability("0", 7)).toBe(0)
    expect(policy.actionProbabilities("nope")).toBeUndefined()
  })

  it.effect("round-trips through JSON", () =>
    Effect.gen(function*() {
      const policy = TabularPolicy.uniform(tinyGame).withProbabilities([0.4, 0.6, 0.1, 0.9])
      const text = JSON.stringify(TabularPolicy.toJson(policy))
      const back = yield* TabularPolicy.fromJson(JSON.parse(text))
      expect(back.infoStates).toEqual(["p0:1", "p1"])
      expect(Array.from(back.probabilities)).toEqual([0.4, 0.6, 0.1, 0.9])
      expect(back.actionProbabilities("p1")).toEqual([[0, 0.1], [1, 0.9]])
    }))

  it.effect("rejects malformed JSON documents", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(TabularPolicy.fromJson({ format: "autodidact.tabular-policy", version: 1, game: "x" }))
      expect(error._tag).toBe("SchemaError")
    }))
})
