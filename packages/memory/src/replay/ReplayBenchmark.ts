/**
 * The prioritized-replay benchmark that `autodidact bench replay` prints: {@link PrioritizedReplay} against a
 * vectorised NumPy transcription of the same sampler measured in the same run (issue 23, "Replay at memory speed").
 *
 * **Rows** (per capacity, 100k and 1M by default; batch 256, obsDim 4, every buffer full, priorities
 * `(|N(0, 2)| + 1e-6)^0.6`):
 * - `sample 256`: `PrioritizedReplay.sample` (stratified prefixes, the sum-tree descent, importance weights and the
 *   gather of the transitions into a preallocated batch) against NumPy's descent + weights + fancy-index gather.
 * - `updatePriorities 256`: the indices of earlier samples (sorted, as a stratified sample's are), cycling through 1024
 *   of them so that their tree paths are not cached from the previous call.
 * - `updatePriorities 256, one slot at a time (reference)`: the same update as `SumTree.set` + `MinTree.set` per slot (each path
 *   walked alone; no checks), the baseline of the batched pass in the same run. NumPy has no such row.
 * - `tree descent 256`: `SumTree.sampleBatch` alone from stratified prefixes (where the time of `sample` goes).
 * - `gather 256`: `ReplayBuffer.gather` alone (the other part of `sample`), the same 1024 index sets in turn.
 *
 * **Timing**: each call timed alone (`performance.now()`; Python: `time.perf_counter_ns`), after 200 warm-up calls
 * (Python: 100); median and 99th percentile over `rounds × iters` calls. Ours run first, then NumPy in a `python3`
 * child process (`bench/numpy_replay.py`, never concurrently); the load average before and after is part of the
 * result. `ratio = ours / NumPy` (median): below 1 is faster. Without python3 or NumPy the NumPy columns are null and
 * the reason is in `numpyError`.
 *
 * **Targets** (issue 23, at capacity 1M): `sample 256` median < 50 µs, p99 < 150 µs and ≤ 0.5× NumPy;
 * `updatePriorities 256` median < 30 µs. Other rows have none (`met` null).
 *
 * @example
 * ```ts
 * import { ReplayBenchmark } from "@autodidact/memory/bench"
 * const result = await ReplayBenchmark.run({ capacities: [100_000], iters: 200, rounds: 1 })
 * console.log(ReplayBenchmark.formatTable(result))
 * ```
 * @see https://arxiv.org/abs/1511.05952
 * @since 0.2.0
 */
