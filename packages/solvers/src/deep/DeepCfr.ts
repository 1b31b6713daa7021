/**
 * Deep CFR for games too large for tables, in its Single Deep CFR form (SD-CFR): external-sampling traversals fill a
 * reservoir-sampled advantage memory per player, an advantage network per player is retrained from scratch on it each
 * iteration with the linear-CFR weighting of the loss, and the average strategy is the iteration-weighted mixture of
 * the stored advantage networks (no average-strategy network).
 *
 * **When to use**: when the game tree or its regret tables do not fit in memory (Liar's dice with more dice); the
 * game needs `informationStateTensor` (`@autodidact/envs`: Kuhn, Leduc, Liar's dice). On games that do fit, the
 * tabular `Solver` is far faster and more exact; {@link averagePolicyOnTree} is there to measure this one exactly.
 *
 * **Why SD-CFR rather than Deep CFR's average network**: Deep CFR (Brown et al.) trains a second network on a
 * strategy memory to imitate the average strategy, adding its approximation error to the advantage networks' and
 * costing a large final training run. Steinberger shows that keeping the advantage networks of every iteration (small:
 * a few thousand floats each) and mixing them gives the exact average of the iterates' strategies, with lower
 * exploitability in Leduc and wins head to head over Deep CFR; and OpenSpiel's `deep_cfr_tf2.py` keeps the option for
 * this purpose (`save_advantage_networks`). Everything before the averaging is Deep CFR as published.
 *
 * **Algorithm** (Brown, Lerer, Gross, Sandholm 2019, Algorithm 1–2; Steinberger 2019, §3)
 * - Iteration `t = 1, 2, ...`; for each player `p` in turn (alternating updates: player 1's traversals at iteration
 *   `t` already use player 0's network trained at `t`, as OpenSpiel):
 *   - `traversals` external-sampling walks from the root: chance and the other player sample one action (the other
 *     from its current strategy σ), every legal action of `p` is explored; at each of `p`'s decision nodes, with child
 *     values `v(a)` and `v̄ = Σ σ(a) v(a)`, the row (information-state tensor, instantaneous regrets `v(a) − v̄` on
 *     legal actions and 0 elsewhere, legal mask, weight `t`) is offered to `p`'s reservoir memory.
 *   - `p`'s advantage network is re-initialized and trained for `trainSteps` Adam steps (learning rate
 *     `learningRate`, global gradient norm clipped to 1 as the paper) on mini-batches of `batchSize` rows drawn
 *     without replacement from a fresh shuffle of the memory (epoch after epoch), minimizing OpenSpiel's weighted MSE
 *     `mean_b (2 t_b / t) · mean_a (m_ba · f(x_b)_a − r_ba)²` (the network's outputs masked by legality `m`).
 *     Its parameters are stored as iterate `V_p^t`.
 * - σ at an information state: regret matching on the network's outputs at the legal actions; if none is positive,
 *   all probability on the legal action of largest output (the paper's rule, OpenSpiel's `_get_matched_regrets`).
 *   Before a player's first network (the traversals of `t = 1`), σ is uniform (tabular CFR's zero regrets).
 * - Average strategy (SD-CFR): `σ̄_p(I) ∝ Σ_t t · π_p^{σ^t}(I) · σ^t(I)`, with `σ^t` from `V_p^t` and `π_p` the
 *   player's own reach. On a compiled tree {@link averagePolicyOnTree} evaluates it exactly (one batched forward pass
 *   per stored network over the player's information states); to play, {@link sampleIterates} draws one iterate per
 *   player with probability ∝ `t` at the start of each game and follows it (trajectory sampling, which plays exactly
 *   σ̄).
 *
 * **Defaults** (OpenSpiel `deep_cfr_tf2.py` where the paper is silent): learning rate 1e-3, memory capacity 1e6,
 * `reinitialize: true`; `trainSteps` 750 (OpenSpiel's 750; the paper's 32,000 for poker), `batchSize` 2048,
 * `traversals` 100 per player per iteration (OpenSpiel's default; the paper uses 10,000), the loss weight `2t/T`
 * (OpenSpiel, which only rescales the learning rate against the paper's `t`).
 *
 * **Deviations** (stated): the network is `@autodidact/kernels`' `MlpSimd` single MLP, two tanh hidden layers of
 * `hidden` units (default 64) in WebAssembly SIMD float32, instead of OpenSpiel's leaky-ReLU MLP with skip connections
 * and a layer normalisation before the last hidden layer (the paper's network for poker has card embeddings); the
 * tanh MLP is the repository's one hand-fused network and, at these sizes, runs far faster than TF.js on its WASM
 * backend (`bench/deepCfrNetwork.ts`, Leduc's 30 → 64 → 64 → 3 network, same process: a 1,024-row training step
 * 8× faster, a one-row forward pass, what traversals do, 65× faster). Initialization is PyTorch's `nn.Linear` default
 * (`U(−1/√fan_in, 1/√fan_in)` for weights and biases). σ before the first network is uniform (OpenSpiel uses the
 * untrained network's output).
 *
 * **Engines** (`engine`): the advantage networks train on WebAssembly SIMD ({@link simdEngine}, default) or on
 * TensorFlow.js (`@autodidact/solvers/tfjs`' `DeepCfrTf`: tfjs-node and its GPU when installed, else WASM or cpu), the
 * same network, loss, clipping and Adam (kernels' `MlpTf`, tested equal to `MlpSimd` + `Adam`). Only training moves:
 * traversals and evaluations run `MlpSimd` inference on the trained parameters (same layout) either way.
 *
 * **Training on distinct rows** (`dedup`, off by default; this repository's option, not the paper's): the weighted
 * MSE over the memory's rows equals, up to a constant, the same loss over its distinct (tensor, mask) rows each
 * weighted by its rows' summed weight with their weighted-mean regret as target (`Reservoir.aggregate`), so the
 * minimizer and the expected gradient are unchanged (the weights are scaled by groups / rows); what goes is the
 * mini-batches' resampling of one state's noisy regrets. Where `batchSize` covers the distinct rows (Leduc: at most
 * 468 per player) every Adam step is the exact full-memory gradient, and a step costs fewer rows.
 *
 * **Measured** (`autodidact bench deep-cfr`, `DeepCfrBenchmark`; 2 shared cores, load 5–12): on Leduc, 2,000
 * traversals per player per iteration, hidden 64, 1,000 Adam steps (learning rate 0.03 decaying linearly), `dedup`,
 * 4M-row memories: NashConv 0.0992 at iteration 149 (1,017 s of solver time, 92% of it training), where tabular CFR+
 * reaches the same NashConv in 40 iterations (0.033 s). The curve tracks exact tabular LCFR up to iteration ~40 (0.206
 * vs 0.209), then the external-sampling noise slows it: a perfect regressor on the same memory (each tensor's exact
 * weighted-mean regret) gives 0.164 / 0.140 / 0.103 at iterations 60 / 100 / 150, against exact LCFR's 0.118 / 0.069
 * / 0.059. With 1M-row memories the reservoir starts dropping rows near iteration 110 and NashConv levels off at
 * 0.11–0.12 (to iteration 200). Warm-starting each network from the previous iteration's (`reinitialize: false`,
 * 200 steps at 0.01) costs a fifth of the training: 0.0995 at iteration 170 in 170 s (load 3–5; 0.249 against 0.206
 * at iteration 40). Use this solver where tables do not fit.
 *
 * **Determinism**: one `Rng` (`@autodidact/core`, PCG64) seeded with `seed` draws every chance outcome, action,
 * reservoir slot, initialization and shuffle: a seed reproduces a run bit for bit on one machine (float32 WASM
 * arithmetic is deterministic).
 *
 * **Errors**: `InvalidOptionError` (naming the option and value) for a non-positive or non-integer count, a
 * non-positive learning rate, an unknown engine; `InvalidGameError` for a game without `informationStateTensor`.
 *
 * @see Brown, Lerer, Gross, Sandholm, "Deep Counterfactual Regret Minimization", ICML 2019, arXiv:1811.00164
 * @see Steinberger, "Single Deep Counterfactual Regret Minimization", arXiv:1901.07621
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/deep_cfr_tf2.py
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/deep_cfr.py
 * @category deep
 * @since 0.2.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { Adam, MlpSimd } from "@autodidact/kernels"
import { Schema } from "effect"
import { InvalidGameError } from "../Errors.js"
import type { Game, State } from "../internal/GameLike.js"
import { DECISION_NODE, type GameTree } from "../tree/GameTree.js"
import * as Reservoir from "./Reservoir.js"

/** Options of {@link make}. */
export interface Options {
  /** External-sampling traversals per player per iteration (default 100, OpenSpiel's). */
  readonly traversals?: number | undefined
  /** Units of each of the two tanh hidden layers (default 64). */
  readonly hidden?: number | undefined
  /** Adam steps per advantage-network training (default 750, OpenSpiel's). */
  readonly trainSteps?: number | undefined
  /** Rows per mini-batch (default 2048, OpenSpiel's). */
  readonly batchSize?: number | undefined
  /** Adam learning rate (default 1e-3). */
  readonly learningRate?: number | undefined
  /** Rows of each player's advantage memory (default 1e6). */
  readonly memoryCapacity?: number | undefined
  /** Retrain each advantage network from scratch every iteration (default true, as the paper); false warm-starts. */
  readonly reinitialize?: boolean | undefined
  /**
   * Learning rate over the `trainSteps` of one training: `"constant"` (default, the paper and OpenSpiel) or
   * `"linear"` decay from `learningRate` to 0 (less noise in the final network when the regret targets are noisy).
   */
  readonly schedule?: "constant" | "linear" | undefined
  /**
   * Train each advantage network on the memory's distinct (information-state tensor, legal mask) rows, each with its
   * rows' summed weight and weighted-mean regret (`Reservoir.aggregate`), instead of on the rows (default false, the
   * paper). The loss has the same minimizer and expected gradient; the mini-batches no longer resample one state's
   * noisy regrets, and once `batchSize` covers the distinct rows every step takes the exact full-memory gradient.
   */
  readonly dedup?: boolean | undefined
  /** Seed of every random draw (default 0). */
  readonly seed?: number | undefined
  /**
   * Where the advantage networks train (default `"simd"`, {@link simdEngine}): `"simd"` or an {@link Engine}, e.g.
   * the TensorFlow.js engine of `@autodidact/solvers/tfjs` (`await DeepCfrTf.loadEngine("tfjs")`), which this entry
   * point never imports. Traversals and evaluation run `MlpSimd` inference either way.
   */
  readonly engine?: "simd" | Engine | undefined
}

