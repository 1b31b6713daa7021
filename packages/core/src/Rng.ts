/**
 * Seeded, splittable pseudo-random number generation, bit-for-bit compatible with NumPy's default generator.
 *
 * `Rng.make(seed)` produces exactly the stream of `numpy.random.default_rng(seed)` (PCG64 seeded through
 * `SeedSequence`), so `rng.random()`, `rng.uniform(a, b)` and `rng.integers(n)` return the same numbers that
 * Gymnasium's `self.np_random` returns for the same seed. That makes seeded resets reproducible across runs,
 * platforms and languages: `CartPole-v1` reset with `seed: 42` gives the observation Gymnasium gives.
 *
 * **Details**
 * - Bit generator: PCG64 (PCG XSL-RR 128/64), O'Neill, "PCG: A Family of Simple Fast Space-Efficient
 *   Statistically Good Algorithms for Random Number Generation" (HMC-CS-2014-0905, 2014); NumPy's
 *   `numpy/random/src/pcg64/pcg64.h` is the reference implementation (step, then output).
 * - Seeding: NumPy's `SeedSequence` (`numpy/random/bit_generator.pyx`), hash-mixing the seed's 32-bit words
 *   into a 4-word pool and drawing the 128-bit state and increment from it.
 * - Splitting: `split()` follows `SeedSequence.spawn`: the n-th child of a generator is seeded by the same entropy
 *   with the spawn key extended by `n`, so children are independent of each other and of the parent's draws,
 *   and equal to `default_rng(seed).spawn(k)[n]` in NumPy.
 * - 128-bit arithmetic uses eight 16-bit limbs in doubles (exact); no `BigInt`, no allocation per draw.
 *
 * **Gotchas**
 * - `normal()` uses the polar Box-Muller method, not NumPy's ziggurat: it is reproducible here but does not match
 *   NumPy's `standard_normal` stream.
 * - Seeds are non-negative safe integers (0 to 2^53 - 1) or arrays of 32-bit words.
 *
 * @example
 * ```ts
 * import { Rng } from "@autodidact/core"
 * const rng = Rng.make(42)
 * rng.random() // 0.7739560485559633, as numpy.random.default_rng(42).random()
 * ```
 * @since 0.1.0
 */
import { Schema } from "effect"

/** A seed: a non-negative safe integer, or an array of unsigned 32-bit words (as NumPy's `SeedSequence` takes). */
export type Seed = number | ReadonlyArray<number>

/**
 * Raised when a seed is not a non-negative safe integer or an array of uint32 words.
 * @category errors
 */
export class InvalidSeedError extends Schema.TaggedError<InvalidSeedError>()("InvalidSeedError", {
  seed: Schema.Unknown,
  reason: Schema.String
}) {
  override get message() {
    return `Invalid seed ${JSON.stringify(this.seed)}: ${this.reason}`
  }
}

/** Serializable generator state (for checkpoints): PCG state and increment as 8 little-endian 16-bit limbs each. */
export const RngState = Schema.Struct({
  state: Schema.Array(Schema.Number),
  inc: Schema.Array(Schema.Number),
  hasUint32: Schema.Boolean,
  uinteger: Schema.Number,
  entropy: Schema.Array(Schema.Number),
  spawnKey: Schema.Array(Schema.Number),
  childrenSpawned: Schema.Number,
  /** The second normal of the last polar draw, not yet returned (absent or null: none); states saved before 0.2 lack it. */
  spareNormal: Schema.optional(Schema.NullOr(Schema.Number))
})
export type RngState = typeof RngState.Type

const M32 = 0x100000000
const INIT_A = 0x43b0d7e5
const MULT_A = 0x931e8875
const INIT_B = 0x8b51f9dd
const MULT_B = 0x58f38ded
const MIX_MULT_L = 0xca01f9dd
const MIX_MULT_R = 0x4973f715
const POOL_SIZE = 4

