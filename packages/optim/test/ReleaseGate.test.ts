import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ReleaseGate from "../src/ReleaseGate.js"

const r = (taskId: string, success: boolean): ReleaseGate.TaskResult => ({ taskId, success })

describe("ReleaseGate.compare", () => {
  it.effect("lists fixed and broken tasks and accepts only when fixes exceed breaks", () =>
    Effect.gen(function* () {
      // baseline: a b c pass; candidate: a d e pass, b c break, d e fixed, f fails in both
      const baseline = [r("a", true), r("b", true), r("c", true), r("d", false), r("e", false), r("f", false)]
      const candidate = [r("e", true), r("d", true), r("c", false), r("b", false), r("a", true), r("f", false)]
      const tie = yield* ReleaseGate.compare(baseline, candidate)
      expect(tie).toMatchObject({ accepted: false, fixed: ["d", "e"], broken: ["b", "c"], stillPassing: 1, stillFailing: 1, tasks: 6 })
      expect(tie.baselinePassRate).toBe(0.5)
      expect(tie.candidatePassRate).toBe(0.5)
      expect(tie.reason).toContain("net 0 < margin 1")
      // a margin of 0 accepts a tie; one more fix passes the default margin
      expect((yield* ReleaseGate.compare(baseline, candidate, { margin: 0 })).accepted).toBe(true)
      const better = candidate.map((x) => (x.taskId === "f" ? r("f", true) : x))
      const d = yield* ReleaseGate.compare(baseline, better)
      expect(d).toMatchObject({ accepted: true, fixed: ["d", "e", "f"], broken: ["b", "c"] })
      // maxBroken vetoes
      expect((yield* ReleaseGate.compare(baseline, better, { maxBroken: 1 })).accepted).toBe(false)
    }))

  it.effect("aggregates several episodes per task by success rate (ties pass at 0.5)", () =>
    Effect.gen(function* () {
      const baseline = [r("a", true), r("a", false), r("b", false), r("b", false), r("b", true)]
      const candidate = [r("a", false), r("a", false), r("b", true), r("b", true), r("b", false)]
      const d = yield* ReleaseGate.compare(baseline, candidate)
      expect(d).toMatchObject({ fixed: ["b"], broken: ["a"], accepted: false })
      const strict = yield* ReleaseGate.compare(baseline, candidate, { passThreshold: 1 })
      expect(strict).toMatchObject({ fixed: [], broken: [], stillFailing: 2 })
    }))

  it.effect("different task sets and bad options are typed errors", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(ReleaseGate.compare([r("a", true), r("b", true)], [r("a", true), r("c", true)]))
      expect(e).toMatchObject({ _tag: "TaskSetMismatchError", onlyInBaseline: ["b"], onlyInCandidate: ["c"] })
      const e2 = yield* Effect.flip(ReleaseGate.compare([r("a", true)], [r("a", true)], { passThreshold: 0 }))
      expect(e2._tag).toBe("InvalidOptionError")
      const e3 = yield* Effect.flip(ReleaseGate.compare([], []))
      expect(e3._tag).toBe("InvalidOptionError")
    }))
})
