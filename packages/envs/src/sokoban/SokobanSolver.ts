/**
 * A push-optimal Sokoban solver: A* over push states with a matching heuristic, deadlock pruning and a Zobrist
 * transposition table.
 *
 * **When to use**
 * - To check that a level is solvable, to get a reference plan (imitation learning, curricula, evaluation of an
 *   agent's plan length), or to grade generated levels.
 *
 * **Details**
 * - Search space: a node is a push state, the sorted box cells plus the player's *normalized* position (the
 *   smallest cell of the region the player can reach without pushing). An edge is one push; the walk to the push
 *   is free. A* with unit push cost.
 * - Heuristic: the minimum-cost perfect matching of boxes to goals, where the cost of box cell `x` to goal `g` is the
 *   number of pushes needed to bring a lone box from `x` to `g` (computed once by a backward "pull" BFS from each
 *   goal). It is admissible and consistent (one push changes one box's distances by at most one), so the
 *   first plan found is **push-optimal** (fewest pushes). The matching is exact by a dynamic program over goal subsets
 *   for up to 12 boxes; above that the sum of each box's nearest-goal distance is used (still admissible, weaker).
 *   Moves (the walks between pushes) are shortest walks for the chosen push sequence, not globally move-optimal.
 * - Pruning: dead squares (cells from which a lone box can reach no goal) and freeze deadlocks (a pushed box that,
 *   together with the boxes and walls around it, can move neither horizontally nor vertically while some box in the
 *   frozen group is off goal). Both are sound: no solvable state is pruned.
 * - Transposition table: open addressing keyed by a 32-bit Zobrist hash, verified against the stored state (no false
 *   merges). States live in growable typed arrays; no allocation or closure per node.
 * - Budget: `maxNodes` node expansions and optionally `maxSeconds`; exceeding either gives `"budget-exceeded"`.
 *   An exhausted search gives `"unsolvable"` (a proof: pruning is sound).
 *
 * **Gotchas**
 * - Memory grows with the number of stored states ((boxes + 1) × 2 + ~24 bytes each); a million stored nodes of a
 *   4-box level take about 35 MB.
 *
 * @example
 * ```ts
 * import { SokobanLevel, SokobanSolver } from "@autodidact/envs"
 * const level = SokobanLevel.fromRows(["#####", "#@$.#", "#####"])
 * SokobanSolver.solve(level) // { status: "solved", pushes: 1, moves: "R", actions: [4], ... }
 * ```
 * @see Junghanns & Schaeffer, "Sokoban: Enhancing general single-agent search methods using domain knowledge",
 *   Artificial Intelligence 129 (2001) (push-state search, lower bounds by matching, deadlock tables)
 * @see http://sokobano.de/wiki/index.php?title=Deadlocks (dead squares, freeze deadlocks)
 * @see https://github.com/mpSchrader/gym-sokoban (action ids of the plan)
 * @category solvers
 * @since 0.1.0
 */
import type { Level } from "./SokobanLevel.js"

/** Options of {@link solve}. */
export interface SolveOptions {
  /** Maximum number of node expansions (default 1,000,000). */
  readonly maxNodes?: number | undefined
  /** Wall-clock limit in seconds (default none). */
  readonly maxSeconds?: number | undefined
}

/** Outcome of {@link solve}. */
export interface Solution {
  /** `"solved"`: a plan was found; `"unsolvable"`: proven to have none; `"budget-exceeded"`: gave up. */
  readonly status: "solved" | "unsolvable" | "budget-exceeded"
  /** Number of pushes of the plan (push-optimal); 0 unless solved. */
  readonly pushes: number
  /** The plan in LURD notation (`u d l r` walk, `U D L R` push); empty unless solved. */
  readonly moves: string
  /** The plan as `Sokoban-v0` action ids (walk 5–8, push 1–4, see `Sokoban.ACTIONS`); empty unless solved. */
  readonly actions: Array<number>
  /** Number of nodes expanded. */
  readonly nodesExpanded: number
  /** Number of distinct push states stored. */
  readonly nodesStored: number
  /** Wall-clock seconds spent. */
  readonly seconds: number
}

const INF = 0xffff
const LURD = "udlr"
/** Direction d (0 up, 1 down, 2 left, 3 right) walked → action 5 + d; pushed → action 1 + d. */
const MOVE_ACTION = 5
const PUSH_ACTION = 1

