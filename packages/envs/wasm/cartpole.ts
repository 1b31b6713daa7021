/**
 * AssemblyScript source of the WebAssembly SIMD step of `CartPoleBatch` (compiled by `scripts/build-wasm.ts` with
 * `--enable simd` into `src/generated/cartPoleWasm.ts`; `src/classic/CartPoleWasm.ts` is the JavaScript side).
 *
 * `step` advances rows [0, n) (n even; the caller pads) two at a time in f64x2 lanes, operation for operation as
 * `CartPoleEnv.step` (WebAssembly never fuses a multiply-add and its f64 division is IEEE's, so every lane gives the
 * bits the JavaScript loop gives): `cos`/`sin` by `Libm`'s fast paths with the same rounding test, and for a lane
 * outside 2^-26 <= |theta| <= 1/4 or failing a test, the imported `Libm.sinAccurate`/`cosAccurate` of that value (the
 * same correctly rounded value `Libm.sin`/`cos` return). Layout (byte offsets, 16-byte aligned): `x`, `xd`, `th`, `thd` f64[n]
 * (state, updated in place), `act` i32[n] (0/1), `obs` f32[4n] (row-major observations), `term` u8[n] (1 where the
 * row left the thresholds); then per row the `TimeLimit` count `el` i32[n] (incremented), `trunc` u8[n] (el >= maxSteps),
 * the reward `rew` f64[n], and the rows that ended, in order, into `ended` i32[n]. Returns how many ended. Nothing
 * allocates.
 */
// imported as ("cartpole", name): the JavaScript side passes Libm.sinAccurate / Libm.cosAccurate
declare function sinAccurate(x: f64): f64
declare function cosAccurate(x: f64): f64

const SPLIT: f64 = 134217729.0
const FS3: f64 = -0.16666666666666666
const FS5: f64 = 0.008333333333333333
const FS7: f64 = -0.0001984126984126984
const FS9: f64 = 2.7557319223985893e-6
const FS11: f64 = -2.505210838544172e-8
const FS13: f64 = 1.6059043836821613e-10
const FS15: f64 = -7.647163731819816e-13
const FC4: f64 = 0.041666666666666664
const FC6: f64 = -0.001388888888888889
const FC8: f64 = 2.48015873015873e-5
const FC10: f64 = -2.755731922398589e-7
const FC12: f64 = 2.08767569878681e-9
const FC14: f64 = -1.1470745597729725e-11
const SIN_ERR: f64 = 6.0 * 1.1102230246251565e-16
const COS_ERR: f64 = 16.0 * 1.1102230246251565e-16
const COS_TRUNC: f64 = 1.3234889800848443e-23 // 2^-76

function spl(x: f64): v128 { return f64x2.splat(x) }

