/**
 * The embedded WebAssembly SIMD module of the `wasm-simd` kernels (`wasm/kernels.ts`, compiled by AssemblyScript into
 * `src/generated/wasmSimdBinary.ts`): loading it, and the one linear memory every kernel shares — a stack of resident
 * regions (top-k indexes, KL workspaces) from {@link BASE}, then per-call scratch above it.
 *
 * **Details**: one `WebAssembly.Memory` (the module's), grown as needed and never shrunk. A call `reset`s the scratch
 * cursor, `alloc`s its regions, `commit`s (grows the memory, returns views), copies inputs in with `put`, runs and
 * copies results out. Views onto the memory detach when it grows: take them from `commit` after the last `alloc`.
 * Internal to the package (the public surface is `WasmSimd`).
 * @since 0.1.0
 */
import * as binary from "../generated/wasmSimdBinary.js"

/** Registry backend name of these kernels. */
export const BACKEND_NAME = "wasm-simd"

/** Set to `0` to disable the module (then {@link load} reports it unavailable). */
export const ENV_VAR = "AUTODIDACT_WASM_SIMD"

/** The part of the `WebAssembly` global used here (not in this project's TypeScript `lib`). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(pages: number): number
}
export interface WasmApi {
  validate(bytes: Uint8Array): boolean
  readonly Module: new (bytes: Uint8Array) => object
  readonly Instance: new (module: object, imports: object) => { readonly exports: unknown }
}

export interface Exports {
  readonly memory: WasmMemory
  logSoftmax(z: number, m: number, B: number, A: number, logProbs: number, entropy: number, scratch: number): number
  kl(q: number, p: number, n: number, estimator: number, values: number): number
  klSums(q: number, p: number, n: number, out: number): void
  pcg64Uniforms(st: number, n: number, out: number): void
  categorical(z: number, m: number, B: number, A: number, u: number, actions: number, logProbs: number, scratch: number): number
  ppoLoss(
    z: number, m: number, B: number, A: number, actions: number, oldLogProbs: number, adv: number, values: number, oldValues: number,
    returns: number, c: number, cv: number, clipVloss: number, ent: number, vf: number, dLogits: number, dValues: number, parts: number, scratch: number
  ): number
  topK(qs: number, ms: number, Q: number, M: number, D: number, k: number, invQ: number, invRow: number, heapS: number, heapI: number, blockRows: number): number
  topKBadQuery(): number
  topKBadRow(): number
  inverseNorms(x: number, n: number, D: number, out: number): void
  quantizeRows(x: number, n: number, D: number, Dp: number, out: number, scale: number, l1: number): number
  topKCandidates(
    qq: number, qs: number, ql1: number, mq: number, ms: number, ml1: number, Q: number, M: number, D: number, Dp: number, k: number,
    invQ: number, invRow: number, heapS: number, heapI: number, roots: number, cand: number, candU: number, counts: number, C: number,
    blockRows: number
  ): number
  quantizeRows8(x: number, n: number, D: number, Dp: number, out: number, scale: number, l1: number): number
  topKCandidates8(
    qq: number, qs: number, ql1: number, mq: number, ms: number, ml1: number, Q: number, M: number, D: number, Dp: number, k: number,
    invQ: number, invRow: number, heapS: number, heapI: number, roots: number, cand: number, candU: number, counts: number, C: number,
    blockRows: number
  ): number
  topKRescore(
    qs: number, ms: number, Q: number, D: number, k: number, invQ: number, invRow: number, lowerHeap: number, cand: number, candU: number,
    counts: number, C: number, heapS: number, heapI: number
  ): number
  gae(
    T: number, N: number, gamma: number, lambda: number, rewards: number, values: number, dones: number, nextValue: number, nextDone: number,
    trunc: number, finalV: number, adv: number, ret: number
  ): number
  groupNorm(x: number, ids: number, n: number, G: number, count: number, ddof: number, eps: number, scale: number, mean: number, std: number, out: number): number
}

/** Whether the module could be instantiated, and why not. */
export type Availability = { readonly ok: true } | { readonly ok: false; readonly reason: string }

/** `process.env` under Node, `{}` where there is no `process` (browsers). */
export const processEnv = (): { readonly [key: string]: string | undefined } =>
  typeof process === "undefined" ? {} : process.env

/** Decode base64 with `atob` (Node ≥ 16 and browsers; no `Buffer`). */
const fromBase64 = (b64: string): Uint8Array => {
  const s = atob(b64)
  const out = new Uint8Array(s.length)
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i)
  return out
}

let instance: Exports | undefined
let availability: Availability | undefined

/**
 * Compile an embedded module (`base64` of `byteLength` bytes) synchronously: the compiled `WebAssembly.Module` and
 * the `WebAssembly` API, or the reason it is unavailable (no `WebAssembly`, a truncated embedding, an engine without
 * SIMD). Shared by this module and `MlpSimd`.
 */
