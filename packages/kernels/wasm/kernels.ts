/**
 * AssemblyScript sources of the `wasm-simd` kernels (compiled by `scripts/build-wasm.ts` with `--enable simd` into
 * `src/generated/wasmSimdBinary.ts`; see `src/engines/WasmSimd.ts` for the JavaScript side).
 *
 * Conventions: every argument is a byte offset into the module's single exported memory, laid out by the caller
 * (16-byte aligned); nothing here allocates (runtime `stub`; the only static data are the standard library's
 * `Math.exp`/`Mathf.log` tables, below 4 KiB). Bad input is *flagged* (a return value
 * or a count), never trapped: the caller then runs the typed-array validator that names the offending element.
 *
 * Numerics: `expv` is a float32x4 exp (Cody–Waite range reduction by ln 2 with the round-to-nearest magic number,
 * degree-7 Taylor polynomial on |r| ≤ ln2/2, whose truncation error is < 1e-8 relative, 2^k by exponent-field
 * construction). Inputs below −87.3 are clamped (exp ≈ 1e-38 instead of underflowing to 0), inputs above 88 saturate
 * at e^88.
 */

// ---------------------------------------------------------------------------------------------- helpers

const LOG2E: f32 = 1.4426950408889634
const LN2_HI: f32 = 0.693145751953125
const LN2_LO: f32 = 1.428606765330187e-6

const MAGIC: f32 = 12582912.0 // 1.5 · 2^23: adding it rounds to the nearest integer, which lands in the low mantissa bits

function expv(x0: v128): v128 {
  // pmin/pmax are single SSE instructions (min/max carry NaN/−0 fix-ups); a NaN input stays NaN
  const x = f32x4.pmax(f32x4.pmin(x0, f32x4.splat(88.0)), f32x4.splat(-87.3))
  const t = f32x4.add(f32x4.mul(x, f32x4.splat(LOG2E)), f32x4.splat(MAGIC))
  const k = f32x4.sub(t, f32x4.splat(MAGIC))
  let r = f32x4.sub(x, f32x4.mul(k, f32x4.splat(LN2_HI)))
  r = f32x4.sub(r, f32x4.mul(k, f32x4.splat(LN2_LO)))
  let p = f32x4.splat(1.0 / 5040.0)
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.0 / 720.0))
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.0 / 120.0))
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.0 / 24.0))
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.0 / 6.0))
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(0.5))
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.0))
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.0))
  // the bits of t are those of MAGIC plus k: shifting k + 127 into the exponent field drops MAGIC's bits
  const scale = i32x4.shl(i32x4.add(t, i32x4.splat(127)), 23)
  return f32x4.mul(p, scale)
}

/** Scalar exp with the same arithmetic as {@link expv} (row tails). */
function exps(x: f32): f32 {
  return f32x4.extract_lane(expv(f32x4.splat(x)), 0)
}

function hsum(v: v128): f32 {
  return f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1) + f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3)
}

function hsum64(v: v128): f64 {
  return f64x2.extract_lane(v, 0) + f64x2.extract_lane(v, 1)
}

function hmax(v: v128): f32 {
  return max(max(f32x4.extract_lane(v, 0), f32x4.extract_lane(v, 1)), max(f32x4.extract_lane(v, 2), f32x4.extract_lane(v, 3)))
}

/** Lanes where `m` is neither 0 nor 1 (all ones), else 0. */
function notBinary(m: v128): v128 {
  return v128.and(f32x4.ne(m, f32x4.splat(0)), f32x4.ne(m, f32x4.splat(1)))
}

/** Lanes where `x` is NaN or ±Infinity. */
function nonFinite(x: v128): v128 {
  const d = f32x4.sub(x, x)
  return f32x4.ne(d, d) // x − x is NaN exactly for NaN and ±Infinity
}

// ---------------------------------------------------------------------------------------------- log-softmax

/**
 * Masked log-softmax statistics of row `b`: writes `e_a = exp(z_a − m)` (0 where masked) to `scratch` and returns
 * via globals the max, the sum S and Σ e_a (z_a − m). Returns false for a row with no valid action, a non-finite
 * valid logit, or a mask value other than 0/1.
 */
let rowMax: f32 = 0
let rowSum: f32 = 0
let rowWeighted: f32 = 0

function rowStats(z: usize, m: usize, A: i32, scratch: usize): bool {
  const A4 = A & ~3
  let vmax = f32x4.splat(-Infinity)
  let bad = i32x4.splat(0)
  let any = i32x4.splat(0)
  const ninf = f32x4.splat(-Infinity)
  let a = 0
  for (; a < A4; a += 4) {
    const off = <usize>a << 2
    const zv = v128.load(z + off)
    if (m != 0) {
      const mv = v128.load(m + off)
      const valid = f32x4.eq(mv, f32x4.splat(1))
      bad = v128.or(bad, v128.or(notBinary(mv), v128.and(valid, nonFinite(zv))))
      any = v128.or(any, valid)
      vmax = f32x4.pmax(vmax, v128.bitselect(zv, ninf, valid))
    } else {
      bad = v128.or(bad, nonFinite(zv))
      vmax = f32x4.pmax(vmax, zv)
    }
  }
  let mx = hmax(vmax)
  let badS = v128.any_true(bad)
  let anyS = m == 0 || v128.any_true(any)
  for (; a < A; a++) {
    const off = <usize>a << 2
    const zs = load<f32>(z + off)
    if (m != 0) {
      const ms = load<f32>(m + off)
      if (ms == 0) continue
      if (ms != 1) badS = true
    }
    anyS = true
    if (zs - zs != 0) badS = true
    mx = max(mx, zs)
  }
  if (badS || !anyS) return false
  const vm = f32x4.splat(mx)
  let vs = f32x4.splat(0)
  let vw = f32x4.splat(0)
  const zero = f32x4.splat(0)
  for (a = 0; a < A4; a += 4) {
    const off = <usize>a << 2
    const d = f32x4.sub(v128.load(z + off), vm)
    let e = expv(d)
    if (m != 0) {
      const valid = f32x4.eq(v128.load(m + off), f32x4.splat(1))
      e = v128.bitselect(e, zero, valid)
      vw = f32x4.add(vw, v128.bitselect(f32x4.mul(e, d), zero, valid))
    } else {
      vw = f32x4.add(vw, f32x4.mul(e, d))
    }
    vs = f32x4.add(vs, e)
    v128.store(scratch + off, e)
  }
  let s = hsum(vs)
  let w = hsum(vw)
  for (; a < A; a++) {
    const off = <usize>a << 2
    let e: f32 = 0
    if (m == 0 || load<f32>(m + off) == 1) {
      const d = load<f32>(z + off) - mx
      e = exps(d)
      s += e
      w += e * d
    }
    store<f32>(scratch + off, e)
  }
  rowMax = mx
  rowSum = s
  rowWeighted = w
  return true
}

/**
 * Masked log-softmax and entropy of `[B, A]` float32 logits `z` (mask `m`: 0/1 floats, or 0 = no mask) into
 * `logProbs` `[B, A]` (−∞ where masked) and `entropy` `[B]`. `scratch`: `A` floats. Returns the number of bad rows
 * (0 on valid input).
 */
export function logSoftmax(z: usize, m: usize, B: i32, A: i32, logProbs: usize, entropy: usize, scratch: usize): i32 {
  let bad = 0
  const A4 = A & ~3
  const rowBytes = <usize>A << 2
  const ninf = f32x4.splat(-Infinity)
  for (let b = 0; b < B; b++) {
    const zr = z + <usize>b * rowBytes
    const mr: usize = m == 0 ? 0 : m + <usize>b * rowBytes
    const lr = logProbs + <usize>b * rowBytes
    if (!rowStats(zr, mr, A, scratch)) {
      bad++
      store<f32>(entropy + (<usize>b << 2), NaN)
      continue
    }
    const logS = Mathf.log(rowSum)
    const lse = f32x4.splat(rowMax + logS)
    store<f32>(entropy + (<usize>b << 2), logS - rowWeighted / rowSum)
    let a = 0
    for (; a < A4; a += 4) {
      const off = <usize>a << 2
      let lp = f32x4.sub(v128.load(zr + off), lse)
      if (mr != 0) lp = v128.bitselect(lp, ninf, f32x4.eq(v128.load(mr + off), f32x4.splat(1)))
      v128.store(lr + off, lp)
    }
    const lseS = rowMax + logS
    for (; a < A; a++) {
      const off = <usize>a << 2
      store<f32>(lr + off, mr != 0 && load<f32>(mr + off) != 1 ? -Infinity : load<f32>(zr + off) - lseS)
    }
  }
  return bad
}

// ---------------------------------------------------------------------------------------------- KL

