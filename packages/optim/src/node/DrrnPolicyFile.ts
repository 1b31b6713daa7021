/**
 * The DRRN policy file that `autodidact train` writes on the text envs (`<run>/checkpoints/policy.json`): format
 * `"autodidact.drrn-policy"`, version 1, the policy's `config` and its float32 parameters in base64. Written
 * atomically (core `AtomicFile`); read back into a `DrrnPolicy.Drrn` with the same scores.
 * @since 0.3.0
 */
import { AtomicFile } from "@autodidact/core/node"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as DrrnPolicy from "../text/DrrnPolicy.js"

/** The file's schema. */
export const PolicyFile = Schema.Struct({
  format: Schema.Literal("autodidact.drrn-policy"),
  version: Schema.Literal(1),
  config: Schema.Record(Schema.String, Schema.Unknown),
  params: Schema.String
})

/** A policy file that is missing, truncated or not a DRRN policy. */
export class PolicyFileError extends Schema.TaggedError<PolicyFileError>()("PolicyFileError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.path}: ${this.reason}`
  }
}

/** A run directory's policy file: `<runDir>/checkpoints/policy.json`. */
export const policyPath = (runDir: string): string => path.join(runDir, "checkpoints", "policy.json")

/** Write `policy` to `file` atomically (fails with core's `AtomicFileError`). */
export const save = (file: string, policy: DrrnPolicy.Drrn) =>
  AtomicFile.write(
    file,
    JSON.stringify({
      format: "autodidact.drrn-policy",
      version: 1,
      config: policy.config,
      params: Buffer.from(policy.params.buffer, policy.params.byteOffset, policy.params.byteLength).toString("base64")
    })
  )

/** Read a DRRN policy file; fails with {@link PolicyFileError} naming the path and what is wrong. */
export const load = (file: string): Effect.Effect<DrrnPolicy.Drrn, PolicyFileError> =>
  Effect.try({
    try: () => {
      const doc = Schema.decodeUnknownSync(PolicyFile)(JSON.parse(fs.readFileSync(file, "utf8")))
      const bytes = Buffer.from(doc.params, "base64")
      const params = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
      return DrrnPolicy.fromParams({ ...DrrnPolicy.defaults, ...(doc.config as Partial<DrrnPolicy.Config>) }, params)
    },
    catch: (e) => new PolicyFileError({ path: file, reason: e instanceof Error ? e.message : String(e) })
  })

/** The plain {@link load}: resolves to the policy, rejects with {@link PolicyFileError}. */
export const loadSync = (file: string): DrrnPolicy.Drrn => Effect.runSync(load(file))
