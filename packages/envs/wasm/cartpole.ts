/**
 * AssemblyScript source of the WebAssembly SIMD step of `CartPoleBatch` (compiled by `scripts/build-wasm.ts` with
 * `--enable simd` into `src/generated/cartPoleWasm.ts`; `src/classic/CartPoleWasm.ts` is the JavaScript side).
 *
 * `step` makes one step of every row in three passes over the arrays, nothing allocated:
 * 1. `trig`, two rows per f64x2 instruction: `cos`/`sin` of the angle by `Libm`'s fast paths with the same rounding
 *    test; a lane outside 2^-26 <= |theta| <= 1/4 or failing a test takes `sinSeries`/`cosSeries`, the double-double
 *    series of `Libm.sinAccurate`/`cosAccurate` ported operation for operation (the imported JavaScript functions
 *    only for |theta| > pi/4 and the rare argument the series cannot round). WebAssembly never fuses a multiply-add
 *    and its f64 division is IEEE's, so every lane gives the bits of `CartPole.dynamics`.
 * 2. `physics`, two rows per instruction: `CartPoleEnv.step` operation for operation; state, float32 observation row
 *    and the termination flag written.
 * 3. `flags`, 16 rows per instruction: the `TimeLimit` count, truncation, reward and the rows that ended; with
 *    `nextStep` = 1 (Gymnasium's NextStep autoreset) a row flagged in `need` on entry is reset instead (4 draws of
 *    `uniform(-0.05, 0.05)` from its PCG64, reward 0, flags 0, `reset` 1) and a row that ends is flagged in `need`;
 *    otherwise the rows that ended are listed in `ended` for the caller.
 * Each row's PCG64 (O'Neill's XSL-RR 128/64, NumPy's `PCG64`) lives here: 128-bit state and increment as
 * little-endian u64 pairs, `[state lo, state hi, inc lo, inc hi]` per row; the 64x64 -> 128-bit products of the LCG
 * step are built from 32-bit halves.
 *
 * Layout (byte offsets, 16-byte aligned, set once by `init`; `stride` rounded up to 16 rows): the constants
 * (32 f64x2), `x`, `xd`, `th`, `thd` f64[stride] (state),
 * `act` i32[stride] (0/1), `obs` f32[4 stride] (row-major observations), `term` u8[stride], `trunc` u8[stride],
 * `el` i32[stride] (steps in the episode), `rew` f64[stride], `ended` i32[stride] (rows that ended, in order;
 * NextStep: the rows being reset, drawn two at a time after the flag pass), `need` u8[stride] (1: reset on the
 * next step), `reset` u8[stride] (1: reset during this step), `rng` 32 bytes per row, then `sin`, `cos` f64[stride]
 * (the first pass's results).
 */
// imported as ("cartpole", name): the JavaScript side passes Libm.sinAccurate / Libm.cosAccurate
declare function sinAccurate(x: f64): f64
declare function cosAccurate(x: f64): f64

// The accurate series of `Libm.sinAccurate`/`cosAccurate` (double-double Horner; same operations in the same order,
// so the same bits), for the lanes the fast path rejects; the rare argument whose result is too close to a rounding
// boundary, and |x| > pi/4, go to the imported JavaScript functions.
const LIMIT: f64 = 0.7853981633974483
const ROUNDING_TEST: f64 = 1.262177448353619e-29 // 2^-96
const SIN_DD: StaticArray<f64> = [
  -7.647163731819816e-13, -7.03872877733453e-30, // -1/15!
  1.6059043836821613e-10, 1.2585294588752098e-26, // +1/13!
  -2.505210838544172e-08, 1.448814070935912e-24, // -1/11!
  2.7557319223985893e-06, -1.858393274046472e-22, // +1/9!
  -0.0001984126984126984, -1.7209558293420705e-22, // -1/7!
  0.008333333333333333, 1.1564823173178714e-19, // +1/5!
  -0.16666666666666666, -9.25185853854297e-18 // -1/3!
]

