/**
 * One finite-difference gradient check for the optim tests: for each parameter index k, the central difference
 * `(L(θ + h) − L(θ − h)) / (fround(θ + h) − fround(θ − h))` (the float32 step actually taken), compared with
 * `grad[k]` by the relative error `|fd − g| / max(1e-3, |fd| + |g|)`. Returns the largest error; `params` is restored.
 */
export const maxRelativeError = (
  params: Float32Array | Float64Array,
  grad: ArrayLike<number>,
  loss: () => number,
  indices: Iterable<number>,
  h: number
): number => {
  let maxErr = 0
  for (const k of indices) {
    const old = params[k]!
    params[k] = old + h
    const up = loss()
    params[k] = old - h
    const down = loss()
    params[k] = old
    const fd = (up - down) / (Math.fround(old + h) - Math.fround(old - h))
    maxErr = Math.max(maxErr, Math.abs(fd - grad[k]!) / Math.max(1e-3, Math.abs(fd) + Math.abs(grad[k]!)))
  }
  return maxErr
}

/** The indices `0, stride, 2·stride, …` below `n` whose gradient is non-zero, plus (with `always`) those that satisfy it. */
export const nonZeroIndices = (grad: ArrayLike<number>, stride = 1, always: (k: number) => boolean = () => false): Array<number> => {
  const out: Array<number> = []
  for (let k = 0; k < grad.length; k += stride) if (grad[k] !== 0 || always(k)) out.push(k)
  return out
}