/**
 * KL estimates of `n` samples: `x = p − q`; estimator 1: −x, 2: ½x², 3: e^x − 1 − x (a series for |x| < ½, no
 * cancellation). Writes `values` (float32; skipped when `values` is 0: the mean alone) and returns Σ values (float32
 * partial sums over blocks of 256 samples, added in doubles); NaN or ±Infinity when an input is NaN/±Infinity (every
 * estimator maps those to a non-finite value). The main loop takes 8 samples (two vectors) per step.
 */
export function kl(q: usize, p: usize, n: i32, estimator: i32, values: usize): f64 {
  const n8 = n & ~7
  let sum: f64 = 0
  const half = f32x4.splat(0.5)
  const keep = values != 0
  let i = 0
  while (i < n8) {
    const end = min(n8, i + 256)
    let acc0 = f32x4.splat(0)
    let acc1 = f32x4.splat(0)
    for (; i < end; i += 8) {
      const off = <usize>i << 2
      const x0 = f32x4.sub(v128.load(p + off), v128.load(q + off))
      const x1 = f32x4.sub(v128.load(p + off, 16), v128.load(q + off, 16))
      let v0: v128
      let v1: v128
      if (estimator == 3) {
        // one range check for both vectors (the usual case: every |log r| < ½)
        if (v128.all_true<i32>(f32x4.lt(f32x4.pmax(f32x4.abs(x0), f32x4.abs(x1)), f32x4.splat(0.5)))) {
          v0 = k3poly(x0)
          v1 = k3poly(x1)
        } else {
          v0 = k3v(x0)
          v1 = k3v(x1)
        }
      } else if (estimator == 2) {
        v0 = f32x4.mul(half, f32x4.mul(x0, x0))
        v1 = f32x4.mul(half, f32x4.mul(x1, x1))
      } else {
        v0 = f32x4.neg(x0)
        v1 = f32x4.neg(x1)
      }
      if (keep) {
        v128.store(values + off, v0)
        v128.store(values + off, v1, 16)
      }
      acc0 = f32x4.add(acc0, v0)
      acc1 = f32x4.add(acc1, v1)
    }
    sum += <f64>hsum(f32x4.add(acc0, acc1))
  }
  for (; i < n; i++) {
    const off = <usize>i << 2
    const x = load<f32>(p + off) - load<f32>(q + off)
    const v: f32 = estimator == 1 ? -x : estimator == 2 ? 0.5 * x * x : f32x4.extract_lane(k3v(f32x4.splat(x)), 0)
    if (keep) store<f32>(values + off, v)
    sum += <f64>v
  }
  return sum
}

/**
 * The three KL sums in one pass over `n` samples (`x = p − q`): writes Σ k1, Σ k2, Σ k3 as doubles to `out[0..2]`
 * (float32 per sample, float32 partial sums over blocks of 256 samples added in doubles, as {@link kl}). Non-finite
 * inputs make the sums non-finite.
 */
export function klSums(q: usize, p: usize, n: i32, out: usize): void {
  const n8 = n & ~7
  let s1: f64 = 0
  let s2: f64 = 0
  let s3: f64 = 0
  const half = f32x4.splat(0.5)
  let i = 0
  while (i < n8) {
    const end = min(n8, i + 256)
    let a1 = f32x4.splat(0)
    let a2 = f32x4.splat(0)
    let a3 = f32x4.splat(0)
    for (; i < end; i += 8) {
      const off = <usize>i << 2
      const x0 = f32x4.sub(v128.load(p + off), v128.load(q + off))
      const x1 = f32x4.sub(v128.load(p + off, 16), v128.load(q + off, 16))
      a1 = f32x4.sub(a1, f32x4.add(x0, x1))
      a2 = f32x4.add(a2, f32x4.mul(half, f32x4.add(f32x4.mul(x0, x0), f32x4.mul(x1, x1))))
      if (v128.all_true<i32>(f32x4.lt(f32x4.pmax(f32x4.abs(x0), f32x4.abs(x1)), f32x4.splat(0.5)))) {
        a3 = f32x4.add(a3, f32x4.add(k3poly(x0), k3poly(x1)))
      } else {
        a3 = f32x4.add(a3, f32x4.add(k3v(x0), k3v(x1)))
      }
    }
    s1 += <f64>hsum(a1)
    s2 += <f64>hsum(a2)
    s3 += <f64>hsum(a3)
  }
  for (; i < n; i++) {
    const off = <usize>i << 2
    const x = load<f32>(p + off) - load<f32>(q + off)
    s1 -= <f64>x
    s2 += <f64>(0.5 * x * x)
    s3 += <f64>f32x4.extract_lane(k3v(f32x4.splat(x)), 0)
  }
  store<f64>(out, s1)
  store<f64>(out + 8, s2)
  store<f64>(out + 16, s3)
}

// near-minimax coefficients of P(x) = (e^x − 1 − x) / x² on |x| ≤ ½ (a Lawson-weighted least-squares fit in
// relative error; max relative error 2.4e-8 in doubles, below float32's half ulp): degree 5 instead of the Taylor
// series' degree 7 for the same accuracy
const K3C0: f32 = 0.5000000120138168
const K3C1: f32 = 0.16666665455795293
const K3C2: f32 = 0.041665795940082406
const K3C3: f32 = 0.008333452177752214
const K3C4: f32 = 0.0013981997551613633
const K3C5: f32 = 0.00019875627995901736

/** x²·P(x), accurate for |x| < ½ (Estrin's scheme; no cancellation). */
function k3poly(x: v128): v128 {
  const x2 = f32x4.mul(x, x)
  const p01 = f32x4.add(f32x4.splat(K3C0), f32x4.mul(x, f32x4.splat(K3C1)))
  const p23 = f32x4.add(f32x4.splat(K3C2), f32x4.mul(x, f32x4.splat(K3C3)))
  const p45 = f32x4.add(f32x4.splat(K3C4), f32x4.mul(x, f32x4.splat(K3C5)))
  return f32x4.mul(f32x4.add(p01, f32x4.mul(x2, f32x4.add(p23, f32x4.mul(x2, p45)))), x2)
}

function k3v(x: v128): v128 {
  // x²·P(x) for |x| < 0.5, e^x − 1 − x elsewhere
  const s = k3poly(x)
  const small = f32x4.lt(f32x4.abs(x), f32x4.splat(0.5))
  if (v128.all_true<i32>(small)) return s
  // expv saturates at e^88: beyond, +Infinity, so that the sum flags it and the caller answers with the reference
  const big = v128.bitselect(f32x4.splat(Infinity), f32x4.sub(f32x4.sub(expv(x), f32x4.splat(1)), x), f32x4.gt(x, f32x4.splat(88)))
  return v128.bitselect(s, big, small)
}

// ---------------------------------------------------------------------------------------------- PPO loss

/**
 * PPO clipped surrogate + (clipped) value loss + entropy bonus over `[B, A]` float32 logits, with ∂loss/∂logits
 * (float64, `dLogits` `[B, A]`) and ∂loss/∂values (float64, `dValues` `[B]`). `actions` int32 `[B]`; the `[B]`
 * float32 arrays `oldLogProbs`, `adv`, `values`, `oldValues`, `returns`. Writes `[loss, pg, v, entropy, approxKl,
 * clipFraction]` as doubles to `parts`. `scratch`: `A` floats. Returns the number of bad rows (invalid logits or
 * mask, or a non-finite [B] input; the parts are then NaN).
 */
