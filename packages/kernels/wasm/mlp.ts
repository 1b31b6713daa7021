/**
 * AssemblyScript sources of the `MlpSimd` kernels: dense layers of small tanh MLPs (forward, weight gradients, input
 * gradients through tanh) in float32x4 WebAssembly SIMD. Compiled by `scripts/build-wasm.ts` (target `mlp`) into
 * `src/generated/wasmMlpBinary.ts`; see `src/nn/MlpSimd.ts` for the JavaScript side, which lays out the memory.
 *
 * Conventions: every pointer argument is a byte offset into the module's exported memory (16-byte aligned by the
 * caller); matrices are row-major float32; a dense weight is `[in, out]` (`y = x · W + b`), its bias follows it.
 * Nothing here allocates (runtime `stub`).
 *
 * Numerics: float32 products accumulated in float32 (as PyTorch's CPU float32 GEMM), `tanhv` is the rational
 * approximation of Eigen's `generic_fast_tanh_float` (odd degree-13 numerator over even degree-6 denominator on
 * |x| ≤ 7.905, ±1 beyond; a few ulp from the correctly rounded tanh, checked against `Math.tanh` in the tests).
 */

// ---------------------------------------------------------------------------------------------- tanh

const A1: f32 = 4.89352455891786e-3
const A3: f32 = 6.37261928875436e-4
const A5: f32 = 1.48572235717979e-5
const A7: f32 = 5.12229709037114e-8
const A9: f32 = -8.60467152213735e-11
const A11: f32 = 2.00018790482477e-13
const A13: f32 = -2.76076847742355e-16
const B0: f32 = 4.89352518554385e-3
const B2: f32 = 2.268434632439e-3
const B4: f32 = 1.18534705686654e-4
const B6: f32 = 1.19825839466702e-6
const CLAMP: f32 = 7.90531110763549805

// @ts-ignore: decorator
@inline
function tanhv(x0: v128): v128 {
  const x = f32x4.pmax(f32x4.pmin(x0, f32x4.splat(CLAMP)), f32x4.splat(-CLAMP))
  const x2 = f32x4.mul(x, x)
  let p = f32x4.splat(A13)
  p = f32x4.add(f32x4.mul(p, x2), f32x4.splat(A11))
  p = f32x4.add(f32x4.mul(p, x2), f32x4.splat(A9))
  p = f32x4.add(f32x4.mul(p, x2), f32x4.splat(A7))
  p = f32x4.add(f32x4.mul(p, x2), f32x4.splat(A5))
  p = f32x4.add(f32x4.mul(p, x2), f32x4.splat(A3))
  p = f32x4.add(f32x4.mul(p, x2), f32x4.splat(A1))
  p = f32x4.mul(p, x)
  let q = f32x4.splat(B6)
  q = f32x4.add(f32x4.mul(q, x2), f32x4.splat(B4))
  q = f32x4.add(f32x4.mul(q, x2), f32x4.splat(B2))
  q = f32x4.add(f32x4.mul(q, x2), f32x4.splat(B0))
  return f32x4.div(p, q)
}

/** y[k] = tanh(y[k]) for k < n, in place (the vector formula on every element, tails included). */
export function tanhInPlace(y: usize, n: i32): void {
  let k = 0
  for (; k + 4 <= n; k += 4) {
    const off = y + (<usize>k << 2)
    v128.store(off, tanhv(v128.load(off)))
  }
  for (; k < n; k++) {
    const off = y + (<usize>k << 2)
    store<f32>(off, f32x4.extract_lane(tanhv(f32x4.splat(load<f32>(off))), 0))
  }
}

// ---------------------------------------------------------------------------------------------- forward

/**
 * y[b, :] = x[b, :] · W + bias for b < B (W `[I, O]` at `w`; `bias` 0 for none), then tanh when `act` ≠ 0.
 * Blocks of 4 rows × 8 outputs (8 f32x4 accumulators); O not a multiple of 8 takes a per-output path.
 */