const S17: f64 = 2.8114572543455206e-15
const S19: f64 = -8.22063524662433e-18
const S21: f64 = 1.9572941063391263e-20
const S23: f64 = -3.868170170630684e-23
const S25: f64 = 6.446950284384474e-26
const S27: f64 = -9.183689863795546e-29
const COS_DD: StaticArray<f64> = [
  4.779477332387385e-14, 4.399205485834081e-31, // +1/16!
  -1.1470745597729725e-11, -2.0655512752830745e-28, // -1/14!
  2.08767569878681e-09, -1.20734505911326e-25, // +1/12!
  -2.755731922398589e-07, -2.3767714622250297e-23, // -1/10!
  2.48015873015873e-05, 2.1511947866775882e-23, // +1/8!
  -0.001388888888888889, 5.300543954373577e-20, // -1/6!
  0.041666666666666664, 2.3129646346357427e-18, // +1/4!
  -0.5, 0 // -1/2!
]

const C18: f64 = -1.5619206968586225e-16
const C20: f64 = 4.110317623312165e-19
const C22: f64 = -8.896791392450574e-22
const C24: f64 = 1.6117375710961184e-24
const C26: f64 = -2.4795962632247976e-27
const C28: f64 = 3.279889237069838e-30

let ddLo: f64 = 0.0

function hornerTimesZ(coeffs: StaticArray<f64>, tail: f64, zh: f64, zl: f64): f64 {
  let t = SPLIT * zh
  const zhh = t - (t - zh)
  const zhl = zh - zhh
  let ah = tail
  let al: f64 = 0.0
  const len = coeffs.length
  for (let i = 0; i <= len; i += 2) {
    const ph = ah * zh
    t = SPLIT * ah
    const ahh = t - (t - ah)
    const ahl = ah - ahh
    const pl = ((ahh * zhh - ph) + ahh * zhl + ahl * zhh) + ahl * zhl + (ah * zl + al * zh)
    if (i == len) {
      ddLo = pl
      return ph
    }
    const ch = unchecked(coeffs[i])
    const sh = ch + ph
    const sl = (ch - sh) + ph + (unchecked(coeffs[i + 1]) + pl)
    ah = sh + sl
    al = sl - (ah - sh)
  }
  return ah
}

/** `Libm.sinAccurate(x)`. */
export function sinSeries(x: f64): f64 {
  const ax = abs(x)
  if (!(ax <= LIMIT)) return sinAccurate(x)
  if (ax < 1.4901161193847656e-8) return x
  const zh = x * x
  const t = SPLIT * x
  const xh = t - (t - x)
  const xl = x - xh
  const zl = ((xh * xh - zh) + 2 * xh * xl) + xl * xl
  const tail = S17 + zh * (S19 + zh * (S21 + zh * (S23 + zh * (S25 + zh * S27))))
  const qh = hornerTimesZ(SIN_DD, tail, zh, zl)
  const ql = ddLo
  const rh = x * qh
  const u = SPLIT * qh
  const qhh = u - (u - qh)
  const qhl = qh - qhh
  const rl = ((xh * qhh - rh) + xh * qhl + xl * qhh) + xl * qhl + x * ql
  const hi = x + rh
  const lo = (x - hi) + rh + rl
  const e = abs(hi) * ROUNDING_TEST
  const down = hi + (lo - e)
  return down == hi + (lo + e) ? down : sinAccurate(x)
}

/** `Libm.cosAccurate(x)`. */
export function cosSeries(x: f64): f64 {
  const ax = abs(x)
  if (!(ax <= LIMIT)) return cosAccurate(x)
  if (ax < 7.450580596923828e-9) return 1.0
  const zh = x * x
  const t = SPLIT * x
  const xh = t - (t - x)
  const xl = x - xh
  const zl = ((xh * xh - zh) + 2 * xh * xl) + xl * xl
  const tail = C18 + zh * (C20 + zh * (C22 + zh * (C24 + zh * (C26 + zh * C28))))
  const rh = hornerTimesZ(COS_DD, tail, zh, zl)
  const rl = ddLo
  const hi = 1 + rh
  const lo = (1 - hi) + rh + rl
  const e = abs(hi) * ROUNDING_TEST
  const down = hi + (lo - e)
  return down == hi + (lo + e) ? down : cosAccurate(x)
}