/** The resolved options. */
export interface Config {
  readonly traversals: number
  readonly hidden: number
  readonly trainSteps: number
  readonly batchSize: number
  readonly learningRate: number
  readonly memoryCapacity: number
  readonly reinitialize: boolean
  readonly schedule: "constant" | "linear"
  readonly dedup: boolean
  readonly seed: number
  /** The engine's name (`"simd"`, `"tfjs (wasm)"`, ...). */
  readonly engine: string
}

/** What one {@link DeepCfrSolver.step} did. */
export interface IterationStats {
  readonly iteration: number
  /** Final mini-batch loss of each player's advantage network. */
  readonly loss: ReadonlyArray<number>
  /** Rows each player's memory holds after the iteration. */
  readonly memorySize: ReadonlyArray<number>
  /** Decision nodes of the traversing player visited (rows offered), per player, this iteration. */
  readonly samples: ReadonlyArray<number>
  /** Seconds spent traversing and training this iteration. */
  readonly traverseSeconds: number
  readonly trainSeconds: number
}

/** A trained SD-CFR policy: the network sizes and every stored iterate, per player. */
export interface DeepCfrPolicy {
  readonly game: string
  readonly numPlayers: number
  readonly featureDim: number
  readonly numActions: number
  readonly hidden: number
  /** `iterates[p][t − 1]`: parameters of `V_p^t` (`MlpSimd.numParamsSingle` floats, actor layout). */
  readonly iterates: ReadonlyArray<ReadonlyArray<Float32Array>>
}