export const compileEmbedded = (base64: string, byteLength: number): { readonly ok: true; readonly wa: WasmApi; readonly module: object } | { readonly ok: false; readonly reason: string } => {
  try {
    const wa = (globalThis as { WebAssembly?: WasmApi }).WebAssembly
    if (typeof wa !== "object") throw new Error("this JavaScript engine has no WebAssembly")
    const bytes = fromBase64(base64)
    if (bytes.length !== byteLength) throw new Error(`embedded module is ${bytes.length} bytes, expected ${byteLength}`)
    if (!wa.validate(bytes)) throw new Error("the WebAssembly engine rejects the module (no SIMD support?)")
    return { ok: true, wa, module: new wa.Module(bytes) }
  } catch (e) {
    return { ok: false, reason: (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 300) }
  }
}

/**
 * Instantiate the embedded module (once; synchronous, ~12 KB). Unavailable when `AUTODIDACT_WASM_SIMD=0`, when
 * there is no `WebAssembly`, or when the engine rejects the module (no SIMD support).
 */
export const load = (env: { readonly [key: string]: string | undefined } = processEnv()): Availability => {
  if (env[ENV_VAR] === "0") return { ok: false, reason: `disabled by ${ENV_VAR}=0` }
  if (availability !== undefined) return availability
  const compiled = compileEmbedded(binary.base64, binary.byteLength)
  if (!compiled.ok) return (availability = { ok: false, reason: compiled.reason })
  try {
    instance = new compiled.wa.Instance(compiled.module, {}).exports as Exports
    availability = { ok: true }
  } catch (e) {
    availability = { ok: false, reason: (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 300) }
  }
  return availability
}

export const wasm = (): Exports => {
  if (instance !== undefined) return instance
  const a = load()
  if (!a.ok) throw new Error(`WebAssembly SIMD kernels unavailable: ${a.reason}`)
  return instance!
}

// ---------------------------------------------------------------------------------------------- memory

/** Start of the arena (the module's static data ends below 4 KiB). */
export const BASE = 65536
/** Resident regions (top-k indexes) are stacked from BASE; scratch starts at `residentTop`. */
let residentTop = BASE
const residents: Array<{ readonly offset: number; bytes: number; live: boolean }> = []
let cursor = BASE

export const align = (n: number): number => (n + 15) & ~15

/** Start a call's scratch allocations. */
export const reset = (): void => {
  cursor = residentTop
}

/** A 16-byte aligned scratch region of `bytes` bytes. */
export const alloc = (bytes: number): number => {
  const p = cursor
  cursor += align(Math.max(bytes, 0))
  return p
}

export interface Views {
  readonly f32: Float32Array
  readonly f64: Float64Array
  readonly i32: Int32Array
}

let views: Views | undefined

/** Grow the memory to hold everything allocated so far; the (cached) views onto the current buffer. */
export const commit = (w: Exports): Views => {
  const need = cursor
  const have = w.memory.buffer.byteLength
  if (need > have) w.memory.grow(Math.ceil((need - have) / 65536))
  const buffer = w.memory.buffer
  if (views === undefined || views.f32.buffer !== buffer) views = { f32: new Float32Array(buffer), f64: new Float64Array(buffer), i32: new Int32Array(buffer) }
  return views
}

/** Bytes currently held by the module's memory (diagnostics, and the steady-state test). */
export const memoryBytes = (): number => (load().ok ? instance!.memory.buffer.byteLength : 0)

export const put = (v: Views, p: number, x: ArrayLike<number>): void => {
  v.f32.set(x, p >> 2)
}


/** A resident region: its offset, whether it is still held, its release, and an in-place resize. */
export interface Region {
  readonly offset: number
  readonly live: () => boolean
  readonly release: () => void
  /**
   * Resize to `bytes` in place when this is the topmost resident region (the memory grows at once): true; false when
   * other regions lie above it (the caller reserves a new region and copies).
   */
  readonly resize: (bytes: number) => boolean
}

/**
 * Reserve a resident region of `bytes` bytes (stacked like the top-k indexes): its offset and a release function.
 * The memory grows at once to cover it.
 */
export const reserve = (w: Exports, bytes: number): Region => {
  const offset = residentTop
  const size = align(bytes)
  residentTop += size
  const entry = { offset, bytes: size, live: true }
  residents.push(entry)
  reset()
  commit(w)
  return {
    offset,
    live: () => entry.live,
    release: () => {
      entry.live = false
      while (residents.length > 0 && !residents[residents.length - 1]!.live) residentTop = residents.pop()!.offset
    },
    resize: (n: number) => {
      if (!entry.live || residents[residents.length - 1] !== entry) return false
      entry.bytes = align(n)
      residentTop = offset + entry.bytes
      reset()
      commit(w)
      return true
    }
  }
}

/** The first `n` elements (a view for typed arrays). */
export const prefix = (x: ArrayLike<number>, n: number): ArrayLike<number> =>
  x.length === n ? x : ArrayBuffer.isView(x) ? (x as Float32Array).subarray(0, n) : Array.from({ length: n }, (_, i) => x[i]!)

/** End of the resident regions (scratch starts here): a view below it and at or above {@link BASE} is resident. */
export const residentEnd = (): number => residentTop