let PX: usize = 0
let PXD: usize = 0
let PTH: usize = 0
let PTHD: usize = 0
let PACT: usize = 0
let POBS: usize = 0
let PTERM: usize = 0
let PTRUNC: usize = 0
let PEL: usize = 0
let PREW: usize = 0
let PENDED: usize = 0
let PNEED: usize = 0
let PRESET: usize = 0
let PRNG: usize = 0
let PCONST: usize = 0
let PSIN: usize = 0
let PCOS: usize = 0

const SPLIT: f64 = 134217729.0
const SIN_ERR: f64 = 6.0 * 1.1102230246251565e-16
const COS_ERR: f64 = 16.0 * 1.1102230246251565e-16
const COS_TRUNC: f64 = 1.3234889800848443e-23 // 2^-76
const TH_LIMIT: f64 = 12.0 * 2.0 * 3.141592653589793 / 360.0

/** The constants of the step, splatted into f64x2 (loaded into locals before the loop: V8 rebuilds a v128.const from immediates at every use). */
const CONSTS: StaticArray<f64> = [
  -7.647163731819816e-13, 1.6059043836821613e-10, -2.505210838544172e-8, 2.7557319223985893e-6, // 0-3: FS15, FS13, FS11, FS9
  -0.0001984126984126984, 0.008333333333333333, -0.16666666666666666, SIN_ERR, // 4-7: FS7, FS5, FS3
  134217729.0, 2.0, 0.5, 1.0, // 8-11: Dekker's split
  -1.1470745597729725e-11, 2.08767569878681e-9, -2.755731922398589e-7, 2.48015873015873e-5, // 12-15: FC14, FC12, FC10, FC8
  -0.001388888888888889, 0.041666666666666664, COS_ERR, COS_TRUNC, // 16-19: FC6, FC4
  0.25, 1.4901161193847656e-8, 10.0, -10.0, // 20-23: fast range, forces
  0.05, 1.1, 9.8, 4.0 / 3.0, // 24-27: POLEMASS_LENGTH, TOTAL_MASS, GRAVITY
  0.1, 0.02, 2.4, TH_LIMIT // 28-31: MASSPOLE, TAU, thresholds
]

/** Place the arrays of `stride` rows from byte `base` (16-aligned); returns the first byte after them. */
export function init(stride: i32, base: usize): usize {
  const s = (<usize>stride + 15) & ~(<usize>15) // whole chunks of 16 rows for the flag pass
  const a = (p: usize): usize => (p + 15) & ~(<usize>15)
  PCONST = a(base)
  for (let k = 0; k < 32; k++) v128.store(PCONST + (<usize>k << 4), f64x2.splat(unchecked(CONSTS[k])))
  PX = PCONST + 512
  PXD = a(PX + 8 * s)
  PTH = a(PXD + 8 * s)
  PTHD = a(PTH + 8 * s)
  PACT = a(PTHD + 8 * s)
  POBS = a(PACT + 4 * s)
  PTERM = a(POBS + 16 * s)
  PTRUNC = a(PTERM + s)
  PEL = a(PTRUNC + s)
  PREW = a(PEL + 4 * s)
  PENDED = a(PREW + 8 * s)
  PNEED = a(PENDED + 4 * s)
  PRESET = a(PNEED + s)
  PRNG = a(PRESET + s)
  PSIN = a(PRNG + 32 * s)
  PCOS = a(PSIN + 8 * s)
  return a(PCOS + 8 * s)
}

/** Byte offsets of the arrays, in the order of the layout above (for the JavaScript views). */
export function offset(k: i32): usize {
  switch (k) {
    case 0: return PX
    case 1: return PXD
    case 2: return PTH
    case 3: return PTHD
    case 4: return PACT
    case 5: return POBS
    case 6: return PTERM
    case 7: return PTRUNC
    case 8: return PEL
    case 9: return PREW
    case 10: return PENDED
    case 11: return PNEED
    case 12: return PRESET
    default: return PRNG
  }
}

/** 1 when the actions of rows [0, n) are all 0 or 1, else 0 (rows past n hold 0). */
export function actionsValid(n: i32): i32 {
  const pact = PACT
  let bad = i32x4.splat(0)
  const notOne = i32x4.splat(~1)
  for (let i = 0; i < n; i += 4) bad = v128.or(bad, v128.and(v128.load(pact + (<usize>i << 2)), notOne))
  return <i32>!v128.any_true(bad)
}

