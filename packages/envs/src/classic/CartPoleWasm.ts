/**
 * The WebAssembly SIMD step of `CartPoleBatch` (`wasm/cartpole.ts`, embedded in `src/generated/cartPoleWasm.ts`):
 * one instance per batch, owning that batch's state, actions, observations and termination flags in its memory.
 * Internal (not exported from the package).
 *
 * **Details**: the module is compiled once per thread on first use; {@link instantiate} returns undefined where
 * WebAssembly or its SIMD proposal is missing (the batch then steps in JavaScript, with the same results).
 * @internal
 * @since 0.2.0
 */
import * as binary from "../generated/cartPoleWasm.js"
import * as Libm from "./Libm.js"

/** The part of the `WebAssembly` global used here (not in this project's TypeScript `lib`). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean
  readonly Module: new (bytes: Uint8Array) => object
  readonly Instance: new (module: object, imports: object) => { readonly exports: unknown }
}

interface Exports {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number }
  step(n: number, x: number, xd: number, th: number, thd: number, act: number, obs: number, term: number): number
}

/** A batch's views onto its instance's memory (valid for the batch's life: the memory never grows afterwards). */
export interface CartPoleWasm {
  /** Cart position of each row (m); `Float64Array(stride)`. */
  readonly x: Float64Array
  /** Cart velocity (m/s). */
  readonly xDot: Float64Array
  /** Pole angle (rad). */
  readonly theta: Float64Array
  /** Pole angular velocity (rad/s). */
  readonly thetaDot: Float64Array
  /** Actions of the next step (`Int32Array(stride)`). */
  readonly actions: Int32Array
  /** Observations, row-major, `Float32Array(4 * numEnvs)`. */
  readonly observations: Float32Array
  /** 1 where the row terminated on the last step (`Uint8Array(stride)`). */
  readonly terminated: Uint8Array
  /** Step every row (padding included). */
  readonly step: () => void
}

let compiled: object | null | undefined

const compile = (): object | null => {
  if (compiled !== undefined) return compiled
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly
  const atob = (globalThis as { atob?: (data: string) => string }).atob
  if (wasm === undefined || atob === undefined) return (compiled = null)
  const bin = atob(binary.base64)
  const bytes = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i)
  compiled = wasm.validate(bytes) ? new wasm.Module(bytes) : null
  return compiled
}

const align = (bytes: number): number => Math.ceil(bytes / 16) * 16

/** An instance for `numEnvs` rows (padded to an even count), or undefined without WebAssembly SIMD. */
export const instantiate = (numEnvs: number): CartPoleWasm | undefined => {
  const module = compile()
  if (module === null) return undefined
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly!
  const ex = new wasm.Instance(module, { cartpole: { sinAccurate: Libm.sinAccurate, cosAccurate: Libm.cosAccurate } }).exports as Exports
  const stride = numEnvs + (numEnvs & 1)
  const base = 1024 // above the module's (empty) static data
  const px = base
  const pxd = px + 8 * stride
  const pth = pxd + 8 * stride
  const pthd = pth + 8 * stride
  const pact = pthd + 8 * stride
  const pobs = align(pact + 4 * stride)
  const pterm = align(pobs + 16 * stride)
  const end = align(pterm + stride)
  const have = ex.memory.buffer.byteLength
  if (end > have) ex.memory.grow(Math.ceil((end - have) / 65536))
  const buf = ex.memory.buffer
  return {
    x: new Float64Array(buf, px, stride),
    xDot: new Float64Array(buf, pxd, stride),
    theta: new Float64Array(buf, pth, stride),
    thetaDot: new Float64Array(buf, pthd, stride),
    actions: new Int32Array(buf, pact, stride),
    observations: new Float32Array(buf, pobs, 4 * numEnvs),
    terminated: new Uint8Array(buf, pterm, stride),
    step: () => void ex.step(stride, px, pxd, pth, pthd, pact, pobs, pterm)
  }
}