export function ppoLoss(
  z: usize, m: usize, B: i32, A: i32, actions: usize, oldLogProbs: usize, adv: usize, values: usize, oldValues: usize,
  returns: usize, c: f64, cv: f64, clipVloss: i32, ent: f64, vf: f64, dLogits: usize, dValues: usize, parts: usize, scratch: usize
): i32 {
  let bad = 0
  let pgLoss: f64 = 0
  let vLoss: f64 = 0
  let entropy: f64 = 0
  let approxKl: f64 = 0
  let clipped: f64 = 0
  const A4 = A & ~3
  const rowBytes = <usize>A << 2
  const invB: f64 = 1.0 / <f64>B
  const one = f32x4.splat(1)
  const zero = f32x4.splat(0)
  const entF = <f32>ent
  const entv = f32x4.splat(entF)
  for (let b = 0; b < B; b++) {
    const zr = z + <usize>b * rowBytes
    const mr: usize = m == 0 ? 0 : m + <usize>b * rowBytes
    const dr = dLogits + (<usize>b * rowBytes << 1)
    const bo = <usize>b << 2
    const action = load<i32>(actions + bo)
    if (<u32>action >= <u32>A) {
      bad++
      continue
    }
    const ok = rowStats(zr, mr, A, scratch)
    if (!ok) {
      bad++
      continue
    }
    const logS = Mathf.log(rowSum)
    const lse = rowMax + logS
    const h = <f64>(logS - rowWeighted / rowSum)
    entropy += h
    const logRatio = <f64>(load<f32>(zr + (<usize>action << 2)) - lse) - <f64>load<f32>(oldLogProbs + bo)
    const ratio = Math.exp(logRatio)
    approxKl += ratio - 1 - logRatio
    if (Math.abs(ratio - 1) > c) clipped += 1
    const a_ = <f64>load<f32>(adv + bo)
    const pg1 = -a_ * ratio
    const pg2 = -a_ * Math.min(Math.max(ratio, 1 - c), 1 + c)
    pgLoss += pg1 >= pg2 ? pg1 : pg2
    const g = pg1 >= pg2 ? -a_ * ratio : 0
    if (!(pg1 - pg1 == 0) || !(pg2 - pg2 == 0)) bad++
    // ∂/∂z_a = (g · ([a = action] − π_a) + ent · π_a · (log π_a + H)) / B, with π_a = e_a / S, log π_a = z_a − lse
    const invS = f32x4.splat(1 / rowSum)
    const gv = f32x4.splat(<f32>g)
    const lsev = f32x4.splat(lse)
    const hv = f32x4.splat(<f32>h)
    const ib = f64x2.splat(invB)
    let a = 0
    for (; a < A4; a += 4) {
      const off = <usize>a << 2
      const p = f32x4.mul(v128.load(scratch + off), invS)
      const lp = f32x4.sub(v128.load(zr + off), lsev)
      const idx = i32x4.add(i32x4.splat(a), i32x4(0, 1, 2, 3))
      const onehot = v128.and(i32x4.eq(idx, i32x4.splat(action)), one)
      let d = f32x4.add(f32x4.mul(gv, f32x4.sub(onehot, p)), f32x4.mul(entv, f32x4.mul(p, f32x4.add(lp, hv))))
      if (mr != 0) d = v128.bitselect(d, zero, f32x4.eq(v128.load(mr + off), one))
      v128.store(dr + (off << 1), f64x2.mul(f64x2.promote_low_f32x4(d), ib))
      v128.store(dr + (off << 1) + 16, f64x2.mul(f64x2.promote_low_f32x4(i32x4.shuffle(d, d, 2, 3, 0, 1)), ib))
    }
    for (; a < A; a++) {
      const off = <usize>a << 2
      let d: f64 = 0
      if (mr == 0 || load<f32>(mr + off) == 1) {
        const p = <f64>(load<f32>(scratch + off) / rowSum)
        const lp = <f64>(load<f32>(zr + off) - lse)
        d = (g * ((a == action ? 1 : 0) - p) + ent * p * (lp + h)) * invB
      }
      store<f64>(dr + (off << 1), d)
    }
    const v = <f64>load<f32>(values + bo)
    const ret = <f64>load<f32>(returns + bo)
    const diff = v - ret
    let dV: f64
    if (clipVloss != 0) {
      const old = <f64>load<f32>(oldValues + bo)
      const vClipped = old + Math.min(Math.max(v - old, -cv), cv)
      const un = diff * diff
      const cl = (vClipped - ret) * (vClipped - ret)
      vLoss += un >= cl ? un : cl
      dV = un >= cl ? diff : Math.abs(v - old) <= cv ? vClipped - ret : 0
      if (!(cl - cl == 0)) bad++
    } else {
      vLoss += diff * diff
      dV = diff
    }
    if (!(diff - diff == 0)) bad++
    store<f64>(dValues + (<usize>b << 3), vf * dV * invB)
  }
  pgLoss *= invB
  vLoss = 0.5 * vLoss * invB
  entropy *= invB
  store<f64>(parts, pgLoss - ent * entropy + vf * vLoss)
  store<f64>(parts + 8, pgLoss)
  store<f64>(parts + 16, vLoss)
  store<f64>(parts + 24, entropy)
  store<f64>(parts + 32, approxKl * invB)
  store<f64>(parts + 40, clipped * invB)
  return bad
}

// ---------------------------------------------------------------------------------------------- top-k

/** Sift the root of the min-heap (worst at the root: lower score, then higher index) down. */
function siftDown(hs: usize, hi: usize, k: i32): void {
  let i = 0
  const s = load<f32>(hs)
  const ix = load<i32>(hi)
  while (true) {
    const l = 2 * i + 1
    if (l >= k) break
    let c = l
    const r = l + 1
    if (r < k) {
      const sl = load<f32>(hs + (<usize>l << 2))
      const sr = load<f32>(hs + (<usize>r << 2))
      if (sr < sl || (sr == sl && load<i32>(hi + (<usize>r << 2)) > load<i32>(hi + (<usize>l << 2)))) c = r
    }
    const sc = load<f32>(hs + (<usize>c << 2))
    if (sc < s || (sc == s && load<i32>(hi + (<usize>c << 2)) > ix)) {
      store<f32>(hs + (<usize>i << 2), sc)
      store<i32>(hi + (<usize>i << 2), load<i32>(hi + (<usize>c << 2)))
      i = c
    } else break
  }
  store<f32>(hs + (<usize>i << 2), s)
  store<i32>(hi + (<usize>i << 2), ix)
}

let badQuery: i32 = -1
let badRow: i32 = -1

/** The (query, row) of the first non-finite score of the last {@link topK} call that returned false. */
export function topKBadQuery(): i32 {
  return badQuery
}
export function topKBadRow(): i32 {
  return badRow
}

function offer(q: i32, j: i32, s: f32, scale: usize, invRow: usize, heapS: usize, heapI: usize, k: i32): bool {
  if (s - s != 0) {
    badQuery = q
    badRow = j
    return false
  }
  let t = s
  if (invRow != 0) t = s * load<f32>(scale + (<usize>q << 2)) * load<f32>(invRow + (<usize>j << 2))
  const hs = heapS + (<usize>(q * k) << 2)
  if (t > load<f32>(hs)) {
    const hi = heapI + (<usize>(q * k) << 2)
    store<f32>(hs, t)
    store<i32>(hi, j)
    siftDown(hs, hi, k)
  }
  return true
}

/**
 * Exact top-k of `Q` queries `[Q, D]` against rows `[M, D]` (float32): per query a size-k min-heap (`heapS` float32,
 * `heapI` int32, `[Q, k]`, initialized by the caller to −∞ / −1). Cosine when `invRow` ≠ 0 (`[M]` inverse row norms,
 * `invQ` `[Q]` inverse query norms). Rows are walked in blocks of `blockRows` (cache-sized); inside a block the
 * micro-kernel scores 4 queries × 2 rows at once (8 float32x4 accumulators). Returns false on a non-finite score
 * (see {@link topKBadQuery}).
 */
