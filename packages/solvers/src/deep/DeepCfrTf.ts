/**
 * Deep CFR's TensorFlow.js engine: the advantage networks of `DeepCfr` trained on a TF.js backend (`MlpTf` of
 * `@autodidact/kernels/tfjs`: the same tanh MLP, masked weighted MSE, gradient clipping to norm 1 and PyTorch-rule
 * Adam as the default `simd` engine, tested equal to it to float32 rounding). With `@tensorflow/tfjs-node-gpu` (or
 * `-node`) installed the `tensorflow` backend trains on the GPU (or native CPU); else WebAssembly, else plain
 * JavaScript.
 *
 * **Details**
 * - Only training moves: the trainer's loop (row sampling, targets, weights, learning-rate schedule) is `DeepCfr`'s,
 *   one `MlpTf.trainStep` per mini-batch (the batch's rows gathered into float32 arrays and uploaded; nothing read
 *   back until the end of a training, when the parameters and the last loss are). The trained parameters have
 *   `MlpSimd`'s layout, so traversals (one-row forward passes, dominated by per-call overhead on TF.js), the exact
 *   tree average and {@link DeepCfr.sampleIterates} keep running `MlpSimd`, and a policy trained here saves and
 *   loads as any other.
 * - Runs are reproducible on one backend; they differ from the `simd` engine's in the last float32 bits (tanh, sum
 *   order), so the two engines' runs diverge slowly, as two seeds would not: same memories at first, then nearby.
 * - Each solver's network holds three TF.js variables of `MlpSimd.numParamsSingle` floats for the solver's lifetime.
 *
 * **Measured** (`autodidact bench deep-cfr --engine tfjs --max-seconds 420`, Leduc, the benchmark's default options,
 * 2 shared cores at load 11–14, WASM backend): per iteration the two engines' NashConv curves agree (0.202 vs 0.218 at
 * iteration 50); TF.js training takes 6.8 s per iteration against `simd`'s 2.9 s (2.4×), and its solver time to
 * NashConv 0.5 / 0.3 / 0.2 is 2.7–3.3× `simd`'s. Neither reached 0.1 within 420 s at that load (`simd` 0.120 at
 * iteration 111, TF.js 0.216 at iteration 59); `simd` reaches it near iteration 170.
 *
 * @example
 * ```ts
 * import { DeepCfr } from "@autodidact/solvers"
 * import { DeepCfrTf } from "@autodidact/solvers/tfjs"
 * import { GameRegistry } from "@autodidact/envs"
 *
 * const engine = await DeepCfrTf.loadEngine("tfjs") // tfjs-node when installed, else wasm, else cpu
 * const solver = DeepCfr.make(GameRegistry.loadGame("leduc_poker"), { engine })
 * solver.step()
 * ```
 * @see Brown, Lerer, Gross, Sandholm, "Deep Counterfactual Regret Minimization", ICML 2019, arXiv:1811.00164
 * @since 0.3.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Backend, MlpTf } from "@autodidact/kernels/tfjs"
import * as DeepCfr from "./DeepCfr.js"

/**
 * The TF.js engine on `tf` (the module of a selected backend: `Backend.load()` of `@autodidact/kernels/tfjs`), named
 * `tfjs (<backend>)` unless `name` is given.
 */
export const engine = (tf: Backend.Tf, name = `tfjs (${tf.getBackend()})`): DeepCfr.Engine => ({
  name,
  network: (sizes, config) => {
    const { obsDim: D, numActions: A } = sizes
    const net = MlpTf.make(tf, sizes)
    const cap = config.batchSize
    const x = new Float32Array(cap * D)
    const target = new Float32Array(cap * A)
    const mask = new Float32Array(cap * A)
    const weight = new Float32Array(cap)
    return {
      begin: (params) => MlpTf.reinit(net, params),
      step: (features, rows, B, t64, m64, w64, lr) => {
        for (let b = 0; b < B; b++) x.set(features.subarray(rows[b]! * D, rows[b]! * D + D), b * D)
        for (let k = 0; k < B * A; k++) {
          target[k] = t64[k]!
          mask[k] = m64[k]!
        }
        for (let b = 0; b < B; b++) weight[b] = w64[b]!
        MlpTf.trainStep(net, { x, target, mask, weight, batch: B }, lr, 1)
      },
      end: (params) => {
        MlpTf.getParams(net, params)
        return MlpTf.lastLoss(net)
      }
    }
  }
})

/**
 * The engine named `name`: `"simd"` (`DeepCfr.simdEngine`) or `"tfjs"` (selects a backend with `Backend.load(options)`:
 * the forced one, `AUTODIDACT_TF_BACKEND`, else tfjs-node, wasm, cpu in that order; then {@link engine}).
 * @throws InvalidOptionError (option `engine`, naming the value) for any other name; rejects with
 *   `BackendUnavailableError` or `MissingPeerError` when no TF.js backend loads
 */
export const loadEngine = async (name: string, options: Backend.SelectOptions = {}): Promise<DeepCfr.Engine> => {
  if (name === "simd") return DeepCfr.simdEngine
  if (name !== "tfjs") throw new InvalidOptionError({ option: "engine", value: name, reason: `must be one of ${DeepCfr.engineNames.join(", ")}` })
  const backend = await Backend.load(options)
  return engine(backend.tf, `tfjs (${backend.name})`)
}
