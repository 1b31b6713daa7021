/**
 * Replay-buffer benchmark: inserts/s (single and vector batches), uniform and prioritized sample-256 latency at
 * 1M capacity, and priority updates/s, each against a naive baseline measured in the same run.
 *
 * Run: `cd packages/memory && npx tsx --conditions=@autodidact/source bench/replay.ts [capacity]`
 *
 * Baselines (what a first implementation in plain TypeScript would do):
 * - inserts / uniform sampling: an `Array` of transition objects (`{ obs: Float32Array, action, reward, ... }`,
 *   one object and two arrays per insert) and a sampler that builds fresh per-call batch arrays;
 * - prioritized sampling: proportional sampling by a linear scan over a `Float64Array` of priorities (one pass
 *   for the total and minimum, one pass walking the 256 sorted stratified targets), i.e. O(N) per batch, the
 *   cost of `np.cumsum` + `searchsorted`;
 * - priority updates: writing `(|delta| + eps)^alpha` into that flat array (O(1) each; the tree pays O(log N)
 *   per update so sampling can be O(log N)).
 *
 * The "batched descent vs before" rows compare `sample` (the targets descend the tree 16 at a time, `SumTree.sampleBatch`) with the first
 * loop of one `findPrefixSum` per sample, in the same run, on the same tree; the naive column holds the "before".
 */
import { Rng, Statistics } from "@autodidact/core"
import { MinTree, SumTree } from "@autodidact/kernels/trees"
import * as PrioritizedReplay from "../src/replay/PrioritizedReplay.js"
import * as ReplayBuffer from "../src/replay/ReplayBuffer.js"

const CAPACITY = Number(process.argv[2] ?? 1_000_000)
const OBS_DIM = 4
const BATCH = 256
const NUM_ENVS = 16

const now = () => performance.now()

/** Median and mean of per-call times (µs) of `f` over `iters` calls after `warm` warm-up calls. */
const latency = (f: () => void, iters: number, warm = 200) => {
  for (let i = 0; i < warm; i++) f()
  const t = new Float64Array(iters)
  for (let i = 0; i < iters; i++) {
    const a = now()
    f()
    t[i] = (now() - a) * 1000
  }
  const mean = t.reduce((a, b) => a + b, 0) / iters
  return { p50: Statistics.median(t), mean }
}

/** Operations per second of `f(k)` run `n` times. */
const rate = (f: (k: number) => void, n: number, opsPerCall = 1) => {
  for (let k = 0; k < Math.min(n, 1000); k++) f(k)
  const a = now()
  for (let k = 0; k < n; k++) f(k)
  return (n * opsPerCall) / ((now() - a) / 1000)
}

const rng = Rng.make(0)
const obs = new Float32Array(OBS_DIM).map(() => rng.random())
const next = new Float32Array(OBS_DIM).map(() => rng.random())
const obsB = new Float32Array(NUM_ENVS * OBS_DIM).map(() => rng.random())
const nextB = new Float32Array(NUM_ENVS * OBS_DIM).map(() => rng.random())
const actB = new Int32Array(NUM_ENVS)
const rewB = new Float64Array(NUM_ENVS).fill(1)
const flags = new Uint8Array(NUM_ENVS)

// ---- naive uniform buffer: an array of objects ----
interface Obj {
  obs: Float32Array
  action: number
  reward: number
  next: Float32Array
  terminated: boolean
  truncated: boolean
}
class NaiveBuffer {
  items: Array<Obj> = []
  pos = 0
  constructor(readonly capacity: number) {}
  add(o: Float32Array, a: number, r: number, n: Float32Array, te: boolean, tr: boolean) {
    const item = { obs: Float32Array.from(o), action: a, reward: r, next: Float32Array.from(n), terminated: te, truncated: tr }
    if (this.items.length < this.capacity) this.items.push(item)
    else this.items[this.pos] = item
    this.pos = (this.pos + 1) % this.capacity
  }
  sample(b: number, g: Rng) {
    const obs: Array<number> = []
    const acts: Array<number> = []
    const rews: Array<number> = []
    const nexts: Array<number> = []
    const dones: Array<number> = []
    for (let k = 0; k < b; k++) {
      const it = this.items[g.integers(this.items.length)]!
      obs.push(...it.obs)
      nexts.push(...it.next)
      acts.push(it.action)
      rews.push(it.reward)
      dones.push(it.terminated ? 1 : 0)
    }
    return { obs: Float32Array.from(obs), next: Float32Array.from(nexts), acts, rews, dones }
  }
}