/** A Deep CFR (SD-CFR) solver on one game. */
export interface DeepCfrSolver {
  readonly game: Game
  readonly config: Config
  /** Iterations done. */
  readonly iteration: number
  /** Each player's advantage memory. */
  readonly memories: ReadonlyArray<Reservoir.Reservoir>
  /** The stored iterates (grows by one network per player per iteration). */
  readonly policy: DeepCfrPolicy
  /** Run one iteration (traversals and training for each player). */
  step(): IterationStats
}

const positiveInt = (option: string, v: number): number => {
  if (!Number.isInteger(v) || v < 1) throw new InvalidOptionError({ option, value: v, reason: "must be a positive integer" })
  return v
}

/**
 * The engine of `options.engine`: {@link simdEngine} for `undefined` or `"simd"`, the object itself for an
 * {@link Engine}. @throws InvalidOptionError (option `engine`, naming the value) for anything else, e.g. the string
 * `"tfjs"` (the TF.js engine lives in `@autodidact/solvers/tfjs`).
 */
export const resolveEngine = (engine: Options["engine"]): Engine => {
  if (engine === undefined || engine === "simd") return simdEngine
  const e = engine as unknown
  if (typeof e === "object" && e !== null && typeof (e as Engine).network === "function" && typeof (e as Engine).name === "string") return e as Engine
  const shown = typeof e === "string" ? e : String(e)
  const reason = shown === "tfjs"
    ? `must be "simd" or an Engine object; the TensorFlow.js engine is in @autodidact/solvers/tfjs (await DeepCfrTf.loadEngine("tfjs"))`
    : `must be one of ${engineNames.join(", ")} (tfjs through @autodidact/solvers/tfjs) or an Engine object`
  throw new InvalidOptionError({ option: "engine", value: shown, reason })
}

/** Resolve and validate options (OpenSpiel defaults). @throws InvalidOptionError naming the bad option. */
export const resolve = (options: Options = {}): Config => {
  const lr = options.learningRate ?? 1e-3
  if (!(Number.isFinite(lr) && lr > 0)) throw new InvalidOptionError({ option: "learningRate", value: lr, reason: "must be a positive number" })
  const schedule = options.schedule ?? "constant"
  if (schedule !== "constant" && schedule !== "linear") throw new InvalidOptionError({ option: "schedule", value: schedule, reason: "must be constant or linear" })
  const seed = options.seed ?? 0
  if (!Number.isInteger(seed) || seed < 0) throw new InvalidOptionError({ option: "seed", value: seed, reason: "must be a non-negative integer" })
  return {
    traversals: positiveInt("traversals", options.traversals ?? 100),
    hidden: positiveInt("hidden", options.hidden ?? 64),
    trainSteps: positiveInt("trainSteps", options.trainSteps ?? 750),
    batchSize: positiveInt("batchSize", options.batchSize ?? 2048),
    learningRate: lr,
    memoryCapacity: positiveInt("memoryCapacity", options.memoryCapacity ?? 1_000_000),
    reinitialize: options.reinitialize ?? true,
    schedule,
    dedup: options.dedup ?? false,
    seed,
    engine: resolveEngine(options.engine).name
  }
}

/** The game's information-state tensor size. @throws InvalidGameError when the game has none. */
export const featureSize = (game: Game): number => {
  const d = game.informationStateTensorSize
  const s = game.newInitialState()
  if (d === undefined || typeof s.informationStateTensor !== "function") {
    throw new InvalidGameError({ game: game.info.name, reason: "has no informationStateTensor (Deep CFR needs one; Kuhn, Leduc and Liar's dice have it)" })
  }
  return d
}

