/**
 * The `wasm-simd` kernels: WebAssembly SIMD (128-bit `v128`, `f32x4` / `f64x2`) implementations of top-k, masked
 * log-softmax + entropy, categorical sampling (with bulk PCG64 draws continuing a core `Rng`'s stream), KL k1/k2/k3
 * (plus fused means and a resident input workspace), the PPO loss with its gradients, GAE and group normalization, written in
 * AssemblyScript (`wasm/kernels.ts`; one module per kernel family under `src/wasm/`) and embedded as bytes (`src/generated/wasmSimdBinary.ts`, rebuilt by
 * `npm run build:wasm -w @autodidact/kernels`), so nothing is compiled at install or test time.
 *
 * **When to use**
 *
 Nothing to provide: importing the package offers these kernels to the default dispatch
 * (`KernelRegistry.provideEngineKernel`), which runs them wherever `KernelRegistry.defaultEngines` lists `wasm-simd`
 * first (they measured fastest there) and WebAssembly SIMD is available, on every backend but native `tensorflow`.
 * {@link layer} / {@link register} additionally register {@link defaultKernels} under backend {@link BACKEND_NAME}
 * (for `{ engine: "wasm-simd" }` per call). The functions here can also be called directly (`WasmSimd.logSoftmax(input)`),
 * with the same inputs, outputs and typed errors as the typed-array references (`Softmax.logSoftmaxSync`, ...), which
 * stay the ground truth of the parity tests.
 *
 * **Details**
 * - One `WebAssembly.Memory` (the module's), grown as needed and never shrunk. Each call copies its inputs into a
 *   scratch region (a `memcpy` for `Float32Array` inputs), runs, and copies its outputs into freshly allocated result
 *   arrays (as the references do); nothing else is allocated per call in steady state.
 * - Float32 arithmetic inside (`f32x4`), as NumPy's float32 kernels, except GAE and group normalization (doubles, the
 *   same operations in the same order as the references, so the same float32 results) and the PPO loss scalars and
 *   KL mean (accumulated in doubles). `exp` is a float32x4 polynomial after ln 2 range reduction (see `wasm/kernels.ts`).
 * - Top-k: 4 queries × 2 rows per micro-kernel step (8 `f32x4` accumulators) over cache-sized row blocks, a per-query
 *   size-k min-heap whose root is the admission threshold. A matrix is streamed through a ~1 MiB scratch chunk per call unless it already
 *   lives in this module's memory: {@link makeTopKIndex} copies it once (a resident index, as ONNX Runtime's baked
 *   mode) and adds an exact int16 pre-filter (`i32x4.dot_i16x8_s` with a rigorous error bound, then float32
 *   rescoring of the few candidates); `index.matrix` is a view onto the float32 rows (call `index.refresh()` after
 *   editing it). Views onto the module's memory detach when it grows: re-read `index.matrix` after other calls.
 * - KL: {@link makeKlBuffers} keeps the inputs resident (no copies in or out), {@link klMeans} computes the three
 *   means in one pass. Categorical: the same actions as the reference for the same uniforms (rows whose uniform lies
 *   within the float32 error bound of a CDF boundary are recomputed by the reference); {@link uniformStream} makes the
 *   draws ~60× cheaper than `Rng.random()` while returning exactly the same values.
 * - Bad input is detected inside the kernels without an extra pass (a flag), then the typed-array validator names the
 *   offending element: the same {@link KernelInputError}s as the references, with `backend: "wasm-simd"`.
 * - If WebAssembly SIMD is unavailable (an engine without it, or `AUTODIDACT_WASM_SIMD=0`), {@link load} says why,
 *   {@link register} registers nothing and {@link layer} logs the reason: dispatch goes on to the next backend.
 *
 * @example
 * ```ts
 * import { Backend, Softmax } from "@autodidact/kernels"
 * import { Effect } from "effect"
 * const program = Effect.gen(function* () {
 *   const r = yield* Softmax.logSoftmax({ batch: 1, numActions: 3, logits: [0, 0, 5], mask: [1, 1, 0] })
 *   console.log(r.backendName) // "wasm-simd" (the default dispatch's choice for LogSoftmax here)
 * })
 * Effect.runPromise(Effect.provide(program, Backend.layer))
 * ```
 * @see https://github.com/WebAssembly/simd/blob/main/proposals/simd/SIMD.md
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import * as Categorical from "../policy/Categorical.js"
import * as Gae from "../advantages/Gae.js"
import * as GroupNorm from "../advantages/GroupNorm.js"
import * as KernelRegistry from "./KernelRegistry.js"
import * as Kl from "../policy/Kl.js"
import * as PpoLoss from "../policy/PpoLoss.js"
import * as Softmax from "../policy/Softmax.js"
import * as TopK from "../retrieval/TopK.js"
import { gae, groupNormalize } from "../wasm/Advantages.js"
import { klEstimate } from "../wasm/Kl.js"
import { logSoftmax } from "../wasm/LogSoftmax.js"
import { BACKEND_NAME, load } from "../wasm/Module.js"
import { ppoLoss } from "../wasm/PpoLoss.js"
import { categoricalFromUniforms } from "../wasm/Sampling.js"
import { topK } from "../wasm/TopK.js"

export { gae, groupNormalize } from "../wasm/Advantages.js"
export { klEstimate, klMeans, makeKlBuffers } from "../wasm/Kl.js"
export type { KlBuffers, KlMeans } from "../wasm/Kl.js"
export { logSoftmax } from "../wasm/LogSoftmax.js"
export { BACKEND_NAME, ENV_VAR, load, memoryBytes } from "../wasm/Module.js"
export type { Availability } from "../wasm/Module.js"
export { ppoLoss, ppoLossInto } from "../wasm/PpoLoss.js"
export { categoricalFromUniforms, categoricalSample, uniformStream } from "../wasm/Sampling.js"
export type { UniformStream } from "../wasm/Sampling.js"
export { makeTopKIndex, PREFILTER_MAX_DIM, topK } from "../wasm/TopK.js"
export type { TopKIndex } from "../wasm/TopK.js"


/** Every kernel this module implements, by registry kernel name. */
export const kernels: { readonly [kernelName: string]: (input: any) => unknown } = {
  [TopK.kernelName]: topK,
  [Softmax.kernelName]: logSoftmax,
  [Kl.kernelName]: klEstimate,
  [Categorical.kernelName]: categoricalFromUniforms,
  [PpoLoss.kernelName]: ppoLoss,
  [Gae.kernelName]: gae,
  [GroupNorm.kernelName]: groupNormalize
}

