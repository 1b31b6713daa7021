/**
 * A DRRN-style text policy: the default learnable policy for text environments when no LLM is used.
 *
 * He, Chen, He, Gao, Li, Deng, Ostendorf, "Deep Reinforcement Learning with a Natural Language Action Space",
 * ACL 2016 (arXiv:1511.04636): the state text and each admissible action text are embedded by two separate networks
 * and the interaction is their inner product, `score(s, a) = f(s) · g(a)`. DRRN learned Q-values; here the scores are
 * the logits of a categorical policy over the admissible actions, `π(a|s) = softmax_a score(s, a)`, trained by a
 * critic-free policy gradient (GRPO, RLOO, GiGPO in {@link MultiTurnTrainer}).
 *
 * **Details**
 * - Features: hashed bag of words and word bigrams (the hashing trick, Weinberger et al. 2009) into `buckets`
 *   (default 2^13) with FNV-1a; the state text is `task + observation` with task words in their own namespace; with
 *   `positional` (default true) each word also gets a `(line, index, word)` feature, and with `grid` each
 *   non-blank character of a line gets a `(line, column, char)` feature (a one-hot board for grid worlds rendered as
 *   text). Each sparse vector is scaled to unit L2 norm.
 * - Relational features (`relational`, default true; {@link TextAbstraction}): on a household task
 *   (`TextHousehold-v0`'s templates) the task object, target and tool are replaced by placeholder words in every
 *   text before hashing (entity abstraction, as LeDeepChef does for unseen TextWorld games), the state gets keys of an
 *   episode summary read off all earlier observations (location, visited/opened receptacles, where the task object
 *   was seen, what is held and treated) and each action gets relational keys (verb, "go to" an unvisited receptacle
 *   or to where the task object was seen, "take" the task object, "move" it to the target, ...), also conjoined with
 *   the task phase (in a house of rooms also what is left to explore here and what lies through each doorway); on a Sokoban grid (with `grid`) the state gets egocentric keys and each move its local
 *   geometry. Each key counts `relationalWeight` (default 2) word features. Unrecognized texts get none.
 * - History (`history`, default 2): the last actions and observations of the episode are featurized too (bag of
 *   words per step, namespaced by recency), a short memory for partially observed text worlds (verl-agent's prompts
 *   likewise carry the recent history).
 * - Towers: `x → tanh(x·W1 + b1) → ·W2 + b2` (sizes `buckets → hidden → embed`, default 64 and 32) for the state
 *   (f) and for actions (g); the first layer reads only the non-zero rows of W1 (sparse input).
 * - Init (seeded with core `Rng`): W1 ~ N(0, 1) (unit-norm inputs give O(1) pre-activations), W2 of f ~ N(0, 1/hidden),
 *   W2 of g ~ N(0, 0.01/hidden), zero biases, so initial scores are near 0 and the initial policy near uniform.
 * - All parameters live in one `Float32Array` (`params`, layout {@link layout}); gradients are `Float64Array`s in the
 *   same layout, so {@link Adam} and global-norm clipping apply unchanged. {@link backward} is written out by hand and
 *   checked against finite differences in the tests.
 * - No value head: GRPO/GiGPO/RLOO are critic-free.
 * - Speed ({@link Implementation}, {@link setImplementation}): by default the action tower's second layer is folded
 *   into the state embedding (`score_a = zS · (W2ᵀ hA_a + b2) = (W2 zS) · hA_a + b2 · zS`, the same scores up to rounding), and
 *   featurized texts are kept in an LRU cache keyed by the exact text (identical features, no re-tokenizing of the
 *   admissible commands that recur at every step). {@link MultiTurnTrainer} also memoizes the action tower's hidden
 *   layer per distinct command while the parameters stand and sums the action tower's first-layer gradient per
 *   distinct command ({@link flushActionGradient}). `{ kernel: "reference", encodingCache: 0 }` is the plain path.
 *
 * **Gotchas**: {@link forward} keeps its activations in the policy's scratch; call {@link backward} right after the
 * {@link forward} of the same input. Not re-entrant.
 *
 * @example
 * ```ts
 * import { Rng } from "@autodidact/core"
 * import { DrrnPolicy } from "@autodidact/optim"
 * const policy = DrrnPolicy.make({ rng: Rng.make(0) })
 * const enc = DrrnPolicy.encode(policy, { task: "open the door", observation: "You see a door.", admissible: ["open door", "look"] })
 * const { index, logProb } = DrrnPolicy.sample(policy, enc, Rng.make(1))
 * ```
 * @see https://arxiv.org/abs/1511.04636
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import { checkActionBias } from "./GroupRollout.js"
import * as TextAbstraction from "./TextAbstraction.js"

/** Sizes and feature switches. */
export interface Config {
  /** Hash buckets of the sparse input (a power of two is customary). Default 8192. */
  readonly buckets: number
  /** Hidden width of both towers. Default 64. */
  readonly hidden: number
  /** Embedding width (the inner product's dimension). Default 32. */
  readonly embed: number
  /** Add `(line, word index, word)` features. Default true. */
  readonly positional: boolean
  /** Add `(line, column, char)` features for the observation (grid worlds). Default false. */
  readonly grid: boolean
  /** Also featurize the last `history` (observation, action) pairs of the episode, each in its own namespace. Default 2. */
  readonly history: number
  /**
   * Entity abstraction and relational features ({@link TextAbstraction}): delexicalize household tasks (task object,
   * target and tool become placeholder words) and add episode-summary and per-action relational keys; add
   * egocentric keys for Sokoban grids. A no-op on texts it does not recognize. Default true.
   */
  readonly relational: boolean
  /** Weight of each relational key relative to a word feature (before the L2 normalization). Default 2. */
  readonly relationalWeight: number
}