export function topK(qs: usize, ms: usize, Q: i32, M: i32, D: i32, k: i32, invQ: usize, invRow: usize, heapS: usize, heapI: usize, blockRows: i32): bool {
  const D4 = D & ~3
  const rowBytes = <usize>D << 2
  for (let j0 = 0; j0 < M; j0 += blockRows) {
    const j1 = min(M, j0 + blockRows)
    let q = 0
    for (; q + 4 <= Q; q += 4) {
      const q0 = qs + <usize>q * rowBytes
      const q1 = q0 + rowBytes
      const q2 = q1 + rowBytes
      const q3 = q2 + rowBytes
      let j = j0
      for (; j + 2 <= j1; j += 2) {
        const r0 = ms + <usize>j * rowBytes
        const r1 = r0 + rowBytes
        let a00 = f32x4.splat(0), a01 = f32x4.splat(0), a10 = f32x4.splat(0), a11 = f32x4.splat(0)
        let a20 = f32x4.splat(0), a21 = f32x4.splat(0), a30 = f32x4.splat(0), a31 = f32x4.splat(0)
        for (let d = 0; d < D4; d += 4) {
          const off = <usize>d << 2
          const m0 = v128.load(r0 + off)
          const m1 = v128.load(r1 + off)
          let x = v128.load(q0 + off)
          a00 = f32x4.add(a00, f32x4.mul(x, m0))
          a01 = f32x4.add(a01, f32x4.mul(x, m1))
          x = v128.load(q1 + off)
          a10 = f32x4.add(a10, f32x4.mul(x, m0))
          a11 = f32x4.add(a11, f32x4.mul(x, m1))
          x = v128.load(q2 + off)
          a20 = f32x4.add(a20, f32x4.mul(x, m0))
          a21 = f32x4.add(a21, f32x4.mul(x, m1))
          x = v128.load(q3 + off)
          a30 = f32x4.add(a30, f32x4.mul(x, m0))
          a31 = f32x4.add(a31, f32x4.mul(x, m1))
        }
        let s00 = hsum(a00), s01 = hsum(a01), s10 = hsum(a10), s11 = hsum(a11)
        let s20 = hsum(a20), s21 = hsum(a21), s30 = hsum(a30), s31 = hsum(a31)
        for (let d = D4; d < D; d++) {
          const off = <usize>d << 2
          const m0 = load<f32>(r0 + off)
          const m1 = load<f32>(r1 + off)
          const x0 = load<f32>(q0 + off), x1 = load<f32>(q1 + off), x2 = load<f32>(q2 + off), x3 = load<f32>(q3 + off)
          s00 += x0 * m0; s01 += x0 * m1; s10 += x1 * m0; s11 += x1 * m1
          s20 += x2 * m0; s21 += x2 * m1; s30 += x3 * m0; s31 += x3 * m1
        }
        if (!offer(q, j, s00, invQ, invRow, heapS, heapI, k)) return false
        if (!offer(q, j + 1, s01, invQ, invRow, heapS, heapI, k)) return false
        if (!offer(q + 1, j, s10, invQ, invRow, heapS, heapI, k)) return false
        if (!offer(q + 1, j + 1, s11, invQ, invRow, heapS, heapI, k)) return false
        if (!offer(q + 2, j, s20, invQ, invRow, heapS, heapI, k)) return false
        if (!offer(q + 2, j + 1, s21, invQ, invRow, heapS, heapI, k)) return false
        if (!offer(q + 3, j, s30, invQ, invRow, heapS, heapI, k)) return false
        if (!offer(q + 3, j + 1, s31, invQ, invRow, heapS, heapI, k)) return false
      }
      for (; j < j1; j++) {
        for (let qq = q; qq < q + 4; qq++) {
          if (!offer(qq, j, dot(qs + <usize>qq * rowBytes, ms + <usize>j * rowBytes, D), invQ, invRow, heapS, heapI, k)) return false
        }
      }
    }
    for (; q < Q; q++) {
      const qr = qs + <usize>q * rowBytes
      let j = j0
      for (; j + 4 <= j1; j += 4) {
        const r0 = ms + <usize>j * rowBytes
        const r1 = r0 + rowBytes
        const r2 = r1 + rowBytes
        const r3 = r2 + rowBytes
        let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0)
        for (let d = 0; d < D4; d += 4) {
          const off = <usize>d << 2
          const x = v128.load(qr + off)
          a0 = f32x4.add(a0, f32x4.mul(x, v128.load(r0 + off)))
          a1 = f32x4.add(a1, f32x4.mul(x, v128.load(r1 + off)))
          a2 = f32x4.add(a2, f32x4.mul(x, v128.load(r2 + off)))
          a3 = f32x4.add(a3, f32x4.mul(x, v128.load(r3 + off)))
        }
        let s0 = hsum(a0), s1 = hsum(a1), s2 = hsum(a2), s3 = hsum(a3)
        for (let d = D4; d < D; d++) {
          const off = <usize>d << 2
          const x = load<f32>(qr + off)
          s0 += x * load<f32>(r0 + off); s1 += x * load<f32>(r1 + off); s2 += x * load<f32>(r2 + off); s3 += x * load<f32>(r3 + off)
        }
        if (!offer(q, j, s0, invQ, invRow, heapS, heapI, k)) return false
        if (!offer(q, j + 1, s1, invQ, invRow, heapS, heapI, k)) return false
        if (!offer(q, j + 2, s2, invQ, invRow, heapS, heapI, k)) return false
        if (!offer(q, j + 3, s3, invQ, invRow, heapS, heapI, k)) return false
      }
      for (; j < j1; j++) {
        if (!offer(q, j, dot(qr, ms + <usize>j * rowBytes, D), invQ, invRow, heapS, heapI, k)) return false
      }
    }
  }
  return true
}

function dot(x: usize, y: usize, D: i32): f32 {
  const D4 = D & ~3
  let acc = f32x4.splat(0)
  for (let d = 0; d < D4; d += 4) {
    const off = <usize>d << 2
    acc = f32x4.add(acc, f32x4.mul(v128.load(x + off), v128.load(y + off)))
  }
  let s = hsum(acc)
  for (let d = D4; d < D; d++) s += load<f32>(x + (<usize>d << 2)) * load<f32>(y + (<usize>d << 2))
  return s
}

/** Inverse L2 norms (0 for a zero row) of `n` rows `[n, D]` into `out` `[n]` float32 (accumulated in doubles). */
export function inverseNorms(x: usize, n: i32, D: i32, out: usize): void {
  const D4 = D & ~3
  const rowBytes = <usize>D << 2
  for (let j = 0; j < n; j++) {
    const r = x + <usize>j * rowBytes
    let a0 = f64x2.splat(0)
    let a1 = f64x2.splat(0)
    for (let d = 0; d < D4; d += 4) {
      const v = v128.load(r + (<usize>d << 2))
      const lo = f64x2.promote_low_f32x4(v)
      const hi = f64x2.promote_low_f32x4(i32x4.shuffle(v, v, 2, 3, 0, 1))
      a0 = f64x2.add(a0, f64x2.mul(lo, lo))
      a1 = f64x2.add(a1, f64x2.mul(hi, hi))
    }
    let s = hsum64(a0) + hsum64(a1)
    for (let d = D4; d < D; d++) {
      const v = <f64>load<f32>(r + (<usize>d << 2))
      s += v * v
    }
    store<f32>(out + (<usize>j << 2), s > 0 ? <f32>(1 / Math.sqrt(s)) : 0)
  }
}

// ---------------------------------------------------------------------------------------------- GAE

/**
 * GAE over `[T, N]` float32 arrays (CleanRL layout and conventions, see `src/advantages/Gae.ts`), 2 environments per float64x2
 * lane pair: the same double arithmetic in the same order as the typed-array reference, rounded to float32 on store.
 * `trunc`/`finalV`: 0 when absent. Returns false when a done/truncation flag is not 0/1 or a result is not finite.
 */
export function gae(
  T: i32, N: i32, gamma: f64, lambda: f64, rewards: usize, values: usize, dones: usize, nextValue: usize, nextDone: usize,
  trunc: usize, finalV: usize, adv: usize, ret: usize
): bool {
  const rowBytes = <usize>N << 2
  const g = f64x2.splat(gamma)
  const gl = f64x2.splat(gamma * lambda)
  const one = f64x2.splat(1)
  let bad = i32x4.splat(0)
  const N2 = N & ~1
  for (let i = 0; i < N2; i += 2) {
    const io = <usize>i << 2
    let last = f64x2.splat(0)
    for (let t = T - 1; t >= 0; t--) {
      const k = <usize>t * rowBytes + io
      let nnt: v128
      let nv: v128
      if (t == T - 1) {
        const d = v128.load64_zero(nextDone + io)
        bad = v128.or(bad, notBinary(d))
        nnt = f64x2.sub(one, f64x2.promote_low_f32x4(d))
        nv = f64x2.promote_low_f32x4(v128.load64_zero(nextValue + io))
      } else {
        const d = v128.load64_zero(dones + k + rowBytes)
        nnt = f64x2.sub(one, f64x2.promote_low_f32x4(d))
        nv = f64x2.promote_low_f32x4(v128.load64_zero(values + k + rowBytes))
      }
      let bootstrap = f64x2.mul(f64x2.mul(g, nv), nnt)
      if (trunc != 0) {
        const tr = v128.load64_zero(trunc + k)
        bad = v128.or(bad, notBinary(tr))
        const isT = f64x2.eq(f64x2.promote_low_f32x4(tr), one)
        bootstrap = v128.bitselect(f64x2.mul(g, f64x2.promote_low_f32x4(v128.load64_zero(finalV + k))), bootstrap, isT)
      }
      const v = f64x2.promote_low_f32x4(v128.load64_zero(values + k))
      const delta = f64x2.sub(f64x2.add(f64x2.promote_low_f32x4(v128.load64_zero(rewards + k)), bootstrap), v)
      last = f64x2.add(delta, f64x2.mul(f64x2.mul(gl, nnt), last))
      const a32 = f32x4.demote_f64x2_zero(last)
      const r32 = f32x4.demote_f64x2_zero(f64x2.add(last, v))
      bad = v128.or(bad, v128.or(nonFinite(a32), nonFinite(r32)))
      v128.store64_lane(adv + k, a32, 0)
      v128.store64_lane(ret + k, r32, 0)
    }
  }
  for (let i = N2; i < N; i++) {
    const io = <usize>i << 2
    let last: f64 = 0
    for (let t = T - 1; t >= 0; t--) {
      const k = <usize>t * rowBytes + io
      let nnt: f64
      let nv: f64
      if (t == T - 1) {
        const d = load<f32>(nextDone + io)
        if (d != 0 && d != 1) return false
        nnt = 1 - <f64>d
        nv = <f64>load<f32>(nextValue + io)
      } else {
        nnt = 1 - <f64>load<f32>(dones + k + rowBytes)
        nv = <f64>load<f32>(values + k + rowBytes)
      }
      let bootstrap = gamma * nv * nnt
      if (trunc != 0) {
        const tr = load<f32>(trunc + k)
        if (tr != 0 && tr != 1) return false
        if (tr == 1) bootstrap = gamma * <f64>load<f32>(finalV + k)
      }
      const v = <f64>load<f32>(values + k)
      const delta = <f64>load<f32>(rewards + k) + bootstrap - v
      last = delta + gamma * lambda * nnt * last
      const a32 = <f32>last
      const r32 = <f32>(last + v)
      if (a32 - a32 != 0 || r32 - r32 != 0) return false
      store<f32>(adv + k, a32)
      store<f32>(ret + k, r32)
    }
  }
  // dones[t] for t ≥ 1 are read above; dones[0] is never read by the recursion but must still be 0/1
  const n4 = <i32>(N & ~3)
  let i = 0
  for (; i < n4; i += 4) {
    for (let t = 0; t < T; t++) bad = v128.or(bad, notBinary(v128.load(dones + <usize>t * rowBytes + (<usize>i << 2))))
  }
  for (; i < N; i++) {
    for (let t = 0; t < T; t++) {
      const d = load<f32>(dones + <usize>t * rowBytes + (<usize>i << 2))
      if (d != 0 && d != 1) return false
    }
  }
  return !v128.any_true(bad)
}

