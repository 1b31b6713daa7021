import { Embedder } from "@autodidact/memory"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SkillLibrary } from "../src/index.js"
import type { SkillSpec } from "../src/Skill.js"

const walkTo: SkillSpec = {
  name: "walk-to",
  description: "go to a receptacle",
  parameters: { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
  result: { type: "string" },
  source: "function main(a) { return act('go to ' + a.target) }",
  tests: [{ input: { target: "fridge 1" }, expected: "ok", host: { act: ["ok"] } }],
  provenance: { author: "test" }
}

describe("SkillLibrary.open (plain, Promises)", () => {
  it("admits, calls, retrieves and persists; a bad spec rejects with the Effect call's AdmissionError", async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "skills-plain-"))
    const lib = await SkillLibrary.SkillLibrary.open({ directory, sandbox: { poolSize: 1 } })
    try {
      expect((await lib.admit(walkTo)).version).toBe(1)
      expect(await lib.call("walk-to", { target: "fridge 1" }, { act: (a) => `you did: ${String(a)}` })).toBe("you did: go to fridge 1")
      expect((await lib.retrieve("go to the fridge", { k: 1 })).map((h) => h.name)).toEqual(["walk-to"])
      expect(fs.existsSync(path.join(directory, "walk-to.js"))).toBe(true)

      const failing: SkillSpec = { ...walkTo, name: "walk-to-bad", tests: [{ input: { target: "x" }, expected: "no", host: { act: ["ok"] } }] }
      const plain = await lib.admit(failing).then(() => undefined, (e: unknown) => e)
      const effect = await Effect.runPromise(Effect.flip(lib.library.admit(failing)))
      expect(plain).toBeInstanceOf(SkillLibrary.AdmissionError)
      expect((plain as SkillLibrary.AdmissionError)._tag).toBe(effect._tag)
      expect((plain as SkillLibrary.AdmissionError).stage).toBe("test")
      expect((plain as SkillLibrary.AdmissionError).message).toBe(effect.message)
      expect(await lib.call("nope", {}).then(() => undefined, (e: unknown) => e)).toBeInstanceOf(SkillLibrary.SkillNotFoundError)
    } finally {
      await lib.close()
    }
    await lib.close() // idempotent
    // reopened with a plain embedder: the directory is read back
    const again = await SkillLibrary.SkillLibrary.open({
      directory,
      embedder: { dimension: 32, model: "plain-hashed", embed: (texts) => texts.map((t) => Embedder.hashedEmbedding(t, 32)) }
    })
    try {
      expect(again.names()).toEqual(["walk-to"])
      expect(again.active("walk-to")?.source).toBe(walkTo.source)
    } finally {
      await again.close()
    }
  }, 60_000)
})