/**
 * Defaults: 8192 buckets, 64 hidden, 32 embed, positional words, no grid features, 2 steps of history, relational
 * features of weight 2.
 */
export const defaults: Config = { buckets: 8192, hidden: 64, embed: 32, positional: true, grid: false, history: 2, relational: true, relationalWeight: 2 }

/** A sparse feature vector: bucket indices (distinct) and values. */
export interface SparseVector {
  readonly indices: Int32Array
  readonly values: Float32Array
}

/** A state and its admissible actions, featurized once (stored with the step and reused by every epoch). */
export interface Encoded {
  readonly state: SparseVector
  readonly actions: ReadonlyArray<SparseVector>
  /**
   * The step's per-action prior (logit units, one per action; the input's `actionBias`), added to the scores by
   * {@link forward}: the distribution is `softmax(score + bias)` everywhere the encoding is used (acting, and the
   * trainer's recomputed log-probabilities, ratios and entropies). A constant: {@link backward} sends nothing to it.
   */
  readonly bias?: Float64Array | undefined
}

/** The text a decision is made on. */
export interface Input {
  readonly task: string
  readonly observation: string
  readonly admissible: ReadonlyArray<string>
  /** Earlier steps of the episode, oldest first (only the last `config.history` are used). */
  readonly history?: ReadonlyArray<{ readonly observation: string; readonly action: string }> | undefined
  /**
   * Per-action prior in logit units aligned with `admissible` (`GroupRollout.PolicyInput.actionBias`); stored in the
   * encoding as `bias`. Length mismatch or a non-finite entry: `InvalidOptionError` (option `"actionBias"`).
   */
  readonly actionBias?: ReadonlyArray<number> | undefined
}

/** One parameter tensor in the flat vector. */
export interface LayerSpec {
  readonly name: string
  readonly shape: ReadonlyArray<number>
  readonly offset: number
  readonly size: number
}

interface Scratch {
  capacity: number
  /** Which forward/backward runs ({@link Implementation}). */
  kernel: "factored" | "reference"
  /** LRU cache of featurized texts (insertion order = recency), capacity `cacheSize` (0 = off). */
  cache: Map<string, SparseVector>
  cacheSize: number
  /** Factored kernel: `u = W2_action · zS` (hidden) and `c0 = b2_action · zS` of the last forward. */
  u: Float64Array
  c0: number
  /** Factored kernel: `g = Σ_a dLogit_a · hA_a` (hidden) and `dZS` (embed) of a backward. */
  g: Float64Array
  dZS: Float64Array
  /** Action memo ({@link Implementation.actionMemo}): feature vector → slot of its hidden activations in `memoH`. */
  memoOn: boolean
  memo: Map<SparseVector, number>
  memoH: Float64Array
  /** Deferred action-tower W1 gradient: distinct action vector → slot of its summed dL/dhA-pre in `pendingDH`. */
  pending: Map<SparseVector, number>
  pendingX: Array<SparseVector>
  pendingDH: Float64Array
  /** With the encoding cache: the last task text, its parse and its delexicalized texts (reset when the task changes). */
  taskText: string | undefined
  task: TextAbstraction.HouseholdTask | undefined
  delex: Map<string, string>
  preS: Float64Array
  hS: Float64Array
  zS: Float64Array
  hA: Float64Array // [k, hidden]
  zA: Float64Array // [k, embed]
  logits: Float64Array
  probs: Float64Array
  dZ: Float64Array
  dH: Float64Array
}

/**
 * The policy: config, flat parameters, scratch.
 * @category models
 */
export interface Drrn {
  readonly config: Config
  readonly params: Float32Array
  readonly layout: ReadonlyArray<LayerSpec>
  /** @internal */
  readonly scratch: Scratch
}

/** Parameter layout: `state.w1 [buckets, hidden]`, `state.b1`, `state.w2 [hidden, embed]`, `state.b2`, then `action.*`. */
export const layout = (c: Config): Array<LayerSpec> => {
  const shapes: Array<[string, Array<number>]> = []
  for (const tower of ["state", "action"]) {
    shapes.push([`${tower}.w1`, [c.buckets, c.hidden]], [`${tower}.b1`, [c.hidden]], [`${tower}.w2`, [c.hidden, c.embed]], [`${tower}.b2`, [c.embed]])
  }
  let offset = 0
  return shapes.map(([name, shape]) => {
    const size = shape.reduce((a, b) => a * b, 1)
    const spec = { name, shape, offset, size }
    offset += size
    return spec
  })
}

