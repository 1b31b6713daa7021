import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DrrnPolicy } from "../src/index.js"
import { DrrnPolicyFile } from "../src/node.js"

describe("DrrnPolicyFile", () => {
  it.effect("round-trips a policy (same config and parameters, bit for bit); a damaged file fails with PolicyFileError naming the path", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "drrn-file-"))
      const policy = DrrnPolicy.make({ buckets: 64, hidden: 4, embed: 4, history: 0, rng: Rng.make(3) })
      const file = DrrnPolicyFile.policyPath(dir)
      expect(file).toBe(path.join(dir, "checkpoints", "policy.json"))
      yield* DrrnPolicyFile.save(file, policy)
      const back = DrrnPolicyFile.loadSync(file)
      expect(back.config).toEqual(policy.config)
      expect(Array.from(back.params)).toEqual(Array.from(policy.params))
      fs.writeFileSync(file, '{"format":"autodidact.drrn-policy","version":2}')
      const error = yield* Effect.flip(DrrnPolicyFile.load(file))
      expect(error._tag).toBe("PolicyFileError")
      expect(error.path).toBe(file)
      fs.rmSync(dir, { recursive: true, force: true })
    }).pipe(Effect.orDie))
})
