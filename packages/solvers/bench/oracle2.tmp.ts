// scratch: SD-CFR with a perfect regressor (tabular weighted mean of the memory's rows per tensor) — the floor without fit error
import { Rng } from "@autodidact/core"
import { GameRegistry } from "@autodidact/envs"
import * as DeepCfr from "../src/deep/DeepCfr.js"
import * as Reservoir from "../src/deep/Reservoir.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as GameTree from "../src/tree/GameTree.js"
import { DECISION_NODE } from "../src/tree/GameTree.js"
const argv = process.argv.slice(2)
const flag = (n: string, d: number) => { const i = argv.indexOf(`--${n}`); return i >= 0 ? Number(argv[i + 1]) : d }
const T = flag("iterations", 100), traversals = flag("traversals", 2000), capacity = flag("capacity", 1_000_000)
const game = GameRegistry.loadGame("leduc_poker")
const tree = GameTree.compile(game)
const D = game.informationStateTensorSize!, A = game.info.numDistinctActions
const rng = Rng.make(flag("seed", 0))
const mems = [0, 1].map(() => Reservoir.make(capacity, D, A))
const aggs = [0, 1].map(() => Reservoir.makeAggregate())
const key = (f: Float32Array) => Array.from(f).join(",")
const nets: Array<Map<string, Float64Array> | undefined> = [undefined, undefined]
const feats = DeepCfr.treeFeatures(game, tree)
const avgCum = new Float64Array(tree.numSlots)
const maxDepth = game.info.maxGameLength + 1
const feat = Array.from({ length: maxDepth }, () => new Float32Array(D))
const sigma = new Float64Array(maxDepth * A), childValue = new Float64Array(maxDepth * A)
const regret = new Float64Array(A), mask = new Uint8Array(A)
let it = 0
const strat = (s: any, q: number, legal: ReadonlyArray<number>, d: number) => {
  s.informationStateTensor(q, feat[d]); const base = d * A
  const m = nets[q]; const adv = m?.get(key(feat[d]!))
  if (adv === undefined) { for (let k = 0; k < A; k++) sigma[base + k] = 0; for (const a of legal) sigma[base + a] = 1 / legal.length; return }
  rm(adv, legal, sigma, base)
}
const traverse = (s: any, p: number, d: number): number => {
  if (s.isTerminal()) return s.returns()[p]
  if (s.isChanceNode()) { const o = s.chanceOutcomes(); let u = rng.random(), a = o[o.length - 1][0]; for (const [x, pr] of o) { if (u < pr) { a = x; break } u -= pr } s.applyAction(a); const v = traverse(s, p, d + 1); s.undoAction(-1, a); return v }
  const q = s.currentPlayer(), legal = s.legalActions(); strat(s, q, legal, d); const base = d * A
  if (q !== p) { let u = rng.random(), a = legal[legal.length - 1]; for (const x of legal) { if (u < sigma[base + x]!) { a = x; break } u -= sigma[base + x]! } s.applyAction(a); const v = traverse(s, p, d + 1); s.undoAction(q, a); return v }
  let ev = 0
  for (const a of legal) { s.applyAction(a); const v = traverse(s, p, d + 1); s.undoAction(q, a); childValue[base + a] = v; ev += sigma[base + a]! * v }
  regret.fill(0); mask.fill(0); for (const a of legal) { regret[a] = childValue[base + a]! - ev; mask[a] = 1 }
  Reservoir.add(mems[p]!, rng, feat[d]!, regret, mask, it); return ev
}
const addIterate = (p: number, m: Map<string, Float64Array>, w: number) => {
  const probs = new Float64Array(tree.numSlots), sig = new Float64Array(A)
  for (const i of tree.playerInfoStates[p]!) {
    const s0 = tree.infoOffset[i]!, legal = tree.actions.subarray(s0, tree.infoOffset[i + 1]!)
    const adv = m.get(key(feats.subarray(i * D, (i + 1) * D)))
    if (adv === undefined) { for (let k = 0; k < legal.length; k++) probs[s0 + k] = 1 / legal.length; continue }
    rm(adv, legal, sig, 0); for (let k = 0; k < legal.length; k++) probs[s0 + k] = sig[legal[k]!]!
  }
  const reach = new Float64Array(tree.numNodes); reach[0] = 1; const done = new Uint8Array(tree.numInfoStates)
  for (let n = 0; n < tree.numNodes; n++) {
    const e0 = tree.edgeStart[n]!, e1 = tree.edgeStart[n + 1]!, r = reach[n]!
    if (tree.nodeKind[n] === DECISION_NODE && tree.nodePlayer[n] === p) {
      const i = tree.nodeInfo[n]!, s0 = tree.infoOffset[i]!
      if (!done[i]) { done[i] = 1; for (let k = 0; k < e1 - e0; k++) avgCum[s0 + k] += w * r * probs[s0 + k]! }
      for (let e = e0; e < e1; e++) reach[tree.edgeChild[e]!] = r * probs[s0 + e - e0]!
    } else for (let e = e0; e < e1; e++) reach[tree.edgeChild[e]!] = r
  }
}
const out = new Float64Array(tree.numSlots)
const curve: Array<string> = []
for (it = 1; it <= T; it++) {
  for (let p = 0; p < 2; p++) {
    const root = game.newInitialState()
    for (let k = 0; k < traversals; k++) traverse(root, p, 0)
    const agg = Reservoir.aggregate(mems[p]!, aggs[p]!)
    const m = new Map<string, Float64Array>()
    for (let g = 0; g < agg.size; g++) m.set(key(mems[p]!.features.subarray(agg.rows[g]! * D, (agg.rows[g]! + 1) * D)), agg.targets.slice(g * A, (g + 1) * A))
    nets[p] = m
    addIterate(p, m, it)
  }
  for (let i = 0; i < tree.numInfoStates; i++) { const s0 = tree.infoOffset[i]!, s1 = tree.infoOffset[i + 1]!; let sum = 0; for (let s = s0; s < s1; s++) sum += avgCum[s]!; for (let s = s0; s < s1; s++) out[s] = sum > 0 ? avgCum[s]! / sum : 1 / (s1 - s0) }
  const nc = Exploitability.nashConvOnTree(tree, out)
  if (it % 10 === 0 || it <= 5) curve.push(`${it}:${nc.toFixed(3)}`)
}
console.log(`oracle traversals ${traversals} capacity ${capacity}: ${curve.join(" ")}`)
function rm(adv: ArrayLike<number>, legal: ArrayLike<number>, out: Float64Array, base: number) {
  const uniform = argv.includes("--uniform")
  let sum = 0
  for (let k = 0; k < A; k++) out[base + k] = 0
  for (let k = 0; k < legal.length; k++) sum += Math.max(0, adv[legal[k]!]!)
  if (sum > 0 || !uniform) return DeepCfr.regretMatching(adv, 0, legal, out, base, A)
  for (let k = 0; k < legal.length; k++) out[base + legal[k]!] = 1 / legal.length
}
