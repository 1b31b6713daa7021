/**
 * The embedded store's resident lexical ranker: Okapi BM25 over an in-memory inverted index of the records' words
 * (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and Beyond", Found. Trends Inf. Retr.
 * 3(4); `k1` 1.2, `b` 0.75, Lucene's non-negative IDF `ln(1 + (N − df + 0.5) / (df + 0.5))`).
 *
 * **Why**: on PGlite (WebAssembly) the GIN full-text lookup plus `ts_rank` cost 1-8 ms a query at 100k records;
 * the store's process owns a PGlite directory, so it can keep the postings itself and rank in well under a
 * millisecond. BM25 also weighs rare words up (IDF), which `ts_rank` does not.
 *
 * **Details**
 * - Words: {@link terms} — the store's word tokens (`Embedder.wordsOf`: lower-cased NFKC runs of letters and
 *   digits) without English stop words ({@link stopWords}), unstemmed. A query's distinct terms are scored.
 * - Records are added after their insert commits and removed after their delete commits (as the resident vector
 *   index). Removal marks the record's slot dead and updates the document frequencies at once; postings of dead
 *   slots are skipped and dropped by a compaction when they make up a quarter of the slots.
 * - Scores are ≥ 0; a record sharing no term with the query scores 0 and is not a hit. Ties rank the earlier-added
 *   record first.
 *
 * @since 0.2.0
 */
import { wordsOf } from "../embedders/Embedder.js"

/** English stop words left out of the index and of queries. */
export const stopWords: ReadonlySet<string> = new Set(
  ("a an and are as at be but by for from has have he her his i in is it its me my of on or our she so that the " +
    "their them they this to was we were what when where which who why will with you your do does did am can how " +
    "not no just about all any there been if into than then too very")
    .split(" ")
)

/** The indexed words of a text, in order (with repeats): {@link wordsOf} without {@link stopWords}. */
export const terms = (text: string): Array<string> => wordsOf(text).filter((w) => !stopWords.has(w))

/** BM25's term-frequency saturation. */
export const K1 = 1.2
/** BM25's length normalization. */
export const B = 0.75

/** A lexical hit: record id and BM25 score (> 0). */
export interface Hit {
  readonly id: string
  readonly score: number
}

/** The result of a search: the best hits, and the BM25 score of any record for the same query. */
export interface Search {
  readonly hits: ReadonlyArray<Hit>
  /** The record's score for this query (0 when it shares no term or is not held); valid until the next search. */
  readonly scoreOf: (id: string) => number
}

/** An id-addressed BM25 index. */
export interface LexicalIndex {
  /** Records held. */
  readonly size: number
  /** Add committed records (an id already held is ignored). */
  readonly add: (ids: ReadonlyArray<string>, texts: ReadonlyArray<string>) => void
  /** Remove committed deletions (unknown ids are ignored). */
  readonly remove: (ids: ReadonlyArray<string>) => void
  /** The `n` best-scoring records for `query` (best first), among `allowed` when given. */
  readonly search: (query: string, n: number, allowed?: ReadonlySet<string>) => Search
}

interface Postings {
  slots: Int32Array
  tfs: Int32Array
  length: number
}