// ---------------------------------------------------------------------------------------------- group norm

/**
 * Group-relative normalization of `n` float32 values over `G` segments (int32 `ids`): counts (`count`, `[G]` int32
 * scratch), two-pass mean and std in doubles (`mean`, `std`: `[G]` float64 scratch), then `(x − mean) / (std + eps)`
 * (or `x − mean` when `scale` is 0) into `out` float32. Returns 0, or 1 when an id is out of range or a segment
 * is empty, or 2 when a value is not finite (the caller then names the offending element).
 */
export function groupNorm(x: usize, ids: usize, n: i32, G: i32, count: usize, ddof: i32, eps: f64, scale: i32, mean: usize, std: usize, out: usize): i32 {
  memory.fill(count, 0, <usize>G << 2)
  memory.fill(mean, 0, <usize>G << 3)
  memory.fill(std, 0, <usize>G << 3)
  for (let i = 0; i < n; i++) {
    const g = load<i32>(ids + (<usize>i << 2))
    if (<u32>g >= <u32>G) return 1
    const co = count + (<usize>g << 2)
    store<i32>(co, load<i32>(co) + 1)
    const gi = <usize>g << 3
    store<f64>(mean + gi, load<f64>(mean + gi) + <f64>load<f32>(x + (<usize>i << 2)))
  }
  for (let g = 0; g < G; g++) {
    const c = load<i32>(count + (<usize>g << 2))
    if (c < 1) return 1
    const go = <usize>g << 3
    store<f64>(mean + go, load<f64>(mean + go) / <f64>c)
  }
  for (let i = 0; i < n; i++) {
    const gi = <usize>load<i32>(ids + (<usize>i << 2)) << 3
    const d = <f64>load<f32>(x + (<usize>i << 2)) - load<f64>(mean + gi)
    store<f64>(std + gi, load<f64>(std + gi) + d * d)
  }
  for (let g = 0; g < G; g++) {
    const go = <usize>g << 3
    const c = load<i32>(count + (<usize>g << 2))
    const sd = c > ddof ? Math.sqrt(load<f64>(std + go) / <f64>(c - ddof)) : 0
    // the multiplier 1 / (σ + ε) (or 1) replaces σ
    store<f64>(std + go, scale != 0 ? 1 / (sd + eps) : 1)
  }
  let ok = true
  for (let i = 0; i < n; i++) {
    const gi = <usize>load<i32>(ids + (<usize>i << 2)) << 3
    const r = <f32>((<f64>load<f32>(x + (<usize>i << 2)) - load<f64>(mean + gi)) * load<f64>(std + gi))
    if (r - r != 0) ok = false
    store<f32>(out + (<usize>i << 2), r)
  }
  return ok ? 0 : 2
}

// ---------------------------------------------------------------------------------------------- top-k, int16 pre-filter

/** Quantization levels: |q̃| ≤ 2047, so each int32 lane (Dp/4 products of ≤ 2047²) stays below 2^31 for Dp ≤ 2048. */
const QMAX: f32 = 2047

/** max|x_d| of the float32 row at `r` (`D` values), its L1 norm stored at `l1At`; −1 when a value is non-finite. */
function rowMaxAbs(r: usize, D: i32, l1At: usize): f32 {
  const D4 = D & ~3
  let vmax = f32x4.splat(0)
  let vl1 = f32x4.splat(0)
  let bad = i32x4.splat(0)
  for (let d = 0; d < D4; d += 4) {
    const v = v128.load(r + (<usize>d << 2))
    bad = v128.or(bad, nonFinite(v))
    const a = f32x4.abs(v)
    vmax = f32x4.pmax(vmax, a)
    vl1 = f32x4.add(vl1, a)
  }
  let mx = hmax(vmax)
  let s1 = hsum(vl1)
  let badS = v128.any_true(bad)
  for (let d = D4; d < D; d++) {
    const v = load<f32>(r + (<usize>d << 2))
    if (v - v != 0) badS = true
    mx = max(mx, abs(v))
    s1 += abs(v)
  }
  if (badS) return -1
  store<f32>(l1At, s1)
  return mx
}

/**
 * Quantize `n` float32 rows `[n, D]` to int16 rows `[n, Dp]` (`Dp` = D rounded up to 8, zero padded):
 * `x̃ = round(x / s)` with `s = max|x| / 2047` per row, written to `scale[j]`, and the row's L1 norm to `l1[j]`.
 * Returns false when a value is not finite.
 */
export function quantizeRows(x: usize, n: i32, D: i32, Dp: i32, out: usize, scale: usize, l1: usize): bool {
  const inRow = <usize>D << 2
  const outRow = <usize>Dp << 1
  for (let j = 0; j < n; j++) {
    const r = x + <usize>j * inRow
    const mx = rowMaxAbs(r, D, l1 + (<usize>j << 2))
    if (mx < 0) return false
    const s: f32 = mx / QMAX
    const inv: f32 = mx > 0 ? QMAX / mx : 0
    store<f32>(scale + (<usize>j << 2), s)
    const o = out + <usize>j * outRow
    const vinv = f32x4.splat(inv)
    const magic = f32x4.splat(MAGIC)
    let d = 0
    for (; d + 8 <= D; d += 8) {
      // round to nearest by the magic-number trick (|x · inv| ≤ 2047), then narrow two i32x4 to one i16x8
      const a = f32x4.sub(f32x4.add(f32x4.mul(v128.load(r + (<usize>d << 2)), vinv), magic), magic)
      const b = f32x4.sub(f32x4.add(f32x4.mul(v128.load(r + (<usize>d << 2) + 16), vinv), magic), magic)
      v128.store(o + (<usize>d << 1), i16x8.narrow_i32x4_s(i32x4.trunc_sat_f32x4_s(a), i32x4.trunc_sat_f32x4_s(b)))
    }
    for (; d < Dp; d++) {
      const v: f32 = d < D ? load<f32>(r + (<usize>d << 2)) * inv : 0
      store<i16>(o + (<usize>d << 1), <i16>(<i32>nearest(v)))
    }
  }
  return true
}

function idot(x: usize, y: usize, Dp: i32): f64 {
  let acc = i32x4.splat(0)
  for (let d = 0; d < Dp; d += 8) {
    const off = <usize>d << 1
    acc = i32x4.add(acc, i32x4.dot_i16x8_s(v128.load(x + off), v128.load(y + off)))
  }
  return ihsum(acc)
}

/** Sum of the four int32 lanes, in doubles (each lane fits in int32 for Dp ≤ 2048; their sum may not). */
function ihsum(v: v128): f64 {
  return <f64>i32x4.extract_lane(v, 0) + <f64>i32x4.extract_lane(v, 1) + <f64>i32x4.extract_lane(v, 2) + <f64>i32x4.extract_lane(v, 3)
}

let candOverflow = false

/** Slack constants of the bound (see {@link admit}). */
const QERR: f32 = 0.5005 // quantization: |x − s·x̃| ≤ s/2, plus float32 rounding of x · (2047 / max|x|)
const QERR2: f32 = 0.2505 // the product term D·s_q·s_j/4, plus the f32 lane-sum rounding of pass 1
const EXACT: f32 = 2.5e-4 // float32 rounding of the exact pass: ≤ D·2⁻²³·Σ|q||m|, Σ|q||m| ≤ 2048·s_j·‖q‖₁
const LANES: f32 = 1e-3 // float32 rounding of the pass-1 lane sums, relative to s_j·‖q‖₁

/** Record row `j` for query `q` (upper bound `hi`, lower bound `lo`): candidate if `hi` reaches the heap root. */
function take(q: i32, j: i32, lo: f32, hi: f32, heapS: usize, heapI: usize, roots: usize, k: i32, cand: usize, candU: usize, counts: usize, C: i32): void {
  const hs = heapS + (<usize>(q * k) << 2)
  if (hi < load<f32>(hs)) return
  const co = counts + (<usize>q << 2)
  const c = load<i32>(co)
  if (c >= C) {
    candOverflow = true
    return
  }
  const at = (<usize>q * <usize>C + <usize>c) << 2
  store<i32>(cand + at, j)
  store<f32>(candU + at, hi)
  store<i32>(co, c + 1)
  if (lo > load<f32>(hs)) {
    const hix = heapI + (<usize>(q * k) << 2)
    store<f32>(hs, lo)
    store<i32>(hix, j)
    siftDown(hs, hix, k)
    store<f32>(roots + (<usize>q << 2), load<f32>(hs))
  }
}