const coerceSeed = (seed: Seed): Array<number> => {
  if (typeof seed === "number") {
    if (!Number.isSafeInteger(seed) || seed < 0) {
      throw new InvalidSeedError({ seed, reason: "expected a non-negative safe integer" })
    }
    if (seed === 0) return [0]
    const words: Array<number> = []
    let rest = seed
    while (rest > 0) {
      words.push(rest % M32)
      rest = Math.floor(rest / M32)
    }
    return words
  }
  if (seed.length === 0) throw new InvalidSeedError({ seed, reason: "expected at least one word" })
  for (const w of seed) {
    if (!Number.isInteger(w) || w < 0 || w >= M32) {
      throw new InvalidSeedError({ seed, reason: `word ${w} is not an unsigned 32-bit integer` })
    }
  }
  return [...seed]
}

/** NumPy SeedSequence: mix the assembled entropy into the pool (`mix_entropy`). */
const seedPool = (entropy: ReadonlyArray<number>, spawnKey: ReadonlyArray<number>): Uint32Array => {
  const run = [...entropy]
  if (spawnKey.length > 0) while (run.length < POOL_SIZE) run.push(0)
  const words = run.concat(spawnKey)
  let hashConst = INIT_A
  const hashmix = (value: number): number => {
    value = (value ^ hashConst) >>> 0
    hashConst = Math.imul(hashConst, MULT_A) >>> 0
    value = Math.imul(value, hashConst) >>> 0
    return (value ^ (value >>> 16)) >>> 0
  }
  const mix = (x: number, y: number): number => {
    const r = (Math.imul(MIX_MULT_L, x) - Math.imul(MIX_MULT_R, y)) >>> 0
    return (r ^ (r >>> 16)) >>> 0
  }
  const pool = new Uint32Array(POOL_SIZE)
  for (let i = 0; i < POOL_SIZE; i++) pool[i] = hashmix(i < words.length ? words[i]! : 0)
  for (let src = 0; src < POOL_SIZE; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) {
      if (src !== dst) pool[dst] = mix(pool[dst]!, hashmix(pool[src]!))
    }
  }
  for (let src = POOL_SIZE; src < words.length; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) pool[dst] = mix(pool[dst]!, hashmix(words[src]!))
  }
  return pool
}

/** NumPy SeedSequence.generate_state(n, uint32). */
const generateState = (pool: Uint32Array, n: number): Uint32Array => {
  let hashConst = INIT_B
  const out = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    let v = (pool[i % POOL_SIZE]! ^ hashConst) >>> 0
    hashConst = Math.imul(hashConst, MULT_B) >>> 0
    v = Math.imul(v, hashConst) >>> 0
    out[i] = (v ^ (v >>> 16)) >>> 0
  }
  return out
}

/** Write a uint64 given as (hi, lo) uint32 words into 16-bit limbs at `offset`. */
const setLimbs64 = (limbs: Float64Array, offset: number, hi: number, lo: number) => {
  limbs[offset] = lo & 0xffff
  limbs[offset + 1] = lo >>> 16
  limbs[offset + 2] = hi & 0xffff
  limbs[offset + 3] = hi >>> 16
}

/**
 * A seeded random number generator with NumPy's `Generator` semantics for the methods it has.
 *
 * Not thread-safe (single owner); `split()` gives independent children for vector environments and workers.
 * @category models
 */
export class Rng {
  private readonly s = new Float64Array(8)
  private readonly c = new Float64Array(8)
  private hasUint32 = false
  private uinteger = 0
  private hi = 0
  private lo = 0
  private childrenSpawned = 0
  private spareNormal = Number.NaN

  private constructor(
    readonly entropy: ReadonlyArray<number>,
    readonly spawnKey: ReadonlyArray<number>
  ) {}

  /**
   * A generator seeded like `numpy.random.default_rng(seed)`.
   * @throws InvalidSeedError when the seed is negative, fractional, unsafe or not uint32 words.
   */
  static make(seed: Seed): Rng {
    return Rng.fromSeedSequence(coerceSeed(seed), [])
  }