/**
 * Regret matching with Deep CFR's fallback on `adv[0 .. numActions)` restricted to `legal` (ids): writes σ into
 * `out` (indexed by action id, 0 at illegal actions). Positive parts proportionally; if none is positive, probability
 * 1 on the legal action of largest advantage (first on ties).
 */
export const regretMatching = (adv: ArrayLike<number>, base: number, legal: ArrayLike<number>, out: Float64Array, outBase: number, numActions: number): void => {
  let sum = 0
  for (let k = 0; k < numActions; k++) out[outBase + k] = 0
  for (let k = 0; k < legal.length; k++) {
    const v = adv[base + legal[k]!]!
    if (v > 0) sum += v
  }
  if (sum > 0) {
    for (let k = 0; k < legal.length; k++) {
      const a = legal[k]!
      const v = adv[base + a]!
      out[outBase + a] = v > 0 ? v / sum : 0
    }
    return
  }
  let best = legal[0]!
  for (let k = 1; k < legal.length; k++) if (adv[base + legal[k]!]! > adv[base + best]!) best = legal[k]!
  out[outBase + best] = 1
}

/** PyTorch's `nn.Linear` default initialization of a single MLP (`U(−1/√fan_in, 1/√fan_in)`), in place. */
const initialize = (params: Float32Array, D: number, H: number, A: number, rng: Rng): void => {
  let at = 0
  for (const [fanIn, fanOut] of [[D, H], [H, H], [H, A]] as const) {
    const bound = 1 / Math.sqrt(fanIn)
    for (let k = 0; k < fanIn * fanOut + fanOut; k++) params[at++] = rng.uniform(-bound, bound)
  }
}

/** Fits an advantage network to a memory (what each Deep CFR iteration does per player). */
export interface Trainer {
  /**
   * Train `out` (re-initialized, or a copy of `warm` when given) for `config.trainSteps` Adam steps on `memory` at
   * iteration `t` (row weights `2 w / t`); returns the last mini-batch loss (0 on an empty memory, `out` untouched).
   */
  fit(memory: Reservoir.Reservoir, t: number, rng: Rng, out: Float32Array, warm?: Float32Array): number
}

/**
 * One engine's advantage-network training, driven by {@link makeTrainer}'s loop (which picks the rows, targets,
 * masks, weights and learning rate; the engine owns the network arithmetic and Adam's state). Parameters use
 * `MlpSimd`'s single-MLP layout (`MlpSimd.numParamsSingle` floats) whatever the engine, so every engine's iterates are
 * evaluated by the same `MlpSimd` inference (traversals, tree averages, {@link sampleIterates}).
 */
export interface Network {
  /** Start a training from `params` with fresh Adam moments. */
  begin(params: Float32Array): void
  /**
   * One step on `batch` rows: inputs are rows `rows[0 .. batch)` of `features` (`[*, featureDim]`); `target`, `mask`
   * (`[batch, numActions]`) and `weight` (`[batch]`) are gathered. Outputs masked, weighted MSE
   * (`MlpSimd.weightedMse`), gradient clipped to global norm 1, one Adam step at learning rate `lr`.
   */
  step(features: Float32Array, rows: Int32Array, batch: number, target: Float64Array, mask: Float64Array, weight: Float64Array, lr: number): void
  /** Write the trained parameters into `params`; returns the last step's loss. */
  end(params: Float32Array): number
}

/**
 * Where the advantage networks train: {@link simdEngine} (default, WebAssembly SIMD) or the TensorFlow.js engine of
 * `@autodidact/solvers/tfjs` (`DeepCfrTf.engine(tf)`, `DeepCfrTf.loadEngine("tfjs")`). `network` is called once
 * per solver.
 */
export interface Engine {
  /** Shown in {@link Config} and benchmark rows (`"simd"`, `"tfjs (wasm)"`, ...). */
  readonly name: string
  readonly network: (sizes: MlpSimd.Sizes, config: Config) => Network
}

/**
 * The default engine: `MlpSimd`'s single MLP (forward, `weightedMse`, backward) and kernels' `Adam` with
 * `Adam.clipGradNorm`, float64 gradients; one workspace, buffers allocated once, none per step.
 */
export const simdEngine: Engine = {
  name: "simd",
  network: (sizes, config) => {
    const A = sizes.numActions
    const P = MlpSimd.numParamsSingle(sizes)
    const ws = MlpSimd.make(sizes, Math.min(config.batchSize, 4096))
    const grad = new Float64Array(P)
    const pred = new Float64Array(config.batchSize * A)
    const dPred = new Float64Array(config.batchSize * A)
    let opt = Adam.make(P)
    let current: Float32Array = new Float32Array(P)
    let loss = 0
    return {
      begin: (params) => {
        opt = Adam.make(P)
        current = params
        loss = 0
      },
      step: (features, rows, B, target, mask, weight, lr) => {
        MlpSimd.forwardSingle(ws, current, features, B, rows, 0, pred)
        for (let k = 0; k < B * A; k++) pred[k] = mask[k]! * pred[k]!
        loss = MlpSimd.weightedMse(pred, target, weight, B, A, dPred)
        for (let k = 0; k < B * A; k++) dPred[k] = mask[k]! * dPred[k]!
        grad.fill(0)
        MlpSimd.backwardSingle(ws, B, dPred, grad)
        Adam.clipGradNorm(grad, 1)
        Adam.step(opt, current, grad, lr)
      },
      end: (params) => {
        if (params !== current) params.set(current)
        return loss
      }
    }
  }
}

