/**
 * The dense layer `y = act(x · W + b)` of the actor-critic MLPs and its backward pass, on the flat parameter vector,
 * register-blocked (2 rows × 4 columns) plain loops in doubles.
 * @internal
 * @since 0.2.0
 */

/**
 * y[b, :] = act(x[b, :] · W + bias) for a batch; W (`[inDim, outDim]`) at `w`, bias at `w + inDim * outDim` in `p`.
 * Register-blocked 2 rows × 4 columns (6 loads per 8 multiply-adds, no stores in the inner loop).
 */
export const dense = (p: Float32Array, w: number, x: Float64Array, batch: number, inDim: number, outDim: number, y: Float64Array, tanh: boolean): void => {
  const bias = w + inDim * outDim
  let b = 0
  for (; b + 2 <= batch; b += 2) {
    const x0 = b * inDim
    const x1 = x0 + inDim
    const y0 = b * outDim
    const y1 = y0 + outDim
    let j = 0
    for (; j + 4 <= outDim; j += 4) {
      let a0 = p[bias + j]!, a1 = p[bias + j + 1]!, a2 = p[bias + j + 2]!, a3 = p[bias + j + 3]!
      let c0 = a0, c1 = a1, c2 = a2, c3 = a3
      for (let i = 0; i < inDim; i++) {
        const u = x[x0 + i]!
        const v = x[x1 + i]!
        const r = w + i * outDim + j
        const w0 = p[r]!, w1 = p[r + 1]!, w2 = p[r + 2]!, w3 = p[r + 3]!
        a0 += u * w0
        a1 += u * w1
        a2 += u * w2
        a3 += u * w3
        c0 += v * w0
        c1 += v * w1
        c2 += v * w2
        c3 += v * w3
      }
      y[y0 + j] = a0
      y[y0 + j + 1] = a1
      y[y0 + j + 2] = a2
      y[y0 + j + 3] = a3
      y[y1 + j] = c0
      y[y1 + j + 1] = c1
      y[y1 + j + 2] = c2
      y[y1 + j + 3] = c3
    }
    for (; j < outDim; j++) {
      let a = p[bias + j]!
      let c = a
      for (let i = 0; i < inDim; i++) {
        const wij = p[w + i * outDim + j]!
        a += x[x0 + i]! * wij
        c += x[x1 + i]! * wij
      }
      y[y0 + j] = a
      y[y1 + j] = c
    }
  }
  for (; b < batch; b++) {
    const x0 = b * inDim
    const y0 = b * outDim
    for (let j = 0; j < outDim; j++) {
      let a = p[bias + j]!
      for (let i = 0; i < inDim; i++) a += x[x0 + i]! * p[w + i * outDim + j]!
      y[y0 + j] = a
    }
  }
  if (tanh) for (let k = 0; k < batch * outDim; k++) y[k] = Math.tanh(y[k]!)
}

/**
 * Gradients of a dense layer given dL/dy (`dy`, `[batch, outDim]`): ADD dL/dW (`Σ_b x[b]ᵀ dy[b]`) and dL/dbias into
 * `g`, and write dL/dx (`dy · Wᵀ`, `[batch, inDim]`) into `dx` when given. Register-blocked like {@link dense}.
 */
export const denseBackward = (
  p: Float32Array,
  g: Float64Array,
  w: number,
  x: Float64Array,
  dy: Float64Array,
  batch: number,
  inDim: number,
  outDim: number,
  dx: Float64Array | undefined
): void => {
  const bias = w + inDim * outDim
  for (let j = 0; j < outDim; j++) {
    let s = 0
    for (let b = 0; b < batch; b++) s += dy[b * outDim + j]!
    g[bias + j] += s
  }
  // dW[i, j] = Σ_b x[b, i] dy[b, j]: blocks of 2 inputs × 4 outputs
  let i = 0
  for (; i + 2 <= inDim; i += 2) {
    let j = 0
    for (; j + 4 <= outDim; j += 4) {
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0
      for (let b = 0; b < batch; b++) {
        const u = x[b * inDim + i]!
        const v = x[b * inDim + i + 1]!
        const r = b * outDim + j
        const d0 = dy[r]!, d1 = dy[r + 1]!, d2 = dy[r + 2]!, d3 = dy[r + 3]!
        a0 += u * d0
        a1 += u * d1
        a2 += u * d2
        a3 += u * d3
        c0 += v * d0
        c1 += v * d1
        c2 += v * d2
        c3 += v * d3
      }
      const r0 = w + i * outDim + j
      const r1 = r0 + outDim
      g[r0] += a0
      g[r0 + 1] += a1
      g[r0 + 2] += a2
      g[r0 + 3] += a3
      g[r1] += c0
      g[r1 + 1] += c1
      g[r1 + 2] += c2
      g[r1 + 3] += c3
    }
    for (; j < outDim; j++) {
      let a = 0
      let c = 0
      for (let b = 0; b < batch; b++) {
        const d = dy[b * outDim + j]!
        a += x[b * inDim + i]! * d
        c += x[b * inDim + i + 1]! * d
      }
      g[w + i * outDim + j] += a
      g[w + (i + 1) * outDim + j] += c
    }
  }
  for (; i < inDim; i++) {
    for (let j = 0; j < outDim; j++) {
      let a = 0
      for (let b = 0; b < batch; b++) a += x[b * inDim + i]! * dy[b * outDim + j]!
      g[w + i * outDim + j] += a
    }
  }
  if (dx === undefined) return
  // dx[b, i] = Σ_j dy[b, j] W[i, j]: blocks of 2 rows × 4 inputs
  let b = 0
  for (; b + 2 <= batch; b += 2) {
    const d0r = b * outDim
    const d1r = d0r + outDim
    let k = 0
    for (; k + 4 <= inDim; k += 4) {
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0
      const r0 = w + k * outDim
      const r1 = r0 + outDim
      const r2 = r1 + outDim
      const r3 = r2 + outDim
      for (let j = 0; j < outDim; j++) {
        const u = dy[d0r + j]!
        const v = dy[d1r + j]!
        const w0 = p[r0 + j]!, w1 = p[r1 + j]!, w2 = p[r2 + j]!, w3 = p[r3 + j]!
        a0 += u * w0
        a1 += u * w1
        a2 += u * w2
        a3 += u * w3
        c0 += v * w0
        c1 += v * w1
        c2 += v * w2
        c3 += v * w3
      }
      const x0 = b * inDim + k
      const x1 = x0 + inDim
      dx[x0] = a0
      dx[x0 + 1] = a1
      dx[x0 + 2] = a2
      dx[x0 + 3] = a3
      dx[x1] = c0
      dx[x1 + 1] = c1
      dx[x1 + 2] = c2
      dx[x1 + 3] = c3
    }
    for (; k < inDim; k++) {
      let a = 0
      let c = 0
      for (let j = 0; j < outDim; j++) {
        const wkj = p[w + k * outDim + j]!
        a += dy[d0r + j]! * wkj
        c += dy[d1r + j]! * wkj
      }
      dx[b * inDim + k] = a
      dx[(b + 1) * inDim + k] = c
    }
  }
  for (; b < batch; b++) {
    for (let k = 0; k < inDim; k++) {
      let a = 0
      for (let j = 0; j < outDim; j++) a += dy[b * outDim + j]! * p[w + k * outDim + j]!
      dx[b * inDim + k] = a
    }
  }
}