  /** A generator seeded from fresh entropy (`crypto.getRandomValues`), for unseeded resets. */
  static fromEntropy(): Rng {
    const words = new Uint32Array(4)
    globalThis.crypto.getRandomValues(words)
    return Rng.fromSeedSequence([...words], [])
  }

  private static fromSeedSequence(entropy: ReadonlyArray<number>, spawnKey: ReadonlyArray<number>): Rng {
    const rng = new Rng(entropy, spawnKey)
    const words = generateState(seedPool(entropy, spawnKey), 8)
    // generate_state(4, uint64): little-endian pairs of uint32 words -> val[0..3]
    // pcg64_set_seed: initstate = (val[0] << 64) | val[1], initseq = (val[2] << 64) | val[3]
    const init = new Float64Array(8)
    setLimbs64(init, 4, words[1]!, words[0]!)
    setLimbs64(init, 0, words[3]!, words[2]!)
    const seq = new Float64Array(8)
    setLimbs64(seq, 4, words[5]!, words[4]!)
    setLimbs64(seq, 0, words[7]!, words[6]!)
    // inc = (initseq << 1) | 1
    let carry = 1
    for (let k = 0; k < 8; k++) {
      const v = seq[k]! * 2 + carry
      rng.c[k] = v & 0xffff
      carry = v >>> 16
    }
    rng.s.fill(0)
    rng.step()
    carry = 0
    for (let k = 0; k < 8; k++) {
      const v = rng.s[k]! + init[k]! + carry
      rng.s[k] = v & 0xffff
      carry = v >>> 16
    }
    rng.step()
    return rng
  }

  /**
   * state = state * MULT + inc (mod 2^128), MULT = 0x2360ed051fc65da44385df649fccf645 (PCG64's multiplier; 16-bit
   * limbs, least significant first: f645 9fcc df64 4385 5da4 1fc6 ed05 2360). Schoolbook on 16-bit limbs held in
   * doubles: limb k is carry + inc[k] + sum over i <= k of state[i] * MULT[k - i] (at most 8 products below 2^32
   * plus a carry, so below 2^36: exact). Unrolled with MULT's limbs as constants, the carry taken by a multiplication
   * by 2^-16 and `Math.floor` (exact for a power of two) rather than `%` and a division: several times faster than
   * the generic loop, which `bench/rng.ts` keeps as its baseline (and checks both give the same stream).
   */
  private step(): void {
    const s = this.s
    const c = this.c
    const s0 = s[0]!, s1 = s[1]!, s2 = s[2]!, s3 = s[3]!, s4 = s[4]!, s5 = s[5]!, s6 = s[6]!, s7 = s[7]!
    let acc: number
    let carry: number
    acc = c[0]! + s0 * 0xf645
    carry = Math.floor(acc * 0.0000152587890625)
    s[0] = acc - carry * 65536
    acc = carry + c[1]! + s0 * 0x9fcc + s1 * 0xf645
    carry = Math.floor(acc * 0.0000152587890625)
    s[1] = acc - carry * 65536
    acc = carry + c[2]! + s0 * 0xdf64 + s1 * 0x9fcc + s2 * 0xf645
    carry = Math.floor(acc * 0.0000152587890625)
    s[2] = acc - carry * 65536
    acc = carry + c[3]! + s0 * 0x4385 + s1 * 0xdf64 + s2 * 0x9fcc + s3 * 0xf645
    carry = Math.floor(acc * 0.0000152587890625)
    s[3] = acc - carry * 65536
    acc = carry + c[4]! + s0 * 0x5da4 + s1 * 0x4385 + s2 * 0xdf64 + s3 * 0x9fcc + s4 * 0xf645
    carry = Math.floor(acc * 0.0000152587890625)
    s[4] = acc - carry * 65536
    acc = carry + c[5]! + s0 * 0x1fc6 + s1 * 0x5da4 + s2 * 0x4385 + s3 * 0xdf64 + s4 * 0x9fcc + s5 * 0xf645
    carry = Math.floor(acc * 0.0000152587890625)
    s[5] = acc - carry * 65536
    acc = carry + c[6]! + s0 * 0xed05 + s1 * 0x1fc6 + s2 * 0x5da4 + s3 * 0x4385 + s4 * 0xdf64 + s5 * 0x9fcc + s6 * 0xf645
    carry = Math.floor(acc * 0.0000152587890625)
    s[6] = acc - carry * 65536
    acc = carry + c[7]! + s0 * 0x2360 + s1 * 0xed05 + s2 * 0x1fc6 + s3 * 0x5da4 + s4 * 0x4385 + s5 * 0xdf64 + s6 * 0x9fcc + s7 * 0xf645
    // limb 7: carries past 2^128 are dropped
    s[7] = acc - Math.floor(acc * 0.0000152587890625) * 65536
  }

