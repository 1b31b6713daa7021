import { describe, expect, it } from "@effect/vitest"
import { SokobanLevel, SokobanSolver, TextSokoban } from "@autodidact/envs"
import { Embedder } from "@autodidact/memory"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Sandbox, SkillLibrary, SokobanSkills, SyncSandbox, SkillOptions } from "../src/index.js"

const layer = Layer.mergeAll(Sandbox.layer({ timeoutMs: 10_000, poolSize: 2 }), Embedder.layerHashed())

const here = path.dirname(fileURLToPath(import.meta.url))
/** Boxoban data beside the repository root (`<root>/../shared/data`), never copied into the project. */
const boxobanFile = path.resolve(here, "../../../../shared/data/boxoban/unfiltered/valid/000.txt")
const haveBoxoban = fs.existsSync(boxobanFile)

const sokobanLibrary = Effect.gen(function*() {
  const lib = yield* SkillLibrary.SkillLibrary.make()
  for (const s of SokobanSkills.sokobanSkills) yield* lib.admit(s)
  return lib
})

/** A TextSokoban that records the primitive commands it was stepped with. */
class Recording extends TextSokoban.TextSokoban {
  readonly actions: Array<string> = []
  override step(action: string) {
    this.actions.push(action)
    return super.step(action)
  }
}

// (a) box (2,2) → target (4,4); player (1,1)
const room1 = SokobanLevel.fromRows([
  "######",
  "#@   #",
  "# $  #",
  "#    #",
  "#   .#",
  "######"
])
// Hand-computed "DDRR": walk Right to (1,2), push Down, push Down (player already behind), walk Left + Down to (4,1)
// (the box at (4,2) blocks the direct way), push Right, push Right onto the target: 3 moves + 4 pushes.
const room1Actions = ["Right", "Down", "Down", "Left", "Down", "Right", "Right"]
const room1Final = ["######", "#____#", "#____#", "#____#", "#__P√#", "######"].join("\n")
const room1Result = { ok: true, pushes: 4, moves: 3, box: [4, 4], path: "DDRR", won: true, steps: "rDDldRR" }

// (b) two boxes (2,1) and (3,3); player (1,2)
const room2 = SokobanLevel.fromRows([
  "######",
  "# @  #",
  "#$   #",
  "#  $.#",
  "#   .#",
  "######"
])
// (b) the player is shut in at (1,1) by the box (1,2); the box (3,2) is below a wall
const room3 = SokobanLevel.fromRows([
  "######",
  "#@$ .#",
  "###  #",
  "#.$  #",
  "#    #",
  "######"
])