/** The names `DeepCfrTf.loadEngine` (`@autodidact/solvers/tfjs`) accepts. */
export const engineNames = ["simd", "tfjs"] as const

/**
 * The advantage-network trainer of {@link make}: weighted MSE on masked outputs (module docs), mini-batches without
 * replacement from a fresh shuffle of the memory per epoch, global gradient norm clipped to 1, Adam (fresh moments
 * each fit), `config.schedule` learning rate, on `engine`'s network (default {@link simdEngine}). Buffers are
 * allocated once here, none per step.
 */
export const makeTrainer = (sizes: MlpSimd.Sizes, config: Config, engine: Engine = simdEngine): Trainer => {
  const { obsDim: D, hidden: H, numActions: A } = sizes
  const net = engine.network(sizes, config)
  const batchRows = new Int32Array(config.batchSize)
  const batchGroups = new Int32Array(config.batchSize)
  const agg = Reservoir.makeAggregate()
  const target = new Float64Array(config.batchSize * A)
  const mask = new Float64Array(config.batchSize * A)
  const weight = new Float64Array(config.batchSize)
  let perm = new Int32Array(0)
  const fit = (mem: Reservoir.Reservoir, t: number, rng: Rng, params: Float32Array, warm?: Float32Array): number => {
    const n = mem.size
    if (n === 0) return 0
    if (warm === undefined) initialize(params, D, H, A, rng)
    else params.set(warm)
    net.begin(params)
    // the training set: the memory's rows, or (dedup) its distinct (features, mask) groups, loss weight scaled by
    // groups / rows so that the expected gradient is the rows' (Reservoir.aggregate)
    const K = config.dedup ? Reservoir.aggregate(mem, agg).size : n
    const groupScale = K / n
    if (perm.length < K) perm = new Int32Array(Math.max(K, 2 * perm.length))
    for (let i = 0; i < K; i++) perm[i] = i
    let cursor = K // forces a shuffle before the first batch
    const B = Math.min(config.batchSize, K)
    for (let stepNo = 0; stepNo < config.trainSteps; stepNo++) {
      for (let b = 0; b < B; b++) {
        if (cursor >= K) {
          for (let i = K - 1; i > 0; i--) {
            const j = rng.integers(0, i + 1)
            const tmp = perm[i]!
            perm[i] = perm[j]!
            perm[j] = tmp
          }
          cursor = 0
        }
        const g = perm[cursor++]!
        batchGroups[b] = g
        batchRows[b] = config.dedup ? agg.rows[g]! : g
      }
      for (let b = 0; b < B; b++) {
        const row = batchRows[b]!
        const g = batchGroups[b]!
        weight[b] = config.dedup ? (groupScale * 2 * agg.weights[g]!) / t : (2 * mem.weights[row]!) / t
        for (let k = 0; k < A; k++) {
          mask[b * A + k] = mem.masks[row * A + k]!
          target[b * A + k] = config.dedup ? agg.targets[g * A + k]! : mem.targets[row * A + k]!
        }
      }
      const lr = config.schedule === "linear" ? (config.learningRate * (config.trainSteps - stepNo)) / config.trainSteps : config.learningRate
      net.step(mem.features, batchRows, B, target, mask, weight, lr)
    }
    return net.end(params)
  }
  return { fit }
}

/**
 * Make a Deep CFR (SD-CFR) solver on `game` (two players or more; zero-sum for a meaningful result) with `options`
 * (see the module docs for the defaults).
 *
 * **Shapes**: the features are the game's `informationStateTensor` (`featureSize(game)` floats), the network outputs
 * `game.info.numDistinctActions` advantages; each memory holds `memoryCapacity` rows.
 *
 * @throws InvalidOptionError for a bad option (naming it); InvalidGameError when the game has no information-state
 *   tensor; `Error` when WebAssembly SIMD is unavailable (`MlpSimd.load`).
 */
