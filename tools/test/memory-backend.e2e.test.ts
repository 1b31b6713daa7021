/**
 * The memory-backend generator, end to end but cheap: generate a backend into a scratch copy of packages/memory and
 * run only the generated test (a child Vitest, without the package's PGlite global setup, which the generated backend
 * does not use). Before the fill-in it fails with the "fill in <operation>() in <file>" message of every property.
 * The typecheck and lint of the generated code are left to the tree-level layout checks and to CI on a real
 * generation (a TypeScript program over packages/memory costs ~20 s).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { FsTree, flushChanges } from "nx/src/generators/tree.js"
import memoryBackendGenerator from "../generators/memory-backend/generator.js"
import { makeScratch, runVitest } from "./helpers.js"

const MODULE = "packages/memory/src/store/backends/SqliteFile.ts"
let scratch = ""

describe("memory-backend generator, end to end", { timeout: 60_000 }, () => {
  afterAll(() => {
    if (scratch !== "") fs.rmSync(scratch, { recursive: true, force: true })
  })

  it("generates a backend whose CheckMemoryBackend test fails with the fill-in message of the operation it needs", async () => {
    scratch = makeScratch("memory", {
      links: ["core", "kernels"],
      vitestConfig: 'import { sharedConfig } from "../../vitest.shared.js"\nexport default sharedConfig\n'
    })
    const tree = new FsTree(scratch, false)
    await memoryBackendGenerator(tree, { name: "sqlite-file" })
    flushChanges(scratch, tree.listChanges())
    expect(tree.listChanges().map((c) => c.path)).toEqual(expect.arrayContaining([MODULE, "packages/memory/test/SqliteFile.test.ts"]))
    const outcomes = runVitest(path.join(scratch, "packages/memory"), ["test/SqliteFile.test.ts"])
    expect(outcomes.map((o) => [o.name, o.status])).toEqual([["SqliteFile passes the conformance check (CheckMemoryBackend.checkMemoryBackend)", "failed"]])
    const message = outcomes[0]!.failureMessages.join("\n")
    expect(message).toContain('memory backend "sqlite-file" failed the store check')
    // the check empties the store before each property: removeWhere() is the first operation every property needs
    expect(message).toContain(`put: threw NotImplementedError: fill in removeWhere() in ${MODULE}`)
    expect(message).toContain(`consolidate: threw NotImplementedError: fill in removeWhere() in ${MODULE}`)
  })
})