/**
 * The kernels {@link register} registers (and the default dispatch runs here, see `KernelRegistry.defaultEngines`):
 * those where wasm-simd measured fastest of the engines that need no scoped resource. GAE is left out: the
 * column-blocked typed-array scan beat it at `[2048, 256]` (it is still available as {@link gae} and in
 * {@link kernels}).
 */
export const defaultKernels: ReadonlyArray<string> = [
  TopK.kernelName,
  Softmax.kernelName,
  Categorical.kernelName,
  Kl.kernelName,
  PpoLoss.kernelName,
  GroupNorm.kernelName
]

// offered to the default dispatch (which consults them only where KernelRegistry.defaultEngines lists wasm-simd);
// the module itself is instantiated on the first call, and availability is re-checked on every dispatch
for (const kernelName of defaultKernels) {
  const kernelFunc = kernels[kernelName]!
  KernelRegistry.provideEngineKernel(BACKEND_NAME, kernelName, kernelFunc, () => load().ok)
}

/** What {@link register} did. */
export interface Registration {
  readonly registered: ReadonlyArray<string>
  /** Set when nothing was registered because the module is unavailable. */
  readonly unavailable?: string | undefined
  /** Restore what was registered before. */
  readonly restore: () => void
}

/** Register `names` (default {@link defaultKernels}) for backend {@link BACKEND_NAME}; nothing when unavailable. */
export const register = (names: ReadonlyArray<string> = defaultKernels): Registration => {
  const a = load()
  if (!a.ok) return { registered: [], unavailable: a.reason, restore: () => {} }
  const restores = names.map((kernelName) => {
    const kernelFunc = kernels[kernelName]
    if (kernelFunc === undefined) throw new Error(`WasmSimd.register: no wasm-simd kernel named ${kernelName}`)
    return KernelRegistry.registerKernel({ kernelName, backendName: BACKEND_NAME, kernelFunc: (inputs: unknown) => kernelFunc(inputs) })
  })
  return {
    registered: names,
    restore: () => {
      for (const r of restores.reverse()) r()
    }
  }
}

/**
 * Registers {@link defaultKernels} while the layer is alive (restored when its scope closes); when WebAssembly SIMD
 * is unavailable it logs the reason (`Effect.logWarning`) and registers nothing, so dispatch uses the next backend.
 */
export const layer: Layer.Layer<never> = Layer.effectDiscard(
  Effect.acquireRelease(
    Effect.sync(() => register()).pipe(
      Effect.tap((r) =>
        r.unavailable === undefined ? Effect.void : Effect.logWarning(`${BACKEND_NAME} kernels unavailable (${r.unavailable}); using the next backend`)
      )
    ),
    (r) => Effect.sync(r.restore)
  )
)
