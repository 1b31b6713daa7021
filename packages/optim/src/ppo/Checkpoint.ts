/**
 * Checkpoints of a PPO run: policy and value weights, Adam moments, generator states, global step and options, in
 * one JSON file written atomically and validated on load.
 *
 * **Format** (`format: "autodidact.ppo-checkpoint"`, `version: 1`): a JSON manifest (options, network sizes and
 * per-layer shapes, Adam step and hyper-parameters, `Rng.getState()` of the action-sampling and shuffling
 * generators, `globalStep`, `iteration`, `wallSeconds`, recent episode returns) and a payload of three
 * little-endian float32 arrays (`params`, Adam `m`, Adam `v`) in base64, with the SHA-256 of their bytes
 * (params ‖ m ‖ v) as `sha256`.
 *
 * **Atomic writes**: {@link save} writes to a temporary file in the target's directory, `fsync`s it, renames it over
 * the target and `fsync`s the directory, so a crash or failed write leaves the previous checkpoint intact (the
 * temporary file is removed on failure).
 *
 * **Errors**: I/O failures are {@link CheckpointError}; a file that is not valid JSON, fails the schema, has an
 * unsupported version, mismatched shapes or a wrong checksum is {@link CorruptCheckpointError}; both name the file
 * and what is wrong.
 *
 * Node only: `@autodidact/optim/node` (node:fs, node:crypto). Its error classes live in the main entry too.
 *
 * @example
 * ```ts
 * import { Checkpoint, Ppo } from "@autodidact/optim/node"
 * const result = yield* Ppo.train(env, { seed: 1, totalTimesteps: 50_000 })
 * yield* Checkpoint.save("runs/cartpole/checkpoint.json", result.state)
 * const state = yield* Checkpoint.load("runs/cartpole/checkpoint.json")
 * yield* Ppo.train(env, { resume: state, totalTimesteps: 100_000 })
 * ```
 * @since 0.1.0
 */
import { Rng, RngState } from "@autodidact/core"
import { AtomicFile } from "@autodidact/core/node"
import { Effect, Schema } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as ActorCritic from "./ActorCritic.js"
import { CheckpointError, CorruptCheckpointError } from "./CheckpointError.js"
import type { Options } from "../internal/PpoOptions.js"
import type { TrainState } from "../internal/PpoState.js"

/** The `format` field of every checkpoint manifest; {@link load} refuses files with another. */
export const FORMAT = "autodidact.ppo-checkpoint"
/** The manifest version written by {@link save}; bumped when the layout changes (old versions are refused, not guessed). */
export const VERSION = 1

export { CheckpointError, CorruptCheckpointError } from "./CheckpointError.js"

const OptionsSchema = Schema.Struct({
  numEnvs: Schema.Int,
  numSteps: Schema.Int,
  totalTimesteps: Schema.Number,
  learningRate: Schema.Number,
  annealLr: Schema.Boolean,
  adamEps: Schema.Number,
  gamma: Schema.Number,
  gaeLambda: Schema.Number,
  numMinibatches: Schema.Int,
  updateEpochs: Schema.Int,
  normAdv: Schema.Boolean,
  clipCoef: Schema.Number,
  clipVloss: Schema.Boolean,
  entCoef: Schema.Number,
  vfCoef: Schema.Number,
  maxGradNorm: Schema.Number,
  targetKl: Schema.optional(Schema.Number),
  hidden: Schema.Int,
  engine: Schema.optional(Schema.Literals(["typed-array", "wasm-simd"])),
  seed: Schema.Number,
  bootstrapTruncated: Schema.Boolean,
  stopWhen: Schema.optional(Schema.Struct({ meanReturn: Schema.Number, window: Schema.optional(Schema.Number) })),
  checkpoint: Schema.optional(Schema.Struct({ path: Schema.String, everyUpdates: Schema.optional(Schema.Number) }))
})