/** The passes of `step` alone, for `bench/cartPoleBatchProfile.ts`: `pass` 0 trig, 1 physics, 2 flags (no NextStep). */
export function profilePass(pass: i32, n: i32, stride: i32): void {
  if (pass == 0) trig(stride)
  else if (pass == 1) physics(stride)
  else flags(n, 0x7fffffff, 1.0, 1.0, 0)
}

/** First byte after the module's static data. */
export function heapBase(): usize {
  return __heap_base
}

// PCG64 multiplier 0x2360ed051fc65da44385df649fccf645 as (hi, lo)
const MUL_HI: u64 = 0x2360ed051fc65da4
const MUL_LO: u64 = 0x4385df649fccf645

/** High 64 bits of the 128-bit product of `a` and `b` (32-bit halves: WebAssembly has no 64x64->128 multiply). */
// @ts-ignore: decorator
@inline function mulHi(a: u64, b: u64): u64 {
  const a0 = a & 0xffffffff
  const a1 = a >> 32
  const b0 = b & 0xffffffff
  const b1 = b >> 32
  const p01 = a0 * b1
  const p10 = a1 * b0
  const mid = ((a0 * b0) >> 32) + (p01 & 0xffffffff) + (p10 & 0xffffffff)
  return a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32)
}

/** PCG64 at `p`: state <- state * MUL + inc (mod 2^128), then the XSL-RR output of the new state. */
// @ts-ignore: decorator
@inline function pcgNext(p: usize): u64 {
  const sl = load<u64>(p)
  const sh = load<u64>(p, 8)
  const il = load<u64>(p, 16)
  const lo = sl * MUL_LO
  const nl = lo + il
  const nh = mulHi(sl, MUL_LO) + sl * MUL_HI + sh * MUL_LO + load<u64>(p, 24) + <u64>(nl < lo)
  store<u64>(p, nl)
  store<u64>(p, nh, 8)
  return rotr<u64>(nh ^ nl, nh >> 58)
}

/** NumPy's `Generator.uniform(low, high)`: `low + (high - low) * random()`, `random()` = 53 bits times 2^-53. */
// @ts-ignore: decorator
@inline function uniform(p: usize, low: f64, high: f64): f64 {
  return low + (high - low) * (<f64>(<i64>(pcgNext(p) >> 11)) * 1.1102230246251565e-16) // < 2^53: the signed conversion is exact
}

/** `count` raw 64-bit draws of row `row`'s generator into `out` (u64[count]); for the tests. */
export function rawDraws(row: i32, out: usize, count: i32): void {
  const p = PRNG + (<usize>row << 5)
  for (let k = 0; k < count; k++) store<u64>(out + (<usize>k << 3), pcgNext(p))
}

/** Start row `row`'s episode: 4 draws of `uniform(low, high)` into its state, observation row written. */
export function resetRow(row: i32, low: f64, high: f64): void {
  const i = <usize>row
  const p = PRNG + (i << 5)
  const x = uniform(p, low, high)
  const xd = uniform(p, low, high)
  const th = uniform(p, low, high)
  const thd = uniform(p, low, high)
  store<f64>(PX + (i << 3), x)
  store<f64>(PXD + (i << 3), xd)
  store<f64>(PTH + (i << 3), th)
  store<f64>(PTHD + (i << 3), thd)
  const o = POBS + (i << 4)
  store<f32>(o, <f32>x)
  store<f32>(o, <f32>xd, 4)
  store<f32>(o, <f32>th, 8)
  store<f32>(o, <f32>thd, 12)
}