export const make = (game: Game, options: Options = {}): DeepCfrSolver => {
  const config = resolve(options)
  const engine = resolveEngine(options.engine)
  const D = featureSize(game)
  const A = game.info.numDistinctActions
  const np = game.info.numPlayers
  const H = config.hidden
  const sizes = { obsDim: D, hidden: H, numActions: A }
  const P = MlpSimd.numParamsSingle(sizes)
  const rng = Rng.make(config.seed)
  const memories = Array.from({ length: np }, () => Reservoir.make(config.memoryCapacity, D, A))
  const iterates: Array<Array<Float32Array>> = Array.from({ length: np }, () => [])
  // one inference workspace per player (its current network loaded once per iteration), one for training
  const inferWs = Array.from({ length: np }, () => MlpSimd.make(sizes, 1))
  const hasNet = new Array<boolean>(np).fill(false)
  const trainParams = new Float32Array(P)
  const maxDepth = game.info.maxGameLength + 1
  const feat = Array.from({ length: maxDepth }, () => new Float32Array(D))
  const sigma = new Float64Array(maxDepth * A)
  const childValue = new Float64Array(maxDepth * A)
  const regret = new Float64Array(A)
  const mask = new Uint8Array(A)
  const advOut = new Float64Array(A)
  const state = { iteration: 0 }
  let samples = 0

  /** σ of the player to act at `s` into `sigma[d·A ..]` (features left in `feat[d]`). */
  const strategy = (s: State, q: number, legal: ReadonlyArray<number>, d: number): void => {
    const f = feat[d]!
    s.informationStateTensor!(q, f)
    const base = d * A
    if (!hasNet[q]) {
      for (let k = 0; k < A; k++) sigma[base + k] = 0
      for (let k = 0; k < legal.length; k++) sigma[base + legal[k]!] = 1 / legal.length
      return
    }
    MlpSimd.forwardSingle(inferWs[q]!, null, f, 1, undefined, 0, advOut)
    regretMatching(advOut, 0, legal, sigma, base, A)
  }

  const sampleFrom = (probs: Float64Array, base: number, legal: ReadonlyArray<number>): number => {
    const u = rng.random()
    let c = 0
    for (let k = 0; k < legal.length - 1; k++) {
      c += probs[base + legal[k]!]!
      if (u < c) return legal[k]!
    }
    return legal[legal.length - 1]!
  }

  const traverse = (s: State, p: number, d: number): number => {
    if (s.isTerminal()) return s.returns()[p]!
    if (s.isChanceNode()) {
      const outcomes = s.chanceOutcomes()
      const u = rng.random()
      let c = 0
      let a = outcomes[outcomes.length - 1]![0]
      for (let k = 0; k < outcomes.length - 1; k++) {
        c += outcomes[k]![1]
        if (u < c) {
          a = outcomes[k]![0]
          break
        }
      }
      s.applyAction(a)
      const v = traverse(s, p, d + 1)
      s.undoAction(-1, a)
      return v
    }
    const q = s.currentPlayer()
    const legal = s.legalActions()
    strategy(s, q, legal, d)
    const base = d * A
    if (q !== p) {
      const a = sampleFrom(sigma, base, legal)
      s.applyAction(a)
      const v = traverse(s, p, d + 1)
      s.undoAction(q, a)
      return v
    }
    const acts = legal // read-only (games may share cached arrays; nobody mutates them)
    let ev = 0
    for (let k = 0; k < acts.length; k++) {
      const a = acts[k]!
      s.applyAction(a)
      const v = traverse(s, p, d + 1)
      s.undoAction(q, a)
      childValue[base + a] = v
      ev += sigma[base + a]! * v
    }
    regret.fill(0)
    mask.fill(0)
    for (let k = 0; k < acts.length; k++) {
      const a = acts[k]!
      regret[a] = childValue[base + a]! - ev
      mask[a] = 1
    }
    // features of this node are still in feat[d]: deeper calls write feat[d + 1 ...] only
    Reservoir.add(memories[p]!, rng, feat[d]!, regret, mask, state.iteration)
    samples++
    return ev
  }

  const trainer = makeTrainer(sizes, config, engine)

  /** Retrain player `p`'s advantage network on its memory into `trainParams`; returns the last mini-batch loss. */
  const train = (p: number): number => {
    const warm = !config.reinitialize && hasNet[p] ? iterates[p]![iterates[p]!.length - 1]! : undefined
    return trainer.fit(memories[p]!, state.iteration, rng, trainParams, warm)
  }

  const policy: DeepCfrPolicy = { game: game.info.name, numPlayers: np, featureDim: D, numActions: A, hidden: H, iterates }

  const step = (): IterationStats => {
    state.iteration += 1
    const loss: Array<number> = []
    const perPlayer: Array<number> = []
    let traverseSeconds = 0
    let trainSeconds = 0
    for (let p = 0; p < np; p++) {
      const t0 = performance.now()
      samples = 0
      const root = game.newInitialState()
      for (let k = 0; k < config.traversals; k++) traverse(root, p, 0)
      perPlayer.push(samples)
      const t1 = performance.now()
      loss.push(train(p))
      const params = trainParams.slice()
      iterates[p]!.push(params)
      MlpSimd.forwardSingle(inferWs[p]!, params, new Float32Array(D), 1, undefined, 0, advOut) // load V_p^t
      hasNet[p] = true
      const t2 = performance.now()
      traverseSeconds += (t1 - t0) / 1000
      trainSeconds += (t2 - t1) / 1000
    }
    return { iteration: state.iteration, loss, memorySize: memories.map((m) => m.size), samples: perPlayer, traverseSeconds, trainSeconds }
  }

  return {
    game,
    config,
    get iteration() {
      return state.iteration
    },
    memories,
    policy,
    step
  }
}

/**
 * The information-state tensors of a compiled tree's information states, `[tree.numInfoStates, featureSize(game)]`
 * (row `i` = information state `i`), by one walk of `game`.
 * @throws InvalidGameError when the game has no information-state tensor.
 */
