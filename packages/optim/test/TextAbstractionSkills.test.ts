import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as DrrnPolicy from "../src/text/DrrnPolicy.js"
import * as TextAbstraction from "../src/text/TextAbstraction.js"

// A pick task where a mug was seen on cabinet 1 (not on cabinet 2); the agent stands at cabinet 2 with empty hands.
const task = TextAbstraction.parseHouseholdTask("put a mug in desk.")!
const summary = () =>
  TextAbstraction.householdSummary(task, [
    "You arrive at cabinet 1. On the cabinet 1, you see a mug 1, and a pen 2.",
    "You arrive at cabinet 2. On the cabinet 2, you see a pen 3."
  ])
const PHASE = "pick|h0|t0|k1|p0|l0"

// what the skills package's macro options describe (first step exact, later steps with types)
const expansions: Record<string, ReadonlyArray<string>> = {
  "skill fetch cabinet 1 mug desk": ["go to cabinet 1", "take mug from cabinet 1", "go to desk", "move mug to desk"],
  "skill fetch cabinet 2 pen desk": ["go to cabinet 2", "take pen from cabinet 2", "go to desk", "move pen to desk"],
  "skill hop cabinet 1": ["go to cabinet 1", "examine cabinet 1"]
}
const describeFn: TextAbstraction.ActionDescriber = (a) => expansions[a]

describe("TextAbstraction skill commands (action describers)", () => {
  it("without a describer a skill command gets only its verb key (the old behaviour)", () => {
    const f = TextAbstraction.householdFeatures(task, summary(), ["skill fetch cabinet 1 mug desk"], undefined)
    expect(f.actions[0]).toEqual(["verb:skill", `ph:${PHASE}|verb:skill`])
  })

  it("a described skill command gets its first step's keys, shared and prefixed, and whole-expansion keys", () => {
    const actions = ["go to cabinet 1", "skill fetch cabinet 1 mug desk", "skill fetch cabinet 2 pen desk", "skill hop cabinet 1"]
    const f = TextAbstraction.householdFeatures(task, summary(), actions, describeFn)
    const prim = f.actions[0]!.filter((k) => !k.startsWith("ph:"))
    // go to cabinet 1: not the target, visited, the mug was seen there
    expect(prim).toEqual(["go:other", "go:visited:1", "go:unknown:0", "go:other:unknown:0", "go:obj:1"])
    const good = f.actions[1]!
    for (const k of prim) {
      expect(good).toContain(k)
      expect(good).toContain(`skf:${k}`)
    }
    expect(good).toContain("verb:skill")
    expect(good).toContain("skx:len:4")
    expect(good).toContain("skx:takes-obj:1")
    expect(good).toContain("skx:reaches-tgt:1")
    expect(good).toContain("skx:places:1")
    expect(good).toContain(`ph:${PHASE}|skx:places:1`)
    // the pen macro starts where no mug was seen, takes and places the wrong type
    const bad = f.actions[2]!
    expect(bad).toContain("go:obj:0")
    expect(bad).toContain("skx:takes-obj:0")
    expect(bad).toContain("skx:places:0")
    expect(bad).toContain("skx:reaches-tgt:1")
    // a 2-step macro that neither takes nor reaches the target
    const hop = f.actions[3]!
    expect(hop).toContain("skx:len:2")
    expect(hop).toContain("skx:takes-obj:0")
    expect(hop).toContain("skx:reaches-tgt:0")
    // a pick task has no tool, treatment or lamp keys
    expect(good.some((k) => k.startsWith("skx:reaches-tool") || k.startsWith("skx:treats") || k.startsWith("skx:lamp"))).toBe(false)
  })

  it("heat tasks get the tool and treatment keys of the expansion", () => {
    const heat = TextAbstraction.parseHouseholdTask("put a hot apple in fridge.")!
    const s = TextAbstraction.householdSummary(heat, ["You arrive at countertop 1. On the countertop 1, you see a apple 1."])
    const steps = ["go to microwave 1", "heat apple with microwave 1", "go to fridge", "move apple to fridge"]
    const f = TextAbstraction.householdFeatures(heat, s, ["skill warm microwave 1 apple fridge"], () => steps)
    expect(f.actions[0]).toContain("go:tool")
    expect(f.actions[0]).toContain("skx:reaches-tool:1")
    expect(f.actions[0]).toContain("skx:treats:1")
    expect(f.actions[0]).toContain("skx:places:1")
    expect(f.actions[0]).toContain("skx:takes-obj:0")
  })

  it("a describer never changes a primitive command's keys", () => {
    const actions = ["go to cabinet 1", "take pen 3 from cabinet 2", "look", "inventory"]
    const everything: TextAbstraction.ActionDescriber = () => ["go to desk 1", "move mug to desk"]
    const a = TextAbstraction.householdFeatures(task, summary(), actions, everything)
    const b = TextAbstraction.householdFeatures(task, summary(), actions, undefined)
    expect(a.actions.slice(0, 2)).toEqual(b.actions.slice(0, 2))
    // unrecognized primitives ("look", "inventory") are described only when the describer claims them
    const none = TextAbstraction.householdFeatures(task, summary(), actions, () => undefined)
    expect(none).toEqual(b)
  })

  it("the registry: registered describers feed DrrnPolicy's encoding, unregistering restores it", () => {
    const policy = DrrnPolicy.make({ buckets: 512, hidden: 8, embed: 4, rng: Rng.make([1]) })
    const input = {
      task: "Your task is to: put a mug in desk.",
      observation: "You arrive at cabinet 2. On the cabinet 2, you see a pen 3.",
      admissible: ["go to cabinet 1", "skill fetch cabinet 1 mug desk"],
      history: [{ observation: "You arrive at cabinet 1. On the cabinet 1, you see a mug 1, and a pen 2.", action: "go to cabinet 2" }]
    }
    expect(TextAbstraction.describeAction("skill fetch cabinet 1 mug desk")).toBeUndefined()
    const before = DrrnPolicy.encode(policy, input)
    const unregister = TextAbstraction.registerActionDescriber(describeFn)
    try {
      expect(TextAbstraction.describeAction("skill fetch cabinet 1 mug desk")).toEqual(expansions["skill fetch cabinet 1 mug desk"])
      const during = DrrnPolicy.encode(policy, input)
      expect(during.actions[0]).toEqual(before.actions[0])
      expect(during.state).toEqual(before.state)
      expect(during.actions[1]).not.toEqual(before.actions[1])
      expect(during.actions[1]!.indices.length).toBeGreaterThan(before.actions[1]!.indices.length)
    } finally {
      unregister()
    }
    expect(TextAbstraction.describeAction("skill fetch cabinet 1 mug desk")).toBeUndefined()
    expect(DrrnPolicy.encode(policy, input)).toEqual(before)
  })
})