/** The checkpoint file's schema. */
export const Manifest = Schema.Struct({
  format: Schema.Literal(FORMAT),
  version: Schema.Number,
  createdAt: Schema.String,
  globalStep: Schema.Int,
  iteration: Schema.Int,
  wallSeconds: Schema.Number,
  options: OptionsSchema,
  network: Schema.Struct({
    obsDim: Schema.Int,
    numActions: Schema.Int,
    hidden: Schema.Int,
    layout: Schema.Array(Schema.Struct({ name: Schema.String, shape: Schema.Array(Schema.Int) }))
  }),
  adam: Schema.Struct({ step: Schema.Int, beta1: Schema.Number, beta2: Schema.Number, eps: Schema.Number }),
  rng: Schema.Struct({ action: RngState, shuffle: RngState }),
  recentReturns: Schema.Array(Schema.Number),
  payload: Schema.Struct({
    encoding: Schema.Literal("base64-float32-le"),
    params: Schema.String,
    m: Schema.String,
    v: Schema.String
  }),
  sha256: Schema.String
})
export type Manifest = typeof Manifest.Type

const bytesOf = (x: Float32Array): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength)

const checksum = (parts: ReadonlyArray<Float32Array>): string => {
  const h = createHash("sha256")
  for (const p of parts) h.update(bytesOf(p))
  return h.digest("hex")
}

/**
 * The manifest of a PPO training state (pure; no I/O): format and version, the options, the network sizes and its
 * flat float32 parameters, Adam's moments and step, both generators' states, `iteration`, `globalStep`,
 * `wallSeconds`, the recent episode returns and a SHA-256 of the parameters and moments (params ‖ m ‖ v, checked by
 * {@link decode}).
 */
export const encode = (s: TrainState): Manifest => {
  const { agent, adam } = s
  const { checkpoint: _ignored, ...options } = s.options
  return {
    format: FORMAT,
    version: VERSION,
    createdAt: new Date().toISOString(),
    globalStep: s.globalStep,
    iteration: s.iteration,
    wallSeconds: s.wallSeconds,
    options: s.options.checkpoint === undefined ? options : { ...options, checkpoint: s.options.checkpoint },
    network: {
      obsDim: agent.obsDim,
      numActions: agent.numActions,
      hidden: agent.hidden,
      layout: agent.layout.map((l) => ({ name: l.name, shape: [...l.shape] }))
    },
    adam: { step: adam.step, beta1: adam.beta1, beta2: adam.beta2, eps: adam.eps },
    rng: { action: s.actionRng.getState(), shuffle: s.shuffleRng.getState() },
    recentReturns: [...s.recentReturns],
    payload: {
      encoding: "base64-float32-le",
      params: bytesOf(agent.params).toString("base64"),
      m: bytesOf(adam.m).toString("base64"),
      v: bytesOf(adam.v).toString("base64")
    },
    sha256: checksum([agent.params, adam.m, adam.v])
  }
}

const decodeFloats = (b64: string): Float32Array | undefined => {
  const bytes = Buffer.from(b64, "base64")
  if (bytes.length % 4 !== 0) return undefined
  const out = new Float32Array(bytes.length / 4)
  bytesOf(out).set(bytes)
  return out
}

/**
 * A training state from a schema-decoded manifest; `path` names the file in errors. Fails with
 * {@link CorruptCheckpointError} for another format or version, parameter or moment arrays of the wrong length for
 * the layers, or a payload whose SHA-256 does not match.
 */