// ---- inserts ----
const buffer = ReplayBuffer.unsafeMake({ capacity: CAPACITY, obsDim: OBS_DIM })
const singleInsert = rate(() => buffer.add(obs, 1, 1, next, false, false), CAPACITY)
const batchInsert = rate(() => buffer.addBatch(obsB, actB, rewB, nextB, flags, flags), CAPACITY / NUM_ENVS, NUM_ENVS)
const naive = new NaiveBuffer(CAPACITY)
const naiveInsert = rate(() => naive.add(obs, 1, 1, next, false, false), CAPACITY)

// ---- uniform sampling ----
const out = buffer.allocateBatch(BATCH)
const sampleRng = Rng.make(1)
const uniform = latency(() => buffer.sample(BATCH, sampleRng, out), 5000)
const naiveUniform = latency(() => naive.sample(BATCH, sampleRng), 2000)

// ---- prioritized: fill to capacity with non-uniform priorities ----
const per = PrioritizedReplay.unsafeMake({ capacity: CAPACITY, obsDim: OBS_DIM, alpha: 0.6, beta0: 0.4 })
const idx = new Int32Array(BATCH)
const td = new Float32Array(BATCH)
for (let t = 0; t < CAPACITY; t += NUM_ENVS) per.addBatch(obsB, actB, rewB, nextB, flags, flags)
for (let s = 0; s + BATCH <= CAPACITY; s += BATCH) {
  for (let k = 0; k < BATCH; k++) {
    idx[k] = s + k
    td[k] = rng.normal() * 2
  }
  per.updatePriorities(idx, td)
}
const flat = per.sums.nodes.slice(per.sums.capacity, per.sums.capacity + CAPACITY) // the same priorities, flat

const perOut = per.allocateBatch(BATCH)
const perSample = latency(() => per.sample(BATCH, sampleRng, perOut), 5000)

/** One dependent descent (the previous `findPrefixSum`): right only if `u >= left` and the right subtree has mass. */
const findPrefixSum = (tree: SumTree.SumTree, u: number): number => {
  const t = tree.nodes
  let k = 1
  while (k < tree.capacity) {
    const c = 2 * k
    const right = +(u >= t[c]!) & +(t[c + 1]! > 0)
    u -= right * t[c]!
    k = c + right
  }
  return k - tree.capacity
}

/**
 * The previous `PrioritizedReplay.sample` (before the level-by-level batched descent), kept here to print the
 * before/after ratio in one run: the same targets, weights and gather, one dependent tree descent per sample.
 */
const perSampleSequential = (g: Rng, out: typeof perOut, beta: number) => {
  const st = per.storage
  const sums = per.sums
  const leaves = sums.nodes
  const offset = sums.capacity
  const segment = SumTree.total(sums) / BATCH
  const pMin = MinTree.min(per.mins)
  const last = st.size - 1
  st.random.reseed(g)
  for (let b = 0; b < BATCH; b++) {
    let i = findPrefixSum(sums, (b + st.random.random()) * segment)
    if (i > last) i = last
    out.indices[b] = i
    out.weights[b] = Math.pow(pMin / leaves[offset + i]!, beta)
  }
  st.gather(out)
}
const perSampleBefore = latency(() => perSampleSequential(sampleRng, perOut, 0.4), 5000)
const treeUs = new Float64Array(BATCH)
const treeOut = new Int32Array(BATCH)
const treeRes = { indices: treeOut, priorities: new Float64Array(BATCH) }
let lcg = 12345
const fillTargets = () => { // stratified targets from a cheap LCG, so the row times the tree walk alone
  const seg = SumTree.total(per.sums) / BATCH
  for (let b = 0; b < BATCH; b++) treeUs[b] = (b + (lcg = (Math.imul(lcg, 1103515245) + 12345) >>> 0) / 2 ** 32) * seg
}
const descentBatched = latency(() => {
  fillTargets()
  SumTree.sampleBatch(per.sums, treeUs, treeRes)
}, 3000)
const descentSequential = latency(() => {
  fillTargets()
  for (let b = 0; b < BATCH; b++) treeOut[b] = findPrefixSum(per.sums, treeUs[b]!)
}, 3000)