const makeScratch = (c: Config, capacity: number): Scratch => ({
  capacity,
  kernel: "factored",
  cache: new Map(),
  cacheSize: implementationDefaults.encodingCache,
  u: new Float64Array(c.hidden),
  c0: 0,
  g: new Float64Array(c.hidden),
  dZS: new Float64Array(c.embed),
  memoOn: false,
  memo: new Map(),
  memoH: new Float64Array(0),
  pending: new Map(),
  pendingX: [],
  pendingDH: new Float64Array(0),
  taskText: undefined,
  task: undefined,
  delex: new Map(),
  preS: new Float64Array(c.hidden),
  hS: new Float64Array(c.hidden),
  zS: new Float64Array(c.embed),
  hA: new Float64Array(capacity * c.hidden),
  zA: new Float64Array(capacity * c.embed),
  logits: new Float64Array(capacity),
  probs: new Float64Array(capacity),
  dZ: new Float64Array(c.embed),
  dH: new Float64Array(c.hidden)
})

/**
 * How a policy computes (not part of its {@link Config} or checkpoint: every choice computes the same function, up
 * to floating-point rounding).
 */
export interface Implementation {
  /**
   * `"factored"` (default): the action tower's second layer is folded into the state embedding
   * (`score_a = (W2 zS) · hA_a + b2 · zS`), so forward and backward cost `O(nnz·hidden + hidden)` per action instead of
   * `O(nnz·hidden + hidden·embed)`. `"reference"`: the plain per-action tower of the paper (`zA_a = W2ᵀ hA_a + b2`,
   * `score_a = zS · zA_a`), the baseline of the multi-turn benchmark. Both give the same scores and gradients up to
   * rounding (summation order).
   */
  readonly kernel: "factored" | "reference"
  /**
   * Entries of the LRU cache of featurized texts (state and action feature vectors keyed by the exact text they are
   * computed from; features are a deterministic function of the text, so cached and uncached encodings are
   * identical). 0 turns it off. Default 32 768.
   */
  readonly encodingCache: number
  /**
   * Factored kernel only: memoize the action tower's hidden layer `hA = tanh(W1ᵀx + b1)` per action feature vector
   * (by identity; the encoding cache hands out the same vector for the same text) while the parameters are
   * unchanged. Whoever then writes `params` must call {@link paramsChanged} before the next {@link forward}, so it is
   * off by default; {@link MultiTurnTrainer} turns it on for a run (it calls {@link paramsChanged} after every
   * optimizer step) and off again at the end. Results are bit-identical with and without it.
   */
  readonly actionMemo: boolean
}

/** Defaults: the factored kernel, a 32 768-entry encoding cache, no action memo. */
export const implementationDefaults: Implementation = { kernel: "factored", encodingCache: 32_768, actionMemo: false }

/** Most action vectors memoized at once (the memo is emptied when full): 16 384 × hidden float64s. */
const MEMO_SLOTS = 16_384

/** Forget memoized activations ({@link Implementation.actionMemo}): call after writing `p.params`. */
export const paramsChanged = (p: Drrn): void => {
  p.scratch.memo.clear()
}

/**
 * Choose how `p` computes ({@link Implementation}); empties the action memo, and the encoding cache when its size
 * changes.
 * @throws RangeError for an unknown kernel or a cache size that is not a non-negative integer.
 */
export const setImplementation = (p: Drrn, impl: Partial<Implementation>): void => {
  const kernel = impl.kernel ?? p.scratch.kernel
  const size = impl.encodingCache ?? p.scratch.cacheSize
  if (kernel !== "factored" && kernel !== "reference") throw new RangeError(`DrrnPolicy.setImplementation: kernel must be factored or reference, got ${String(kernel)}`)
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`DrrnPolicy.setImplementation: encodingCache must be a non-negative integer, got ${size}`)
  p.scratch.kernel = kernel
  if (size !== p.scratch.cacheSize) p.scratch.cache.clear()
  p.scratch.cacheSize = size
  p.scratch.memoOn = impl.actionMemo ?? p.scratch.memoOn
  p.scratch.memo.clear()
}

/** The policy's current {@link Implementation}. */
export const implementationOf = (p: Drrn): Implementation => ({ kernel: p.scratch.kernel, encodingCache: p.scratch.cacheSize, actionMemo: p.scratch.memoOn })

/** Grow the per-action scratch to hold `k` actions, keeping the implementation and the cache. */
const grow = (p: Drrn, k: number): void => {
  const { kernel, cache, cacheSize, memoOn, memo, memoH, pending, pendingX, pendingDH, taskText, task, delex } = p.scratch
  Object.assign(p.scratch, makeScratch(p.config, Math.max(k, 2 * p.scratch.capacity)), {
    kernel, cache, cacheSize, memoOn, memo, memoH, pending, pendingX, pendingDH, taskText, task, delex
  })
}

/** The features for `key` from the LRU cache, computed by `make` on a miss. */
const cached = (p: Drrn, key: string, make: () => SparseVector): SparseVector => {
  const sc = p.scratch
  if (sc.cacheSize === 0) return make()
  const hit = sc.cache.get(key)
  if (hit !== undefined) {
    // most recently used last
    sc.cache.delete(key)
    sc.cache.set(key, hit)
    return hit
  }
  const v = make()
  sc.cache.set(key, v)
  if (sc.cache.size > sc.cacheSize) sc.cache.delete(sc.cache.keys().next().value!)
  return v
}

