/**
 * File inputs of the commands, in process: an empty or white-space-only file, or one that holds nothing usable, is a
 * typed `InputFileError` naming the flag and the path (before: `sokoban solve` on an empty file printed "solved 0 of
 * 0" and exited 0). An unknown env id is named in full, version included.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { handleExport } from "../src/commands/Export.js"
import { deepCfrDefaults } from "../src/Commands.js"
import { handleGamesSolve } from "../src/commands/Games.js"
import { handleSokobanSolve } from "../src/commands/Sokoban.js"
import { train } from "../src/commands/Train.js"
import * as Inputs from "../src/Inputs.js"

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-inputs-"))

describe("file inputs", () => {
  it.effect("sokoban solve: an empty, a blank and a missing levels file are InputFileErrors naming --levels", () =>
    Effect.gen(function* () {
      const dir = tmp()
      for (const [name, text, reason] of [["empty.txt", "", "is empty"], ["blank.txt", "\n \n", "holds only white space"]] as const) {
        const file = path.join(dir, name)
        fs.writeFileSync(file, text)
        const error = yield* Effect.flip(handleSokobanSolve({ levels: file, limit: 10, maxNodes: 1000, json: true }))
        expect(error).toBeInstanceOf(Inputs.InputFileError)
        expect((error as Error).message).toBe(`--levels ${file}: ${reason}`)
      }
      const missing = yield* Effect.flip(handleSokobanSolve({ levels: path.join(dir, "nope.txt"), limit: 10, maxNodes: 1000, json: true }))
      expect(missing).toMatchObject({ _tag: "InputFileError", flag: "levels", reason: "does not exist" })
    }))

  it.effect("games solve --resume and export --from on an empty file are InputFileErrors", () =>
    Effect.gen(function* () {
      const empty = path.join(tmp(), "empty.json")
      fs.writeFileSync(empty, "")
      const solve = yield* Effect.flip(handleGamesSolve({
        game: "kuhn_poker", algo: "cfr+", iterations: 1, reportEvery: Option.none(), targetNashConv: Option.none(), seed: 0, ...deepCfrDefaults,
        save: Option.none(), resume: Option.some(empty), out: Option.none(), json: true
      }))
      expect(solve).toMatchObject({ _tag: "InputFileError", flag: "resume", path: empty, reason: "is empty" })
      const exported = yield* Effect.flip(handleExport({ from: empty, format: "chat", out: path.join(tmp(), "o.jsonl"), per: "episode", advantage: "recorded", json: true }))
      expect(exported).toMatchObject({ _tag: "InputFileError", flag: "from", path: empty })
    }))

  it.effect("train names an unknown env id in full, version included", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(train({
        env: "Nonexistent-v3", algo: "ppo", seed: 1, totalSteps: 512, out: path.join(tmp(), "run"), untilSolved: false, numEnvs: 1, resume: false, overwrite: false, json: true
      }))
      expect(error).toMatchObject({ _tag: "UnknownEnvError", id: "Nonexistent-v3" })
      expect((error as Error).message).toMatch(/^Environment Nonexistent-v3 doesn't exist; registered: .*CartPole-v1/)
    }))
})
