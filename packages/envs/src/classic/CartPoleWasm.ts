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
  step(
    n: number, x: number, xd: number, th: number, thd: number, act: number, obs: number, term: number, el: number, rew: number,
    trunc: number, ended: number, maxSteps: number, rewardEnd: number, rewardStep: number
  ): number
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
  /** 1 where the row terminated on the last step (`Uint8Array(stride)`; the batch's `terminations` is its prefix). */
  readonly terminated: Uint8Array
  /** 1 where the row was truncated on the last step. */
  readonly truncated: Uint8Array
  /** Rewards of the last step (`Float64Array(stride)`). */
  readonly rewards: Float64Array
  /** Steps of each row's episode (`Int32Array(stride)`). */
  readonly elapsed: Int32Array
  /** The rows that ended on the last step, in order (the first `step()` of them). */
  readonly ended: Int32Array
  /**
   * Step every row (padding included), count its episode step, set `truncated` at `maxSteps`, the reward
   * (`rewardEnd` when terminated, else `rewardStep`), and list the rows that ended; returns how many did.
   */
  readonly step: (maxSteps: number, rewardEnd: number, rewardStep: number) => number
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
  const ptrunc = align(pterm + stride)
  const pel = align(ptrunc + stride)
  const prew = align(pel + 4 * stride)
  const pended = align(prew + 8 * stride)
  const end = align(pended + 4 * stride)
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
    truncated: new Uint8Array(buf, ptrunc, stride),
    rewards: new Float64Array(buf, prew, stride),
    elapsed: new Int32Array(buf, pel, stride),
    ended: new Int32Array(buf, pended, stride),
    step: (maxSteps, rewardEnd, rewardStep) =>
      ex.step(stride, px, pxd, pth, pthd, pact, pobs, pterm, pel, prew, ptrunc, pended, maxSteps, rewardEnd, rewardStep)
  }
}