/** `resetRow(i, -0.05, 0.05)` and `resetRow(j, -0.05, 0.05)` (i != j), the two rows' draws interleaved. */
function resetPair(i: i32, j: i32): void {
  const ui = <usize>i
  const uj = <usize>j
  const p = PRNG + (ui << 5)
  const q = PRNG + (uj << 5)
  const x = uniform(p, -0.05, 0.05)
  const x2 = uniform(q, -0.05, 0.05)
  const xd = uniform(p, -0.05, 0.05)
  const xd2 = uniform(q, -0.05, 0.05)
  const th = uniform(p, -0.05, 0.05)
  const th2 = uniform(q, -0.05, 0.05)
  const thd = uniform(p, -0.05, 0.05)
  const thd2 = uniform(q, -0.05, 0.05)
  store<f64>(PX + (ui << 3), x)
  store<f64>(PXD + (ui << 3), xd)
  store<f64>(PTH + (ui << 3), th)
  store<f64>(PTHD + (ui << 3), thd)
  store<f64>(PX + (uj << 3), x2)
  store<f64>(PXD + (uj << 3), xd2)
  store<f64>(PTH + (uj << 3), th2)
  store<f64>(PTHD + (uj << 3), thd2)
  const o = POBS + (ui << 4)
  store<f32>(o, <f32>x)
  store<f32>(o, <f32>xd, 4)
  store<f32>(o, <f32>th, 8)
  store<f32>(o, <f32>thd, 12)
  const o2 = POBS + (uj << 4)
  store<f32>(o2, <f32>x2)
  store<f32>(o2, <f32>xd2, 4)
  store<f32>(o2, <f32>th2, 8)
  store<f32>(o2, <f32>thd2, 12)
}

// @ts-ignore: decorator
@inline function c(k: i32): v128 {
  return v128.load(PCONST + (<usize>k << 4))
}

/** `sin`/`cos` of the angle of rows [0, stride), two per iteration, into the `sin`/`cos` scratch rows. */
function trig(stride: i32): void {
  const pth = PTH, psin = PSIN, pcos = PCOS
  const fs15 = c(0), fs13 = c(1), fs11 = c(2), fs9 = c(3), fs7 = c(4), fs5 = c(5), fs3 = c(6), sinErr = c(7)
  const split = c(8), two = c(9), half = c(10), one = c(11)
  const fc14 = c(12), fc12 = c(13), fc10 = c(14), fc8 = c(15), fc6 = c(16), fc4 = c(17), cosErr = c(18), cosTrunc = c(19)
  const fastHi = c(20), fastLo = c(21)
  for (let i = 0; i < stride; i += 2) {
    const o = <usize>i << 3
    const th = v128.load(pth + o)
    // sin fast path
    const z = f64x2.mul(th, th)
    let q = f64x2.add(fs13, f64x2.mul(z, fs15))
    q = f64x2.add(fs11, f64x2.mul(z, q))
    q = f64x2.add(fs9, f64x2.mul(z, q))
    q = f64x2.add(fs7, f64x2.mul(z, q))
    q = f64x2.add(fs5, f64x2.mul(z, q))
    q = f64x2.add(fs3, f64x2.mul(z, q))
    const r = f64x2.mul(f64x2.mul(th, z), q)
    const shi = f64x2.add(th, r)
    const slo = f64x2.add(f64x2.sub(th, shi), r)
    const se = f64x2.mul(f64x2.abs(r), sinErr)
    let sn = f64x2.add(shi, f64x2.sub(slo, se))
    const sUp = f64x2.add(shi, f64x2.add(slo, se))
    // cos fast path
    const t = f64x2.mul(split, th)
    const xh = f64x2.sub(t, f64x2.sub(t, th))
    const xl = f64x2.sub(th, xh)
    const zl = f64x2.add(f64x2.add(f64x2.sub(f64x2.mul(xh, xh), z), f64x2.mul(f64x2.mul(two, xh), xl)), f64x2.mul(xl, xl))
    const h2 = f64x2.mul(half, z)
    const chi = f64x2.sub(one, h2)
    let pc = f64x2.add(fc12, f64x2.mul(z, fc14))
    pc = f64x2.add(fc10, f64x2.mul(z, pc))
    pc = f64x2.add(fc8, f64x2.mul(z, pc))
    pc = f64x2.add(fc6, f64x2.mul(z, pc))
    pc = f64x2.add(fc4, f64x2.mul(z, pc))
    const p = f64x2.mul(f64x2.mul(z, z), pc)
    const clo = f64x2.add(f64x2.sub(f64x2.sub(one, chi), h2), f64x2.sub(p, f64x2.mul(half, zl)))
    const ce = f64x2.add(f64x2.mul(f64x2.abs(p), cosErr), cosTrunc)
    let cs = f64x2.add(chi, f64x2.sub(clo, ce))
    const cUp = f64x2.add(chi, f64x2.add(clo, ce))
    // a lane outside the fast range, or failing a rounding test: the accurate series for that value
    const ath = f64x2.abs(th)
    const inRange = v128.and(f64x2.le(ath, fastHi), f64x2.ge(ath, fastLo))
    const sOk = v128.and(inRange, f64x2.eq(sn, sUp))
    const cOk = v128.and(inRange, f64x2.eq(cs, cUp))
    if (!i64x2.all_true(v128.and(sOk, cOk))) {
      if (i64x2.extract_lane(sOk, 0) == 0) sn = f64x2.replace_lane(sn, 0, sinSeries(f64x2.extract_lane(th, 0)))
      if (i64x2.extract_lane(sOk, 1) == 0) sn = f64x2.replace_lane(sn, 1, sinSeries(f64x2.extract_lane(th, 1)))
      if (i64x2.extract_lane(cOk, 0) == 0) cs = f64x2.replace_lane(cs, 0, cosSeries(f64x2.extract_lane(th, 0)))
      if (i64x2.extract_lane(cOk, 1) == 0) cs = f64x2.replace_lane(cs, 1, cosSeries(f64x2.extract_lane(th, 1)))
    }
    v128.store(psin + o, sn)
    v128.store(pcos + o, cs)
  }
}