import { Rng, Statistics } from "@autodidact/core"
import { Numpy } from "@autodidact/kernels/bench"
import { MinTree, SumTree } from "@autodidact/kernels/trees"
import { loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import * as PrioritizedReplay from "./PrioritizedReplay.js"

/** Options of {@link run}. */
export interface ReplayBenchOptions {
  /** Buffer capacities (default `[100_000, 1_000_000]`), each filled completely. */
  readonly capacities?: ReadonlyArray<number>
  /** Batch size (default 256). */
  readonly batchSize?: number
  /** Timed calls per round (default 1000). */
  readonly iters?: number
  /** Rounds (default 3); the median and p99 are over all `rounds × iters` calls. */
  readonly rounds?: number
  /** Python executable (default `python3`); `null` skips NumPy. */
  readonly python?: string | null
  /** The capacity the issue's targets apply to (default 1_000_000); other capacities' rows have no target. */
  readonly targetCapacity?: number
  /** Progress lines (default: none). */
  readonly onProgress?: (line: string) => void
}

/** One row of the table. Times in µs per call. */
export interface ReplayBenchRow {
  readonly capacity: number
  readonly operation: string
  readonly medianUs: number
  readonly p99Us: number
  readonly numpyMedianUs: number | null
  readonly numpyP99Us: number | null
  /** `medianUs / numpyMedianUs` (null without NumPy). */
  readonly ratio: number | null
  /** The target in words (`""` when the row has none). */
  readonly target: string
  /** Whether the target is met (null: no target, or it needs NumPy and NumPy is unavailable). */
  readonly met: boolean | null
}

/** Rows plus the conditions they were measured in. */
export interface ReplayBenchResult {
  readonly rows: ReadonlyArray<ReplayBenchRow>
  readonly node: string
  readonly numpy: string | null
  readonly numpyError: string | null
  /** `os.loadavg()` before and after the run (1, 5, 15 min). */
  readonly loadBefore: ReadonlyArray<number>
  readonly loadAfter: ReadonlyArray<number>
}

const OBS_DIM = 4
const POOL = 1024
const TARGET_CAPACITY = 1_000_000

type Op = "sample" | "update" | "updateOneByOne" | "descent" | "gather"
const OPS: ReadonlyArray<readonly [Op, string]> = [
  ["sample", "sample {n}"],
  ["update", "updatePriorities {n}"],
  ["updateOneByOne", "updatePriorities {n}, one slot at a time (reference)"],
  ["descent", "tree descent {n}"],
  ["gather", "gather {n}"]
]

/** Median and 99th percentile (µs) of per-call times of `f`. */
const timed = (f: () => void, iters: number, rounds: number, warm = 200): { median: number; p99: number } => {
  for (let i = 0; i < warm; i++) f()
  const t = new Float64Array(iters * rounds)
  for (let i = 0; i < t.length; i++) {
    const a = performance.now()
    f()
    t[i] = (performance.now() - a) * 1000
  }
  return { median: Statistics.median(t), p99: Statistics.quantile(t, 0.99) }
}

/** A full buffer of `capacity` rows with priorities `(|N(0, 2)| + 1e-6)^0.6`. */
const filled = (capacity: number, batch: number): PrioritizedReplay.PrioritizedReplay => {
  const per = PrioritizedReplay.create({ capacity, obsDim: OBS_DIM, alpha: 0.6, beta0: 0.4 })
  const g = Rng.make(0)
  const n = 1024
  const obs = Float32Array.from({ length: n * OBS_DIM }, () => g.random())
  const next = Float32Array.from({ length: n * OBS_DIM }, () => g.random())
  const act = Int32Array.from({ length: n }, () => g.integers(2))
  const rew = Float32Array.from({ length: n }, () => g.random())
  const flags = new Uint8Array(n)
  for (let t = 0; t < capacity; t += n) {
    const m = Math.min(n, capacity - t)
    per.addBatch(obs.subarray(0, m * OBS_DIM), act.subarray(0, m), rew.subarray(0, m), next.subarray(0, m * OBS_DIM), flags.subarray(0, m), flags.subarray(0, m))
  }
  const idx = new Int32Array(batch)
  const td = new Float64Array(batch)
  for (let s = 0; s < capacity; s += batch) {
    const m = Math.min(batch, capacity - s)
    for (let k = 0; k < m; k++) {
      idx[k] = s + k
      td[k] = g.normal() * 2
    }
    per.updatePriorities(idx.subarray(0, m), td.subarray(0, m))
  }
  return per
}

/** Our side: per-call median and p99 of each operation on a full buffer of `capacity`. */
const measureOurs = (capacity: number, batch: number, iters: number, rounds: number): Record<Op, { median: number; p99: number }> => {
  const per = filled(capacity, batch)
  const rng = Rng.make(1)
  const out = per.allocateBatch(batch)
  const pool = Array.from({ length: POOL }, () => Int32Array.from(per.sample(batch, rng, out).indices))
  const td = Float32Array.from({ length: batch }, () => rng.normal() * 2)
  let k = 0
  const nextIndices = (): Int32Array => pool[(k = (k + 1) % POOL)]!
  const gatherBatch = per.allocateBatch(batch)
  const prefixes = new Float64Array(batch)
  const res: SumTree.SampleResult = { indices: new Int32Array(batch), priorities: new Float64Array(batch) }
  const random = per.storage.random
  return {
    sample: timed(() => per.sample(batch, rng, out), iters, rounds),
    update: timed(() => per.updatePriorities(nextIndices(), td), iters, rounds),
    updateOneByOne: timed(() => {
      // the same priorities (p^alpha as PrioritizedReplay computes it), each slot's path walked alone
      const idx = nextIndices()
      for (let b = 0; b < batch; b++) {
        const p = Math.exp(per.alpha * Math.log(Math.abs(td[b]!) + per.eps))
        SumTree.set(per.sums, idx[b]!, p)
        MinTree.set(per.mins, idx[b]!, p)
      }
    }, iters, rounds),
    descent: timed(() => {
      // stratified prefixes as `sample` draws them, then the descent
      random.reseed(rng)
      const total = SumTree.total(per.sums)
      const segment = total / batch
      const top = total * (1 - Number.EPSILON)
      for (let b = 0; b < batch; b++) {
        const u = (b + random.random()) * segment
        prefixes[b] = u < total ? u : top
      }
      SumTree.sampleBatch(per.sums, prefixes, res, batch)
    }, iters, rounds),
    gather: timed(() => {
      gatherBatch.indices.set(nextIndices())
      per.storage.gather(gatherBatch)
    }, iters, rounds)
  }
}

/** The NumPy script, `bench/numpy_replay.py` of this package. */
export const scriptPath = (): string => fileURLToPath(new URL("../../bench/numpy_replay.py", import.meta.url))

/**
 * Run the benchmark (ours, then NumPy). Never rejects for a missing NumPy: its columns are null then and
 * `numpyError` says why.
 * @throws InvalidOptionError (synchronously inside the promise) for a capacity or batch size the buffer rejects.
 */
export const run = async (options: ReplayBenchOptions = {}): Promise<ReplayBenchResult> => {
  const capacities = options.capacities ?? [100_000, TARGET_CAPACITY]
  const batch = options.batchSize ?? 256
  const iters = options.iters ?? 1000
  const rounds = options.rounds ?? 3
  const say = options.onProgress ?? (() => {})
  const targetCapacity = options.targetCapacity ?? TARGET_CAPACITY
  const loadBefore = loadavg()
  const ours = new Map<number, Record<Op, { median: number; p99: number }>>()
  for (const capacity of capacities) {
    say(`ours: capacity ${capacity}`)
    ours.set(capacity, measureOurs(capacity, batch, iters, rounds))
  }
  let numpy: { readonly [id: string]: number } | null = null
  let numpyVersion: string | null = null
  let numpyError: string | null = null
  if (options.python !== null) {
    say("NumPy transcription (bench/numpy_replay.py)")
    const r = await Numpy.runNumpy(options.python ?? "python3", { capacities, batch, obsDim: OBS_DIM, iters, rounds }, scriptPath())
    if ("error" in r) numpyError = r.error
    else {
      numpy = r.results
      numpyVersion = r.version
    }
  } else numpyError = "skipped"
  const loadAfter = loadavg()
  const rows: Array<ReplayBenchRow> = []
  for (const capacity of capacities) {
    const o = ours.get(capacity)!
    for (const [op, label] of OPS) {
      const m = o[op]
      const nm = numpy?.[`${op}-${capacity}:median`] ?? null
      const np99 = numpy?.[`${op}-${capacity}:p99`] ?? null
      const ratio = nm === null ? null : m.median / nm
      let target = ""
      let met: boolean | null = null
      if (capacity === targetCapacity && op === "sample") {
        target = "median < 50 µs, p99 < 150 µs, ≤ 0.5× NumPy"
        met = ratio === null ? null : m.median < 50 && m.p99 < 150 && ratio <= 0.5
      } else if (capacity === targetCapacity && op === "update") {
        target = "median < 30 µs"
        met = m.median < 30
      }
      rows.push({ capacity, operation: label.replace("{n}", String(batch)), medianUs: m.median, p99Us: m.p99, numpyMedianUs: nm, numpyP99Us: np99, ratio, target, met })
    }
  }
  return { rows, node: process.version, numpy: numpyVersion, numpyError, loadBefore, loadAfter }
}

const fmt = (x: number | null, digits = 1): string => (x === null ? "unavailable" : x.toFixed(digits))

/** The result as a markdown table, with the conditions (Node, NumPy, load average) above it. */
export const formatTable = (result: ReplayBenchResult): string => {
  const head = ["capacity", "operation", "median µs", "p99 µs", "NumPy median µs", "NumPy p99 µs", "ratio (ours/NumPy)", "target", "met"]
  const body = result.rows.map((r) => [
    String(r.capacity),
    r.operation,
    fmt(r.medianUs),
    fmt(r.p99Us),
    fmt(r.numpyMedianUs),
    fmt(r.numpyP99Us),
    r.ratio === null ? "unavailable" : `${r.ratio.toFixed(2)}×`,
    r.target === "" ? "—" : r.target,
    r.met === null ? "—" : r.met ? "yes" : "no"
  ])
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((row) => row[c]!.length)))
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map((x, c) => x.padEnd(widths[c]!)).join(" | ")} |`
  const la = (l: ReadonlyArray<number>) => l.map((x) => x.toFixed(2)).join(" ")
  return [
    `node ${result.node}, NumPy ${result.numpy ?? `unavailable (${result.numpyError ?? "?"})`} (vectorised sum-tree transcription, bench/numpy_replay.py); loadavg before ${la(result.loadBefore)}, after ${la(result.loadAfter)}`,
    "",
    line(head),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...body.map(line)
  ].join("\n")
}