export const treeFeatures = (game: Game, tree: GameTree): Float32Array => {
  const D = featureSize(game)
  const out = new Float32Array(tree.numInfoStates * D)
  const seen = new Uint8Array(tree.numInfoStates)
  const walk = (s: State, n: number): void => {
    const kind = tree.nodeKind[n]!
    if (kind === DECISION_NODE) {
      const i = tree.nodeInfo[n]!
      if (seen[i] === 0) {
        seen[i] = 1
        s.informationStateTensor!(tree.nodePlayer[n]!, out.subarray(i * D, (i + 1) * D))
      }
    }
    const e0 = tree.edgeStart[n]!
    const e1 = tree.edgeStart[n + 1]!
    const q = tree.nodePlayer[n]!
    for (let e = e0; e < e1; e++) {
      const a = tree.edgeAction[e]!
      s.applyAction(a)
      walk(s, tree.edgeChild[e]!)
      s.undoAction(q, a)
    }
  }
  walk(game.newInitialState(), 0)
  return out
}

/**
 * An exact accumulator of SD-CFR's average strategy on a compiled tree: {@link addIterate} folds in one stored network
 * of one player with its weight, {@link averageProbabilities} gives the normalized average per slot (the layout of
 * `Exploitability.nashConvOnTree`), uniform where a state was never reached.
 */
export interface TreeAverage {
  readonly tree: GameTree
  readonly features: Float32Array
  /** `Σ_t w_t · π_p^t(I) · σ^t(I, a)` per slot. */
  readonly cumulative: Float64Array
  /** Iterates folded in, per player. */
  readonly counts: Array<number>
}

/** A fresh accumulator for `tree` of `game`. */
export const treeAverage = (game: Game, tree: GameTree): TreeAverage => ({
  tree,
  features: treeFeatures(game, tree),
  cumulative: new Float64Array(tree.numSlots),
  counts: new Array<number>(tree.numPlayers).fill(0)
})

/** Current strategy of network `params` (sizes from `policy`) at every information state of `player`, per slot. */
export const strategyOnTree = (avg: TreeAverage, policy: DeepCfrPolicy, player: number, params: Float32Array, out: Float64Array): Float64Array => {
  const tree = avg.tree
  const A = policy.numActions
  const ws = MlpSimd.make({ obsDim: policy.featureDim, hidden: policy.hidden, numActions: A }, 1)
  const infos = tree.playerInfoStates[player]!
  const adv = new Float64Array(infos.length * A)
  MlpSimd.forwardSingle(ws, params, avg.features, infos.length, infos, 0, adv)
  const sig = new Float64Array(A)
  for (let j = 0; j < infos.length; j++) {
    const i = infos[j]!
    const s0 = tree.infoOffset[i]!
    const legal = tree.actions.subarray(s0, tree.infoOffset[i + 1]!)
    regretMatching(adv, j * A, legal, sig, 0, A)
    for (let k = 0; k < legal.length; k++) out[s0 + k] = sig[legal[k]!]!
  }
  return out
}

/** Fold network `params` of `player` with weight `w` into the average (own reach computed on the tree). */
export const addIterate = (avg: TreeAverage, policy: DeepCfrPolicy, player: number, params: Float32Array, w: number): void => {
  const tree = avg.tree
  const probs = strategyOnTree(avg, policy, player, params, new Float64Array(tree.numSlots))
  const reach = new Float64Array(tree.numNodes)
  reach[0] = 1
  const done = new Uint8Array(tree.numInfoStates)
  for (let n = 0; n < tree.numNodes; n++) {
    const e0 = tree.edgeStart[n]!
    const e1 = tree.edgeStart[n + 1]!
    const r = reach[n]!
    if (tree.nodeKind[n] === DECISION_NODE && tree.nodePlayer[n] === player) {
      const i = tree.nodeInfo[n]!
      const s0 = tree.infoOffset[i]!
      if (done[i] === 0) {
        // perfect recall: every node of the state has the same own reach
        done[i] = 1
        for (let k = 0; k < e1 - e0; k++) avg.cumulative[s0 + k] += w * r * probs[s0 + k]!
      }
      for (let e = e0; e < e1; e++) reach[tree.edgeChild[e]!] = r * probs[s0 + e - e0]!
    } else {
      for (let e = e0; e < e1; e++) reach[tree.edgeChild[e]!] = r
    }
  }
  avg.counts[player]! += 1
}

/** The normalized average per slot (uniform where the cumulative row is zero). */
export const averageProbabilities = (avg: TreeAverage, out: Float64Array = new Float64Array(avg.tree.numSlots)): Float64Array => {
  const tree = avg.tree
  for (let i = 0; i < tree.numInfoStates; i++) {
    const s0 = tree.infoOffset[i]!
    const s1 = tree.infoOffset[i + 1]!
    let sum = 0
    for (let s = s0; s < s1; s++) sum += avg.cumulative[s]!
    for (let s = s0; s < s1; s++) out[s] = sum > 0 ? avg.cumulative[s]! / sum : 1 / (s1 - s0)
  }
  return out
}

/**
 * SD-CFR's average policy on a compiled tree, per slot: folds into `avg` every iterate of `policy` not folded yet
 * (weight `t` for `V_p^t`) and returns {@link averageProbabilities}. Pass the same `avg` across iterations to pay
 * for each network once.
 */
export const averagePolicyOnTree = (avg: TreeAverage, policy: DeepCfrPolicy): Float64Array => {
  for (let p = 0; p < policy.numPlayers; p++) {
    const its = policy.iterates[p]!
    for (let t = avg.counts[p]!; t < its.length; t++) addIterate(avg, policy, p, its[t]!, t + 1)
  }
  return averageProbabilities(avg)
}