/** Physics of rows [0, stride), two per iteration, from the `sin`/`cos` rows; state, observations and `term` written. */
function physics(stride: i32): void {
  const px = PX, pxd = PXD, pth = PTH, pthd = PTHD, pact = PACT, pobs = POBS, pterm = PTERM, psin = PSIN, pcos = PCOS
  const half = c(10), fRight = c(22), fLeft = c(23)
  const pml = c(24), total = c(25), gravity = c(26), fourThirds = c(27), massPole = c(28), tau = c(29), xLim = c(30), thLim = c(31)
  const nxLim = f64x2.neg(xLim)
  const nthLim = f64x2.neg(thLim)
  for (let i = 0; i < stride; i += 2) {
    const o = <usize>i << 3
    const x = v128.load(px + o)
    const xd = v128.load(pxd + o)
    const th = v128.load(pth + o)
    const thd = v128.load(pthd + o)
    const sn = v128.load(psin + o)
    const cs = v128.load(pcos + o)
    // force: +10 where the action is 1, else -10 (actions are validated 0/1)
    const acts = i64x2.extend_low_i32x4_s(v128.load64_zero(pact + (<usize>i << 2)))
    const force = v128.bitselect(fRight, fLeft, i64x2.eq(acts, i64x2.splat(1)))
    const temp = f64x2.div(f64x2.add(force, f64x2.mul(f64x2.mul(pml, f64x2.mul(thd, thd)), sn)), total)
    const thacc = f64x2.div(f64x2.sub(f64x2.mul(gravity, sn), f64x2.mul(cs, temp)),
      f64x2.mul(half, f64x2.sub(fourThirds, f64x2.div(f64x2.mul(massPole, f64x2.mul(cs, cs)), total))))
    const xacc = f64x2.sub(temp, f64x2.div(f64x2.mul(f64x2.mul(pml, thacc), cs), total))
    const nx = f64x2.add(x, f64x2.mul(tau, xd))
    const nxd = f64x2.add(xd, f64x2.mul(tau, xacc))
    const nth = f64x2.add(th, f64x2.mul(tau, thd))
    const nthd = f64x2.add(thd, f64x2.mul(tau, thacc))
    v128.store(px + o, nx)
    v128.store(pxd + o, nxd)
    v128.store(pth + o, nth)
    v128.store(pthd + o, nthd)
    const ob = pobs + (<usize>i << 4)
    const f0 = f32x4.demote_f64x2_zero(nx)
    const f1 = f32x4.demote_f64x2_zero(nxd)
    const f2 = f32x4.demote_f64x2_zero(nth)
    const f3 = f32x4.demote_f64x2_zero(nthd)
    // row i: lanes 0 of f0..f3; row i+1: lanes 1
    const lo = i32x4.shuffle(f0, f1, 0, 4, 1, 5)
    const hi = i32x4.shuffle(f2, f3, 0, 4, 1, 5)
    v128.store(ob, i32x4.shuffle(lo, hi, 0, 1, 4, 5))
    v128.store(ob + 16, i32x4.shuffle(lo, hi, 2, 3, 6, 7))
    const term = v128.or(v128.or(f64x2.lt(nx, nxLim), f64x2.gt(nx, xLim)), v128.or(f64x2.lt(nth, nthLim), f64x2.gt(nth, thLim)))
    // lanes are all-ones or zero: bit 0 of the byte mask is row i's flag, bit 8 row i + 1's
    const m = i8x16.bitmask(term)
    store<u8>(pterm + i, <u8>(m & 1))
    store<u8>(pterm + i + 1, <u8>((m >> 8) & 1))
  }
}