/**
 * Admit row `j` for query `q` from its int16 dot `idp`: approximate score `a = s_q s_j idp` with the rigorous error
 * bound `e = (s_j/2)‖q‖₁ + (s_q/2)‖m_j‖₁ + D s_q s_j/4` (each inflated for float32 rounding, plus the exact pass's
 * rounding slack), scaled by the cosine factors. The heap keeps the k best lower bounds `a − e`; the row becomes a
 * candidate when its upper bound `a + e` reaches the heap's root (a lower bound of the k-th best exact score).
 */
function admit(q: i32, j: i32, idp: f64, qs: usize, ql1: usize, ms: usize, ml1: usize, D: i32, invQ: usize, invRow: usize, heapS: usize, heapI: usize, roots: usize, k: i32, cand: usize, candU: usize, counts: usize, C: i32): void {
  const sq = load<f32>(qs + (<usize>q << 2))
  const sj = load<f32>(ms + (<usize>j << 2))
  const lq = load<f32>(ql1 + (<usize>q << 2))
  const Df = <f32>D
  let a = <f32>idp * sq * sj
  let e: f32 = sj * lq * (QERR + Df * EXACT + LANES) + sq * (QERR * load<f32>(ml1 + (<usize>j << 2)) + QERR2 * Df * sj) + 1e-6 * abs(a)
  if (invRow != 0) {
    const f = load<f32>(invQ + (<usize>q << 2)) * load<f32>(invRow + (<usize>j << 2))
    a *= f
    e = e * f * 1.0001
  }
  take(q, j, a - e, a + e, heapS, heapI, roots, k, cand, candU, counts, C)
}

/** The four horizontal sums of four int32x4 accumulators, as float32x4 (lanes converted before adding). */
function hsum4(a0: v128, a1: v128, a2: v128, a3: v128): v128 {
  const f0 = f32x4.convert_i32x4_s(a0)
  const f1 = f32x4.convert_i32x4_s(a1)
  const f2 = f32x4.convert_i32x4_s(a2)
  const f3 = f32x4.convert_i32x4_s(a3)
  const s01 = f32x4.add(i32x4.shuffle(f0, f1, 0, 1, 4, 5), i32x4.shuffle(f0, f1, 2, 3, 6, 7))
  const s23 = f32x4.add(i32x4.shuffle(f2, f3, 0, 1, 4, 5), i32x4.shuffle(f2, f3, 2, 3, 6, 7))
  return f32x4.add(i32x4.shuffle(s01, s23, 0, 2, 4, 6), i32x4.shuffle(s01, s23, 1, 3, 5, 7))
}

/** {@link admit} for queries q..q+3 against row j at once (`idp4`: the 4 int16 dots); scalar work only for hits. */
function admit4q(q: i32, j: i32, idp4: v128, qs: usize, ql1: usize, ms: usize, ml1: usize, D: i32, invQ: usize, invRow: usize, heapS: usize, heapI: usize, roots: usize, k: i32, cand: usize, candU: usize, counts: usize, C: i32): void {
  const qo = <usize>q << 2
  const sq4 = v128.load(qs + qo)
  const sj = load<f32>(ms + (<usize>j << 2))
  const Df = <f32>D
  let a = f32x4.mul(f32x4.mul(idp4, sq4), f32x4.splat(sj))
  let e = f32x4.add(
    f32x4.mul(v128.load(ql1 + qo), f32x4.splat(sj * (QERR + Df * EXACT + LANES))),
    f32x4.add(f32x4.mul(sq4, f32x4.splat(QERR * load<f32>(ml1 + (<usize>j << 2)) + QERR2 * Df * sj)), f32x4.mul(f32x4.abs(a), f32x4.splat(1e-6)))
  )
  if (invRow != 0) {
    const f = f32x4.mul(v128.load(invQ + qo), f32x4.splat(load<f32>(invRow + (<usize>j << 2))))
    a = f32x4.mul(a, f)
    e = f32x4.mul(f32x4.mul(e, f), f32x4.splat(1.0001))
  }
  const hi = f32x4.add(a, e)
  if (!v128.any_true(f32x4.ge(hi, v128.load(roots + qo)))) return
  const lo = f32x4.sub(a, e)
  take(q, j, f32x4.extract_lane(lo, 0), f32x4.extract_lane(hi, 0), heapS, heapI, roots, k, cand, candU, counts, C)
  take(q + 1, j, f32x4.extract_lane(lo, 1), f32x4.extract_lane(hi, 1), heapS, heapI, roots, k, cand, candU, counts, C)
  take(q + 2, j, f32x4.extract_lane(lo, 2), f32x4.extract_lane(hi, 2), heapS, heapI, roots, k, cand, candU, counts, C)
  take(q + 3, j, f32x4.extract_lane(lo, 3), f32x4.extract_lane(hi, 3), heapS, heapI, roots, k, cand, candU, counts, C)
}

/** {@link admit} for query q against rows j..j+3 at once. */
function admit4r(q: i32, j: i32, idp4: v128, qs: usize, ql1: usize, ms: usize, ml1: usize, D: i32, invQ: usize, invRow: usize, heapS: usize, heapI: usize, roots: usize, k: i32, cand: usize, candU: usize, counts: usize, C: i32): void {
  const jo = <usize>j << 2
  const sq = load<f32>(qs + (<usize>q << 2))
  const sj4 = v128.load(ms + jo)
  const Df = <f32>D
  let a = f32x4.mul(f32x4.mul(idp4, sj4), f32x4.splat(sq))
  let e = f32x4.add(
    f32x4.mul(sj4, f32x4.splat(load<f32>(ql1 + (<usize>q << 2)) * (QERR + Df * EXACT + LANES))),
    f32x4.add(
      f32x4.mul(f32x4.splat(sq), f32x4.add(f32x4.mul(v128.load(ml1 + jo), f32x4.splat(QERR)), f32x4.mul(sj4, f32x4.splat(QERR2 * Df)))),
      f32x4.mul(f32x4.abs(a), f32x4.splat(1e-6))
    )
  )
  if (invRow != 0) {
    const f = f32x4.mul(v128.load(invRow + jo), f32x4.splat(load<f32>(invQ + (<usize>q << 2))))
    a = f32x4.mul(a, f)
    e = f32x4.mul(f32x4.mul(e, f), f32x4.splat(1.0001))
  }
  const hi = f32x4.add(a, e)
  if (!v128.any_true(f32x4.ge(hi, f32x4.splat(load<f32>(roots + (<usize>q << 2)))))) return
  const lo = f32x4.sub(a, e)
  take(q, j, f32x4.extract_lane(lo, 0), f32x4.extract_lane(hi, 0), heapS, heapI, roots, k, cand, candU, counts, C)
  take(q, j + 1, f32x4.extract_lane(lo, 1), f32x4.extract_lane(hi, 1), heapS, heapI, roots, k, cand, candU, counts, C)
  take(q, j + 2, f32x4.extract_lane(lo, 2), f32x4.extract_lane(hi, 2), heapS, heapI, roots, k, cand, candU, counts, C)
  take(q, j + 3, f32x4.extract_lane(lo, 3), f32x4.extract_lane(hi, 3), heapS, heapI, roots, k, cand, candU, counts, C)
}

/**
 * Pass 1 of the exact two-pass top-k: int16 dot products (`i32x4.dot_i16x8_s`, 8 multiply-adds per instruction)
 * of quantized queries `[Q, Dp]` against quantized rows `[M, Dp]`, 4 queries × 2 rows per step, collecting per query
 * (`cand`/`candU` `[Q, C]`, `counts` `[Q]`) every row whose upper bound reaches the running k-th best lower bound
 * (`roots` `[Q]` mirrors the heaps' roots, −∞ initially). Returns false when a query has more than `C` candidates
 * (the caller then uses the float32 kernel).
 */