export function dense(w: usize, bias: usize, x: usize, B: i32, I: i32, O: i32, y: usize, act: i32): void {
  const rowX = <usize>I << 2
  const rowY = <usize>O << 2
  const O8 = O & ~7
  let b = 0
  for (; b + 4 <= B; b += 4) {
    const x0 = x + <usize>b * rowX
    const y0 = y + <usize>b * rowY
    for (let j = 0; j < O8; j += 8) {
      const jo = <usize>j << 2
      let a0 = bias == 0 ? f32x4.splat(0) : v128.load(bias + jo)
      let a1 = bias == 0 ? f32x4.splat(0) : v128.load(bias + jo, 16)
      let c0 = a0, c1 = a1, d0 = a0, d1 = a1, e0 = a0, e1 = a1
      let wr = w + jo
      let xr = x0
      for (let i = 0; i < I; i++) {
        const w0 = v128.load(wr)
        const w1 = v128.load(wr, 16)
        const u0 = v128.load32_splat(xr)
        const u1 = v128.load32_splat(xr + rowX)
        const u2 = v128.load32_splat(xr + 2 * rowX)
        const u3 = v128.load32_splat(xr + 3 * rowX)
        a0 = f32x4.add(a0, f32x4.mul(u0, w0))
        a1 = f32x4.add(a1, f32x4.mul(u0, w1))
        c0 = f32x4.add(c0, f32x4.mul(u1, w0))
        c1 = f32x4.add(c1, f32x4.mul(u1, w1))
        d0 = f32x4.add(d0, f32x4.mul(u2, w0))
        d1 = f32x4.add(d1, f32x4.mul(u2, w1))
        e0 = f32x4.add(e0, f32x4.mul(u3, w0))
        e1 = f32x4.add(e1, f32x4.mul(u3, w1))
        wr += rowY
        xr += 4
      }
      const yo = y0 + jo
      v128.store(yo, a0)
      v128.store(yo, a1, 16)
      v128.store(yo + rowY, c0)
      v128.store(yo + rowY, c1, 16)
      v128.store(yo + 2 * rowY, d0)
      v128.store(yo + 2 * rowY, d1, 16)
      v128.store(yo + 3 * rowY, e0)
      v128.store(yo + 3 * rowY, e1, 16)
    }
  }
  for (; b < B; b++) {
    const x0 = x + <usize>b * rowX
    const y0 = y + <usize>b * rowY
    for (let j = 0; j < O8; j += 8) {
      const jo = <usize>j << 2
      let a0 = bias == 0 ? f32x4.splat(0) : v128.load(bias + jo)
      let a1 = bias == 0 ? f32x4.splat(0) : v128.load(bias + jo, 16)
      let wr = w + jo
      for (let i = 0; i < I; i++) {
        const u = v128.load32_splat(x0 + (<usize>i << 2))
        a0 = f32x4.add(a0, f32x4.mul(u, v128.load(wr)))
        a1 = f32x4.add(a1, f32x4.mul(u, v128.load(wr, 16)))
        wr += rowY
      }
      v128.store(y0 + jo, a0)
      v128.store(y0 + jo, a1, 16)
    }
  }
  // outputs O8 .. O (the heads: O = numActions or 1): a dot product per row and output
  for (let j = O8; j < O; j++) {
    const bj: f32 = bias == 0 ? 0 : load<f32>(bias + (<usize>j << 2))
    for (let r = 0; r < B; r++) {
      const xr = x + <usize>r * rowX
      let s: f32 = bj
      let wr = w + (<usize>j << 2)
      for (let i = 0; i < I; i++) {
        s += load<f32>(xr + (<usize>i << 2)) * load<f32>(wr)
        wr += rowY
      }
      store<f32>(y + <usize>r * rowY + (<usize>j << 2), s)
    }
  }
  if (act != 0) tanhInPlace(y, B * O)
}

// ---------------------------------------------------------------------------------------------- backward

/**
 * Weight and bias gradients of a dense layer: gW[i, j] = Σ_b x[b, i] dy[b, j] (`[I, O]` at `gw`) and
 * gb[j] = Σ_b dy[b, j] (at `gb`), written (not added). Blocks of 4 inputs × 8 outputs for O a multiple of 8,
 * blocks of 4 inputs per output otherwise.
 */
