/**
 * Rng throughput: `Rng.random()` and `Rng.fillRandom()` (PCG64, NumPy's stream) against, in the same run, the generic
 * 16-bit-limb loop `Rng` used before (kept here as the baseline, checked to give the same stream) and V8's
 * `Math.random()` (xorshift128+, not reproducible across runs: the speed ceiling of a JS uniform).
 *
 *   cd packages/core && node --import tsx --conditions=@autodidact/source bench/rng.ts [DRAWS=5000000]
 */
import { Rng } from "@autodidact/core"

const draws = Number(process.argv[2] ?? 5_000_000)
const MULT = [0xf645, 0x9fcc, 0xdf64, 0x4385, 0x5da4, 0x1fc6, 0xed05, 0x2360]

/** The previous implementation: same state layout and output, the step as a generic loop with `%` and a division. */
class GenericLoopPcg64 {
  private readonly s: Float64Array
  private readonly c: Float64Array
  private readonly t = new Float64Array(8)
  constructor(rng: Rng) {
    const st = rng.getState()
    this.s = Float64Array.from(st.state)
    this.c = Float64Array.from(st.inc)
  }
  random(): number {
    const s = this.s
    let carry = 0
    for (let k = 0; k < 8; k++) {
      let acc = carry + this.c[k]!
      for (let i = 0; i <= k; i++) acc += s[i]! * MULT[k - i]!
      const low = acc % 65536
      this.t[k] = low
      carry = (acc - low) / 65536
    }
    s.set(this.t)
    const xh = ((s[7]! << 16) | s[6]!) ^ ((s[3]! << 16) | s[2]!)
    const xl = ((s[5]! << 16) | s[4]!) ^ ((s[1]! << 16) | s[0]!)
    let rot = s[7]! >>> 10
    let h = xh
    let l = xl
    if (rot >= 32) {
      h = xl
      l = xh
      rot -= 32
    }
    const hi = rot === 0 ? h >>> 0 : ((h >>> rot) | (l << (32 - rot))) >>> 0
    const lo = rot === 0 ? l >>> 0 : ((l >>> rot) | (h << (32 - rot))) >>> 0
    return (hi * 2097152 + (lo >>> 11)) * 1.1102230246251565e-16
  }
}

// same stream check
const check = Rng.make(99)
const legacy = new GenericLoopPcg64(Rng.make(99))
for (let i = 0; i < 100_000; i++) {
  if (check.random() !== legacy.random()) throw new Error(`the baseline diverges from Rng at draw ${i}`)
}

const time = (f: () => number): { ms: number; sink: number } => {
  const t0 = performance.now()
  const sink = f()
  return { ms: performance.now() - t0, sink }
}

const rows: Array<{ what: string; ms: number }> = []
let sink = 0
for (let round = 0; round < 3; round++) {
  const rng = Rng.make(round)
  const base = new GenericLoopPcg64(Rng.make(round))
  const out = new Float64Array(draws)
  const cases: Array<[string, () => number]> = [
    ["generic loop (previous Rng), random()", () => { let s = 0; for (let i = 0; i < draws; i++) s += base.random(); return s }],
    ["Rng.random()", () => { let s = 0; for (let i = 0; i < draws; i++) s += rng.random(); return s }],
    ["Rng.fillRandom(Float64Array)", () => rng.fillRandom(out)[draws - 1]!],
    ["Math.random() (not reproducible)", () => { let s = 0; for (let i = 0; i < draws; i++) s += Math.random(); return s }]
  ]
  for (const [what, f] of cases) {
    const r = time(f)
    sink += r.sink
    if (round > 0) rows.push({ what, ms: r.ms }) // round 0 warms up
  }
}
const best = new Map<string, number>()
for (const r of rows) best.set(r.what, Math.min(best.get(r.what) ?? Infinity, r.ms))
const baseline = best.get("generic loop (previous Rng), random()")!
console.log(`${draws.toLocaleString("en-US")} uniform draws, best of 2 rounds after a warm-up (sink ${sink.toFixed(1)})`)
console.log("| generator | ns/draw | draws/s | vs generic loop |")
console.log("|:--|--:|--:|--:|")
for (const [what, ms] of best) {
  console.log(`| ${what} | ${((ms * 1e6) / draws).toFixed(1)} | ${Math.round((draws / ms) * 1000).toLocaleString("en-US")} | ${(baseline / ms).toFixed(2)}x |`)
}