describe("SokobanSkills", () => {
  it.effect("admits walk-to and push-box-along-path with their scripted tests; a broken version is refused", () =>
    Effect.gen(function*() {
      const lib = yield* sokobanLibrary
      expect(lib.names()).toEqual(["push-box-along-path", "walk-to"])
      // sending Up for Down (and back): the scripted grids do not depend on the command, but the LURD record does
      const broken = yield* Effect.flip(lib.admit({
        ...SokobanSkills.pushBoxAlongPath,
        source: SokobanSkills.pushBoxAlongPath.source.replace('["Up", "Down", "Left", "Right"]', '["Down", "Up", "Left", "Right"]')
      }))
      expect(broken).toBeInstanceOf(SkillLibrary.AdmissionError)
      expect((broken as SkillLibrary.AdmissionError).stage).toBe("test")
      expect(lib.get("push-box-along-path")!.active).toBe(1)
      const hits = yield* lib.retrieve("push a box to a target in sokoban", { k: 1, tags: ["Sokoban"] })
      expect(hits.map((h) => h.name)).toEqual(["push-box-along-path"])
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("(a) a hand-made level: exact primitive steps, pushes, moves, reward and final grid (sync wrapper)", () =>
    Effect.gen(function*() {
      const lib = yield* sokobanLibrary
      const runner = yield* SyncSandbox.make({ timeoutMs: 5000 })
      const env = new Recording({ size: 6 })
      const w = new SkillOptions.SyncSkillOptionsEnv(env, lib, SokobanSkills.sokobanOptions(), runner)
      w.reset({ options: { level: room1 } })
      // groundings: the box to the one target (planned), then the four legal one-step pushes (Up, Down, Left, Right)
      expect(w.skillActions()).toEqual([
        "skill push-box-along-path 2 2 4,4",
        "skill push-box-along-path 2 2 U",
        "skill push-box-along-path 2 2 D",
        "skill push-box-along-path 2 2 L",
        "skill push-box-along-path 2 2 R"
      ])
      const r = w.step("skill push-box-along-path 2 2 DDRR")
      expect(r.info["skillResult"]).toEqual(room1Result)
      expect(r.info["primitiveSteps"]).toBe(7)
      expect(env.actions).toEqual(room1Actions)
      expect(r.terminated).toBe(true)
      expect(r.info["won"]).toBe(true)
      // gym-sokoban rewards: 7 × −0.1, +1 box on target, +10 solved
      expect(r.reward).toBeCloseTo(-0.7 + 1 + 10, 10)
      expect(env.render()).toBe(room1Final)
      expect(w.counters).toEqual({ decisions: 1, skillDecisions: 1, primitiveSteps: 7, failedSkillCalls: 0 })
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("(a) the target form plans the same push-optimal route; runs in the worker sandbox (Effect wrapper)", () =>
    Effect.gen(function*() {
      const lib = yield* sokobanLibrary
      const env = new Recording({ size: 6 })
      const w = new SkillOptions.SkillOptionsEnv(env, lib, SokobanSkills.sokobanOptions())
      w.reset({ options: { level: room1 } })
      // the host-side planner (used by the grounding) agrees
      const g = SokobanSkills.parseGrid(env.render())!
      expect(SokobanSkills.planBoxPath(g, 2 * 6 + 2, 4 * 6 + 4)).toBe("DDRR")
      const r = yield* w.step("skill push-box-along-path 2 2 4,4")
      // breadth-first over pushes, Up/Down/Left/Right order: DDRR is found first among the 4-push routes
      expect(r.info["skillResult"]).toEqual(room1Result)
      expect(env.actions).toEqual(room1Actions)
      expect(env.render()).toBe(room1Final)
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("walk-to: grounded at the cells pushes start from; a shortest walk around the box", () =>
    Effect.gen(function*() {
      const lib = yield* sokobanLibrary
      const runner = yield* SyncSandbox.make({ timeoutMs: 5000 })
      const env = new Recording({ size: 6 })
      const w = new SkillOptions.SyncSkillOptionsEnv(env, lib, SokobanSkills.sokobanOptions({ boxToTarget: false, oneStepPushes: false, walkTo: true }), runner)
      w.reset({ options: { level: room1 } })
      expect(w.skillActions()).toEqual(["skill walk-to 1 2", "skill walk-to 2 1", "skill walk-to 2 3", "skill walk-to 3 2"])
      const r = w.step("skill walk-to 3 2")
      expect(r.info["skillResult"]).toEqual({ ok: true, moves: 3, steps: "ddr" })
      expect(env.actions).toEqual(["Down", "Down", "Right"])
      expect(env.stateKey()).toBe(`${3 * 6 + 2}|${2 * 6 + 2}`)
      // onto the box: blocked, no step
      const b = w.step("skill walk-to 2 2")
      expect(b.info["skillResult"]).toEqual({ ok: false, reason: "blocked", moves: 0 })
      expect(b.info["primitiveSteps"]).toBe(0)
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("(b) impossible plans end with ok: false; the steps taken before stand, nothing else moves", () =>
    Effect.gen(function*() {
      const lib = yield* sokobanLibrary
      const runner = yield* SyncSandbox.make({ timeoutMs: 5000 })
      const env = new Recording({ size: 6, numBoxes: 2 })
      const w = new SkillOptions.SyncSkillOptionsEnv(env, lib, SokobanSkills.sokobanOptions(), runner)
      w.reset({ options: { level: room2 } })
      const key0 = env.stateKey()
      // the box (2,1) against the left wall
      const left = w.step("skill push-box-along-path 2 1 L")
      expect(left.info["skillResult"]).toEqual({ ok: false, reason: "blocked", at: "front", step: 0, pushes: 0, moves: 0, box: [2, 1], steps: "" })
      expect(left.info["primitiveSteps"]).toBe(0)
      expect(env.stateKey()).toBe(key0)
      // up once (walk Down, Down, Left to (3,1), push Up), then the wall: stops after 1 push and 3 moves
      const up = w.step("skill push-box-along-path 2 1 UU")
      expect(up.info["skillResult"]).toEqual({ ok: false, reason: "blocked", at: "front", step: 1, pushes: 1, moves: 3, box: [1, 1], steps: "ddlU" })
      expect(up.info["primitiveSteps"]).toBe(4)
      expect(env.actions).toEqual(["Down", "Down", "Left", "Up"])
      expect(env.render()).toBe(["######", "#X___#", "#P___#", "#__XO#", "#___O#", "######"].join("\n"))
      expect(up.terminated).toBe(false)
      // a malformed command is a bad argument, no step
      const bad = w.step("skill push-box-along-path 2 x R")
      expect(bad.info["skillResult"]).toMatchObject({ ok: false, reason: "bad-argument", pushes: 0, moves: 0 })
      const none = w.step("skill push-box-along-path 4 4 U")
      expect(none.info["skillResult"]).toEqual({ ok: false, reason: "no-box", pushes: 0, moves: 0 })
      expect(w.counters).toEqual({ decisions: 4, skillDecisions: 4, primitiveSteps: 4, failedSkillCalls: 3 })

      // shut in: every plan that needs the player elsewhere is unreachable or has no route
      env.actions.length = 0
      w.reset({ options: { level: room3 } })
      const key3 = env.stateKey()
      expect(w.skillActions()).toEqual(["skill push-box-along-path 1 2 1,4", "skill push-box-along-path 1 2 R"])
      expect(w.step("skill push-box-along-path 1 2 L").info["skillResult"])
        .toEqual({ ok: false, reason: "unreachable", step: 0, pushes: 0, moves: 0, box: [1, 2], steps: "" })
      expect(w.step("skill push-box-along-path 3 2 up").info["skillResult"])
        .toEqual({ ok: false, reason: "blocked", at: "front", step: 0, pushes: 0, moves: 0, box: [3, 2], steps: "" })
      expect(w.step("skill push-box-along-path 3 2 3,1").info["skillResult"])
        .toEqual({ ok: false, reason: "no-route", pushes: 0, moves: 0, box: [3, 2] })
      expect(env.actions).toEqual([])
      // the legal push, then past the target into the wall: 2 pushes stand
      const rr = w.step("skill push-box-along-path 1 2 RRR")
      expect(rr.info["skillResult"]).toEqual({ ok: false, reason: "blocked", at: "front", step: 2, pushes: 2, moves: 0, box: [1, 4], steps: "RR" })
      expect(env.actions).toEqual(["Right", "Right"])
      expect(env.stateKey()).not.toBe(key3)
      expect(env.render()!.split("\n")[1]).toBe("#__P√#")
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("a call above the wrapper's maxPrimitiveSteps ends in a typed HostCallError; its steps stand", () =>
    Effect.gen(function*() {
      const lib = yield* sokobanLibrary
      const runner = yield* SyncSandbox.make({ timeoutMs: 5000 })
      const env = new Recording({ size: 6 })
      const w = new SkillOptions.SyncSkillOptionsEnv(env, lib, SokobanSkills.sokobanOptions(), runner, { maxPrimitiveSteps: 3 })
      w.reset({ options: { level: room1 } })
      const r = w.step("skill push-box-along-path 2 2 DDRR")
      expect(r.info["skillResult"]).toBeUndefined()
      expect(String(r.info["skillError"])).toContain("HostCallError")
      expect(r.info["primitiveSteps"]).toBe(3)
      expect(env.actions).toEqual(room1Actions.slice(0, 3))
      expect(w.counters.failedSkillCalls).toBe(1)
    }).pipe(Effect.provide(layer)), 60_000)

  it("host-side grid parsing, legal pushes and planning reject what is not a state", () => {
    expect(SokobanSkills.parseGrid(undefined)).toBeUndefined()
    expect(SokobanSkills.parseGrid("Symbols: no grid here")).toBeUndefined()
    expect(SokobanSkills.parseGrid("#####\n#P_P#\n#####")).toBeUndefined() // two players
    expect(SokobanSkills.parseGrid("#####\n#PX#\n#####")).toBeUndefined() // ragged rows
    const g = SokobanSkills.parseGrid(`${TextSokoban.LEGEND}\n#####\n#S\u221AX#\n#___#\n#####`)!
    expect({ width: g.width, height: g.height, player: g.player, cells: [...g.cells] }).toEqual({
      width: 5,
      height: 4,
      player: 6,
      cells: [0, 0, 0, 0, 0, 0, 6, 3, 4, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    })
    // two boxes side by side under a wall: Down needs the wall cell above, Left/Right the other box: none legal
    expect(SokobanSkills.legalPushes(g)).toEqual([])
    expect(SokobanSkills.planBoxPath(g, 1 * 5 + 1, 2 * 5 + 1)).toBeUndefined() // no box at (1,1)
    expect(SokobanSkills.planBoxPath(g, 1 * 5 + 3, 1 * 5 + 3)).toBe("") // already there
    expect(SokobanSkills.planBoxPath(g, 1 * 5 + 3, 2 * 5 + 3)).toBeUndefined() // Down needs the wall (0,3)
  })

  it.effect.skipIf(!haveBoxoban)(`(c) Boxoban levels solved by per-box push paths from SokobanSolver's plan (skipped if ${boxobanFile} is absent)`, () =>
    Effect.gen(function*() {
      const lib = yield* sokobanLibrary
      const runner = yield* SyncSandbox.make({ timeoutMs: 5000 })
      const levels = SokobanLevel.parseLevelsSync(fs.readFileSync(boxobanFile, "utf8")).slice(0, 3)
      const env = new Recording({ size: 10, numBoxes: 4, maxSteps: 1000 })
      const w = new SkillOptions.SyncSkillOptionsEnv(env, lib, SokobanSkills.sokobanOptions(), runner, { maxPrimitiveSteps: 1000 })
      for (const level of levels) {
        const plan = SokobanSolver.solve(level, { maxNodes: 500_000 })
        expect(plan.status).toBe("solved")
        // group the plan's pushes into maximal runs on one box (walks in between are the skill's job)
        const segments: Array<{ row: number; col: number; dirs: string; at: number }> = []
        const boxes = new Set(level.boxes)
        let player = level.player
        for (const ch of plan.moves) {
          const d = "udlr".indexOf(ch.toLowerCase())
          const step = [-level.width, level.width, -1, 1][d]!
          const next = player + step
          if (ch !== ch.toLowerCase()) {
            const last = segments[segments.length - 1]
            if (last !== undefined && last.at === next) last.dirs += ch
            else segments.push({ row: Math.floor(next / level.width), col: next % level.width, dirs: ch, at: next })
            boxes.delete(next)
            boxes.add(next + step)
            segments[segments.length - 1]!.at = next + step
          }
          player = next
        }
        env.actions.length = 0
        w.reset({ options: { level } })
        w.resetCounters()
        let moves = 0
        let pushes = 0
        let last: ReturnType<typeof w.step> | undefined
        for (const s of segments) {
          last = w.step(`skill push-box-along-path ${s.row} ${s.col} ${s.dirs}`)
          const res = last.info["skillResult"] as { ok: boolean; moves: number; pushes: number; steps: string }
          expect(res).toMatchObject({ ok: true, pushes: s.dirs.length, path: s.dirs })
          // the commands sent, in LURD notation: the pushes are the solver's
          expect(res.steps.replace(/[udlr]/g, "")).toBe(s.dirs)
          expect(last.info["primitiveSteps"]).toBe(res.moves + res.pushes)
          moves += res.moves
          pushes += res.pushes
        }
        expect(last!.terminated).toBe(true)
        expect(last!.info["won"]).toBe(true)
        expect(pushes).toBe(plan.pushes)
        // the solver's walks are shortest walks for its push sequence, and so are the skill's
        expect(moves).toBe(plan.moves.replace(/[UDLR]/g, "").length)
        expect(w.counters.primitiveSteps).toBe(moves + pushes)
        expect(env.actions.length).toBe(moves + pushes)
        expect(w.counters.decisions).toBe(segments.length)
        expect(w.counters.failedSkillCalls).toBe(0)
      }
    }).pipe(Effect.provide(layer)), 60_000)
})