export function topKCandidates(
  qq: usize, qs: usize, ql1: usize, mq: usize, ms: usize, ml1: usize, Q: i32, M: i32, D: i32, Dp: i32, k: i32,
  invQ: usize, invRow: usize, heapS: usize, heapI: usize, roots: usize, cand: usize, candU: usize, counts: usize, C: i32, blockRows: i32
): bool {
  candOverflow = false
  const rowBytes = <usize>Dp << 1
  for (let j0 = 0; j0 < M; j0 += blockRows) {
    const j1 = min(M, j0 + blockRows)
    let q = 0
    for (; q + 4 <= Q; q += 4) {
      const q0 = qq + <usize>q * rowBytes
      const q1 = q0 + rowBytes
      const q2 = q1 + rowBytes
      const q3 = q2 + rowBytes
      let j = j0
      for (; j + 2 <= j1; j += 2) {
        const r0 = mq + <usize>j * rowBytes
        const r1 = r0 + rowBytes
        let a00 = i32x4.splat(0), a01 = i32x4.splat(0), a10 = i32x4.splat(0), a11 = i32x4.splat(0)
        let a20 = i32x4.splat(0), a21 = i32x4.splat(0), a30 = i32x4.splat(0), a31 = i32x4.splat(0)
        for (let d = 0; d < Dp; d += 8) {
          const off = <usize>d << 1
          const m0 = v128.load(r0 + off)
          const m1 = v128.load(r1 + off)
          let x = v128.load(q0 + off)
          a00 = i32x4.add(a00, i32x4.dot_i16x8_s(x, m0))
          a01 = i32x4.add(a01, i32x4.dot_i16x8_s(x, m1))
          x = v128.load(q1 + off)
          a10 = i32x4.add(a10, i32x4.dot_i16x8_s(x, m0))
          a11 = i32x4.add(a11, i32x4.dot_i16x8_s(x, m1))
          x = v128.load(q2 + off)
          a20 = i32x4.add(a20, i32x4.dot_i16x8_s(x, m0))
          a21 = i32x4.add(a21, i32x4.dot_i16x8_s(x, m1))
          x = v128.load(q3 + off)
          a30 = i32x4.add(a30, i32x4.dot_i16x8_s(x, m0))
          a31 = i32x4.add(a31, i32x4.dot_i16x8_s(x, m1))
        }
        admit4q(q, j, hsum4(a00, a10, a20, a30), qs, ql1, ms, ml1, D, invQ, invRow, heapS, heapI, roots, k, cand, candU, counts, C)
        admit4q(q, j + 1, hsum4(a01, a11, a21, a31), qs, ql1, ms, ml1, D, invQ, invRow, heapS, heapI, roots, k, cand, candU, counts, C)
        if (candOverflow) return false
      }
      for (; j < j1; j++) {
        for (let qx = q; qx < q + 4; qx++) {
          admit(qx, j, idot(qq + <usize>qx * rowBytes, mq + <usize>j * rowBytes, Dp), qs, ql1, ms, ml1, D, invQ, invRow, heapS, heapI, roots, k, cand, candU, counts, C)
        }
        if (candOverflow) return false
      }
    }
    for (; q < Q; q++) {
      const qr = qq + <usize>q * rowBytes
      let j = j0
      for (; j + 4 <= j1; j += 4) {
        const r0 = mq + <usize>j * rowBytes
        const r1 = r0 + rowBytes
        const r2 = r1 + rowBytes
        const r3 = r2 + rowBytes
        let a0 = i32x4.splat(0), a1 = i32x4.splat(0), a2 = i32x4.splat(0), a3 = i32x4.splat(0)
        for (let d = 0; d < Dp; d += 8) {
          const off = <usize>d << 1
          const x = v128.load(qr + off)
          a0 = i32x4.add(a0, i32x4.dot_i16x8_s(x, v128.load(r0 + off)))
          a1 = i32x4.add(a1, i32x4.dot_i16x8_s(x, v128.load(r1 + off)))
          a2 = i32x4.add(a2, i32x4.dot_i16x8_s(x, v128.load(r2 + off)))
          a3 = i32x4.add(a3, i32x4.dot_i16x8_s(x, v128.load(r3 + off)))
        }
        admit4r(q, j, hsum4(a0, a1, a2, a3), qs, ql1, ms, ml1, D, invQ, invRow, heapS, heapI, roots, k, cand, candU, counts, C)
        if (candOverflow) return false
      }
      for (; j < j1; j++) {
        admit(q, j, idot(qr, mq + <usize>j * rowBytes, Dp), qs, ql1, ms, ml1, D, invQ, invRow, heapS, heapI, roots, k, cand, candU, counts, C)
        if (candOverflow) return false
      }
    }
  }
  return true
}

// ---------------------------------------------------------------------------------------------- top-k, int8 rows

const QMAX8: f32 = 127

/**
 * Quantize `n` float32 rows `[n, D]` to int8 rows `[n, Dp]` (Dp a multiple of 16 ≥ D, zero padded) with per-row scale
 * `s_j = max|x_j| / 127` (`scale` [n]) and the float32 L1 norms (`l1` [n]); returns false on a non-finite value. Half
 * the bytes of {@link quantizeRows}' int16 rows, so pass 1 reads half the memory; its bound (see {@link admit}) is the
 * same formula with this coarser `s_j`.
 */
export function quantizeRows8(x: usize, n: i32, D: i32, Dp: i32, out: usize, scale: usize, l1: usize): bool {
  const inRow = <usize>D << 2
  for (let j = 0; j < n; j++) {
    const r = x + <usize>j * inRow
    const mx = rowMaxAbs(r, D, l1 + (<usize>j << 2))
    if (mx < 0) return false
    const s: f32 = mx / QMAX8
    const inv: f32 = mx > 0 ? QMAX8 / mx : 0
    store<f32>(scale + (<usize>j << 2), s)
    const o = out + <usize>j * <usize>Dp
    const vinv = f32x4.splat(inv)
    const magic = f32x4.splat(MAGIC)
    let d = 0
    for (; d + 16 <= D; d += 16) {
      const p = r + (<usize>d << 2)
      const a = i32x4.trunc_sat_f32x4_s(f32x4.sub(f32x4.add(f32x4.mul(v128.load(p), vinv), magic), magic))
      const b = i32x4.trunc_sat_f32x4_s(f32x4.sub(f32x4.add(f32x4.mul(v128.load(p + 16), vinv), magic), magic))
      const c = i32x4.trunc_sat_f32x4_s(f32x4.sub(f32x4.add(f32x4.mul(v128.load(p + 32), vinv), magic), magic))
      const e = i32x4.trunc_sat_f32x4_s(f32x4.sub(f32x4.add(f32x4.mul(v128.load(p + 48), vinv), magic), magic))
      v128.store(o + <usize>d, i8x16.narrow_i16x8_s(i16x8.narrow_i32x4_s(a, b), i16x8.narrow_i32x4_s(c, e)))
    }
    for (; d < Dp; d++) {
      const v: f32 = d < D ? load<f32>(r + (<usize>d << 2)) * inv : 0
      store<i8>(o + <usize>d, <i8>(<i32>nearest(v)))
    }
  }
  return true
}

/** Dot product of an int16 query row and an int8 row (`Dp` a multiple of 16), in doubles. */
function idot8(x: usize, y: usize, Dp: i32): f64 {
  let acc = i32x4.splat(0)
  for (let d = 0; d < Dp; d += 16) {
    const m = v128.load(y + <usize>d)
    const xo = x + (<usize>d << 1)
    acc = i32x4.add(acc, i32x4.add(
      i32x4.dot_i16x8_s(v128.load(xo), i16x8.extend_low_i8x16_s(m)),
      i32x4.dot_i16x8_s(v128.load(xo + 16), i16x8.extend_high_i8x16_s(m))
    ))
  }
  return ihsum(acc)
}

/**
 * Pass 1 of the exact two-pass top-k over int8 rows (`mq` `[M, Dp]`, from {@link quantizeRows8}) and int16 queries
 * (`qq` `[Q, Dp]`, from {@link quantizeRows} with the same `Dp`, a multiple of 16): the rows are widened to int16 in
 * registers (`i16x8.extend_*_i8x16_s`) and multiplied with `i32x4.dot_i16x8_s`, one query × 4 rows per step; the
 * admission is {@link admit4r}'s (its bound holds for any row scale). Same outputs and contract as
 * {@link topKCandidates}.
 */
