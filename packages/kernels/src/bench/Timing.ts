/**
 * Timing for the kernel benchmark: one warm-up call, then calls until `minTimeMs` has passed (at least 3, at most
 * 200); the fastest call is the result (as `timeit` recommends: on a shared machine, slower calls measure other
 * processes, not the kernel).
 * @since 0.1.0
 */

/** Fastest of repeated synchronous calls, in ms. */
export const time = (f: () => unknown, minTimeMs: number): number => {
  f() // warm-up (JIT, kernel compilation, first allocation)
  const times: Array<number> = []
  const start = performance.now()
  while (times.length < 3 || (performance.now() - start < minTimeMs && times.length < 200)) {
    const t0 = performance.now()
    f()
    times.push(performance.now() - t0)
  }
  return Math.min(...times)
}

/** Fastest of repeated asynchronous calls (awaited one at a time), in ms. */
export const timeAsync = async (f: () => Promise<unknown>, minTimeMs: number): Promise<number> => {
  await f() // warm-up (session creation, first allocation)
  const times: Array<number> = []
  const start = performance.now()
  while (times.length < 3 || (performance.now() - start < minTimeMs && times.length < 200)) {
    const t0 = performance.now()
    await f()
    times.push(performance.now() - t0)
  }
  return Math.min(...times)
}

