import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as DrrnPolicy from "../src/text/DrrnPolicy.js"
import * as TextAbstraction from "../src/text/TextAbstraction.js"

describe("TextAbstraction household tasks", () => {
  it("parses every task template of TextHousehold-v0 (hand-written examples)", () => {
    const p = TextAbstraction.parseHouseholdTask
    expect(p("put some pen on bed.")).toEqual({ type: "pick", object: "pen", target: "bed", tool: undefined })
    expect(p("put a mug in cabinet.")).toEqual({ type: "pick", object: "mug", target: "cabinet", tool: undefined })
    expect(p("put a clean mug on countertop.")).toEqual({ type: "clean", object: "mug", target: "countertop", tool: "sinkbasin" })
    expect(p("clean some plate and put it on diningtable.")).toEqual({ type: "clean", object: "plate", target: "diningtable", tool: "sinkbasin" })
    expect(p("put a hot apple in fridge.")).toEqual({ type: "heat", object: "apple", target: "fridge", tool: "microwave" })
    expect(p("cool some tomato and put it in microwave.")).toEqual({ type: "cool", object: "tomato", target: "microwave", tool: "fridge" })
    expect(p("find two cellphone and put them in sofa.")).toEqual({ type: "two", object: "cellphone", target: "sofa", tool: undefined })
    expect(p("examine the book with the desklamp.")).toEqual({ type: "look", object: "book", target: undefined, tool: "desklamp" })
    expect(p("look at book under the desklamp.")).toEqual({ type: "look", object: "book", target: undefined, tool: "desklamp" })
    expect(p("go north")).toBeUndefined()
  })

  it("delexicalizes whole words only, in observations and actions", () => {
    const task = TextAbstraction.parseHouseholdTask("put a clean mug on countertop.")!
    expect(TextAbstraction.delexicalize(task, "You arrive at countertop 1. On the countertop 1, you see a mug 2, and a mugwort 1."))
      .toBe("You arrive at tasktgt 1. On the tasktgt 1, you see a taskobj 2, and a mugwort 1.")
    expect(TextAbstraction.delexicalize(task, "clean mug 2 with sinkbasin 1")).toBe("clean taskobj 2 with tasktool 1")
    // an unseen object type in the same role gives the same text, hence the same features
    const other = TextAbstraction.parseHouseholdTask("put a clean plate on countertop.")!
    expect(TextAbstraction.delexicalize(other, "take plate 1 from cabinet 3")).toBe(TextAbstraction.delexicalize(task, "take mug 1 from cabinet 3"))
  })

  it("the episode summary tracks location, visits, sightings, the held object and treatments", () => {
    const task = TextAbstraction.parseHouseholdTask("put a clean mug on countertop.")!
    const s = TextAbstraction.householdSummary(task, [
      "-= Welcome =- You are in the middle of a room.",
      "You arrive at microwave 1. The microwave 1 is closed.",
      "You open the microwave 1. The microwave 1 is open. In it, you see a mug 1, and a egg 2.",
      "You pick up the mug 1 from the microwave 1.",
      "You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.",
      "You clean the mug 1 using the sinkbasin 1."
    ])
    expect(s.location).toBe("sinkbasin 1")
    expect([...s.visited]).toEqual(["microwave 1", "sinkbasin 1"])
    expect([...s.opened]).toEqual(["microwave 1"])
    expect(s.held).toBe("mug 1")
    expect([...s.contents.get("microwave 1")!]).toEqual(["egg 2"])
    expect(s.treated.get("clean")?.has("mug 1")).toBe(true)
    const f = TextAbstraction.householdFeatures(task, s, ["go to countertop 1", "go to microwave 1", "move mug 1 to sinkbasin 1"])
    expect(f.state).toContain("hh:phase:clean|h1|t1|k0|p0|l0")
    expect(f.actions[0]).toContain("go:tgt")
    expect(f.actions[0]).toContain("go:visited:0")
    expect(f.actions[1]).toContain("go:visited:1")
    expect(f.actions[2]).toContain("move:obj:1:to:tool")
    expect(f.actions[0]).toContain("ph:clean|h1|t1|k0|p0|l0|go:tgt")
  })

  it("marks the receptacle where the task object was seen and the placed count", () => {
    const task = TextAbstraction.parseHouseholdTask("put two cellphone in sofa.")!
    const s = TextAbstraction.householdSummary(task, [
      "You arrive at shelf 1. On the shelf 1, you see a cellphone 2.",
      "You arrive at drawer 1. The drawer 1 is closed.",
      "You arrive at sofa 1. On the sofa 1, you see a cellphone 1."
    ])
    const f = TextAbstraction.householdFeatures(task, s, ["go to shelf 1", "go to drawer 1", "take cellphone 1 from sofa 1"])
    expect(f.actions[0]).toContain("go:obj:1")
    expect(f.actions[1]).toContain("go:unknown:1") // visited but closed, never opened
    expect(f.actions[2]).toContain("take:obj:1:from:tgt")
    const moved = TextAbstraction.householdSummary(task, ["You pick up the cellphone 2 from the shelf 1.", "You move the cellphone 2 to the sofa 1."])
    expect(moved.placed).toBe(1)
    expect(moved.held).toBeUndefined()
  })

  it("a house of rooms (TextHousehold-v0 hard): room listings, what is left to explore here, what lies through each doorway", () => {
    const task = TextAbstraction.parseHouseholdTask("put a hot apple in countertop.")!
    // rooms in a row: bedroom - livingroom - kitchen; start in the bedroom
    const observations = [
      "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of the bedroom. Looking quickly around you, you see a bed 1, a drawer 1, and a doorway to the livingroom.\n\nYour task is to: put a hot apple in countertop.",
      "You arrive at drawer 1. The drawer 1 is closed.",
      "You walk through the doorway into the livingroom. You are in the middle of the livingroom. Looking quickly around you, you see a sofa 1, a cabinet 1, a doorway to the bedroom, and a doorway to the kitchen.",
      "You arrive at cabinet 1. The cabinet 1 is closed.",
      "You open the cabinet 1. The cabinet 1 is open. In it, you see a apple 2."
    ]
    const s = TextAbstraction.householdSummary(task, observations)
    expect(s.room).toBe("livingroom")
    expect(s.rooms.get("bedroom")).toEqual({ receptacles: ["bed 1", "drawer 1"], doors: ["livingroom"] })
    expect(s.rooms.get("livingroom")).toEqual({ receptacles: ["sofa 1", "cabinet 1"], doors: ["bedroom", "kitchen"] })
    const f = TextAbstraction.householdFeatures(task, s, ["go to bedroom", "go to kitchen", "go to sofa 1", "take apple 2 from cabinet 1"])
    // here: the sofa is unvisited (1 left), the apple was seen here, no countertop here; the tool (microwave) unknown
    expect(f.state).toContain("hh:room-unknown:1")
    expect(f.state).toContain("hh:room-has:o1t0x0")
    // the bedroom: visited, its drawer closed and never opened (unexplored), nothing of the task seen there
    expect(f.actions[0]).toEqual(expect.arrayContaining(["goroom", "goroom:visited:1", "goroom:unexplored:1", "goroom:obj:0", "goroom:tgt:0", "goroom:tool:0"]))
    // the kitchen: never entered
    expect(f.actions[1]).toEqual(expect.arrayContaining(["goroom:visited:0", "goroom:unexplored:1"]))
    expect(f.actions[1]).toContain("ph:heat|h0|t0|k1|p0|l0|goroom:visited:0")
    expect(f.actions[2]).toContain("go:unknown:1")
    // with the apple, through the kitchen (its listing: a countertop and a microwave) and back to the livingroom: the
    // doorway to the kitchen now leads to the target and the tool
    const pickUp = "You pick up the apple 2 from the cabinet 1."
    const intoKitchen = "You walk through the doorway into the kitchen. You are in the middle of the kitchen. Looking quickly around you, you see a countertop 1, a microwave 1, and a doorway to the livingroom."
    const intoLivingroom = "You walk through the doorway into the livingroom. You are in the middle of the livingroom. Looking quickly around you, you see a sofa 1, a cabinet 1, a doorway to the bedroom, and a doorway to the kitchen."
    const back = TextAbstraction.householdSummary(task, [...observations, pickUp, intoKitchen, intoLivingroom])
    expect(back.location).toBeUndefined() // entering a room leaves the last receptacle
    const g = TextAbstraction.householdFeatures(task, back, ["go to bedroom", "go to kitchen"])
    expect(g.actions[1]).toEqual(expect.arrayContaining(["goroom:visited:1", "goroom:tgt:1", "goroom:tool:1", "goroom:unexplored:1"]))
    expect(g.actions[0]).toEqual(expect.arrayContaining(["goroom:tgt:0", "goroom:tool:0"]))
    // the next subgoal, named alike for every task type: fetch the apple seen here; with it, the tool (the microwave,
    // through the kitchen's doorway); once heated, deliver (the countertop, the same doorway)
    expect(f.state).toContain("hh:next-here:fetch|1")
    expect(f.actions[3]).toContain("nx:fetch|take:obj:1:from:other")
    expect(g.state).toContain("hh:next-here:tool|0")
    expect(g.actions[1]).toContain("goroom:next:tool|1")
    expect(g.actions[0]).toContain("goroom:next:tool|0")
    const heated = TextAbstraction.householdSummary(task, [...observations, pickUp, intoKitchen, "You heat the apple 2 using the microwave 1.", intoLivingroom])
    const h = TextAbstraction.householdFeatures(task, heated, ["go to bedroom", "go to kitchen"])
    expect(h.actions[1]).toContain("goroom:next:deliver|1")
    expect(h.actions[1]).toContain("nx:deliver|goroom:tgt:1")
  })

  it("next-subgoal keys carry across task types: a two-object task after its first placement searches like a pick task", () => {
    const start = "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of the bedroom. Looking quickly around you, you see a laundryhamper 1, a shelf 1, and a doorway to the kitchen."
    const two = TextAbstraction.parseHouseholdTask("put two pillow in laundryhamper.")!
    const pick = TextAbstraction.parseHouseholdTask("put a pillow in laundryhamper.")!
    const afterFirst = TextAbstraction.householdSummary(two, [
      start,
      "You arrive at shelf 1. On the shelf 1, you see a pillow 1.",
      "You pick up the pillow 1 from the shelf 1.",
      "You arrive at laundryhamper 1. On the laundryhamper 1, you see nothing.",
      "You move the pillow 1 to the laundryhamper 1."
    ])
    expect(afterFirst.placed).toBe(1)
    const fresh = TextAbstraction.householdSummary(pick, [
      start,
      "You arrive at shelf 1. On the shelf 1, you see nothing.",
      "You arrive at laundryhamper 1. On the laundryhamper 1, you see nothing."
    ])
    const actions = ["go to kitchen", "go to shelf 1"]
    const a = TextAbstraction.householdFeatures(two, afterFirst, actions)
    const b = TextAbstraction.householdFeatures(pick, fresh, actions)
    const nx = (keys: ReadonlyArray<string>) => keys.filter((k) => k.startsWith("nx:") || k.startsWith("goroom:next") || k.startsWith("hh:next"))
    // the placed pillow does not count as one to fetch: both search, the kitchen is unexplored, this room is not
    expect(nx(a.state)).toEqual(["hh:next-here:search|0"])
    expect(nx(a.state)).toEqual(nx(b.state))
    expect(nx(a.actions[0]!)).toContain("goroom:next:search|1")
    expect(nx(a.actions[0]!)).toEqual(nx(b.actions[0]!))
    // the phase keys still tell the task types apart
    expect(a.actions[0]!.filter((k) => k.startsWith("ph:"))).not.toEqual(b.actions[0]!.filter((k) => k.startsWith("ph:")))
  })

  it("a single room adds no room keys: the default difficulty's features are unchanged", () => {
    const task = TextAbstraction.parseHouseholdTask("put a hot apple in countertop.")!
    const s = TextAbstraction.householdSummary(task, ["-= Welcome =-\n\nYou are in the middle of a room. Looking quickly around you, you see a countertop 1, and a microwave 1."])
    expect(s.room).toBeUndefined()
    const f = TextAbstraction.householdFeatures(task, s, ["go to countertop 1", "look"])
    expect(f.state.some((k) => k.startsWith("hh:room") || k.startsWith("hh:next"))).toBe(false)
    expect(f.actions.flat().some((k) => k.startsWith("nx:"))).toBe(false)
    expect(f.state).toHaveLength(5)
  })
})