export function topKCandidates8(
  qq: usize, qs: usize, ql1: usize, mq: usize, ms: usize, ml1: usize, Q: i32, M: i32, D: i32, Dp: i32, k: i32,
  invQ: usize, invRow: usize, heapS: usize, heapI: usize, roots: usize, cand: usize, candU: usize, counts: usize, C: i32, blockRows: i32
): bool {
  candOverflow = false
  const rowBytes = <usize>Dp
  const qBytes = <usize>Dp << 1
  for (let j0 = 0; j0 < M; j0 += blockRows) {
    const j1 = min(M, j0 + blockRows)
    for (let q = 0; q < Q; q++) {
      const qr = qq + <usize>q * qBytes
      let j = j0
      for (; j + 4 <= j1; j += 4) {
        const r0 = mq + <usize>j * rowBytes
        const r1 = r0 + rowBytes
        const r2 = r1 + rowBytes
        const r3 = r2 + rowBytes
        let a0 = i32x4.splat(0), a1 = i32x4.splat(0), a2 = i32x4.splat(0), a3 = i32x4.splat(0)
        for (let d = 0; d < Dp; d += 16) {
          const xo = qr + (<usize>d << 1)
          const xl = v128.load(xo)
          const xh = v128.load(xo + 16)
          const od = <usize>d
          let m = v128.load(r0 + od)
          a0 = i32x4.add(a0, i32x4.add(i32x4.dot_i16x8_s(xl, i16x8.extend_low_i8x16_s(m)), i32x4.dot_i16x8_s(xh, i16x8.extend_high_i8x16_s(m))))
          m = v128.load(r1 + od)
          a1 = i32x4.add(a1, i32x4.add(i32x4.dot_i16x8_s(xl, i16x8.extend_low_i8x16_s(m)), i32x4.dot_i16x8_s(xh, i16x8.extend_high_i8x16_s(m))))
          m = v128.load(r2 + od)
          a2 = i32x4.add(a2, i32x4.add(i32x4.dot_i16x8_s(xl, i16x8.extend_low_i8x16_s(m)), i32x4.dot_i16x8_s(xh, i16x8.extend_high_i8x16_s(m))))
          m = v128.load(r3 + od)
          a3 = i32x4.add(a3, i32x4.add(i32x4.dot_i16x8_s(xl, i16x8.extend_low_i8x16_s(m)), i32x4.dot_i16x8_s(xh, i16x8.extend_high_i8x16_s(m))))
        }
        admit4r(q, j, hsum4(a0, a1, a2, a3), qs, ql1, ms, ml1, D, invQ, invRow, heapS, heapI, roots, k, cand, candU, counts, C)
        if (candOverflow) return false
      }
      for (; j < j1; j++) {
        admit(q, j, idot8(qr, mq + <usize>j * rowBytes, Dp), qs, ql1, ms, ml1, D, invQ, invRow, heapS, heapI, roots, k, cand, candU, counts, C)
        if (candOverflow) return false
      }
    }
  }
  return true
}

/**
 * Pass 2: rescore each query's candidates whose upper bound reaches the final k-th best lower bound with the exact
 * float32 dot product (the same arithmetic as {@link topK}), into fresh heaps `heapS`/`heapI` (initialized by the
 * caller). `lowerHeap`: pass 1's heaps `[Q, k]`, whose roots are the final k-th best lower bounds. Returns false on
 * a non-finite score.
 */
export function topKRescore(qs: usize, ms: usize, Q: i32, D: i32, k: i32, invQ: usize, invRow: usize, lowerHeap: usize, cand: usize, candU: usize, counts: usize, C: i32, heapS: usize, heapI: usize): bool {
  const rowBytes = <usize>D << 2
  for (let q = 0; q < Q; q++) {
    const n = load<i32>(counts + (<usize>q << 2))
    const t = load<f32>(lowerHeap + (<usize>(q * k) << 2))
    const qr = qs + <usize>q * rowBytes
    for (let c = 0; c < n; c++) {
      const at = (<usize>q * <usize>C + <usize>c) << 2
      if (load<f32>(candU + at) < t) continue
      const j = load<i32>(cand + at)
      if (!offer(q, j, dot(qr, ms + <usize>j * rowBytes, D), invQ, invRow, heapS, heapI, k)) return false
    }
  }
  return true
}

// ---------------------------------------------------------------------------------------------- categorical

/**
 * Inverse-CDF sampling of one action per row of masked `[B, A]` float32 logits `z` (mask `m` or 0) with the given
 * float64 uniforms `u` `[B]`: the first valid action whose running sum of `e_a = exp(z_a − max)` exceeds `u · Σ e`
 * (the last valid action when rounding leaves none), as `Categorical.fromUniformsSync`. Writes `actions` (int32
 * `[B]`) and `logProbs` (float32 `[B]`: `z_a − max − log Σ e`).
 *
 * Float32 sums can disagree with the reference's doubles only when `u · Σ e` lies within their rounding error of a
 * running sum; such rows get action −1 (the caller recomputes them with the reference), so with the same uniforms the
 * actions are the reference's. The bound `tol` covers: the logits' rounding to float32 and `z − max` (relative
 * 2⁻²³·(2|max| + 40) for every weight above e⁻²⁰ of the max, those below contribute < A·2e⁻⁹·Σe), the `exp`
 * polynomial (< 4e−7 relative), and float32 summation (A·2⁻²³·Σe); it is doubled. Returns the number of bad rows (a
 * non-finite valid logit, a non-0/1 mask value, a row without a valid action, a uniform outside [0, 1)).
 */
export function categorical(z: usize, m: usize, B: i32, A: i32, u: usize, actions: usize, logProbs: usize, scratch: usize): i32 {
  let bad = 0
  const rowBytes = <usize>A << 2
  const eps: f32 = 1.1920929e-7 // 2⁻²³
  for (let b = 0; b < B; b++) {
    const zr = z + <usize>b * rowBytes
    const mr: usize = m == 0 ? 0 : m + <usize>b * rowBytes
    const bo = <usize>b << 2
    const ub = load<f64>(u + (<usize>b << 3))
    if (!(ub >= 0 && ub < 1) || !rowStats(zr, mr, A, scratch)) {
      bad++
      store<i32>(actions + bo, -1)
      continue
    }
    const S = rowSum
    const target = <f32>(ub * <f64>S)
    const rel: f32 = eps * (2 * abs(rowMax) + 40) + 4e-7 + <f32>A * (eps + 2.1e-9)
    const tol: f32 = 2 * (S * rel + target * eps)
    // skip whole blocks of 4 while the running sum stays at or below the target
    let acc: f32 = 0
    let a = 0
    const A4 = A & ~3
    for (; a < A4; a += 4) {
      const blk = hsum(v128.load(scratch + (<usize>a << 2)))
      if (acc + blk > target - tol) break
      acc += blk
    }
    let chosen = -1
    let last = -1
    let before: f32 = 0
    for (; a < A; a++) {
      const off = <usize>a << 2
      if (mr != 0 && load<f32>(mr + off) != 1) continue
      last = a
      before = acc
      acc += load<f32>(scratch + off)
      if (acc > target) {
        chosen = a
        break
      }
    }
    // past the end (chosen < 0) the reference picks the last valid action; ambiguous when the total is near the target
    const ambiguous = chosen < 0 ? acc > target - tol : acc - target <= tol || target - before <= tol
    if (chosen < 0) {
      chosen = last
      if (chosen < 0) {
        for (let c = A - 1; c >= 0; c--) {
          if (mr == 0 || load<f32>(mr + (<usize>c << 2)) == 1) {
            chosen = c
            break
          }
        }
      }
    }
    if (ambiguous) {
      store<i32>(actions + bo, -1)
      continue
    }
    store<i32>(actions + bo, chosen)
    store<f32>(logProbs + bo, load<f32>(zr + (<usize>chosen << 2)) - rowMax - Mathf.log(S))
  }
  return bad
}

// ---------------------------------------------------------------------------------------------- PCG64 uniforms

/** PCG64's 128-bit LCG multiplier 0x2360ed051fc65da4_4385df649fccf645 (NumPy `pcg64.h`). */
const PCG_MUL_HI: u64 = (<u64>0x2360ed05 << 32) | 0x1fc65da4
const PCG_MUL_LO: u64 = (<u64>0x4385df64 << 32) | 0x9fccf645

/** High 64 bits of the 128-bit product a · b. */
function mulhi64(a: u64, b: u64): u64 {
  const a0 = a & 0xffffffff
  const a1 = a >> 32
  const b0 = b & 0xffffffff
  const b1 = b >> 32
  const p00 = a0 * b0
  const p01 = a0 * b1
  const p10 = a1 * b0
  const mid = (p00 >> 32) + (p01 & 0xffffffff) + (p10 & 0xffffffff)
  return a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32)
}

/**
 * `n` uniform doubles in [0, 1) from the PCG64 state at `st` (`[stateLo, stateHi, incLo, incHi]` as u64), exactly
 * NumPy's `Generator.random()` (and core's `Rng.random()`): state ← state · MULT + inc (mod 2¹²⁸), then the XSL-RR
 * output `rotr(hi ⊕ lo, hi >> 58)`, then `(out >> 11) · 2⁻⁵³`. Writes the advanced state back.
 */
export function pcg64Uniforms(st: usize, n: i32, out: usize): void {
  let lo = load<u64>(st)
  let hi = load<u64>(st, 8)
  const incLo = load<u64>(st, 16)
  const incHi = load<u64>(st, 24)
  for (let i = 0; i < n; i++) {
    const plo = lo * PCG_MUL_LO
    const phi = mulhi64(lo, PCG_MUL_LO) + lo * PCG_MUL_HI + hi * PCG_MUL_LO
    const slo = plo + incLo
    hi = phi + incHi + (slo < plo ? 1 : 0)
    lo = slo
    const x = rotr<u64>(hi ^ lo, hi >> 58)
    store<f64>(out + (<usize>i << 3), <f64>(x >> 11) * 1.1102230246251565e-16)
  }
  store<u64>(st, lo)
  store<u64>(st, hi, 8)
}