export const decode = (path: string, m: Manifest): Effect.Effect<TrainState, CorruptCheckpointError> =>
  Effect.suspend(() => {
    const corrupt = (reason: string) => Effect.fail(new CorruptCheckpointError({ path, reason }))
    if (m.version !== VERSION) return corrupt(`unsupported version ${m.version} (this build reads version ${VERSION})`)
    const params = decodeFloats(m.payload.params)
    const mom1 = decodeFloats(m.payload.m)
    const mom2 = decodeFloats(m.payload.v)
    if (params === undefined || mom1 === undefined || mom2 === undefined) return corrupt("payload is not a whole number of float32 values")
    const actual = checksum([params, mom1, mom2])
    if (actual !== m.sha256) return corrupt(`sha256 mismatch: manifest says ${m.sha256}, payload hashes to ${actual}`)
    const sizes = { obsDim: m.network.obsDim, numActions: m.network.numActions, hidden: m.network.hidden }
    const expected = ActorCritic.layout(sizes)
    if (expected.length !== m.network.layout.length) return corrupt(`expected ${expected.length} layers, found ${m.network.layout.length}`)
    for (let k = 0; k < expected.length; k++) {
      const e = expected[k]!
      const got = m.network.layout[k]!
      if (e.name !== got.name || e.shape.join(",") !== got.shape.join(",")) {
        return corrupt(`layer ${k}: expected ${e.name} [${e.shape.join(", ")}], found ${got.name} [${got.shape.join(", ")}]`)
      }
    }
    const n = expected[expected.length - 1]!.offset + expected[expected.length - 1]!.size
    if (params.length !== n) return corrupt(`expected ${n} parameters for the layout, found ${params.length}`)
    if (mom1.length !== n || mom2.length !== n) return corrupt(`Adam moments have ${mom1.length}/${mom2.length} values, expected ${n}`)
    for (let k = 0; k < n; k++) {
      if (!Number.isFinite(params[k]!)) return corrupt(`non-finite parameter ${params[k]} at index ${k}`)
    }
    const { checkpoint, targetKl, stopWhen, engine, ...required } = m.options
    const agent = ActorCritic.fromParams(sizes, params, engine)
    const options: Options = {
      ...required,
      ...(engine === undefined ? {} : { engine }),
      ...(targetKl === undefined ? {} : { targetKl }),
      ...(stopWhen === undefined ? {} : { stopWhen }),
      ...(checkpoint === undefined ? {} : { checkpoint })
    }
    const state: TrainState = {
      options,
      agent,
      adam: { m: mom1, v: mom2, step: m.adam.step, beta1: m.adam.beta1, beta2: m.adam.beta2, eps: m.adam.eps },
      actionRng: Rng.fromState(m.rng.action),
      shuffleRng: Rng.fromState(m.rng.shuffle),
      iteration: m.iteration,
      globalStep: m.globalStep,
      wallSeconds: m.wallSeconds,
      recentReturns: [...m.recentReturns]
    }
    return Effect.succeed(state)
  })

/** The file operations {@link writeAtomic} uses (replaceable to inject faults in tests). */
/** The file operations an atomic write uses (replace some to inject faults in tests); see core's `AtomicFile`. */
export type Io = AtomicFile.Io

/** Node's `fs`, synchronously. */
export const nodeIo: Io = AtomicFile.nodeIo

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * Write `bytes` to `path` atomically (core's `AtomicFile`: temp file in the same directory → write → fsync → rename
 * over `path` → fsync the directory). On any failure the previous content of `path` is untouched.
 */
export const writeAtomic = (path: string, bytes: Uint8Array, io: Partial<Io> = {}): Effect.Effect<void, CheckpointError> =>
  AtomicFile.write(path, bytes, io).pipe(
    Effect.mapError((e) => new CheckpointError({ path, reason: `write failed: ${e.reason}` }))
  )

/**
 * Save a PPO training state to `path` atomically (write a temporary file, fsync, rename; see the module docs), as the
 * JSON manifest of {@link encode}. Fails with {@link CheckpointError} naming the path when any step of the write
 * fails (the previous checkpoint, if any, is left intact).
 */
export const save = (path: string, state: TrainState, io: Partial<Io> = {}): Effect.Effect<void, CheckpointError> =>
  Effect.suspend(() => writeAtomic(path, Buffer.from(JSON.stringify(encode(state)), "utf8"), io))

/**
 * Load and validate a checkpoint written by {@link save}: read, parse JSON, decode the manifest schema, then
 * {@link decode}. Fails with {@link CheckpointError} when the file cannot be read and {@link CorruptCheckpointError}
 * (with the reason) when it is not valid JSON, not a manifest, or inconsistent. Continue the run with
 * `Ppo.train(env, { resume: state })`.
 */
export const load = (path: string): Effect.Effect<TrainState, CheckpointError | CorruptCheckpointError> =>
  Effect.gen(function* () {
    const text = yield* Effect.try({
      try: () => fs.readFileSync(path, "utf8"),
      catch: (e) => new CheckpointError({ path, reason: `read failed: ${reasonOf(e)}` })
    })
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) => new CorruptCheckpointError({ path, reason: `not valid JSON (${reasonOf(e)}; ${text.length} bytes)` })
    })
    const manifest = yield* Schema.decodeUnknownEffect(Manifest)(json).pipe(
      Effect.mapError((e) => new CorruptCheckpointError({ path, reason: `schema: ${e.message.slice(0, 500)}` }))
    )
    return yield* decode(path, manifest)
  })