export function step(
  n: i32, px: usize, pxd: usize, pth: usize, pthd: usize, pact: usize, pobs: usize, pterm: usize,
  pel: usize, prew: usize, ptrunc: usize, pended: usize, maxSteps: i32, rewardEnd: f64, rewardStep: f64
): i32 {
  for (let i = 0; i < n; i += 2) {
    const o = <usize>i << 3
    const x = v128.load(px + o)
    const xd = v128.load(pxd + o)
    const th = v128.load(pth + o)
    const thd = v128.load(pthd + o)
    // sin fast path
    const z = f64x2.mul(th, th)
    let q = f64x2.add(spl(FS13), f64x2.mul(z, spl(FS15)))
    q = f64x2.add(spl(FS11), f64x2.mul(z, q))
    q = f64x2.add(spl(FS9), f64x2.mul(z, q))
    q = f64x2.add(spl(FS7), f64x2.mul(z, q))
    q = f64x2.add(spl(FS5), f64x2.mul(z, q))
    q = f64x2.add(spl(FS3), f64x2.mul(z, q))
    const r = f64x2.mul(f64x2.mul(th, z), q)
    const shi = f64x2.add(th, r)
    const slo = f64x2.add(f64x2.sub(th, shi), r)
    const se = f64x2.mul(f64x2.abs(r), spl(SIN_ERR))
    let sn = f64x2.add(shi, f64x2.sub(slo, se))
    const sUp = f64x2.add(shi, f64x2.add(slo, se))
    // cos fast path
    const t = f64x2.mul(spl(SPLIT), th)
    const xh = f64x2.sub(t, f64x2.sub(t, th))
    const xl = f64x2.sub(th, xh)
    const zl = f64x2.add(f64x2.add(f64x2.sub(f64x2.mul(xh, xh), z), f64x2.mul(f64x2.mul(spl(2.0), xh), xl)), f64x2.mul(xl, xl))
    const h2 = f64x2.mul(spl(0.5), z)
    const chi = f64x2.sub(spl(1.0), h2)
    let pc = f64x2.add(spl(FC12), f64x2.mul(z, spl(FC14)))
    pc = f64x2.add(spl(FC10), f64x2.mul(z, pc))
    pc = f64x2.add(spl(FC8), f64x2.mul(z, pc))
    pc = f64x2.add(spl(FC6), f64x2.mul(z, pc))
    pc = f64x2.add(spl(FC4), f64x2.mul(z, pc))
    const p = f64x2.mul(f64x2.mul(z, z), pc)
    const clo = f64x2.add(f64x2.sub(f64x2.sub(spl(1.0), chi), h2), f64x2.sub(p, f64x2.mul(spl(0.5), zl)))
    const ce = f64x2.add(f64x2.mul(f64x2.abs(p), spl(COS_ERR)), spl(COS_TRUNC))
    let cs = f64x2.add(chi, f64x2.sub(clo, ce))
    const cUp = f64x2.add(chi, f64x2.add(clo, ce))
    // a lane outside the fast range, or failing a rounding test: the accurate series for that value
    const ath = f64x2.abs(th)
    const inRange = v128.and(f64x2.le(ath, spl(0.25)), f64x2.ge(ath, spl(1.4901161193847656e-8)))
    const sOk = v128.and(inRange, f64x2.eq(sn, sUp))
    const cOk = v128.and(inRange, f64x2.eq(cs, cUp))
    if (!i64x2.all_true(v128.and(sOk, cOk))) {
      if (i64x2.extract_lane(sOk, 0) == 0) sn = f64x2.replace_lane(sn, 0, sinAccurate(f64x2.extract_lane(th, 0)))
      if (i64x2.extract_lane(sOk, 1) == 0) sn = f64x2.replace_lane(sn, 1, sinAccurate(f64x2.extract_lane(th, 1)))
      if (i64x2.extract_lane(cOk, 0) == 0) cs = f64x2.replace_lane(cs, 0, cosAccurate(f64x2.extract_lane(th, 0)))
      if (i64x2.extract_lane(cOk, 1) == 0) cs = f64x2.replace_lane(cs, 1, cosAccurate(f64x2.extract_lane(th, 1)))
    }
    const a0 = load<i32>(pact + (<usize>i << 2))
    const a1 = load<i32>(pact + (<usize>i << 2) + 4)
    const force = f64x2.replace_lane(spl(a0 == 1 ? 10.0 : -10.0), 1, a1 == 1 ? 10.0 : -10.0)
    const temp = f64x2.div(f64x2.add(force, f64x2.mul(f64x2.mul(spl(0.05), f64x2.mul(thd, thd)), sn)), spl(1.1))
    const thacc = f64x2.div(f64x2.sub(f64x2.mul(spl(9.8), sn), f64x2.mul(cs, temp)),
      f64x2.mul(spl(0.5), f64x2.sub(spl(4.0 / 3.0), f64x2.div(f64x2.mul(spl(0.1), f64x2.mul(cs, cs)), spl(1.1)))))
    const xacc = f64x2.sub(temp, f64x2.div(f64x2.mul(f64x2.mul(spl(0.05), thacc), cs), spl(1.1)))
    const nx = f64x2.add(x, f64x2.mul(spl(0.02), xd))
    const nxd = f64x2.add(xd, f64x2.mul(spl(0.02), xacc))
    const nth = f64x2.add(th, f64x2.mul(spl(0.02), thd))
    const nthd = f64x2.add(thd, f64x2.mul(spl(0.02), thacc))
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
    v128.store(ob, f32x4.shuffle(i32x4.shuffle(f0, f1, 0, 4, 1, 5), i32x4.shuffle(f2, f3, 0, 4, 1, 5), 0, 1, 4, 5))
    v128.store(ob + 16, f32x4.shuffle(i32x4.shuffle(f0, f1, 0, 4, 1, 5), i32x4.shuffle(f2, f3, 0, 4, 1, 5), 2, 3, 6, 7))
    const TH: f64 = 12.0 * 2.0 * 3.141592653589793 / 360.0
    const term = v128.or(v128.or(f64x2.lt(nx, spl(-2.4)), f64x2.gt(nx, spl(2.4))), v128.or(f64x2.lt(nth, spl(-TH)), f64x2.gt(nth, spl(TH))))
    store<u8>(pterm + i, <u8>(i64x2.extract_lane(term, 0) & 1))
    store<u8>(pterm + i + 1, <u8>(i64x2.extract_lane(term, 1) & 1))
  }
  // TimeLimit, rewards, and the list of rows that ended (terminated or truncated)
  let ended = 0
  for (let i = 0; i < n; i++) {
    const e = load<i32>(pel + (<usize>i << 2)) + 1
    store<i32>(pel + (<usize>i << 2), e)
    const te = load<u8>(pterm + i)
    const tr: u8 = e >= maxSteps ? 1 : 0
    store<u8>(ptrunc + i, tr)
    store<f64>(prew + (<usize>i << 3), te == 1 ? rewardEnd : rewardStep)
    if ((te | tr) != 0) {
      store<i32>(pended + (<usize>ended << 2), i)
      ended++
    }
  }
  return ended
}