describe("TextAbstraction Sokoban", () => {
  const grid = ["######", "#_P__#", "#_X__#", "#____#", "#_O__#", "######"]
  it("parses the grid lines of an observation (legend skipped)", () => {
    expect(TextAbstraction.parseSokobanGrid(`Symbols: # wall, _ floor.\n${grid.join("\n")}`)).toEqual(grid)
    expect(TextAbstraction.parseSokobanGrid("You see a mug 1.")).toBeUndefined()
  })
  it("action keys: push toward the target, wall, move toward the push position", () => {
    const f = TextAbstraction.sokobanFeatures(grid, ["Up", "Down", "Left", "Right"])!
    expect(f.state).toContain("sk:box:0,1")
    expect(f.state).toContain("sk:boxtgt:0,2")
    expect(f.actions[0]).toContain("sk:move:wall")
    expect(f.actions[1]).toEqual(expect.arrayContaining(["sk:c1:X", "sk:push:-1", "sk:push:target:0", "sk:push:corner:0"]))
    expect(f.actions[2]).toContain("sk:move:push-pos:1") // leaves the push position (distance +1)
    const corner = TextAbstraction.sokobanFeatures(["#####", "#P__#", "#_X_#", "#___#", "#_O_#", "#####"], ["Right", "Left"])!
    expect(corner.actions[0]).toContain("sk:move:push-pos:-1") // reaches the cell above the box
    expect(corner.actions[1]).toContain("sk:move:wall")
    const toCorner = TextAbstraction.sokobanFeatures(["#####", "#_PX#", "#___#", "#O__#", "#####"], ["Right"])!
    expect(toCorner.actions[0]).toContain("sk:push:blocked")
    const intoCorner = TextAbstraction.sokobanFeatures(["######", "#PX_##", "#____#", "#O___#", "######"], ["Right"])!
    expect(intoCorner.actions[0]).toEqual(expect.arrayContaining(["sk:push:1", "sk:push:corner:1"]))
  })
  it("is undefined for non-direction actions or a grid without a box", () => {
    expect(TextAbstraction.sokobanFeatures(grid, ["jump"])).toBeUndefined()
    expect(TextAbstraction.sokobanFeatures(["####", "#P_#", "####"], ["Up"])).toBeUndefined()
  })
})