const SEP = "\u0000"
const SEP2 = "\u0001"

/** `TextAbstraction.delexicalize` of the current task, remembered per text (at most 4096, then forgotten). */
const delexicalizeCached = (sc: Scratch, task: TextAbstraction.HouseholdTask, text: string): string => {
  let out = sc.delex.get(text)
  if (out === undefined) {
    out = TextAbstraction.delexicalize(task, text)
    if (sc.delex.size >= 4096) sc.delex.clear()
    sc.delex.set(text, out)
  }
  return out
}

/** {@link featurizeAction} through the policy's cache. */
const actionFeatures = (p: Drrn, action: string, extra?: ReadonlyArray<string>): SparseVector =>
  cached(p, `a${SEP}${action}${SEP}${extra === undefined ? "" : extra.join(SEP2)}`, () => featurizeAction(p.config, action, extra))

/** {@link featurizeState} through the policy's cache (the key holds only the last `history` steps it reads). */
const stateFeatures = (
  p: Drrn,
  task: string,
  observation: string,
  history: ReadonlyArray<{ readonly observation: string; readonly action: string }>,
  extra?: ReadonlyArray<string>
): SparseVector => {
  if (p.scratch.cacheSize === 0) return featurizeState(p.config, task, observation, history, extra)
  let key = `s${SEP}${task}${SEP}${observation}${SEP}${extra === undefined ? "" : extra.join(SEP2)}`
  for (let j = 1; j <= p.config.history && j <= history.length; j++) {
    const h = history[history.length - j]!
    key += `${SEP}${h.action}${SEP2}${h.observation}`
  }
  return cached(p, key, () => featurizeState(p.config, task, observation, history, extra))
}

/** A policy from existing parameters (e.g. a checkpoint or a frozen reference copy). */
export const fromParams = (config: Config, params: Float32Array): Drrn => {
  const l = layout(config)
  const n = l[l.length - 1]!.offset + l[l.length - 1]!.size
  if (params.length !== n) throw new RangeError(`DrrnPolicy.fromParams: expected ${n} parameters, got ${params.length}`)
  return { config, params, layout: l, scratch: makeScratch(config, 16) }
}

/**
 * A freshly initialized DRRN policy: `Config` fields over the defaults (hashed feature buckets, hidden and embedding
 * widths), weights drawn from `rng` (the only source of randomness, so a seed reproduces the policy).
 * @see He et al., "Deep Reinforcement Learning with a Natural Language Action Space" (DRRN), arXiv:1511.04636
 */
export const make = (options: Partial<Config> & { readonly rng: Rng }): Drrn => {
  const { rng, ...rest } = options
  const config: Config = { ...defaults, ...rest }
  for (const k of ["buckets", "hidden", "embed"] as const) {
    if (!Number.isInteger(config[k]) || config[k] < 1) throw new RangeError(`DrrnPolicy.make: ${k} must be a positive integer, got ${config[k]}`)
  }
  const l = layout(config)
  const params = new Float32Array(l[l.length - 1]!.offset + l[l.length - 1]!.size)
  const fill = (name: string, std: number) => {
    const s = l.find((x) => x.name === name)!
    for (let k = 0; k < s.size; k++) params[s.offset + k] = rng.normal(0, std)
  }
  fill("state.w1", 1)
  fill("state.w2", 1 / Math.sqrt(config.hidden))
  fill("action.w1", 1)
  fill("action.w2", 0.1 / Math.sqrt(config.hidden))
  return fromParams(config, params)
}

/** A deep copy (e.g. the frozen reference policy of a KL penalty). */
export const clone = (p: Drrn): Drrn => fromParams(p.config, Float32Array.from(p.params))

// ---------------------------------------------------------------------------------------------------------------
// Features
// ---------------------------------------------------------------------------------------------------------------

/** FNV-1a 32-bit hash of a string (UTF-16 code units). */
export const hash = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

const WORD = /[a-z0-9]+|[^\sa-z0-9]/g

/** Lower-cased words (alphanumeric runs) and single punctuation/symbol characters. */
export const tokenize = (text: string): Array<string> => text.toLowerCase().match(WORD) ?? []

const addFeature = (acc: Map<number, number>, key: string, buckets: number, weight = 1): void => {
  const b = hash(key) % buckets
  acc.set(b, (acc.get(b) ?? 0) + weight)
}

const addKeys = (acc: Map<number, number>, keys: ReadonlyArray<string> | undefined, c: Config): void => {
  if (keys === undefined) return
  const w = c.relationalWeight ?? defaults.relationalWeight
  for (const k of keys) addFeature(acc, `r/${k}`, c.buckets, w)
}

const toSparse = (acc: Map<number, number>): SparseVector => {
  const indices = new Int32Array(acc.size)
  const values = new Float32Array(acc.size)
  let norm = 0
  for (const v of acc.values()) norm += v * v
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0
  let k = 0
  for (const [i, v] of acc) {
    indices[k] = i
    values[k] = v * scale
    k++
  }
  return { indices, values }
}