export function denseGrad(x: usize, dy: usize, B: i32, I: i32, O: i32, gw: usize, gb: usize): void {
  const rowX = <usize>I << 2
  const rowY = <usize>O << 2
  const O8 = O & ~7
  const I4 = I & ~3
  for (let j = 0; j < O8; j += 8) {
    const jo = <usize>j << 2
    let s0 = f32x4.splat(0), s1 = f32x4.splat(0)
    let dr = dy + jo
    for (let b = 0; b < B; b++) {
      s0 = f32x4.add(s0, v128.load(dr))
      s1 = f32x4.add(s1, v128.load(dr, 16))
      dr += rowY
    }
    v128.store(gb + jo, s0)
    v128.store(gb + jo, s1, 16)
    let i = 0
    for (; i < I4; i += 4) {
      let a0 = f32x4.splat(0), a1 = a0, c0 = a0, c1 = a0, d0 = a0, d1 = a0, e0 = a0, e1 = a0
      let xr = x + (<usize>i << 2)
      dr = dy + jo
      for (let b = 0; b < B; b++) {
        const g0 = v128.load(dr)
        const g1 = v128.load(dr, 16)
        const u0 = v128.load32_splat(xr)
        const u1 = v128.load32_splat(xr, 4)
        const u2 = v128.load32_splat(xr, 8)
        const u3 = v128.load32_splat(xr, 12)
        a0 = f32x4.add(a0, f32x4.mul(u0, g0))
        a1 = f32x4.add(a1, f32x4.mul(u0, g1))
        c0 = f32x4.add(c0, f32x4.mul(u1, g0))
        c1 = f32x4.add(c1, f32x4.mul(u1, g1))
        d0 = f32x4.add(d0, f32x4.mul(u2, g0))
        d1 = f32x4.add(d1, f32x4.mul(u2, g1))
        e0 = f32x4.add(e0, f32x4.mul(u3, g0))
        e1 = f32x4.add(e1, f32x4.mul(u3, g1))
        xr += rowX
        dr += rowY
      }
      const go = gw + <usize>i * rowY + jo
      v128.store(go, a0)
      v128.store(go, a1, 16)
      v128.store(go + rowY, c0)
      v128.store(go + rowY, c1, 16)
      v128.store(go + 2 * rowY, d0)
      v128.store(go + 2 * rowY, d1, 16)
      v128.store(go + 3 * rowY, e0)
      v128.store(go + 3 * rowY, e1, 16)
    }
    for (; i < I; i++) {
      let a0 = f32x4.splat(0), a1 = a0
      let xr = x + (<usize>i << 2)
      dr = dy + jo
      for (let b = 0; b < B; b++) {
        const u = v128.load32_splat(xr)
        a0 = f32x4.add(a0, f32x4.mul(u, v128.load(dr)))
        a1 = f32x4.add(a1, f32x4.mul(u, v128.load(dr, 16)))
        xr += rowX
        dr += rowY
      }
      const go = gw + <usize>i * rowY + jo
      v128.store(go, a0)
      v128.store(go, a1, 16)
    }
  }
  for (let j = O8; j < O; j++) {
    const jo = <usize>j << 2
    let s: f32 = 0
    for (let b = 0; b < B; b++) s += load<f32>(dy + <usize>b * rowY + jo)
    store<f32>(gb + jo, s)
    let i = 0
    for (; i < I4; i += 4) {
      let a = f32x4.splat(0)
      let xr = x + (<usize>i << 2)
      let dr = dy + jo
      for (let b = 0; b < B; b++) {
        a = f32x4.add(a, f32x4.mul(v128.load(xr), v128.load32_splat(dr)))
        xr += rowX
        dr += rowY
      }
      const go = gw + <usize>i * rowY + jo
      store<f32>(go, f32x4.extract_lane(a, 0))
      store<f32>(go + rowY, f32x4.extract_lane(a, 1))
      store<f32>(go + 2 * rowY, f32x4.extract_lane(a, 2))
      store<f32>(go + 3 * rowY, f32x4.extract_lane(a, 3))
    }
    for (; i < I; i++) {
      let a: f32 = 0
      for (let b = 0; b < B; b++) a += load<f32>(x + <usize>b * rowX + (<usize>i << 2)) * load<f32>(dy + <usize>b * rowY + jo)
      store<f32>(gw + <usize>i * rowY + jo, a)
    }
  }
}

/** wt = Wᵀ: W `[I, O]` at `w` into `[O, I]` at `wt`. */
export function transpose(w: usize, I: i32, O: i32, wt: usize): void {
  for (let i = 0; i < I; i++) {
    for (let j = 0; j < O; j++) store<f32>(wt + ((<usize>(j * I + i)) << 2), load<f32>(w + ((<usize>(i * O + j)) << 2)))
  }
}

/**
 * Input gradient through the previous layer's tanh: dx[b, i] = (Σ_j dy[b, j] W[i, j]) · (1 − a[b, i]²), where `a` is
 * the layer's input (a tanh output). Transposes W into `wt` (`O · I` floats of scratch) and reuses {@link dense}.
 */
export function denseInputGradTanh(w: usize, a: usize, dy: usize, B: i32, I: i32, O: i32, dx: usize, wt: usize): void {
  transpose(w, I, O, wt)
  dense(wt, 0, dy, B, O, I, dx, 0)
  const n = B * I
  let k = 0
  const one = f32x4.splat(1)
  for (; k + 4 <= n; k += 4) {
    const off = <usize>k << 2
    const av = v128.load(a + off)
    v128.store(dx + off, f32x4.mul(v128.load(dx + off), f32x4.sub(one, f32x4.mul(av, av))))
  }
  for (; k < n; k++) {
    const off = <usize>k << 2
    const av = load<f32>(a + off)
    store<f32>(dx + off, load<f32>(dx + off) * (1 - av * av))
  }
}