describe("DrrnPolicy with relational features", () => {
  it("two tasks that differ only in the object type encode identically", () => {
    const p = DrrnPolicy.make({ buckets: 256, hidden: 4, embed: 3, rng: Rng.make(0) })
    const a = DrrnPolicy.encode(p, {
      task: "put a mug in cabinet.",
      observation: "You arrive at shelf 1. On the shelf 1, you see a mug 1.",
      admissible: ["take mug 1 from shelf 1", "go to cabinet 1"]
    })
    const b = DrrnPolicy.encode(p, {
      task: "put a kettle in cabinet.",
      observation: "You arrive at shelf 1. On the shelf 1, you see a kettle 1.",
      admissible: ["take kettle 1 from shelf 1", "go to cabinet 1"]
    })
    expect(Array.from(a.state.indices)).toEqual(Array.from(b.state.indices))
    expect(a.actions.map((x) => Array.from(x.indices))).toEqual(b.actions.map((x) => Array.from(x.indices)))
    const off = DrrnPolicy.make({ buckets: 256, hidden: 4, embed: 3, relational: false, rng: Rng.make(0) })
    const c = DrrnPolicy.encode(off, { task: "put a mug in cabinet.", observation: "x", admissible: ["take mug 1 from shelf 1"] })
    const d = DrrnPolicy.encode(off, { task: "put a kettle in cabinet.", observation: "x", admissible: ["take kettle 1 from shelf 1"] })
    expect(Array.from(c.actions[0]!.indices)).not.toEqual(Array.from(d.actions[0]!.indices))
  })
})
