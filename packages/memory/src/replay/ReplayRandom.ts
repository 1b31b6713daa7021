/**
 * The per-batch random stream of the replay samplers: one 64-bit draw from the caller's `@autodidact/core`
 * {@link Rng} (NumPy-compatible PCG64) seeds a xoshiro128** generator that supplies the batch's draws.
 *
 * **Why**: PCG64 in JavaScript does 128-bit arithmetic on 16-bit limbs in doubles, about 0.3-0.6 µs a draw, which
 * alone would cost 80-150 µs for a batch of 256; xoshiro128** (Blackman & Vigna, "Scrambled Linear Pseudorandom
 * Number Generators", ACM TOMS 47(4), 2021, arXiv:1805.01407) uses 32-bit integer ops (a few ns a draw). Sampling
 * stays seeded and reproducible: the same core generator state gives the same batches, and each batch advances the
 * core generator by exactly one 64-bit step (two `nextUint32` calls).
 *
 * **Details**: the 64-bit seed is expanded to the 128-bit state with SplitMix32-style mixing (never all zero);
 * `random()` returns 53-bit doubles in [0, 1) from two outputs; `integers(n)` is exactly uniform on [0, n) for
 * `n <= 2^32` by rejection. One instance is reused; no allocation.
 *
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"

/** splitmix32 finalizer (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014). */
const mix32 = (z: number): number => {
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
  return (z ^ (z >>> 16)) >>> 0
}

/**
 * A xoshiro128** stream reseeded from a core {@link Rng} once per batch (see the module docs).
 * @category models
 */
export class BatchRandom {
  private s0 = 1
  private s1 = 2
  private s2 = 3
  private s3 = 4

  /** Seed from one 64-bit draw of `rng` (advances `rng` by one PCG64 step). */
  reseed(rng: Rng): void {
    const lo = rng.nextUint32()
    const hi = rng.nextUint32()
    this.s0 = mix32((lo + 0x9e3779b9) | 0)
    this.s1 = mix32((hi + 0x3c6ef372) | 0)
    this.s2 = mix32((lo ^ hi ^ 0xdaa66d2b) | 0)
    this.s3 = mix32((Math.imul(lo, 0x27d4eb2d) + hi + 0x78dde6e4) | 0)
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1
  }

  /** A uniform unsigned 32-bit integer. */
  nextUint32(): number {
    const s0 = this.s0
    const s1 = this.s1
    const s2 = this.s2
    const s3 = this.s3
    const x = Math.imul(s1, 5)
    const result = Math.imul((x << 7) | (x >>> 25), 9) >>> 0
    const t = s1 << 9
    const n2 = s2 ^ s0
    const n3 = s3 ^ s1
    this.s1 = s1 ^ n2
    this.s0 = s0 ^ n3
    this.s2 = n2 ^ t
    this.s3 = (n3 << 11) | (n3 >>> 21)
    return result
  }

  /** A uniform double in [0, 1) with 53 random bits. */
  random(): number {
    const a = this.nextUint32() >>> 5
    const b = this.nextUint32() >>> 6
    return (a * 67108864 + b) * 1.1102230246251565e-16
  }

  /** A uniform integer in [0, n), exactly, for integer `1 <= n <= 2^32` (not checked). */
  integers(n: number): number {
    const limit = 4294967296 - (4294967296 % n)
    let x = this.nextUint32()
    while (x >= limit) x = this.nextUint32()
    return x % n
  }
}