const grow32 = (a: Int32Array, n: number): Int32Array => {
  if (n <= a.length) return a
  const b = new Int32Array(Math.max(n, a.length * 2))
  b.set(a)
  return b
}
const grow16 = (a: Uint16Array, n: number): Uint16Array => {
  if (n <= a.length) return a
  const b = new Uint16Array(Math.max(n, a.length * 2))
  b.set(a)
  return b
}
const growF = (a: Float64Array, n: number): Float64Array => {
  if (n <= a.length) return a
  const b = new Float64Array(Math.max(n, a.length * 2))
  b.set(a)
  return b
}

/** The A* search over one level; all buffers live on the instance. */
class Search {
  // grid (padded by one wall cell on every side)
  readonly W: number
  readonly N: number
  readonly off: Int32Array
  readonly floor: Uint8Array
  readonly isGoal: Uint8Array
  readonly dead: Uint8Array
  readonly goalDist: Uint16Array // [goal * N + cell]
  readonly k: number
  readonly S: number
  readonly zBox: Int32Array
  readonly zPlayer: Int32Array
  // scratch
  readonly boxAt: Uint8Array
  readonly tmpWall: Uint8Array
  readonly reach: Int32Array
  readonly reach2: Int32Array
  stamp = 0
  stamp2 = 0
  readonly queue: Int32Array
  readonly cur: Int32Array
  readonly child: Int32Array
  readonly dp: Int32Array
  // nodes
  states: Uint16Array
  parent: Int32Array
  gCost: Int32Array
  hCost: Int32Array
  moveFrom: Int32Array // box cell before the push
  moveDir: Int32Array
  hashes: Int32Array
  closed: Uint8Array
  count = 0
  // transposition table
  table: Int32Array
  mask: number
  // heap
  heapNode: Int32Array
  heapKey: Float64Array
  heapSize = 0

  constructor(
    readonly width: number,
    readonly height: number,
    walls: Uint8Array,
    goals: ReadonlyArray<number>,
    readonly startBoxes: ReadonlyArray<number>,
    readonly startPlayer: number
  ) {
    const W = width + 2
    const N = W * (height + 2)
    this.W = W
    this.N = N
    this.off = Int32Array.of(-W, W, -1, 1)
    this.floor = new Uint8Array(N)
    for (let r = 0; r < height; r++) {
      for (let c = 0; c < width; c++) if (walls[r * width + c] === 0) this.floor[(r + 1) * W + c + 1] = 1
    }
    this.k = goals.length
    this.S = this.k + 1
    this.isGoal = new Uint8Array(N)
    for (const g of goals) this.isGoal[g] = 1
    this.goalDist = new Uint16Array(this.k * N).fill(INF)
    this.queue = new Int32Array(N)
    for (let j = 0; j < this.k; j++) this.pullDistances(goals[j]!, j * N)
    this.dead = new Uint8Array(N)
    for (let x = 0; x < N; x++) {
      let live = false
      for (let j = 0; j < this.k && !live; j++) live = this.goalDist[j * N + x]! < INF
      this.dead[x] = live ? 0 : 1
    }
    // Zobrist keys from a fixed xorshift stream (deterministic across runs).
    this.zBox = new Int32Array(N)
    this.zPlayer = new Int32Array(N)
    let s = 0x9e3779b9 | 0
    const next = () => {
      s ^= s << 13
      s ^= s >>> 17
      s ^= s << 5
      return s
    }
    for (let i = 0; i < N; i++) {
      this.zBox[i] = next()
      this.zPlayer[i] = next()
    }
    this.boxAt = new Uint8Array(N)
    this.tmpWall = new Uint8Array(N)
    this.reach = new Int32Array(N)
    this.reach2 = new Int32Array(N)
    this.cur = new Int32Array(this.k)
    this.child = new Int32Array(this.k)
    this.dp = new Int32Array(this.k <= 12 ? 1 << this.k : 1)
    const cap = 1 << 14
    this.states = new Uint16Array(cap * this.S)
    this.parent = new Int32Array(cap)
    this.gCost = new Int32Array(cap)
    this.hCost = new Int32Array(cap)
    this.moveFrom = new Int32Array(cap)
    this.moveDir = new Int32Array(cap)
    this.hashes = new Int32Array(cap)
    this.closed = new Uint8Array(cap)
    this.table = new Int32Array(cap * 2)
    this.mask = cap * 2 - 1
    this.heapNode = new Int32Array(cap)
    this.heapKey = new Float64Array(cap)
  }