/**
 * One step of every row (see the module docs). `stride` rows are stepped (the padding row of an odd `n` is put back
 * at rest), `n` rows are counted; rows that end (terminated or `el >= maxSteps`) are listed in `ended`; returns how many.
 * `nextStep` 1: rows flagged in `need` are reset instead of stepped, and the rows that end are flagged.
 */
export function step(n: i32, stride: i32, maxSteps: i32, rewardEnd: f64, rewardStep: f64, nextStep: i32): i32 {
  if (nextStep != 0) {
    // rows waiting for their reset are stepped too (then overwritten): put their angle on the trig fast path
    const pneed = PNEED, pth = PTH
    for (let i = 0; i < stride; i += 16) {
      if (v128.any_true(v128.load(pneed + <usize>i))) {
        for (let j = i, e = min(i + 16, n); j < e; j++) if (load<u8>(pneed + <usize>j) != 0) store<f64>(pth + (<usize>j << 3), 0.125)
      }
    }
  }
  trig(stride)
  physics(stride)
  if (stride > n) {
    const o = <usize>n << 3
    store<f64>(PX + o, 0.0)
    store<f64>(PXD + o, 0.0)
    store<f64>(PTH + o, 0.125)
    store<f64>(PTHD + o, 0.0)
  }
  return flags(n, maxSteps, rewardEnd, rewardStep, nextStep)
}

/**
 * The per-row bookkeeping after the physics, 16 rows per iteration: `TimeLimit` count, truncation, reward, the rows
 * that ended (NextStep: flagged in `need`, counted; else listed in `ended`), and the NextStep resets of the rows flagged
 * in `need` on entry (`el` 0, reward 0, flags 0, `reset` 1, state and observation from 4 draws of their PCG64).
 */
