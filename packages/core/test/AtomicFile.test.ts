import { describe, expect, it } from "@effect/vitest"
import { AtomicFile } from "@autodidact/core/node"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-atomic-"))

describe("AtomicFile", () => {
  it("writes bytes, chunks and strings, creating the directory", () => {
    const dir = tmpDir()
    const file = path.join(dir, "a", "b.bin")
    AtomicFile.writeSync(file, [new Uint8Array([1, 2]), new Uint8Array([]), new Uint8Array([3])])
    expect([...fs.readFileSync(file)]).toEqual([1, 2, 3])
    AtomicFile.writeSync(file, "héllo")
    expect(fs.readFileSync(file, "utf8")).toBe("héllo")
    expect(fs.readdirSync(path.dirname(file))).toEqual(["b.bin"]) // no temp files left
  })

  for (const step of ["write", "fsync", "rename"] as const) {
    it(`a failure at ${step} leaves the previous file intact and no temp file`, async () => {
      const dir = tmpDir()
      const file = path.join(dir, "state.json")
      AtomicFile.writeSync(file, "old")
      const boom = () => {
        throw new Error(`injected ${step} failure`)
      }
      const error = await Effect.runPromise(Effect.flip(AtomicFile.write(file, "new", { [step]: boom })))
      expect(error._tag).toBe("AtomicWriteError")
      expect(error.path).toBe(file)
      expect(error.reason).toContain(`injected ${step} failure`)
      expect(fs.readFileSync(file, "utf8")).toBe("old")
      expect(fs.readdirSync(dir)).toEqual(["state.json"])
    })
  }
})