const addText = (acc: Map<number, number>, ns: string, text: string, c: Config, grid: boolean): void => {
  const lines = text.split("\n")
  for (let li = 0; li < lines.length; li++) {
    const words = tokenize(lines[li]!)
    for (let w = 0; w < words.length; w++) {
      addFeature(acc, `${ns}w:${words[w]}`, c.buckets)
      if (w > 0) addFeature(acc, `${ns}b:${words[w - 1]} ${words[w]}`, c.buckets)
      if (c.positional) addFeature(acc, `${ns}p:${li}:${w}:${words[w]}`, c.buckets)
    }
    if (grid) {
      const line = lines[li]!
      for (let col = 0; col < line.length; col++) {
        const ch = line[col]!
        if (ch !== " " && ch !== "\t") addFeature(acc, `${ns}g:${li}:${col}:${ch}`, c.buckets)
      }
    }
  }
}

/**
 * The sparse features of a state (`task`, `observation` and the last `c.history` steps of `history`), plus the
 * relational keys `extra` (hashed with weight `c.relationalWeight`).
 */
export const featurizeState = (
  c: Config,
  task: string,
  observation: string,
  history: ReadonlyArray<{ readonly observation: string; readonly action: string }> = [],
  extra?: ReadonlyArray<string>
): SparseVector => {
  const acc = new Map<number, number>()
  addKeys(acc, extra, c)
  addText(acc, "t/", task, c, false)
  addText(acc, "o/", observation, c, c.grid)
  const noPos = { ...c, positional: false }
  for (let j = 1; j <= c.history && j <= history.length; j++) {
    const h = history[history.length - j]!
    addText(acc, `h${j}a/`, h.action, noPos, false)
    addText(acc, `h${j}o/`, h.observation, noPos, false)
  }
  return toSparse(acc)
}

/** The sparse features of an action text, plus the relational keys `extra`. */
export const featurizeAction = (c: Config, action: string, extra?: ReadonlyArray<string>): SparseVector => {
  const acc = new Map<number, number>()
  addKeys(acc, extra, c)
  addText(acc, "a/", action, { ...c, positional: false }, false)
  return toSparse(acc)
}

/**
 * Featurize a decision once. With `relational`, a household task is delexicalized and gets its episode summary's
 * keys, a Sokoban grid its egocentric keys ({@link TextAbstraction}). The input's `actionBias` (checked: length
 * mismatch or a non-finite entry throws `InvalidOptionError`, option `"actionBias"`) is kept as the encoding's `bias`.
 */
export const encode = (p: Drrn, input: Input): Encoded => {
  const bias = checkActionBias(input.admissible, input.actionBias)
  const enc = encodeFeatures(p, input)
  return bias === undefined ? enc : { state: enc.state, actions: enc.actions, bias }
}