/** An empty index. */
export const make = (): LexicalIndex => {
  const termIds = new Map<string, number>()
  const postings: Array<Postings> = []
  let df = new Int32Array(1024)
  // per slot (a record, in the order added)
  let ids: Array<string | undefined> = []
  let lengths = new Int32Array(1024)
  let docTerms: Array<Int32Array | undefined> = [] // [term, tf, term, tf, ...]
  const slotOf = new Map<string, number>()
  let slots = 0
  let live = 0
  let totalLength = 0
  let acc = new Float64Array(1024)
  let touched = new Int32Array(1024)
  /** Slots touched by the last search: their `acc` entries hold its scores until the next search clears them. */
  let lastCount = 0

  const termId = (t: string): number => {
    let id = termIds.get(t)
    if (id === undefined) {
      id = postings.length
      termIds.set(t, id)
      postings.push({ slots: new Int32Array(4), tfs: new Int32Array(4), length: 0 })
      if (id >= df.length) {
        const g = new Int32Array(2 * df.length)
        g.set(df)
        df = g
      }
    }
    return id
  }

  const push = (p: Postings, slot: number, tf: number) => {
    if (p.length === p.slots.length) {
      const s = new Int32Array(2 * p.length)
      s.set(p.slots)
      p.slots = s
      const f = new Int32Array(2 * p.length)
      f.set(p.tfs)
      p.tfs = f
    }
    p.slots[p.length] = slot
    p.tfs[p.length] = tf
    p.length++
  }

  const ensureSlots = (n: number) => {
    if (n <= lengths.length) return
    const cap = Math.max(n, 2 * lengths.length)
    const l = new Int32Array(cap)
    l.set(lengths)
    lengths = l
    const a = new Float64Array(cap)
    a.set(acc)
    acc = a
  }

  const addOne = (id: string, text: string) => {
    const words = terms(text)
    const tf = new Map<number, number>()
    for (const w of words) {
      const t = termId(w)
      tf.set(t, (tf.get(t) ?? 0) + 1)
    }
    const slot = slots++
    ensureSlots(slots)
    const pairs = new Int32Array(2 * tf.size)
    let i = 0
    for (const [t, f] of tf) {
      push(postings[t], slot, f)
      df[t]++
      pairs[i++] = t
      pairs[i++] = f
    }
    ids[slot] = id
    docTerms[slot] = pairs
    lengths[slot] = words.length
    slotOf.set(id, slot)
    live++
    totalLength += words.length
  }

  /** Renumber the live slots 0 … live − 1 (order kept) and rebuild the postings without the dead ones. */
  const compact = () => {
    const oldIds = ids
    const oldTerms = docTerms
    const oldLengths = lengths
    const n = slots
    ids = []
    docTerms = []
    lengths = new Int32Array(Math.max(1024, live * 2))
    acc = new Float64Array(lengths.length)
    lastCount = 0
    for (const p of postings) p.length = 0
    slots = 0
    for (let s = 0; s < n; s++) {
      const id = oldIds[s]
      if (id === undefined) continue
      const pairs = oldTerms[s]!
      const slot = slots++
      for (let i = 0; i < pairs.length; i += 2) push(postings[pairs[i]], slot, pairs[i + 1])
      ids[slot] = id
      docTerms[slot] = pairs
      lengths[slot] = oldLengths[s]
      slotOf.set(id, slot)
    }
  }

  const remove = (gone: ReadonlyArray<string>) => {
    for (const id of gone) {
      const slot = slotOf.get(id)
      if (slot === undefined) continue
      slotOf.delete(id)
      const pairs = docTerms[slot]!
      for (let i = 0; i < pairs.length; i += 2) df[pairs[i]]--
      totalLength -= lengths[slot]
      ids[slot] = undefined
      docTerms[slot] = undefined
      live--
    }
    if (slots - live > Math.max(1024, slots / 4)) compact()
  }

  /** Whether slot `a` ranks below slot `b` (lower score, or equal score and added later). */
  const worse = (a: number, b: number) => acc[a] < acc[b] || (acc[a] === acc[b] && a > b)

  const search = (query: string, n: number, allowed?: ReadonlySet<string>): Search => {
    for (let i = 0; i < lastCount; i++) acc[touched[i]] = 0
    const qTerms = [...new Set(terms(query))].map((w) => termIds.get(w)).filter((t): t is number => t !== undefined)
    let count = 0
    if (live > 0) {
      const avg = totalLength / live
      for (const t of qTerms) {
        const d = df[t]
        if (d === 0) continue
        const idf = Math.log(1 + (live - d + 0.5) / (d + 0.5))
        const p = postings[t]
        for (let i = 0; i < p.length; i++) {
          const s = p.slots[i]
          if (ids[s] === undefined) continue
          const tf = p.tfs[i]
          if (acc[s] === 0) {
            if (count === touched.length) {
              const g = new Int32Array(2 * count)
              g.set(touched)
              touched = g
            }
            touched[count++] = s
          }
          acc[s] += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * lengths[s] / avg))
        }
      }
    }
    lastCount = count
    // the n best touched slots in a min-heap (root = the worst kept), then sorted best first
    const heap: Array<number> = []
    const k = Math.max(0, n)
    for (let i = 0; i < count && k > 0; i++) {
      const s = touched[i]
      if (allowed !== undefined && !allowed.has(ids[s]!)) continue
      if (heap.length < k) {
        heap.push(s)
        for (let c = heap.length - 1; c > 0;) {
          const parent = (c - 1) >> 1
          if (!worse(heap[c], heap[parent])) break
          ;[heap[c], heap[parent]] = [heap[parent], heap[c]]
          c = parent
        }
      } else if (worse(heap[0], s)) {
        heap[0] = s
        for (let c = 0;;) {
          const l = 2 * c + 1
          if (l >= k) break
          const m = l + 1 < k && worse(heap[l + 1], heap[l]) ? l + 1 : l
          if (!worse(heap[m], heap[c])) break
          ;[heap[c], heap[m]] = [heap[m], heap[c]]
          c = m
        }
      }
    }
    heap.sort((x, y) => acc[y] - acc[x] || x - y)
    const hits: Array<Hit> = heap.map((s) => ({ id: ids[s]!, score: acc[s] }))
    return {
      hits,
      scoreOf: (id) => {
        const s = slotOf.get(id)
        return s === undefined ? 0 : acc[s]
      }
    }
  }

  return {
    get size() {
      return live
    },
    add: (newIds, texts) => {
      for (let i = 0; i < newIds.length; i++) if (!slotOf.has(newIds[i])) addOne(newIds[i], texts[i])
    },
    remove,
    search
  }
}