function flags(n: i32, maxSteps: i32, rewardEnd: f64, rewardStep: f64, nextStep: i32): i32 {
  const pel = PEL, pterm = PTERM, ptrunc = PTRUNC, prew = PREW, pended = PENDED, pneed = PNEED, preset = PRESET
  const zero = i8x16.splat(0)
  const one8 = i8x16.splat(1)
  const one32 = i32x4.splat(1)
  const maxv = i32x4.splat(maxSteps)
  const rEnd = f64x2.splat(rewardEnd)
  const rStep = f64x2.splat(rewardStep)
  const iota = i8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
  let ended = 0
  let resets = 0
  for (let i = 0; i < n; i += 16) {
    const ui = <usize>i
    const valid = i8x16.lt_s(iota, i8x16.splat(<i8>min(n - i, 16)))
    const needB = v128.load(pneed + ui)
    const needM = i8x16.ne(needB, zero)
    const termB = v128.andnot(v128.load(pterm + ui), needM)
    const termM = i8x16.ne(termB, zero)
    const n16lo = i16x8.extend_low_i8x16_s(needM)
    const n16hi = i16x8.extend_high_i8x16_s(needM)
    const n32a = i32x4.extend_low_i16x8_s(n16lo)
    const n32b = i32x4.extend_high_i16x8_s(n16lo)
    const n32c = i32x4.extend_low_i16x8_s(n16hi)
    const n32d = i32x4.extend_high_i16x8_s(n16hi)
    const pe = pel + (ui << 2)
    const e0 = v128.andnot(i32x4.add(v128.load(pe), one32), n32a)
    const e1 = v128.andnot(i32x4.add(v128.load(pe, 16), one32), n32b)
    const e2 = v128.andnot(i32x4.add(v128.load(pe, 32), one32), n32c)
    const e3 = v128.andnot(i32x4.add(v128.load(pe, 48), one32), n32d)
    v128.store(pe, e0)
    v128.store(pe, e1, 16)
    v128.store(pe, e2, 32)
    v128.store(pe, e3, 48)
    const truncM = i8x16.narrow_i16x8_s(
      i16x8.narrow_i32x4_s(i32x4.ge_s(e0, maxv), i32x4.ge_s(e1, maxv)),
      i16x8.narrow_i32x4_s(i32x4.ge_s(e2, maxv), i32x4.ge_s(e3, maxv))
    )
    const truncB = v128.and(truncM, one8)
    const endB = v128.and(v128.or(termB, truncB), valid)
    v128.store(pterm + ui, termB)
    v128.store(ptrunc + ui, truncB)
    // rewards: rewardEnd where terminated, 0 where reset, else rewardStep; byte masks sign-extended to 64-bit lanes
    const t16lo = i16x8.extend_low_i8x16_s(termM)
    const t16hi = i16x8.extend_high_i8x16_s(termM)
    const t32a = i32x4.extend_low_i16x8_s(t16lo)
    const t32b = i32x4.extend_high_i16x8_s(t16lo)
    const t32c = i32x4.extend_low_i16x8_s(t16hi)
    const t32d = i32x4.extend_high_i16x8_s(t16hi)
    const pr = prew + (ui << 3)
    v128.store(pr, v128.andnot(v128.bitselect(rEnd, rStep, i64x2.extend_low_i32x4_s(t32a)), i64x2.extend_low_i32x4_s(n32a)))
    v128.store(pr, v128.andnot(v128.bitselect(rEnd, rStep, i64x2.extend_high_i32x4_s(t32a)), i64x2.extend_high_i32x4_s(n32a)), 16)
    v128.store(pr, v128.andnot(v128.bitselect(rEnd, rStep, i64x2.extend_low_i32x4_s(t32b)), i64x2.extend_low_i32x4_s(n32b)), 32)
    v128.store(pr, v128.andnot(v128.bitselect(rEnd, rStep, i64x2.extend_high_i32x4_s(t32b)), i64x2.extend_high_i32x4_s(n32b)), 48)
    v128.store(pr, v128.andnot(v128.bitselect(rEnd, rStep, i64x2.extend_low_i32x4_s(t32c)), i64x2.extend_low_i32x4_s(n32c)), 64)
    v128.store(pr, v128.andnot(v128.bitselect(rEnd, rStep, i64x2.extend_high_i32x4_s(t32c)), i64x2.extend_high_i32x4_s(n32c)), 80)
    v128.store(pr, v128.andnot(v128.bitselect(rEnd, rStep, i64x2.extend_low_i32x4_s(t32d)), i64x2.extend_low_i32x4_s(n32d)), 96)
    v128.store(pr, v128.andnot(v128.bitselect(rEnd, rStep, i64x2.extend_high_i32x4_s(t32d)), i64x2.extend_high_i32x4_s(n32d)), 112)
    const endBits = i8x16.bitmask(i8x16.ne(endB, zero))
    if (nextStep != 0) {
      v128.store(pneed + ui, endB)
      v128.store(preset + ui, needB)
      ended += popcnt(endBits)
      // the rows flagged on entry start their next episode (listed here, reset two at a time after the loop)
      let bits = i8x16.bitmask(needM)
      while (bits != 0) {
        store<i32>(pended + (<usize>resets << 2), i + ctz(bits))
        resets++
        bits &= bits - 1
      }
    } else {
      let bits = endBits
      while (bits != 0) {
        store<i32>(pended + (<usize>ended << 2), i + ctz(bits))
        ended++
        bits &= bits - 1
      }
    }
  }
  // NextStep resets, two rows per call: their PCG64 chains are independent, so they overlap
  let k = 0
  for (; k + 1 < resets; k += 2) resetPair(load<i32>(pended + (<usize>k << 2)), load<i32>(pended + (<usize>(k + 1) << 2)))
  if (k < resets) resetRow(load<i32>(pended + (<usize>k << 2)), -0.05, 0.05)
  return ended
}