const encodeFeatures = (p: Drrn, input: Input): Encoded => {
  const c = p.config
  const history = input.history ?? []
  if (c.relational ?? defaults.relational) {
    const sc = p.scratch
    const caching = sc.cacheSize > 0
    if (caching && sc.taskText !== input.task) {
      sc.taskText = input.task
      sc.task = TextAbstraction.parseHouseholdTask(input.task)
      sc.delex.clear()
    }
    const task = caching ? sc.task : TextAbstraction.parseHouseholdTask(input.task)
    if (task !== undefined) {
      const d = caching ? (t: string) => delexicalizeCached(sc, task, t) : (t: string) => TextAbstraction.delexicalize(task, t)
      const summary = TextAbstraction.householdSummary(task, [...history.map((h) => h.observation), input.observation])
      const f = TextAbstraction.householdFeatures(task, summary, input.admissible)
      const from = Math.max(0, history.length - c.history)
      const recent = history.slice(from).map((h) => ({ observation: d(h.observation), action: d(h.action) }))
      return {
        state: stateFeatures(p, d(input.task), d(input.observation), recent, f.state),
        actions: input.admissible.map((a, i) => actionFeatures(p, d(a), f.actions[i]))
      }
    }
    const grid = c.grid ? TextAbstraction.parseSokobanGrid(input.observation) : undefined
    const f = grid === undefined ? undefined : TextAbstraction.sokobanFeatures(grid, input.admissible)
    if (f !== undefined) {
      return {
        state: stateFeatures(p, input.task, input.observation, history, f.state),
        actions: input.admissible.map((a, i) => actionFeatures(p, a, f.actions[i]))
      }
    }
  }
  return {
    state: stateFeatures(p, input.task, input.observation, history),
    actions: input.admissible.map((a) => actionFeatures(p, a))
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Forward, sampling, backward
// ---------------------------------------------------------------------------------------------------------------

/**
 * `out[o + j] += v · row[r + j]` for j < H, reading a Float32 weight row (a sparse input's W1 row). Unrolled by 4:
 * each element gets the same sum in the same order as the plain loop (bit-identical), with less loop overhead.
 */
const gatherRow = (out: Float64Array, o: number, v: number, row: Float32Array, r: number, H: number): void => {
  let j = 0
  for (; j + 3 < H; j += 4) {
    out[o + j] += v * row[r + j]!
    out[o + j + 1] += v * row[r + j + 1]!
    out[o + j + 2] += v * row[r + j + 2]!
    out[o + j + 3] += v * row[r + j + 3]!
  }
  for (; j < H; j++) out[o + j] += v * row[r + j]!
}

/** `grad[g + j] += v · d[o + j]` for j < H (a W1 row's gradient), unrolled by 4 like {@link gatherRow}. */
const scatterRow = (grad: Float64Array, g: number, v: number, d: Float64Array, o: number, H: number): void => {
  let j = 0
  for (; j + 3 < H; j += 4) {
    grad[g + j] += v * d[o + j]!
    grad[g + j + 1] += v * d[o + j + 1]!
    grad[g + j + 2] += v * d[o + j + 2]!
    grad[g + j + 3] += v * d[o + j + 3]!
  }
  for (; j < H; j++) grad[g + j] += v * d[o + j]!
}

/** One tower's forward pass into `h` (hidden, after tanh) and `z` (embedding). */
const towerForward = (
  params: Float32Array,
  w1: number,
  b1: number,
  w2: number,
  b2: number,
  H: number,
  E: number,
  x: SparseVector,
  h: Float64Array,
  hOff: number,
  z: Float64Array,
  zOff: number,
  unrolled: boolean
): void => {
  for (let j = 0; j < H; j++) h[hOff + j] = params[b1 + j]!
  const { indices, values } = x
  for (let n = 0; n < indices.length; n++) {
    const row = w1 + indices[n]! * H
    const v = values[n]!
    if (unrolled) gatherRow(h, hOff, v, params, row, H)
    else for (let j = 0; j < H; j++) h[hOff + j] += v * params[row + j]! // the reference kernel's loop, as it was
  }
  for (let j = 0; j < H; j++) h[hOff + j] = Math.tanh(h[hOff + j]!)
  for (let e = 0; e < E; e++) z[zOff + e] = params[b2 + e]!
  for (let j = 0; j < H; j++) {
    const hj = h[hOff + j]!
    const row = w2 + j * E
    for (let e = 0; e < E; e++) z[zOff + e] += hj * params[row + e]!
  }
}

/** One tower's backward pass given dL/dz; accumulates into `grad`. Uses `dH` as scratch. */
const towerBackward = (
  params: Float32Array,
  grad: Float64Array,
  w1: number,
  b1: number,
  w2: number,
  b2: number,
  H: number,
  E: number,
  x: SparseVector,
  h: Float64Array,
  hOff: number,
  dZ: Float64Array,
  dH: Float64Array,
  unrolled: boolean
): void => {
  for (let e = 0; e < E; e++) grad[b2 + e] += dZ[e]!
  for (let j = 0; j < H; j++) {
    const hj = h[hOff + j]!
    const row = w2 + j * E
    let s = 0
    for (let e = 0; e < E; e++) {
      grad[row + e] += hj * dZ[e]!
      s += params[row + e]! * dZ[e]!
    }
    dH[j] = s * (1 - hj * hj)
  }
  for (let j = 0; j < H; j++) grad[b1 + j] += dH[j]!
  const { indices, values } = x
  for (let n = 0; n < indices.length; n++) {
    const row = w1 + indices[n]! * H
    const v = values[n]!
    if (unrolled) scatterRow(grad, row, v, dH, 0, H)
    else for (let j = 0; j < H; j++) grad[row + j] += v * dH[j]! // the reference kernel's loop, as it was
  }
}

const offsets = (p: Drrn) => {
  const l = p.layout
  return { sw1: l[0]!.offset, sb1: l[1]!.offset, sw2: l[2]!.offset, sb2: l[3]!.offset, aw1: l[4]!.offset, ab1: l[5]!.offset, aw2: l[6]!.offset, ab2: l[7]!.offset }
}

/**
 * Scores and softmax probabilities of the admissible actions; returns the policy's entropy. With a prior in the
 * encoding (`enc.bias`), each logit is `score + bias` and the distribution `softmax(score + bias)`. Read the results with
 * {@link probsOf} / {@link logitsOf} (views valid until the next call).
 */
export const forward = (p: Drrn, enc: Encoded): number => {
  const k = enc.actions.length
  if (k === 0) throw new RangeError("DrrnPolicy.forward: no admissible actions")
  const { hidden: H, embed: E } = p.config
  if (p.scratch.capacity < k) grow(p, k)
  const sc = p.scratch
  const o = offsets(p)
  const bias = enc.bias
  if (bias !== undefined && bias.length !== k) throw new RangeError(`DrrnPolicy.forward: bias holds ${bias.length} entries for ${k} actions`)
  towerForward(p.params, o.sw1, o.sb1, o.sw2, o.sb2, H, E, enc.state, sc.hS, 0, sc.zS, 0, sc.kernel === "factored")
  let max = -Infinity
  if (sc.kernel === "reference") {
    for (let a = 0; a < k; a++) {
      towerForward(p.params, o.aw1, o.ab1, o.aw2, o.ab2, H, E, enc.actions[a]!, sc.hA, a * H, sc.zA, a * E, false)
      let s = 0
      for (let e = 0; e < E; e++) s += sc.zS[e]! * sc.zA[a * E + e]!
      if (bias !== undefined) s += bias[a]!
      sc.logits[a] = s
      if (s > max) max = s
    }
  } else {
    // score_a = zS · (W2ᵀ hA_a + b2) = u · hA_a + c0 with u = W2 zS, c0 = b2 · zS: the action tower's second layer
    // is applied once per state instead of once per action
    const params = p.params
    const u = sc.u
    const zS = sc.zS
    let c0 = 0
    for (let e = 0; e < E; e++) c0 += params[o.ab2 + e]! * zS[e]!
    sc.c0 = c0
    for (let j = 0; j < H; j++) {
      const row = o.aw2 + j * E
      let s = 0
      for (let e = 0; e < E; e++) s += params[row + e]! * zS[e]!
      u[j] = s
    }
    const hA = sc.hA
    const memoOn = sc.memoOn
    for (let a = 0; a < k; a++) {
      const off = a * H
      const x = enc.actions[a]!
      const slot = memoOn ? sc.memo.get(x) : undefined
      let s = c0
      if (slot !== undefined) {
        const m = sc.memoH
        const mOff = slot * H
        for (let j = 0; j < H; j++) {
          const h = m[mOff + j]!
          hA[off + j] = h
          s += u[j]! * h
        }
      } else {
        for (let j = 0; j < H; j++) hA[off + j] = params[o.ab1 + j]!
        const { indices, values } = x
        for (let n = 0; n < indices.length; n++) {
          const row = o.aw1 + indices[n]! * H
          const v = values[n]!
          gatherRow(hA, off, v, params, row, H)
        }
        for (let j = 0; j < H; j++) {
          const h = Math.tanh(hA[off + j]!)
          hA[off + j] = h
          s += u[j]! * h
        }
        if (memoOn) memoize(sc, x, hA, off, H)
      }
      if (bias !== undefined) s += bias[a]!
      sc.logits[a] = s
      if (s > max) max = s
    }
  }
  let total = 0
  for (let a = 0; a < k; a++) {
    const q = Math.exp(sc.logits[a]! - max)
    sc.probs[a] = q
    total += q
  }
  const logTotal = Math.log(total) + max
  let entropy = 0
  for (let a = 0; a < k; a++) {
    sc.probs[a] = sc.probs[a]! / total
    const pa = sc.probs[a]!
    if (pa > 0) entropy -= pa * (sc.logits[a]! - logTotal)
  }
  return entropy
}

/** Store the hidden activations `hA[off … off+H)` of action vector `x` in the memo (emptied when full). */
const memoize = (sc: Scratch, x: SparseVector, hA: Float64Array, off: number, H: number): void => {
  if (sc.memo.size >= MEMO_SLOTS) sc.memo.clear()
  const slot = sc.memo.size
  if (sc.memoH.length < (slot + 1) * H) {
    const next = new Float64Array(Math.min(MEMO_SLOTS, Math.max(64, 2 * (slot + 1))) * H)
    next.set(sc.memoH)
    sc.memoH = next
  }
  sc.memoH.set(hA.subarray(off, off + H), slot * H)
  sc.memo.set(x, slot)
}

/** Probabilities of the last {@link forward} (length ≥ number of actions). */
export const probsOf = (p: Drrn): Float64Array => p.scratch.probs
/** Logits of the last {@link forward}: the scores plus the encoding's `bias` when it has one. */
export const logitsOf = (p: Drrn): Float64Array => p.scratch.logits

/** log π(a) from the last {@link forward} (stable log-softmax). */
export const logProbAt = (p: Drrn, numActions: number, a: number): number => {
  const l = p.scratch.logits
  let max = -Infinity
  for (let k = 0; k < numActions; k++) if (l[k]! > max) max = l[k]!
  let s = 0
  for (let k = 0; k < numActions; k++) s += Math.exp(l[k]! - max)
  return l[a]! - max - Math.log(s)
}

/**
 * Score the encoded step's admissible actions (softmax over the DRRN's state·action scores) and sample one with
 * `rng` (or take the most probable, first on ties, with `greedy`). Returns its `index` in `enc.actions`, its
 * `logProb` (natural log, ≤ 0) and the distribution's `entropy` (nats).
 */
export const sample = (p: Drrn, enc: Encoded, rng: Rng, greedy = false): { index: number; logProb: number; entropy: number } => {
  const entropy = forward(p, enc)
  const k = enc.actions.length
  let index = 0
  if (greedy) {
    for (let a = 1; a < k; a++) if (p.scratch.probs[a]! > p.scratch.probs[index]!) index = a
  } else {
    index = rng.categorical(p.scratch.probs.subarray(0, k))
    if (index >= k) index = k - 1
  }
  return { index, logProb: logProbAt(p, k, index), entropy }
}

/**
 * Backpropagate dL/dscore (`dLogits`, one per admissible action) of the last {@link forward} of `enc` into `grad`
 * (accumulated; not zeroed). With `deferActions` (factored kernel), the action tower's first-layer rows are summed
 * per distinct action vector and only written by {@link flushActionGradient}, which must run before `grad` is read
 * (the same gradient up to summation order; a minibatch repeats the same admissible commands many times).
 */
export const backward = (p: Drrn, enc: Encoded, dLogits: ArrayLike<number>, grad: Float64Array, deferActions = false): void => {
  const k = enc.actions.length
  const { hidden: H, embed: E } = p.config
  const sc = p.scratch
  const o = offsets(p)
  if (sc.kernel === "factored") return backwardFactored(p, enc, dLogits, grad, deferActions)
  // score_a = zS · zA_a: dzS = Σ_a d_a zA_a, dzA_a = d_a zS
  const dZ = sc.dZ
  for (let a = 0; a < k; a++) {
    const d = dLogits[a]!
    if (d === 0) continue
    for (let e = 0; e < E; e++) dZ[e] = d * sc.zS[e]!
    towerBackward(p.params, grad, o.aw1, o.ab1, o.aw2, o.ab2, H, E, enc.actions[a]!, sc.hA, a * H, dZ, sc.dH, false)
  }
  dZ.fill(0)
  for (let a = 0; a < k; a++) {
    const d = dLogits[a]!
    if (d === 0) continue
    for (let e = 0; e < E; e++) dZ[e] += d * sc.zA[a * E + e]!
  }
  towerBackward(p.params, grad, o.sw1, o.sb1, o.sw2, o.sb2, H, E, enc.state, sc.hS, 0, dZ, sc.dH, false)
}

/** A zeroed slot of the deferred action gradient for `x`. */
const pendingSlot = (sc: Scratch, x: SparseVector, H: number): number => {
  const slot = sc.pendingX.length
  if (sc.pendingDH.length < (slot + 1) * H) {
    const next = new Float64Array(Math.max(64, 2 * (slot + 1)) * H)
    next.set(sc.pendingDH)
    sc.pendingDH = next
  }
  sc.pendingDH.fill(0, slot * H, (slot + 1) * H)
  sc.pendingX.push(x)
  sc.pending.set(x, slot)
  return slot
}

/**
 * Add the action tower's first-layer gradient deferred by {@link backward}`(…, deferActions = true)` into `grad`: one
 * scatter of `x ⊗ Σ dhA` per distinct action vector `x` instead of one per occurrence. A no-op when nothing is
 * pending. Call it before reading `grad`.
 */
export const flushActionGradient = (p: Drrn, grad: Float64Array): void => {
  const sc = p.scratch
  const n = sc.pendingX.length
  if (n === 0) return
  const H = p.config.hidden
  const aw1 = p.layout[4]!.offset
  const acc = sc.pendingDH
  for (let s = 0; s < n; s++) {
    const { indices, values } = sc.pendingX[s]!
    const off = s * H
    for (let m = 0; m < indices.length; m++) {
      const row = aw1 + indices[m]! * H
      const v = values[m]!
      scatterRow(grad, row, v, acc, off, H)
    }
  }
  sc.pending.clear()
  sc.pendingX.length = 0
}

/**
 * The factored backward pass (the same gradient as the per-action one, summed in another order): with
 * `score_a = u · hA_a + c0`, `u = W2 zS`, `c0 = b2 · zS` and `D = Σ_a d_a`, `g = Σ_a d_a hA_a`:
 * `dW2 = g ⊗ zS`, `db2 = D zS`, `dhA_a = d_a u`, `dzS = W2ᵀ g + D b2`. One outer product per state instead of one
 * per action.
 */
const backwardFactored = (p: Drrn, enc: Encoded, dLogits: ArrayLike<number>, grad: Float64Array, defer: boolean): void => {
  const k = enc.actions.length
  const { hidden: H, embed: E } = p.config
  const sc = p.scratch
  const o = offsets(p)
  const params = p.params
  const { u, g, hA, zS, dH } = sc
  g.fill(0)
  let D = 0
  for (let a = 0; a < k; a++) {
    const d = dLogits[a]!
    if (d === 0) continue
    D += d
    const off = a * H
    for (let j = 0; j < H; j++) {
      const h = hA[off + j]!
      g[j] += d * h
      const dh = d * u[j]! * (1 - h * h)
      dH[j] = dh
      grad[o.ab1 + j] += dh
    }
    const x = enc.actions[a]!
    if (defer) {
      let slot = sc.pending.get(x)
      if (slot === undefined) slot = pendingSlot(sc, x, H)
      const acc = sc.pendingDH
      const off2 = slot * H
      for (let j = 0; j < H; j++) acc[off2 + j] += dH[j]!
      continue
    }
    const { indices, values } = x
    for (let n = 0; n < indices.length; n++) {
      const row = o.aw1 + indices[n]! * H
      const v = values[n]!
      scatterRow(grad, row, v, dH, 0, H)
    }
  }
  const dZS = sc.dZS
  for (let e = 0; e < E; e++) {
    grad[o.ab2 + e] += D * zS[e]!
    dZS[e] = D * params[o.ab2 + e]!
  }
  for (let j = 0; j < H; j++) {
    const gj = g[j]!
    if (gj === 0) continue
    const row = o.aw2 + j * E
    for (let e = 0; e < E; e++) {
      grad[row + e] += gj * zS[e]!
      dZS[e] += gj * params[row + e]!
    }
  }
  towerBackward(params, grad, o.sw1, o.sb1, o.sw2, o.sb2, H, E, enc.state, sc.hS, 0, dZS, dH, true)
}