  /** Advance and compute the XSL-RR output into (this.hi, this.lo). */
  private next64(): void {
    this.step()
    const s = this.s
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
    if (rot === 0) {
      this.hi = h >>> 0
      this.lo = l >>> 0
    } else {
      this.hi = ((h >>> rot) | (l << (32 - rot))) >>> 0
      this.lo = ((l >>> rot) | (h << (32 - rot))) >>> 0
    }
  }

  /** A uniform unsigned 64-bit draw as `[hi, lo]` 32-bit words (`bit_generator.random_raw()`). */
  nextUint64(): [hi: number, lo: number] {
    this.next64()
    return [this.hi, this.lo]
  }

  /** A uniform unsigned 32-bit integer, buffered from half of a 64-bit draw as NumPy's `next_uint32`. */
  nextUint32(): number {
    if (this.hasUint32) {
      this.hasUint32 = false
      return this.uinteger
    }
    this.next64()
    this.hasUint32 = true
    this.uinteger = this.hi
    return this.lo
  }

  /** A uniform double in [0, 1) with 53 random bits (`Generator.random()`). */
  random(): number {
    this.next64()
    return (this.hi * 2097152 + (this.lo >>> 11)) * 1.1102230246251565e-16
  }

  /**
   * Fill `out[start..end)` (default: all of it) with uniform doubles in [0, 1): the same values, in order, as that
   * many `random()` calls (`Generator.random(size)`); no allocation. Returns `out`. (Float64 only: rounding to
   * float32 could give exactly 1.)
   * @throws RangeError when `start`/`end` are not integers with 0 <= start <= end <= out.length.
   */
  fillRandom<A extends Float64Array | Array<number>>(out: A, start = 0, end = out.length): A {
    if (!(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end && end <= out.length)) {
      throw new RangeError(`fillRandom: invalid range [${start}, ${end}) for length ${out.length}`)
    }
    for (let i = start; i < end; i++) out[i] = this.random()
    return out
  }

  /** A uniform double in [low, high) (`Generator.uniform(low, high)`). */
  uniform(low: number, high: number): number {
    return low + (high - low) * this.random()
  }

  /**
   * A uniform integer in [low, high) (`Generator.integers(low, high)`), or [0, low) with one argument.
   * Uses Lemire's nearly divisionless method on 32-bit draws as NumPy does for ranges below 2^32.
   * @throws RangeError when the range is empty or wider than 2^32.
   */
  integers(low: number, high?: number): number {
    if (high === undefined) {
      high = low
      low = 0
    }
    const rng = high - low - 1
    if (!(rng >= 0) || rng > 0xffffffff || !Number.isInteger(rng)) {
      throw new RangeError(`integers: empty or invalid range [${low}, ${high})`)
    }
    if (rng === 0) return low
    if (rng === 0xffffffff) return low + this.nextUint32()
    const excl = rng + 1
    let m = this.nextUint32() * excl
    let leftover = m % M32
    if (leftover < excl) {
      const threshold = (0xffffffff - rng) % excl
      while (leftover < threshold) {
        m = this.nextUint32() * excl
        leftover = m % M32
      }
    }
    return low + Math.floor(m / M32)
  }