/**
 * A player of the SD-CFR average strategy for games of any size (trajectory sampling): {@link Player.newGame} draws,
 * for each player, iterate `t` with probability `t / Σ t`; {@link Player.actionProbabilities} is that network's
 * regret-matching strategy at a state. Over games this plays exactly σ̄.
 */
export interface Player {
  newGame(): void
  /** σ of the player to act at `s` (length `numActions`, 0 at illegal actions), valid until the next call. */
  actionProbabilities(s: State): Float64Array
  /** Draw an action at `s` from {@link actionProbabilities}. */
  act(s: State): number
}

/** A trajectory-sampling player of `policy` with its own generator (seed `seed`). */
export const sampleIterates = (policy: DeepCfrPolicy, seed = 0): Player => {
  const rng = Rng.make(seed)
  const A = policy.numActions
  const ws = Array.from({ length: policy.numPlayers }, () => MlpSimd.make({ obsDim: policy.featureDim, hidden: policy.hidden, numActions: A }, 1))
  const chosen = new Array<number>(policy.numPlayers).fill(-1)
  const f = new Float32Array(policy.featureDim)
  const adv = new Float64Array(A)
  const probs = new Float64Array(A)
  const newGame = () => {
    for (let p = 0; p < policy.numPlayers; p++) {
      const T = policy.iterates[p]!.length
      if (T === 0) {
        chosen[p] = -1
        continue
      }
      let u = rng.random() * (T * (T + 1)) / 2
      let t = 1
      while (t < T && u >= t) {
        u -= t
        t++
      }
      chosen[p] = t - 1
      MlpSimd.forwardSingle(ws[p]!, policy.iterates[p]![t - 1]!, f, 1, undefined, 0, adv)
    }
  }
  const actionProbabilities = (s: State): Float64Array => {
    const q = s.currentPlayer()
    const legal = s.legalActions()
    if (chosen[q]! < 0) {
      probs.fill(0)
      for (const a of legal) probs[a] = 1 / legal.length
      return probs
    }
    s.informationStateTensor!(q, f)
    MlpSimd.forwardSingle(ws[q]!, null, f, 1, undefined, 0, adv)
    regretMatching(adv, 0, legal, probs, 0, A)
    return probs
  }
  const act = (s: State): number => {
    const pr = actionProbabilities(s)
    const legal = s.legalActions()
    const u = rng.random()
    let c = 0
    for (let k = 0; k < legal.length - 1; k++) {
      c += pr[legal[k]!]!
      if (u < c) return legal[k]!
    }
    return legal[legal.length - 1]!
  }
  newGame()
  return { newGame, actionProbabilities, act }
}

/** The JSON form of a {@link DeepCfrPolicy}: sizes and, per player, each iterate's float32 parameters as base64. */
export const DeepCfrPolicyJson = Schema.Struct({
  format: Schema.Literal("autodidact.sd-cfr-policy"),
  version: Schema.Literal(1),
  game: Schema.String,
  numPlayers: Schema.Number,
  featureDim: Schema.Number,
  numActions: Schema.Number,
  hidden: Schema.Number,
  iterates: Schema.Array(Schema.Array(Schema.String))
})
/** The decoded JSON form. */
export type DeepCfrPolicyJson = typeof DeepCfrPolicyJson.Type

const toBase64 = (a: Float32Array): string => {
  const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
  let s = ""
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(s)
}

const fromBase64 = (s: string): Float32Array => {
  const bin = atob(s)
  const bytes = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i)
  return new Float32Array(bytes.buffer, 0, bytes.length >> 2)
}

/** Encode a policy (little-endian float32, exact). */
export const toJson = (policy: DeepCfrPolicy): DeepCfrPolicyJson => ({
  format: "autodidact.sd-cfr-policy",
  version: 1,
  game: policy.game,
  numPlayers: policy.numPlayers,
  featureDim: policy.featureDim,
  numActions: policy.numActions,
  hidden: policy.hidden,
  iterates: policy.iterates.map((its) => its.map(toBase64))
})

/**
 * Decode a policy document.
 * @throws InvalidOptionError (option `policy`) when the document fails the schema or an iterate has the wrong size.
 */
export const fromJson = (json: unknown): DeepCfrPolicy => {
  let doc: DeepCfrPolicyJson
  try {
    doc = Schema.decodeUnknownSync(DeepCfrPolicyJson)(json)
  } catch (e) {
    throw new InvalidOptionError({ option: "policy", value: "(document)", reason: `not an SD-CFR policy: ${String(e)}` })
  }
  const P = MlpSimd.numParamsSingle({ obsDim: doc.featureDim, hidden: doc.hidden, numActions: doc.numActions })
  const iterates = doc.iterates.map((its, p) =>
    its.map((s, t) => {
      const a = fromBase64(s)
      if (a.length !== P) throw new InvalidOptionError({ option: "policy", value: `iterate ${t + 1} of player ${p}`, reason: `has ${a.length} parameters, expected ${P}` })
      return a
    })
  )
  return { game: doc.game, numPlayers: doc.numPlayers, featureDim: doc.featureDim, numActions: doc.numActions, hidden: doc.hidden, iterates }
}
