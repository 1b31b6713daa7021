/**
 * Policy weights as content-addressed bytes: what a trainer publishes as policy version V and what a rollout
 * worker fetches to act with it.
 *
 * **Format**: a little-endian `u32` header length, a UTF-8 JSON header (`{ format, kind, sizes | config,
 * numParams }`), then the parameters as little-endian float32. The address of a policy is the SHA-256 of these
 * bytes (hex), so a worker that fetched hash `h` acts with exactly the weights the trainer published, and the same
 * weights published twice share one row.
 *
 * **Kinds**: `actor-critic` ({@link ActorCritic}, the PPO network of the Box/Discrete environments) and `drrn`
 * ({@link DrrnPolicy}, the text-environment policy).
 *
 * @example
 * ```ts
 * const bytes = Policy.encode({ kind: "actor-critic", sizes: { obsDim: 4, numActions: 2, hidden: 64 }, params })
 * const hash = Policy.hashOf(bytes)
 * const back = Policy.decode(bytes) // same params, bit for bit
 * ```
 * @since 0.1.0
 */
import { ActorCritic, DrrnPolicy } from "@autodidact/optim"
import { Schema } from "effect"
import { createHash } from "node:crypto"

/** The format tag written in every header. */
export const FORMAT = "autodidact.policy-weights/1"

/**
 * Bytes that are not a policy of this format (truncated, wrong header, wrong parameter count).
 * @category errors
 */
export class PolicyDecodeError extends Schema.TaggedError<PolicyDecodeError>()("PolicyDecodeError", {
  reason: Schema.String,
  bytes: Schema.Number
}) {
  override get message() {
    return `Policy bytes (${this.bytes} bytes) cannot be decoded: ${this.reason}`
  }
}

/** Serializable weights of a policy. */
export type Weights =
  | { readonly kind: "actor-critic"; readonly sizes: ActorCritic.Sizes; readonly params: Float32Array }
  | { readonly kind: "drrn"; readonly config: DrrnPolicy.Config; readonly params: Float32Array }

/** A published policy version: its number and the SHA-256 of its bytes. */
export interface PolicyRef {
  readonly version: number
  readonly hash: string
}

/**
 * The bytes of `w`: a 4-byte little-endian header length, a JSON header (format, kind, sizes or config, parameter
 * count), then the parameters as little-endian float32 (4 bytes each). Deterministic: equal weights give equal
 * bytes, hence equal {@link hashOf}. Parameters held in float64 by the optimizer are rounded to float32 here.
 */
export const encode = (w: Weights): Uint8Array => {
  const header = new TextEncoder().encode(JSON.stringify(
    w.kind === "actor-critic"
      ? { format: FORMAT, kind: w.kind, sizes: { obsDim: w.sizes.obsDim, numActions: w.sizes.numActions, hidden: w.sizes.hidden }, numParams: w.params.length }
      : { format: FORMAT, kind: w.kind, config: w.config, numParams: w.params.length }
  ))
  const out = new Uint8Array(4 + header.length + 4 * w.params.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, header.length, true)
  out.set(header, 4)
  const base = 4 + header.length
  for (let i = 0; i < w.params.length; i++) view.setFloat32(base + 4 * i, w.params[i]!, true)
  return out
}

/** The content address of policy bytes: SHA-256 (Node's `crypto`), 64 lowercase hex characters. */
export const hashOf = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

/**
 * Weights from bytes written by {@link encode}.
 * @throws PolicyDecodeError when the bytes are not a policy of this format.
 */
export const decode = (bytes: Uint8Array): Weights => {
  const fail = (reason: string) => new PolicyDecodeError({ reason, bytes: bytes.length })
  if (bytes.length < 4) throw fail("shorter than the 4-byte header length")
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const headerLength = view.getUint32(0, true)
  if (4 + headerLength > bytes.length) throw fail(`header length ${headerLength} exceeds the data`)
  let header: { format?: unknown; kind?: unknown; sizes?: ActorCritic.Sizes; config?: DrrnPolicy.Config; numParams?: unknown }
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength)))
  } catch (e) {
    throw fail(`header is not JSON: ${String(e)}`)
  }
  if (header.format !== FORMAT) throw fail(`format ${JSON.stringify(header.format)}, expected ${FORMAT}`)
  const n = header.numParams
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0) throw fail(`numParams ${JSON.stringify(n)}`)
  const base = 4 + headerLength
  if (bytes.length !== base + 4 * n) throw fail(`expected ${base + 4 * n} bytes for ${n} parameters`)
  const params = new Float32Array(n)
  for (let i = 0; i < n; i++) params[i] = view.getFloat32(base + 4 * i, true)
  if (header.kind === "actor-critic" && header.sizes !== undefined) {
    const expected = ActorCritic.layout(header.sizes).reduce((a, l) => a + l.size, 0)
    if (expected !== n) throw fail(`an actor-critic of these sizes has ${expected} parameters, not ${n}`)
    return { kind: "actor-critic", sizes: header.sizes, params }
  }
  if (header.kind === "drrn" && header.config !== undefined) {
    const expected = DrrnPolicy.layout(header.config).reduce((a, l) => a + l.size, 0)
    if (expected !== n) throw fail(`a DRRN policy of this config has ${expected} parameters, not ${n}`)
    return { kind: "drrn", config: header.config, params }
  }
  throw fail(`unknown kind ${JSON.stringify(header.kind)}`)
}

/** The weights of an actor-critic (`@autodidact/optim`'s `ActorCritic`): its sizes and a float32 copy of its parameters. */
export const ofActorCritic = (net: ActorCritic.ActorCritic): Weights => ({
  kind: "actor-critic",
  sizes: { obsDim: net.obsDim, numActions: net.numActions, hidden: net.hidden },
  params: Float32Array.from(net.params)
})

/** The weights of a DRRN text policy (`@autodidact/optim`'s `DrrnPolicy`): its config and a float32 copy of its parameters. */
export const ofDrrn = (p: DrrnPolicy.Drrn): Weights => ({ kind: "drrn", config: p.config, params: Float32Array.from(p.params) })