  /** A standard normal draw (polar Box-Muller; reproducible, but not NumPy's ziggurat stream). */
  normal(mean = 0, std = 1): number {
    if (!Number.isNaN(this.spareNormal)) {
      const z = this.spareNormal
      this.spareNormal = Number.NaN
      return mean + std * z
    }
    let u: number
    let v: number
    let r: number
    do {
      u = 2 * this.random() - 1
      v = 2 * this.random() - 1
      r = u * u + v * v
    } while (r >= 1 || r === 0)
    const f = Math.sqrt((-2 * Math.log(r)) / r)
    this.spareNormal = v * f
    return mean + std * u * f
  }

  /**
   * Index drawn from a categorical distribution given by (unnormalized, non-negative) `probs`, exactly as
   * Gymnasium's `categorical_sample`: the first index whose cumulative probability exceeds one uniform draw.
   */
  categorical(probs: ArrayLike<number>): number {
    const u = this.random()
    let acc = 0
    for (let i = 0; i < probs.length; i++) {
      acc += probs[i]!
      if (acc > u) return i
    }
    return 0
  }

  /** Fisher-Yates shuffle in place (a uniform permutation; not NumPy's `shuffle` stream). */
  shuffle<A extends { length: number; [i: number]: any }>(xs: A): A {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.integers(i + 1)
      const tmp = xs[i]
      xs[i] = xs[j]
      xs[j] = tmp
    }
    return xs
  }

  /** A child generator independent of this one's stream (`SeedSequence.spawn`), the n-th child for the n-th call. */
  split(): Rng {
    const child = Rng.fromSeedSequence(this.entropy, [...this.spawnKey, this.childrenSpawned])
    this.childrenSpawned++
    return child
  }

  /** `n` independent children (`Generator.spawn(n)`). */
  spawn(n: number): Array<Rng> {
    return Array.from({ length: n }, () => this.split())
  }

  /** The full state, to save in a checkpoint. */
  getState(): RngState {
    return {
      state: [...this.s],
      inc: [...this.c],
      hasUint32: this.hasUint32,
      uinteger: this.uinteger,
      entropy: [...this.entropy],
      spawnKey: [...this.spawnKey],
      childrenSpawned: this.childrenSpawned,
      spareNormal: Number.isNaN(this.spareNormal) ? null : this.spareNormal
    }
  }

  /**
   * An independent copy that continues this stream exactly (state, increment, buffered 32-bit word and spare normal
   * included); cheaper than `fromState(getState())`, for environment snapshots.
   * @since 0.2.0
   */
  clone(): Rng {
    const rng = new Rng(this.entropy, this.spawnKey)
    rng.s.set(this.s)
    rng.c.set(this.c)
    rng.hasUint32 = this.hasUint32
    rng.uinteger = this.uinteger
    rng.childrenSpawned = this.childrenSpawned
    rng.spareNormal = this.spareNormal
    return rng
  }

  /** A generator restored from `getState()`; it continues the saved stream exactly. */
  static fromState(state: RngState): Rng {
    const rng = new Rng(state.entropy, state.spawnKey)
    rng.s.set(state.state)
    rng.c.set(state.inc)
    rng.hasUint32 = state.hasUint32
    rng.uinteger = state.uinteger
    rng.childrenSpawned = state.childrenSpawned
    rng.spareNormal = state.spareNormal ?? Number.NaN
    return rng
  }
}

/** A generator seeded like `numpy.random.default_rng(seed)`; see {@link Rng.make}. */
export const make = (seed: Seed): Rng => Rng.make(seed)