/** Naive proportional stratified sampling with weights: O(N) scans over a Float64Array. */
const naiveIdx = new Int32Array(BATCH)
const naiveW = new Float32Array(BATCH)
const naivePer = (g: Rng, beta: number) => {
  let total = 0
  let min = Infinity
  for (let i = 0; i < flat.length; i++) {
    const p = flat[i]!
    total += p
    if (p < min) min = p
  }
  const seg = total / BATCH
  let acc = 0
  let i = 0
  for (let b = 0; b < BATCH; b++) {
    const u = (b + g.random()) * seg
    while (i < flat.length - 1 && acc + flat[i]! <= u) acc += flat[i++]!
    naiveIdx[b] = i
    naiveW[b] = Math.pow(min / flat[i]!, beta)
  }
}
const naivePerSample = latency(() => naivePer(sampleRng, 0.4), 300, 20)

// ---- priority updates ----
let cursor = 0
const updRate = rate(() => {
  for (let k = 0; k < BATCH; k++) idx[k] = (cursor + k * 3907) % CAPACITY
  cursor = (cursor + 1) % CAPACITY
  per.updatePriorities(idx, td)
}, 20_000, BATCH)
const naiveUpd = rate(() => {
  for (let k = 0; k < BATCH; k++) idx[k] = (cursor + k * 3907) % CAPACITY
  cursor = (cursor + 1) % CAPACITY
  for (let k = 0; k < BATCH; k++) flat[idx[k]!] = Math.pow(Math.abs(td[k]!) + 1e-6, 0.6)
}, 20_000, BATCH)

// ---- an off-policy training step's replay work: sample 256 + update 256 priorities ----
const stepTree = latency(() => {
  const b = per.sample(BATCH, sampleRng, perOut)
  per.updatePriorities(b.indices, td)
}, 3000)
const stepNaive = latency(() => {
  naivePer(sampleRng, 0.4)
  for (let k = 0; k < BATCH; k++) flat[naiveIdx[k]!] = Math.pow(Math.abs(td[k]!) + 1e-6, 0.6)
}, 300, 20)

const fmtRate = (x: number) => `${(x / 1e6).toFixed(2)} M/s`
const fmtUs = (x: { p50: number; mean: number }) => `${x.p50.toFixed(1)} µs (mean ${x.mean.toFixed(1)})`
const rows: Array<[string, string, string, string]> = [
  ["insert, single (obsDim 4)", fmtRate(singleInsert), fmtRate(naiveInsert), `${(singleInsert / naiveInsert).toFixed(1)}x`],
  [`insert, addBatch of ${NUM_ENVS} envs`, fmtRate(batchInsert), fmtRate(naiveInsert), `${(batchInsert / naiveInsert).toFixed(1)}x`],
  [`uniform sample ${BATCH}, p50`, fmtUs(uniform), fmtUs(naiveUniform), `${(naiveUniform.p50 / uniform.p50).toFixed(1)}x`],
  [`PER sample ${BATCH} @ ${CAPACITY}, p50`, fmtUs(perSample), fmtUs(naivePerSample), `${(naivePerSample.p50 / perSample.p50).toFixed(1)}x`],
  [`PER sample ${BATCH}: batched descent vs before, p50`, fmtUs(perSample), fmtUs(perSampleBefore), `${(perSampleBefore.p50 / perSample.p50).toFixed(1)}x`],
  [`tree search only (${BATCH} stratified targets), p50`, fmtUs(descentBatched), fmtUs(descentSequential), `${(descentSequential.p50 / descentBatched.p50).toFixed(1)}x`],
  [`PER priority updates (batches of ${BATCH})`, fmtRate(updRate), fmtRate(naiveUpd), `${(updRate / naiveUpd).toFixed(2)}x`],
  [`PER sample ${BATCH} + update ${BATCH}, p50`, fmtUs(stepTree), fmtUs(stepNaive), `${(stepNaive.p50 / stepTree.p50).toFixed(1)}x`]
]
const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c]!.length), ["metric", "autodidact", "naive", "speed-up"][c]!.length))
const line = (r: ReadonlyArray<string>) => `| ${r.map((x, c) => x.padEnd(widths[c]!)).join(" | ")} |`
console.log(`node ${process.version}, capacity ${CAPACITY}, obsDim ${OBS_DIM}`)
console.log(line(["metric", "autodidact", "naive", "speed-up"]))
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`)
for (const r of rows) console.log(line(r))