  /** Backward BFS: goalDist[base + x] = pushes to bring a lone box from x to goal g. */
  private pullDistances(g: number, base: number): void {
    const { off, floor, queue, goalDist } = this
    let head = 0
    let tail = 0
    goalDist[base + g] = 0
    queue[tail++] = g
    while (head < tail) {
      const y = queue[head++]!
      const dy = goalDist[base + y]!
      for (let d = 0; d < 4; d++) {
        const x = y - off[d]! // box came from x, pushed in direction d
        const p = x - off[d]! // player stood at p
        if (floor[x] === 1 && floor[p] === 1 && goalDist[base + x] === INF) {
          goalDist[base + x] = dy + 1
          queue[tail++] = x
        }
      }
    }
  }

  /** Minimum-cost matching of `boxes` to goals (INF when some box cannot be matched). */
  heuristic(boxes: Int32Array): number {
    const { k, N, goalDist } = this
    if (k > 12) {
      let sum = 0
      for (let i = 0; i < k; i++) {
        let best = INF
        for (let j = 0; j < k; j++) best = Math.min(best, goalDist[j * N + boxes[i]!]!)
        if (best === INF) return INF
        sum += best
      }
      return sum
    }
    const dp = this.dp
    const full = (1 << k) - 1
    dp.fill(INF)
    dp[0] = 0
    for (let m = 0; m < full; m++) {
      const base = dp[m]!
      if (base >= INF) continue
      // the next box to assign is popcount(m)
      let c = m - ((m >>> 1) & 0x55555555)
      c = (c & 0x33333333) + ((c >>> 2) & 0x33333333)
      const i = (((c + (c >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
      const x = boxes[i]!
      for (let j = 0; j < k; j++) {
        if ((m & (1 << j)) !== 0) continue
        const dist = goalDist[j * N + x]!
        if (dist === INF) continue
        const m2 = m | (1 << j)
        if (base + dist < dp[m2]!) dp[m2] = base + dist
      }
    }
    return dp[full]!
  }

  /** Flood the player's region from `p` around the boxes in `boxAt`; returns the smallest cell (normalized). */
  private flood(p: number, marks: Int32Array, stamp: number): number {
    const { off, floor, boxAt, queue } = this
    let head = 0
    let tail = 0
    let min = p
    marks[p] = stamp
    queue[tail++] = p
    while (head < tail) {
      const x = queue[head++]!
      if (x < min) min = x
      for (let d = 0; d < 4; d++) {
        const y = x + off[d]!
        if (floor[y] === 1 && boxAt[y] === 0 && marks[y] !== stamp) {
          marks[y] = stamp
          queue[tail++] = y
        }
      }
    }
    return min
  }

  /** 0: box at b can move; 1: frozen with every frozen box on a goal; 2: frozen with a box off goal. */
  private frozen(b: number): number {
    this.tmpWall[b] = 1
    let result = 0
    const h = this.axis(b, 1)
    if (h > 0) {
      const v = this.axis(b, this.W)
      if (v > 0) result = Math.max(this.isGoal[b] === 1 ? 1 : 2, h, v)
    }
    this.tmpWall[b] = 0
    return result
  }

  private axis(b: number, o: number): number {
    const { floor, tmpWall, dead, boxAt } = this
    const a = b - o
    const c = b + o
    if (floor[a] === 0 || floor[c] === 0 || tmpWall[a] === 1 || tmpWall[c] === 1) return 1
    if (dead[a] === 1 && dead[c] === 1) return 1
    if (boxAt[a] === 1) {
      const r = this.frozen(a)
      if (r > 0) return r
    }
    if (boxAt[c] === 1) {
      const r = this.frozen(c)
      if (r > 0) return r
    }
    return 0
  }

  private hashOf(boxes: Int32Array, player: number): number {
    let h = this.zPlayer[player]!
    for (let i = 0; i < this.k; i++) h ^= this.zBox[boxes[i]!]!
    return h
  }

  /** Find the node holding (boxes, player) with hash h, or -1; `slot` receives the empty slot otherwise. */
  private slot = 0
  private lookup(boxes: Int32Array, player: number, h: number): number {
    const { table, mask, states, S, k } = this
    let i = h & mask
    for (;;) {
      const e = table[i]!
      if (e === 0) {
        this.slot = i
        return -1
      }
      const n = e - 1
      if (this.hashes[n] === h) {
        const base = n * S
        let same = states[base + k] === player
        for (let j = 0; same && j < k; j++) same = states[base + j] === boxes[j]
        if (same) return n
      }
      i = (i + 1) & mask
    }
  }

  private rehash(): void {
    const size = this.table.length * 2
    this.table = new Int32Array(size)
    this.mask = size - 1
    for (let n = 0; n < this.count; n++) {
      let i = this.hashes[n]! & this.mask
      while (this.table[i] !== 0) i = (i + 1) & this.mask
      this.table[i] = n + 1
    }
  }

  private addNode(boxes: Int32Array, player: number, h: number, g: number, hc: number, par: number, from: number, dir: number): number {
    const n = this.count++
    if (n >= this.parent.length) {
      const cap = this.parent.length * 2
      this.states = grow16(this.states, cap * this.S)
      this.parent = grow32(this.parent, cap)
      this.gCost = grow32(this.gCost, cap)
      this.hCost = grow32(this.hCost, cap)
      this.moveFrom = grow32(this.moveFrom, cap)
      this.moveDir = grow32(this.moveDir, cap)
      this.hashes = grow32(this.hashes, cap)
      const c = new Uint8Array(cap)
      c.set(this.closed)
      this.closed = c
    }
    const base = n * this.S
    for (let j = 0; j < this.k; j++) this.states[base + j] = boxes[j]!
    this.states[base + this.k] = player
    this.parent[n] = par
    this.gCost[n] = g
    this.hCost[n] = hc
    this.moveFrom[n] = from
    this.moveDir[n] = dir
    this.hashes[n] = h
    this.table[this.slot] = n + 1
    if (this.count * 2 > this.table.length) this.rehash()
    return n
  }

  private push(n: number): void {
    // key: lower f first, then deeper (larger g) first
    const key = (this.gCost[n]! + this.hCost[n]!) * 65536 - this.gCost[n]!
    let i = this.heapSize++
    this.heapNode = grow32(this.heapNode, this.heapSize)
    this.heapKey = growF(this.heapKey, this.heapSize)
    const hn = this.heapNode
    const hk = this.heapKey
    while (i > 0) {
      const p = (i - 1) >> 1
      if (hk[p]! <= key) break
      hn[i] = hn[p]!
      hk[i] = hk[p]!
      i = p
    }
    hn[i] = n
    hk[i] = key
  }

  private popKey = 0
  private pop(): number {
    const hn = this.heapNode
    const hk = this.heapKey
    const top = hn[0]!
    this.popKey = hk[0]!
    const last = --this.heapSize
    if (last > 0) {
      const n = hn[last]!
      const key = hk[last]!
      let i = 0
      for (;;) {
        let c = 2 * i + 1
        if (c >= last) break
        if (c + 1 < last && hk[c + 1]! < hk[c]!) c++
        if (hk[c]! >= key) break
        hn[i] = hn[c]!
        hk[i] = hk[c]!
        i = c
      }
      hn[i] = n
      hk[i] = key
    }
    return top
  }

  /** Run A*; returns the goal node, -1 when the open list empties, -2 when the budget ran out. */
  run(maxNodes: number, deadline: number): { goal: number; expanded: number } {
    const { k, S, off, floor, dead, boxAt, cur, child, reach, reach2 } = this
    for (let i = 0; i < k; i++) cur[i] = this.startBoxes[i]!
    cur.sort()
    for (let i = 0; i < k; i++) {
      if (dead[cur[i]!] === 1 && this.isGoal[cur[i]!] === 0) return { goal: -1, expanded: 0 }
      boxAt[cur[i]!] = 1
    }
    for (let i = 0; i < k; i++) {
      if (this.frozen(cur[i]!) === 2) {
        boxAt.fill(0)
        return { goal: -1, expanded: 0 }
      }
    }
    const p0 = this.flood(this.startPlayer, reach, ++this.stamp)
    for (let i = 0; i < k; i++) boxAt[cur[i]!] = 0
    const h0 = this.heuristic(cur)
    if (h0 >= INF) return { goal: -1, expanded: 0 }
    this.lookup(cur, p0, this.hashOf(cur, p0))
    const root = this.addNode(cur, p0, this.hashOf(cur, p0), 0, h0, -1, -1, -1)
    if (h0 === 0) return { goal: root, expanded: 0 }
    this.push(root)
    let expanded = 0
    while (this.heapSize > 0) {
      const n = this.pop()
      if (this.closed[n] === 1) continue
      const g = this.gCost[n]!
      if (this.popKey !== (g + this.hCost[n]!) * 65536 - g) continue // stale entry
      if (expanded >= maxNodes || ((expanded & 1023) === 0 && deadline < Infinity && performance.now() > deadline)) {
        return { goal: -2, expanded }
      }
      this.closed[n] = 1
      expanded++
      const base = n * S
      for (let i = 0; i < k; i++) {
        cur[i] = this.states[base + i]!
        boxAt[cur[i]!] = 1
      }
      this.flood(this.states[base + k]!, reach, ++this.stamp)
      const stamp = this.stamp
      let goal = -1
      for (let i = 0; i < k && goal < 0; i++) {
        const b = cur[i]!
        for (let d = 0; d < 4; d++) {
          const o = off[d]!
          const t = b + o
          if (reach[b - o] !== stamp || floor[t] === 0 || boxAt[t] === 1 || dead[t] === 1) continue
          boxAt[b] = 0
          boxAt[t] = 1
          let pruned = this.frozen(t) === 2
          let hc = 0
          if (!pruned) {
            // child boxes: cur with b replaced by t, kept sorted (insertion)
            let j = 0
            for (let m = 0; m < k; m++) if (m !== i) child[j++] = cur[m]!
            let pos = k - 1
            while (pos > 0 && child[pos - 1]! > t) {
              child[pos] = child[pos - 1]!
              pos--
            }
            child[pos] = t
            hc = this.heuristic(child)
            pruned = hc >= INF
          }
          if (!pruned) {
            const p = this.flood(b, reach2, ++this.stamp2)
            const h = this.hashOf(child, p)
            const existing = this.lookup(child, p, h)
            if (existing < 0) {
              const c = this.addNode(child, p, h, g + 1, hc, n, b, d)
              if (hc === 0) goal = c
              else this.push(c)
            } else if (this.closed[existing] === 0 && g + 1 < this.gCost[existing]!) {
              this.gCost[existing] = g + 1
              this.parent[existing] = n
              this.moveFrom[existing] = b
              this.moveDir[existing] = d
              this.push(existing)
            }
          }
          boxAt[t] = 0
          boxAt[b] = 1
          if (goal >= 0) break
        }
      }
      for (let i = 0; i < k; i++) boxAt[cur[i]!] = 0
      if (goal >= 0) return { goal, expanded }
    }
    return { goal: -1, expanded }
  }

  /** Turn the push sequence ending at `goal` into LURD moves and action ids. */
  plan(goal: number): { moves: string; actions: Array<number>; pushes: number } {
    const pushes: Array<number> = []
    for (let n = goal; this.parent[n]! >= 0; n = this.parent[n]!) pushes.push(n)
    pushes.reverse()
    const { off, floor, boxAt, queue, reach } = this
    const from = new Int32Array(this.N)
    for (const b of this.startBoxes) boxAt[b] = 1
    let player = this.startPlayer
    let moves = ""
    const actions: Array<number> = []
    for (const n of pushes) {
      const b = this.moveFrom[n]!
      const d = this.moveDir[n]!
      const target = b - off[d]!
      // BFS from the player to the pushing position, recording the direction that entered each cell
      const stamp = ++this.stamp
      let head = 0
      let tail = 0
      reach[player] = stamp
      queue[tail++] = player
      while (head < tail && reach[target] !== stamp) {
        const x = queue[head++]!
        for (let e = 0; e < 4; e++) {
          const y = x + off[e]!
          if (floor[y] === 1 && boxAt[y] === 0 && reach[y] !== stamp) {
            reach[y] = stamp
            from[y] = e
            queue[tail++] = y
          }
        }
      }
      const walk: Array<number> = []
      for (let x = target; x !== player; x -= off[from[x]!]!) walk.push(from[x]!)
      for (let w = walk.length - 1; w >= 0; w--) {
        moves += LURD[walk[w]!]
        actions.push(MOVE_ACTION + walk[w]!)
      }
      moves += LURD[d]!.toUpperCase()
      actions.push(PUSH_ACTION + d)
      boxAt[b] = 0
      boxAt[b + off[d]!] = 1
      player = b
    }
    boxAt.fill(0)
    return { moves, actions, pushes: pushes.length }
  }
}

/**
 * Solve a level: find a push-optimal plan, prove it unsolvable, or give up at the budget.
 *
 * @param level - any size; cells outside the player's reachable area are ignored.
 * @param options - `maxNodes` expansions (default 1,000,000), `maxSeconds` (default none).
 * @returns a {@link Solution}; `actions` replayed in `Sokoban-v0` from the level's start solve it.
 * @throws never.
 * @category solvers
 */
export const solve = (level: Level, options: SolveOptions = {}): Solution => {
  const t0 = performance.now()
  const maxNodes = options.maxNodes ?? 1_000_000
  const deadline = options.maxSeconds === undefined ? Infinity : t0 + options.maxSeconds * 1000
  const { width, height } = level
  const W = width + 2
  const pad = (cell: number) => (Math.floor(cell / width) + 1) * W + (cell % width) + 1
  // Keep only boxes and goals in the player's area; a box sealed off outside it is fine only on a goal.
  const inside = new Uint8Array(width * height)
  const stack = [level.player]
  inside[level.player] = 1
  while (stack.length > 0) {
    const x = stack.pop()!
    const r = Math.floor(x / width)
    const c = x % width
    const nb = [r > 0 ? x - width : -1, r < height - 1 ? x + width : -1, c > 0 ? x - 1 : -1, c < width - 1 ? x + 1 : -1]
    for (const y of nb) {
      if (y >= 0 && inside[y] === 0 && level.walls[y] === 0) {
        inside[y] = 1
        stack.push(y)
      }
    }
  }
  const walls = new Uint8Array(width * height)
  for (let i = 0; i < walls.length; i++) walls[i] = inside[i] === 1 ? 0 : 1
  const goalSet = new Set(level.goals)
  const boxes: Array<number> = []
  const goals: Array<number> = []
  let ok = level.boxes.length === level.goals.length
  for (const b of level.boxes) {
    if (inside[b] === 1) boxes.push(pad(b))
    else if (!goalSet.has(b)) ok = false
  }
  for (const g of level.goals) if (inside[g] === 1) goals.push(pad(g))
  ok &&= boxes.length === goals.length
  const done = (status: Solution["status"], nodesExpanded: number, nodesStored: number): Solution => ({
    status,
    pushes: 0,
    moves: "",
    actions: [],
    nodesExpanded,
    nodesStored,
    seconds: (performance.now() - t0) / 1000
  })
  if (!ok) return done("unsolvable", 0, 0)
  const search = new Search(width, height, walls, goals, boxes, pad(level.player))
  const { goal, expanded } = search.run(maxNodes, deadline)
  if (goal === -1) return done("unsolvable", expanded, search.count)
  if (goal === -2) return done("budget-exceeded", expanded, search.count)
  const plan = search.plan(goal)
  return {
    status: "solved",
    pushes: plan.pushes,
    moves: plan.moves,
    actions: plan.actions,
    nodesExpanded: expanded,
    nodesStored: search.count,
    seconds: (performance.now() - t0) / 1000
  }
}

/** Options of {@link solveLevels}. */
export interface SolveLevelsOptions extends SolveOptions {
  /** Solve only the first `limit` levels (default all). */
  readonly limit?: number | undefined
}

/** Summary of {@link solveLevels}. */
export interface SolveSummary {
  /** Levels solved. */
  readonly solved: number
  /** Levels attempted. */
  readonly total: number
  /** Levels proven unsolvable. */
  readonly unsolvable: number
  /** Mean plan length in actions (moves + pushes) over solved levels; NaN when none was solved. */
  readonly meanPlanLength: number
  /** Mean pushes over solved levels; NaN when none was solved. */
  readonly meanPushes: number
  /** Total wall-clock seconds. */
  readonly seconds: number
  /** Per-level results, in order. */
  readonly results: ReadonlyArray<Solution>
}

/**
 * Solve the first `limit` levels one after another with the same budget per level.
 * @throws never.
 * @category solvers
 */
export const solveLevels = (levels: ReadonlyArray<Level>, options: SolveLevelsOptions = {}): SolveSummary => {
  const t0 = performance.now()
  const n = Math.min(levels.length, options.limit ?? levels.length)
  const results: Array<Solution> = []
  let solved = 0
  let unsolvable = 0
  let length = 0
  let pushes = 0
  for (let i = 0; i < n; i++) {
    const r = solve(levels[i]!, options)
    results.push(r)
    if (r.status === "solved") {
      solved++
      length += r.actions.length
      pushes += r.pushes
    } else if (r.status === "unsolvable") unsolvable++
  }
  return {
    solved,
    total: n,
    unsolvable,
    meanPlanLength: solved === 0 ? Number.NaN : length / solved,
    meanPushes: solved === 0 ? Number.NaN : pushes / solved,
    seconds: (performance.now() - t0) / 1000,
    results
  }
}
