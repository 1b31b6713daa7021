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
  init(stride: number, base: number): number
  offset(k: number): number
  heapBase(): number
  actionsValid(n: number): number
  sinSeries(x: number): number
  profilePass(pass: number, n: number, stride: number): void
  cosSeries(x: number): number
  rawDraws(row: number, out: number, count: number): void
  resetRow(row: number, low: number, high: number): void
  step(n: number, stride: number, maxSteps: number, rewardEnd: number, rewardStep: number, nextStep: number): number
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
  /** SameStep/Disabled: the rows that ended on the last step, in order (the first `step()` of them). */
  readonly ended: Int32Array
  /** 1 where the row waits for its NextStep reset (`Uint8Array(stride)`; the batch's `needsReset`). */
  readonly needsReset: Uint8Array
  /** 1 where the row was reset during the last NextStep step (the batch's `resetRows`). */
  readonly resetRows: Uint8Array
  /**
   * Each row's PCG64 as 16 little-endian 16-bit limbs, state (8) then increment (8): `Rng.getState()`'s `state` and
   * `inc` (`Uint16Array(16 * stride)`).
   */
  readonly rng: Uint16Array
  /**
   * Step every row (padding included), count its episode step, set `truncated` at `maxSteps`, the reward
   * (`rewardEnd` when terminated, else `rewardStep`), and list the rows that ended; returns how many did. With
   * `nextStep`, rows flagged in `needsReset` are reset instead (from their PCG64, reward 0, flags 0, `resetRows` 1) and
   * the rows that end are flagged.
   */
  readonly step: (maxSteps: number, rewardEnd: number, rewardStep: number, nextStep: boolean) => number
  /** The step's `sin`/`cos` for the lanes its fast path rejects (`Libm.sinAccurate`/`cosAccurate`, ported); for the tests. */
  readonly series: { readonly sin: (x: number) => number; readonly cos: (x: number) => number }
  /** One pass of `step` alone (0 trig, 1 physics, 2 flags without autoreset), for the profile in `bench/`. */
  readonly profilePass: (pass: 0 | 1 | 2) => void
  /** Whether every row's action is 0 or 1 (one SIMD pass over `actions`). */
  readonly actionsValid: () => boolean
  /** Row i's state from 4 draws of `uniform(low, high)` of its PCG64 (as `CartPoleEnv.reset`), observation written. */
  readonly resetRow: (i: number, low: number, high: number) => void
  /** `count` raw 64-bit outputs of row i's PCG64 (`Rng.nextUint64()`), as BigInts; for the tests. */
  readonly rawDraws: (i: number, count: number) => Array<bigint>
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

/** An instance for `numEnvs` rows (padded to an even count), or undefined without WebAssembly SIMD. */
export const instantiate = (numEnvs: number): CartPoleWasm | undefined => {
  const module = compile()
  if (module === null) return undefined
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly!
  const ex = new wasm.Instance(module, { cartpole: { sinAccurate: Libm.sinAccurate, cosAccurate: Libm.cosAccurate } }).exports as Exports
  const stride = numEnvs + (numEnvs & 1)
  const base = ex.heapBase()
  const grow = (end: number) => {
    const have = ex.memory.buffer.byteLength
    if (end > have) ex.memory.grow(Math.ceil((end - have) / 65536))
  }
  grow(base + 1024 + 136 * (stride + 16)) // the layout takes 120 bytes per row (rounded up to 16 rows), plus alignment and the constants
  const scratch = ex.init(stride, base) // rawDraws' output: 4096 u64
  grow(scratch + 8 * 4096)
  const buf = ex.memory.buffer
  const f64 = (k: number) => new Float64Array(buf, ex.offset(k), stride)
  const u8 = (k: number) => new Uint8Array(buf, ex.offset(k), stride)
  const i32 = (k: number) => new Int32Array(buf, ex.offset(k), stride)
  return {
    x: f64(0),
    xDot: f64(1),
    theta: f64(2),
    thetaDot: f64(3),
    actions: i32(4),
    observations: new Float32Array(buf, ex.offset(5), 4 * numEnvs),
    terminated: u8(6),
    truncated: u8(7),
    elapsed: i32(8),
    rewards: f64(9),
    ended: i32(10),
    needsReset: u8(11),
    resetRows: u8(12),
    rng: new Uint16Array(buf, ex.offset(13), 16 * stride),
    step: (maxSteps, rewardEnd, rewardStep, nextStep) => ex.step(numEnvs, stride, maxSteps, rewardEnd, rewardStep, nextStep ? 1 : 0),
    resetRow: (i, low, high) => ex.resetRow(i, low, high),
    actionsValid: () => ex.actionsValid(numEnvs) !== 0,
    profilePass: (pass) => ex.profilePass(pass, numEnvs, stride),
    series: { sin: (x) => ex.sinSeries(x), cos: (x) => ex.cosSeries(x) },
    rawDraws: (i, count) => {
      const out: Array<bigint> = []
      const view = new BigUint64Array(buf, scratch, 4096)
      for (let done = 0; done < count; done += 4096) {
        const k = Math.min(count - done, 4096)
        ex.rawDraws(i, scratch, k)
        for (let j = 0; j < k; j++) out.push(view[j]!)
      }
      return out
    }
  }
}
