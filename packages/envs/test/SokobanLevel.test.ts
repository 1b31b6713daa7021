import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as SokobanLevel from "../src/sokoban/SokobanLevelFile.js"

const here = path.dirname(fileURLToPath(import.meta.url))
/** Boxoban data beside the repository root: <root>/../shared/data. */
const boxobanFile = path.resolve(here, "../../../../shared/data/boxoban/unfiltered/valid/000.txt")
const haveBoxoban = fs.existsSync(boxobanFile)

const small = { width: 5, height: 3 } as const

/** Parse and return the error (the test fails if parsing succeeds). */
const parseError = (text: string, options: SokobanLevel.ParseOptions = small): SokobanLevel.LevelParseError => {
  try {
    SokobanLevel.parseLevelsSync(text, options)
  } catch (e) {
    expect(e).toBeInstanceOf(SokobanLevel.LevelParseError)
    return e as SokobanLevel.LevelParseError
  }
  throw new Error("expected a LevelParseError")
}

describe("SokobanLevel.parseLevels", () => {
  it("reads walls, goals, boxes and player as row-major cells", () => {
    const [level, ...rest] = SokobanLevel.parseLevelsSync("; 12\n#####\n#@$.#\n#####\n", small)
    expect(rest).toHaveLength(0)
    expect(level!.id).toBe("12")
    expect([level!.width, level!.height]).toEqual([5, 3])
    expect(Array.from(level!.boxes)).toEqual([7])
    expect(Array.from(level!.goals)).toEqual([8])
    expect(level!.player).toBe(6)
    expect(Array.from(level!.walls)).toEqual([1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1])
  })

  it("accepts XSB '*' (box on goal) and '+' (player on goal), CRLF line ends and several levels", () => {
    const text = "; a\r\n#####\r\n#+$*#\r\n#####\r\n\r\n; b\r\n#####\r\n#@$.#\r\n#####\r\n"
    const levels = SokobanLevel.parseLevelsSync(text, small)
    expect(levels.map((l) => l.id)).toEqual(["a", "b"])
    expect(Array.from(levels[0]!.goals)).toEqual([6, 8])
    expect(Array.from(levels[0]!.boxes)).toEqual([7, 8])
    expect(levels[0]!.player).toBe(6)
  })

  it("reports a row of the wrong width with its line", () => {
    const e = parseError("; 0\n#####\n#@$.\n#####\n")
    expect([e.level, e.id, e.line, e.value]).toEqual([0, "0", 3, "#@$."])
    expect(e.reason).toContain("4 characters, expected 5")
  })

  it("reports a level with too few or too many rows", () => {
    const few = parseError("; 0\n#####\n#@$.#\n")
    expect([few.line, few.value]).toEqual([3, "2"])
    const many = parseError("; 0\n#####\n#@$.#\n#####\n#####\n")
    expect([many.line, many.value]).toEqual([5, "4"])
  })

  it("reports an unknown character with line and column", () => {
    const e = parseError("; 7\n#####\n#@$.X\n#####\n")
    expect([e.id, e.line, e.column, e.value]).toEqual(["7", 3, 5, "X"])
    expect(e.reason).toBe("unknown character")
  })

  it("reports a second player at its position and a missing player at the header", () => {
    const two = parseError("; 0\n#####\n#@$@#\n#.  #\n", { width: 5, height: 3 })
    expect([two.line, two.column, two.value]).toEqual([3, 4, "@"])
    const none = parseError("; 0\n#####\n# $.#\n#####\n")
    expect([none.line, none.column, none.reason]).toEqual([1, undefined, "level has no player"])
  })

  it("reports boxes != goals and a level without boxes", () => {
    const mismatch = parseError("; 0\n#####\n#@$$#\n#.  #\n")
    expect(mismatch.value).toBe("2 boxes, 1 goals")
    expect(mismatch.line).toBe(1)
    const empty = parseError("; 0\n#####\n#@  #\n#####\n")
    expect(empty.reason).toBe("level has no boxes")
  })

  it("locates an error in a later level by file line and level index", () => {
    const e = parseError("; 0\n#####\n#@$.#\n#####\n\n; 1\n#####\n#@$.#\n##!##\n")
    expect([e.level, e.id, e.line, e.column, e.value]).toEqual([1, "1", 9, 3, "!"])
  })

  it.effect("fails in the error channel of the Effect API", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(SokobanLevel.parseLevels("; 0\n#####\n#@$.?\n#####\n", { ...small, source: "x.txt" }))
      expect(e._tag).toBe("LevelParseError")
      expect(e.source).toBe("x.txt")
      expect(e.message).toContain("x.txt")
      const ok = yield* SokobanLevel.parseLevels("; 0\n#####\n#@$.#\n#####\n", small)
      expect(ok).toHaveLength(1)
    }))

  it.effect("loadLevelFile fails with LevelFileError for a missing file", () =>
    Effect.gen(function*() {
      const missing = path.join(here, "no-such-sokoban-file.txt")
      const e = yield* Effect.flip(SokobanLevel.loadLevelFile(missing))
      expect(e._tag).toBe("LevelFileError")
      if (e._tag === "LevelFileError") expect(e.path).toBe(missing)
    }))

  it("readLevelFile (Promise) rejects with the same tagged errors", async () => {
    const missing = path.join(here, "no-such-sokoban-file.txt")
    const e = await SokobanLevel.readLevelFile(missing).catch((e: unknown) => e)
    expect(e).toBeInstanceOf(SokobanLevel.LevelFileError)
    expect((e as SokobanLevel.LevelFileError).path).toBe(missing)
    const bad = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sokoban-")), "bad.txt")
    fs.writeFileSync(bad, "; 0\n#####\n#@$.?\n#####\n")
    const p = await SokobanLevel.readLevelFile(bad, small).catch((e: unknown) => e)
    expect(p).toBeInstanceOf(SokobanLevel.LevelParseError)
    expect((p as SokobanLevel.LevelParseError).source).toBe(bad)
    fs.writeFileSync(bad, "; 7\n#####\n#@$.#\n#####\n")
    expect((await SokobanLevel.readLevelFile(bad, small)).map((l) => l.id)).toEqual(["7"])
    const viaEffect = await Effect.runPromise(Effect.flip(SokobanLevel.loadLevelFile(bad, { width: 4, height: 3 })))
    expect(viaEffect._tag).toBe("LevelParseError")
  })

  it("renders a level back to the same text, '*' and '+' included", () => {
    const text = "; a\n#####\n#+$*#\n#####\n\n; b\n#####\n#@$.#\n#####\n\n"
    expect(SokobanLevel.formatLevels(SokobanLevel.parseLevelsSync(text, small))).toBe(text)
    const level = SokobanLevel.fromRows(["#####", "#@$.#", "#####"])
    expect(SokobanLevel.renderLevel(level, { boxes: [8], player: 7 })).toBe("#####\n# @*#\n#####")
  })
})

describe("SokobanLevel on Boxoban unfiltered/valid/000.txt", () => {
  it.skipIf(!haveBoxoban)(`parses all 1000 levels and round-trips the file (skipped if ${boxobanFile} is absent)`, () =>
    Effect.runPromise(Effect.gen(function*() {
      const levels = yield* SokobanLevel.loadLevelFile(boxobanFile)
      expect(levels).toHaveLength(1000)
      expect(levels.map((l) => l.id)).toEqual(levels.map((_, i) => String(i)))
      for (const l of levels) {
        expect([l.width, l.height, l.boxes.length, l.goals.length]).toEqual([10, 10, 4, 4])
      }
      // level 0 as printed in the file: player row 7 col 6; boxes (2,6) (4,5) (7,2) (7,4); goals (1,7) (1,8) (3,8) (5,8)
      expect(levels[0]!.player).toBe(76)
      expect(Array.from(levels[0]!.boxes)).toEqual([26, 45, 72, 74])
      expect(Array.from(levels[0]!.goals)).toEqual([17, 18, 38, 58])
      expect(SokobanLevel.formatLevels(levels)).toBe(fs.readFileSync(boxobanFile, "utf8"))
    })))
})
