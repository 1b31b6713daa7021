/**
 * A conformance check for experience-store backends (the {@link ExperienceStore} service contract), in the spirit of
 * Gymnasium's `check_env`: one call tells a contributor whether a new backend (or a new configuration of one) keeps
 * every promise `Store.ts` documents, including the crash-safety expectations of a persistent store.
 *
 * **What a backend supplies** ({@link MemoryBackend}): a `name` and an `open` function returning either the plain
 * face (`openStore(...)`, a `Promise<OpenStore>`) or an Effect layer (`Store.layerPglite(...)`, `layerPg`,
 * `layerMemory`, or your own, with its `Embedder` provided). Either way the check drives the Effect service behind it
 * (`OpenStore.service`: one implementation behind both faces). A persistent backend adds `reopen` (open the same
 * store again) and, optionally, `interruptWrite` (kill a writer on the same store in the middle of a write).
 *
 * **The check deletes every record of the store it is given** (`removeWhere({})`) before and between properties:
 * point it at a scratch store. The records it writes carry explicit embeddings (built from the store's `dimension`),
 * so the result does not depend on the embedder.
 *
 * **Properties** (each finding starts with the property's name)
 * - `metadata`: `backend`, `location`, `dimension` (a positive integer), `vectorIndex` (`resident` / `hnsw` /
 *   `exact`) and `schemaVersion` (a positive integer) are set.
 * - `put`: a new record is `inserted` under a fresh id; `get` returns it with the fields that were put (kind, text,
 *   task, env, outcome, return, importance, tags, support, votes, payload, times, embedding); `count` grows by one.
 * - `merge`: the one dedup rule of `Store.ts`: `put`, `put`, `put` of equal records, one `putMany` of all of them,
 *   and a `put` then a `putMany` of the rest all leave one record (the first id, text, payload, `createdAt`; summed
 *   support and votes; the highest importance; the latest `lastAccessedAt`; the union of the tags, sorted), with
 *   statuses `inserted`, `merged`, `merged`; a write repeated with the record's own explicit id changes nothing; two
 *   different records with one explicit id in a batch fail with `InvalidRecordError` naming `records[1].id`.
 * - `atomicity`: a `putMany` batch holding one invalid record fails with `InvalidRecordError` and stores none of it.
 * - `get`: an unknown id gives `Option.none()`.
 * - `query`: in each mode (`hybrid`, `vector`, `lexical`): at most `k` hits, no duplicates, every score and
 *   component finite and in its documented range (relevance and importance in `[0, 1]`, similarity in `[−1, 1]`,
 *   lexical ≥ 0, recency in `(0, 1]`), sorted by score descending; every hit passes the filters (kind, task, tags),
 *   and a filtered query finds every matching record when `k` allows; the vector query with a stored record's own
 *   embedding ranks that record first with similarity 1; a lexical query for a word only one record holds ranks it
 *   first; a filter nothing matches gives `[]`.
 * - `exemplars`: the successful trajectory whose embedding is the query's comes first, decoded (its steps and return
 *   as stored) with similarity 1; failed trajectories and other kinds are never returned; a query with neither text
 *   nor embedding fails with `InvalidQueryError`.
 * - `vote`: `vote(id, "up", 2)` and `vote(id, "down")` add 2 upvotes and 1 downvote; an unknown id fails with
 *   `InvalidQueryError`.
 * - `remove`: `remove([id, unknown])` returns 1 and the record is gone; `removeWhere(filters)` returns how many
 *   matched and deletes exactly those; `count(filters)` agrees with what is stored.
 * - `consolidate`: two insights with the same embedding and different texts merge (`merged` ≥ 1); the report's
 *   counts are non-negative integers with `remaining` = `count()` and records before = merged + weak + evicted +
 *   remaining; `capacity: n` leaves at most n records.
 * - `invalid-input`: bad records (an embedding of the wrong dimension, with NaN, importance 7, kind `"memo"`) fail
 *   with `InvalidRecordError`, bad queries (`k: 0`, kind `"memo"`, an unknown filter, a negative weight, mode
 *   `"bm25"`, an embedding of the wrong dimension) with `InvalidQueryError`; each error names the offending value in
 *   its `field` / `option`, `value` or message, and stores nothing.
 * - `durability` (with `reopen`): after `close()`, the reopened store shows every acknowledged write (puts, a batch,
 *   votes) with the same fields, and not the removed record.
 * - `interrupted-write` (with `reopen` and `interruptWrite`): after a writer was killed mid-write, the store opens
 *   again (never a store that refuses to open), counts finitely, and still holds the records acknowledged before.
 *
 * Problems throw one {@link MemoryBackendCheckError} listing every finding; success returns a
 * {@link MemoryBackendReport}.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { CheckMemoryBackend, Embedder, Store } from "@autodidact/memory/store"
 *
 * const report = await CheckMemoryBackend.checkMemoryBackend({
 *   name: "pglite in memory",
 *   open: () => Store.layerMemory().pipe(Layer.provide(Embedder.layerHashed({ dimension: 16 })))
 * }) // throws MemoryBackendCheckError on failure
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/utils/env_checker.py (the model)
 * @since 0.1.0
 */
import { Trajectory } from "@autodidact/core"
import { Cause, Context, Effect, Exit, Layer, Option, Schema, Scope } from "effect"
import * as Records from "./Records.js"
import type { Filters, Query } from "./Retrieval.js"
import { ExperienceStore, type OpenStore, type ScoredRecord } from "./Store.js"
import type { StoreError } from "./StoreErrors.js"

/**
 * The backend breaks the store contract; `findings` lists every problem found, each as `property: what was wrong`.
 * @category errors
 * @since 0.1.0
 */
export class MemoryBackendCheckError extends Schema.TaggedError<MemoryBackendCheckError>()("MemoryBackendCheckError", {
  backend: Schema.String,
  findings: Schema.Array(Schema.String)
}) {
  override get message() {
    return `memory backend ${JSON.stringify(this.backend)} failed the store check:\n${this.findings.map((f) => `  - ${f}`).join("\n")}`
  }
}

/** The properties {@link checkMemoryBackend} checks, in order. */
export const properties = [
  "metadata",
  "put",
  "merge",
  "atomicity",
  "get",
  "query",
  "exemplars",
  "vote",
  "remove",
  "consolidate",
  "invalid-input",
  "durability",
  "interrupted-write"
] as const
export type Property = (typeof properties)[number]

/** How to open a store: the plain face (`openStore`) or a layer of the service (its `Embedder` provided). */
export type Opener = () => Promise<OpenStore> | Layer.Layer<ExperienceStore, unknown>

/** What a backend supplies to {@link checkMemoryBackend}. */
export interface MemoryBackend {
  /** A name for messages. */
  readonly name: string
  /** Open the store under test (a scratch store: the check deletes its records). */
  readonly open: Opener
  /** Persistent backends: open the same store again after `close()` (enables `durability`). */
  readonly reopen?: Opener | undefined
  /**
   * Optional, with `reopen`: run a writer on the same store and kill it in the middle of a write (e.g. a child
   * process writing batches, killed with SIGKILL); resolve once it is dead. Called while the check's store is closed.
   * Enables `interrupted-write`.
   */
  readonly interruptWrite?: (() => Promise<void>) | undefined
}

/** What {@link checkMemoryBackend} checked. */
export interface MemoryBackendReport {
  readonly backend: string
  /** The properties checked (`durability` needs `reopen`, `interrupted-write` also `interruptWrite`). */
  readonly checked: ReadonlyArray<Property>
  /** Store operations made. */
  readonly operations: number
  /** The store's own description. */
  readonly location: string
  readonly vectorIndex: string
}

interface Held {
  readonly service: ExperienceStore["Service"]
  readonly close: () => Promise<void>
}

const acquire = async (opener: Opener): Promise<Held> => {
  const opened = opener()
  if (Layer.isLayer(opened)) {
    const scope = Scope.makeUnsafe()
    const exit = await Effect.runPromiseExit(Layer.buildWithScope(opened as Layer.Layer<ExperienceStore, unknown>, scope))
    if (Exit.isFailure(exit)) {
      await Effect.runPromise(Scope.close(scope, exit))
      throw Cause.squash(exit.cause)
    }
    return { service: Context.get(exit.value, ExperienceStore), close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
  }
  const store = await (opened as Promise<OpenStore>)
  return { service: store.service, close: () => store.close() }
}

const show = (x: unknown): string => {
  const s = x instanceof Float32Array ? `Float32Array(${x.length})` : (JSON.stringify(x) ?? String(x))
  return s.length > 160 ? `${s.slice(0, 157)}...` : s
}
const describe = (e: unknown): string =>
  e !== null && typeof e === "object" && "_tag" in e ? `${String((e as { _tag: unknown })._tag)}: ${(e as unknown as Error).message}` : String(e)

/** A failed property: thrown inside a property's body, turned into a finding. */
class Broken extends Error {}
const ensure = (ok: boolean, message: string): void => {
  if (!ok) throw new Broken(message)
}

const NOW = 1_700_000_000_000

/** The fields a stored record keeps from the record that was put (for comparisons). */
const fieldsOf = (r: Records.ExperienceRecord) => ({
  kind: r.kind,
  text: r.text,
  task: r.task,
  env: r.env,
  outcome: r.outcome,
  return: r.return,
  createdAt: r.createdAt,
  lastAccessedAt: r.lastAccessedAt,
  importance: r.importance,
  tags: r.tags,
  support: r.support,
  upvotes: r.upvotes,
  downvotes: r.downvotes,
  payload: r.payload,
  embedding: Array.from(r.embedding)
})
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * Check a backend against the store contract (see the module docs for the properties). Opens the store once (and
 * again with `reopen`), closes it before returning.
 *
 * @returns a report of what was checked.
 * @throws MemoryBackendCheckError (the Promise rejects) listing every finding; the opener's own error when the store
 *   does not open at all.
 * @category checks
 * @since 0.1.0
 */
export const checkMemoryBackend = async (backend: MemoryBackend): Promise<MemoryBackendReport> => {
  const findings: Array<string> = []
  let operations = 0
  let held = await acquire(backend.open)
  const s = () => held.service
  const run = async <A>(e: Effect.Effect<A, StoreError>): Promise<A> => {
    operations++
    return Effect.runPromise(e)
  }
  const failure = async (e: Effect.Effect<unknown, StoreError>): Promise<unknown> => {
    operations++
    const exit = await Effect.runPromiseExit(e)
    return Exit.isSuccess(exit) ? undefined : Cause.squash(exit.cause)
  }
  const property = async (p: Property, body: () => Promise<void>, clear = true): Promise<void> => {
    try {
      if (clear) await run(s().removeWhere({}))
      await body()
    } catch (e) {
      findings.push(`${p}: ${e instanceof Broken ? e.message : `threw ${describe(e)}`}`)
    }
  }
  const dim = s().dimension
  const basis = (...weights: ReadonlyArray<readonly [number, number]>): Float32Array => {
    const v = new Float32Array(dim)
    for (const [i, w] of weights) v[i % dim] = w
    return v
  }
  const checked: Array<Property> = []
  const location = s().location
  const vectorIndex = s().vectorIndex

  try {
    // metadata
    checked.push("metadata")
    {
      const m = s()
      const bad: Array<string> = []
      if (typeof m.backend !== "string" || (m.backend as string) === "") bad.push(`backend ${show(m.backend)}`)
      if (typeof m.location !== "string") bad.push(`location ${show(m.location)}`)
      if (!(Number.isInteger(m.dimension) && m.dimension > 0)) bad.push(`dimension ${show(m.dimension)} is not a positive integer`)
      if (!["resident", "hnsw", "exact"].includes(m.vectorIndex)) bad.push(`vectorIndex ${show(m.vectorIndex)} is not resident, hnsw or exact`)
      if (!(Number.isInteger(m.schemaVersion) && m.schemaVersion > 0)) bad.push(`schemaVersion ${show(m.schemaVersion)} is not a positive integer`)
      if (bad.length > 0) findings.push(`metadata: ${bad.join("; ")}`)
      if (!(Number.isInteger(m.dimension) && m.dimension > 0)) throw new MemoryBackendCheckError({ backend: backend.name, findings })
    }

    // put
    checked.push("put")
    await property("put", async () => {
      const before = await run(s().count())
      const rec = Records.reflection("The drawer sticks; pull it twice", {
        task: "open drawer",
        env: "TextHousehold-v0",
        outcome: "failure",
        return: -1.5,
        importance: 0.7,
        tags: ["kitchen", "drawer"],
        createdAt: NOW,
        lastAccessedAt: NOW + 10,
        embedding: basis([1, 0.6], [2, 0.8]),
        trial: 2
      })
      const r = await run(s().put(rec))
      ensure(r.status === "inserted" && typeof r.id === "string" && r.id !== "", `a new record gave ${show(r)}, not { id, status: "inserted" }`)
      const got = await run(s().get(r.id))
      ensure(Option.isSome(got), `get(${show(r.id)}) after put found nothing`)
      const g = Option.getOrThrow(got)
      const want = {
        kind: "reflection",
        text: rec.text,
        task: rec.task,
        env: rec.env,
        outcome: "failure",
        return: -1.5,
        createdAt: NOW,
        lastAccessedAt: NOW + 10,
        importance: 0.7,
        tags: ["drawer", "kitchen"],
        support: 1,
        upvotes: 0,
        downvotes: 0,
        payload: rec.payload,
        embedding: Array.from(rec.embedding!)
      }
      const have = { ...fieldsOf(g), tags: [...g.tags].sort() }
      for (const k of Object.keys(want) as Array<keyof typeof want>) {
        ensure(same(have[k], want[k]), `get returned ${k} = ${show(have[k])}, put ${show(want[k])}`)
      }
      ensure(g.id === r.id, `get(${show(r.id)}) returned id ${show(g.id)}`)
      const after = await run(s().count())
      ensure(after === before + 1, `count went from ${before} to ${after} after one insert`)
    })

    // merge
    checked.push("merge")
    await property("merge", async () => {
      const copies = [
        Records.insight("Check the map first", { task: "nav", tags: ["b"], importance: 0.3, createdAt: NOW, lastAccessedAt: NOW + 5, sourceIds: ["a"], embedding: basis([3, 1]) }),
        Records.insight("Check the map first", {
          task: "nav",
          tags: ["a", "b"],
          importance: 0.8,
          upvotes: 2,
          support: 2,
          createdAt: NOW + 1,
          lastAccessedAt: NOW + 9,
          sourceIds: ["b"],
          embedding: basis([4, 1])
        }),
        Records.insight("Check the map first", { task: "nav", tags: ["c"], importance: 0.5, downvotes: 1, createdAt: NOW + 2, lastAccessedAt: NOW + 2, embedding: basis([5, 1]) })
      ]
      const expected = {
        support: 4,
        upvotes: 2,
        downvotes: 1,
        importance: 0.8,
        tags: ["a", "b", "c"],
        createdAt: NOW,
        lastAccessedAt: NOW + 9,
        payload: { sourceIds: ["a"] },
        embedding: Array.from(basis([3, 1]))
      }
      const verify = async (how: string, results: ReadonlyArray<{ id: string; status: string }>) => {
        ensure(same(results.map((r) => r.status), ["inserted", "merged", "merged"]), `${how}: statuses ${show(results.map((r) => r.status))}, not ["inserted","merged","merged"]`)
        ensure(new Set(results.map((r) => r.id)).size === 1, `${how}: ids ${show(results.map((r) => r.id))}, not one id`)
        const n = await run(s().count())
        ensure(n === 1, `${how}: ${n} records stored, not 1`)
        const got = Option.getOrUndefined(await run(s().get(results[0]!.id)))
        ensure(got !== undefined, `${how}: the merged record ${show(results[0]!.id)} is missing`)
        const f = fieldsOf(got!)
        const have = { support: f.support, upvotes: f.upvotes, downvotes: f.downvotes, importance: f.importance, tags: f.tags, createdAt: f.createdAt, lastAccessedAt: f.lastAccessedAt, payload: f.payload, embedding: f.embedding }
        for (const k of Object.keys(expected) as Array<keyof typeof expected>) {
          ensure(same(have[k], expected[k]), `${how}: merged ${k} = ${show(have[k])}, expected ${show(expected[k])}`)
        }
      }
      const one: Array<{ id: string; status: string }> = []
      for (const c of copies) one.push(await run(s().put(c)))
      await verify("put, put, put", one)
      await run(s().removeWhere({}))
      await verify("one putMany", await run(s().putMany(copies)))
      await run(s().removeWhere({}))
      const first = await run(s().put(copies[0]!))
      await verify("put then putMany of the rest", [first, ...(await run(s().putMany(copies.slice(1))))])
      // a retried write with the record's own id changes nothing
      await run(s().removeWhere({}))
      const fixed = Records.tip("retried tip", { id: "check-fixed-1", tags: ["t"], upvotes: 1, embedding: basis([6, 1]) })
      const r1 = await run(s().put(fixed))
      const r2 = await run(s().put(fixed))
      const r3 = await run(s().putMany([fixed, fixed]))
      ensure(
        same([r1, r2, ...r3], [{ id: "check-fixed-1", status: "inserted" }, ...Array.from({ length: 3 }, () => ({ id: "check-fixed-1", status: "merged" }))]),
        `a write repeated with its own id gave ${show([r1, r2, ...r3])}`
      )
      const g = Option.getOrUndefined(await run(s().get("check-fixed-1")))
      ensure(g !== undefined && g.support === 1 && g.upvotes === 1, `a write repeated with its own id changed the record: support ${g?.support}, upvotes ${g?.upvotes} (want 1, 1)`)
      const clash = await failure(s().putMany([Records.tip("x", { id: "check-same", embedding: basis([7, 1]) }), Records.tip("y", { id: "check-same", embedding: basis([8, 1]) })]))
      ensure(
        clash !== undefined && (clash as { _tag?: string })._tag === "InvalidRecordError" && (clash as { field?: string }).field === "records[1].id",
        `two different records with one id in a batch gave ${clash === undefined ? "success" : describe(clash)}, not InvalidRecordError on records[1].id`
      )
      ensure(Option.isNone(await run(s().get("check-same"))), "the refused batch with one id twice stored a record")
    })

    // atomicity
    checked.push("atomicity")
    await property("atomicity", async () => {
      await run(s().put(Records.tip("already here", { embedding: basis([9, 1]) })))
      const e = await failure(s().putMany([Records.tip("batch ok 1", { embedding: basis([10, 1]) }), Records.tip("batch ok 2", { embedding: basis([11, 1]), importance: 7 })]))
      ensure((e as { _tag?: string } | undefined)?._tag === "InvalidRecordError", `a batch with importance 7 in its second record gave ${e === undefined ? "success" : describe(e)}, not InvalidRecordError`)
      const n = await run(s().count())
      ensure(n === 1, `a refused batch left ${n} records, not the 1 stored before it`)
    })

    // get
    checked.push("get")
    await property("get", async () => {
      const got = await run(s().get("check-no-such-id"))
      ensure(Option.isNone(got), `get of an unknown id gave ${show(Option.getOrUndefined(got)?.id)}`)
    })

    // query
    checked.push("query")
    await property("query", async () => {
      const seeds = [
        Records.insight("open the fridge before looking for food", { task: "food", tags: ["kitchen"], embedding: basis([0, 1]), importance: 0.9 }),
        Records.insight("the microwave heats an object in one step", { task: "heat", tags: ["kitchen"], embedding: basis([0, 0.6], [1, 0.8]) }),
        Records.tip("drawers may be locked; look for a key", { task: "food", tags: ["bedroom"], embedding: basis([1, 1]) }),
        Records.tip("a sponge cleans the mug at the sinkbasin", { task: "clean", tags: ["kitchen", "sink"], embedding: basis([2, 1]) }),
        Records.reflection("I forgot to close the cabinet after taking the plate", { task: "food", tags: ["kitchen"], embedding: basis([2, 0.5], [3, 1]) }),
        Records.tip("zyzzyva is the only word in this record", { task: "misc", tags: [], embedding: basis([4, 1]) })
      ]
      const ids = (await run(s().putMany(seeds))).map((r) => r.id)
      const checkHits = (what: string, hits: ReadonlyArray<ScoredRecord>, k: number, filters?: Filters) => {
        ensure(hits.length <= k, `${what}: ${hits.length} hits for k = ${k}`)
        ensure(new Set(hits.map((h) => h.record.id)).size === hits.length, `${what}: a record returned twice: ${show(hits.map((h) => h.record.id))}`)
        for (const h of hits) {
          const bad = [
            ["score", h.score, Number.isFinite(h.score)],
            ["relevance", h.relevance, h.relevance >= 0 && h.relevance <= 1],
            ["similarity", h.similarity, h.similarity >= -1 - 1e-6 && h.similarity <= 1 + 1e-6],
            ["lexical", h.lexical, Number.isFinite(h.lexical) && h.lexical >= 0],
            ["recency", h.recency, h.recency > 0 && h.recency <= 1],
            ["importance", h.importance, h.importance >= 0 && h.importance <= 1]
          ].find((x) => x[2] !== true)
          ensure(bad === undefined, `${what}: hit ${show(h.record.id)} has ${bad?.[0]} = ${show(bad?.[1])}, outside its range`)
        }
        for (let i = 1; i < hits.length; i++) {
          ensure(hits[i - 1]!.score >= hits[i]!.score, `${what}: scores not sorted descending: ${show(hits.map((h) => h.score))}`)
        }
        if (filters?.kind !== undefined) for (const h of hits) ensure(h.record.kind === filters.kind, `${what}: hit of kind ${show(h.record.kind)} passed filter kind ${show(filters.kind)}`)
        if (filters?.task !== undefined) for (const h of hits) ensure(h.record.task === filters.task, `${what}: hit of task ${show(h.record.task)} passed filter task ${show(filters.task)}`)
        for (const t of filters?.tags ?? []) for (const h of hits) ensure(h.record.tags.includes(t), `${what}: hit with tags ${show(h.record.tags)} passed filter tags ${show(filters?.tags)}`)
      }
      const q = async (what: string, query: Query) => {
        const hits = await run(s().query({ touch: false, ...query }))
        checkHits(what, hits, query.k ?? 10, query.filters)
        return hits
      }
      for (const mode of ["hybrid", "vector", "lexical"] as const) {
        await q(`mode ${mode}, k 3`, { text: "food in the kitchen", embedding: basis([0, 1]), mode, k: 3 })
        await q(`mode ${mode}, filtered`, { text: "the mug", embedding: basis([2, 1]), mode, k: 5, filters: { kind: "tip", tags: ["kitchen"] } })
      }
      const nearest = await q("vector, a stored embedding", { embedding: basis([2, 0.5], [3, 1]), mode: "vector", k: 2, weights: { recency: 0, importance: 0 } })
      ensure(nearest[0]?.record.id === ids[4], `the vector query with record ${show(ids[4])}'s own embedding ranked ${show(nearest.map((h) => h.record.id))} first`)
      ensure(Math.abs((nearest[0]?.similarity ?? 0) - 1) < 1e-5, `a record's own embedding has similarity ${show(nearest[0]?.similarity)}, not 1`)
      const word = await q("lexical, a rare word", { text: "zyzzyva", mode: "lexical", k: 3, weights: { recency: 0, importance: 0 } })
      ensure(word[0]?.record.id === ids[5], `the lexical query "zyzzyva" ranked ${show(word.map((h) => h.record.text))}, not the one record holding the word first`)
      ensure((word[0]?.lexical ?? 0) > 0, `the record holding the query's word has lexical score ${show(word[0]?.lexical)}`)
      const food = await q("filter task food, k 10", { text: "food", filters: { task: "food" }, k: 10 })
      ensure(same(food.map((h) => h.record.id).sort(), [ids[0], ids[2], ids[4]].sort()), `filter task "food" found ${show(food.map((h) => h.record.text))}, not the 3 food records`)
      const none = await q("a filter nothing matches", { text: "food", filters: { task: "no-such-task" } })
      ensure(none.length === 0, `a filter nothing matches gave ${none.length} hits`)
    })

    // exemplars
    checked.push("exemplars")
    await property("exemplars", async () => {
      const traj = (success: boolean, reward: number) =>
        Trajectory.fromSteps("TextHousehold-v0", [
          { observation: "kitchen", action: "go to fridge 1", reward: 0, terminated: false, truncated: false },
          { observation: "fridge", action: "take apple 1", reward, terminated: true, truncated: false }
        ], { task: "take apple", success })
      const won = traj(true, 1)
      const rs = await run(s().putMany([
        Records.trajectory(won, { embedding: basis([31, 1]) }),
        Records.trajectory(traj(false, 0), { embedding: basis([31, 1], [32, 0.1]) }),
        Records.trajectory(traj(true, 0.5), { embedding: basis([33, 1]), text: "another success" }),
        Records.tip("a tip near the query", { embedding: basis([31, 1], [34, 0.1]) })
      ]))
      const ex = await run(s().exemplars({ embedding: basis([31, 1]), k: 3 }))
      ensure(ex.length === 2, `exemplars with k 3 over 2 successful trajectories gave ${ex.length}: ${show(ex.map((e) => e.record.id))}`)
      ensure(ex[0]?.record.id === rs[0]!.id, `the successful trajectory with the query's own embedding is not first: ${show(ex.map((e) => e.record.id))}`)
      ensure(Math.abs((ex[0]?.similarity ?? 0) - 1) < 1e-5, `its similarity is ${show(ex[0]?.similarity)}, not 1`)
      ensure(
        same(ex[0]?.trajectory.steps.map((st) => st.action), won.steps.map((st) => st.action)) && ex[0]?.trajectory.return === won.return,
        `the exemplar's trajectory ${show(ex[0]?.trajectory)} is not the one stored`
      )
      for (const e of ex) ensure(e.record.kind === "trajectory" && e.record.outcome === "success", `exemplars returned a ${e.record.outcome} ${e.record.kind}`)
      const bad = await failure(s().exemplars({}))
      ensure((bad as { _tag?: string } | undefined)?._tag === "InvalidQueryError", `exemplars with neither text nor embedding gave ${bad === undefined ? "success" : describe(bad)}, not InvalidQueryError`)
    })

    // vote
    checked.push("vote")
    await property("vote", async () => {
      const { id } = await run(s().put(Records.insight("vote on me", { embedding: basis([12, 1]), upvotes: 1 })))
      await run(s().vote(id, "up", 2))
      await run(s().vote(id, "down"))
      const g = Option.getOrUndefined(await run(s().get(id)))
      ensure(g?.upvotes === 3 && g.downvotes === 1, `after vote up ×2 and down ×1 on 1 upvote: upvotes ${g?.upvotes}, downvotes ${g?.downvotes} (want 3, 1)`)
      const e = await failure(s().vote("check-no-such-id", "up"))
      ensure((e as { _tag?: string } | undefined)?._tag === "InvalidQueryError", `vote on an unknown id gave ${e === undefined ? "success" : describe(e)}, not InvalidQueryError`)
    })

    // remove, removeWhere, count
    checked.push("remove")
    await property("remove", async () => {
      const rs = await run(s().putMany([
        Records.tip("remove a", { tags: ["x"], embedding: basis([13, 1]) }),
        Records.tip("remove b", { tags: ["x", "y"], embedding: basis([14, 1]) }),
        Records.insight("remove c", { tags: ["y"], embedding: basis([15, 1]) }),
        Records.insight("remove d", { embedding: basis([16, 1]) })
      ]))
      const counts = [await run(s().count()), await run(s().count({ tags: ["x"] })), await run(s().count({ kind: "insight" }))]
      ensure(same(counts, [4, 2, 2]), `count(), count({ tags: ["x"] }), count({ kind: "insight" }) gave ${show(counts)}, not [4,2,2]`)
      const n = await run(s().remove([rs[0]!.id, "check-no-such-id"]))
      ensure(n === 1, `remove of one stored and one unknown id returned ${n}, not 1`)
      ensure(Option.isNone(await run(s().get(rs[0]!.id))), `the removed record ${show(rs[0]!.id)} is still there`)
      const w = await run(s().removeWhere({ tags: ["y"] }))
      ensure(w === 2, `removeWhere({ tags: ["y"] }) returned ${w}, not 2`)
      const left = await run(s().count())
      ensure(left === 1 && Option.isSome(await run(s().get(rs[3]!.id))), `after the removals ${left} records are left, not just ${show(rs[3]!.id)}`)
    })

    // consolidate
    checked.push("consolidate")
    await property("consolidate", async () => {
      await run(s().putMany([
        Records.insight("keep the fridge closed", { embedding: basis([17, 1]) }),
        Records.insight("always close the fridge", { embedding: basis([17, 1]) }),
        ...Array.from({ length: 4 }, (_, i) => Records.tip(`distinct tip ${i}`, { embedding: basis([18 + i, 1]) }))
      ]))
      const before = await run(s().count())
      const r = await run(s().consolidate({}))
      const counts = [r.merged, r.weak, r.evicted, r.remaining]
      ensure(counts.every((c) => Number.isInteger(c) && c >= 0), `the report ${show(r)} holds a count that is not a non-negative integer`)
      ensure(r.merged >= 1, `two insights with the same embedding were not merged: ${show(r)}`)
      const n = await run(s().count())
      ensure(r.remaining === n, `the report says ${r.remaining} remain, count() says ${n}`)
      ensure(before === r.merged + r.weak + r.evicted + r.remaining, `${before} records before, but the report ${show(r)} accounts for ${r.merged + r.weak + r.evicted + r.remaining}`)
      const c = await run(s().consolidate({ capacity: 2 }))
      const m = await run(s().count())
      ensure(m <= 2 && c.remaining === m, `consolidate({ capacity: 2 }) left ${m} records (report ${show(c)})`)
    })

    // invalid-input
    checked.push("invalid-input")
    await property("invalid-input", async () => {
      const names = (e: unknown, tag: string, value: unknown, where: string): boolean => {
        if ((e as { _tag?: string } | undefined)?._tag !== tag) return false
        const o = e as { field?: string; option?: string; value?: unknown; message?: string }
        const text = `${o.field ?? ""} ${o.option ?? ""} ${show(o.value)} ${o.message ?? ""}`
        return text.includes(where) || text.includes(show(value))
      }
      const records: Array<[string, Records.NewRecord, unknown, string]> = [
        ["an embedding of the wrong dimension", Records.tip("bad", { embedding: new Float32Array(dim + 1) }), dim + 1, "embedding"],
        ["an embedding with NaN", Records.tip("bad", { embedding: basis([1, Number.NaN]) }), "NaN", "embedding"],
        ["importance 7", Records.tip("bad", { importance: 7, embedding: basis([1, 1]) }), 7, "importance"],
        ["kind \"memo\"", { kind: "memo" as never, text: "bad", embedding: basis([1, 1]) }, "memo", "kind"]
      ]
      for (const [what, rec, value, where] of records) {
        const e = await failure(s().put(rec))
        ensure(names(e, "InvalidRecordError", value, where), `put with ${what} gave ${e === undefined ? "success" : describe(e)}, not InvalidRecordError naming ${where}`)
      }
      const queries: Array<[string, Query, unknown, string]> = [
        ["k: 0", { k: 0 }, 0, "k"],
        ["kind \"memo\"", { filters: { kind: "memo" as never } }, "memo", "filters.kind"],
        ["an unknown filter", { filters: { colour: "red" } as never }, "colour", "colour"],
        ["a negative weight", { weights: { recency: -1 } }, -1, "weights.recency"],
        ["mode \"bm25\"", { mode: "bm25" as never }, "bm25", "mode"],
        ["an embedding of the wrong dimension", { embedding: new Float32Array(dim + 2) }, dim + 2, "embedding"]
      ]
      for (const [what, query, value, where] of queries) {
        const e = await failure(s().query(query))
        ensure(names(e, "InvalidQueryError", value, where), `query with ${what} gave ${e === undefined ? "success" : describe(e)}, not InvalidQueryError naming ${where}`)
      }
      const n = await run(s().count())
      ensure(n === 0, `refused writes left ${n} records`)
    })

    // durability
    if (backend.reopen !== undefined) {
      checked.push("durability")
      let acknowledged: Array<Records.ExperienceRecord> = []
      await property("durability", async () => {
        const a = await run(s().put(Records.tip("durable single", { tags: ["d"], embedding: basis([22, 1]), createdAt: NOW })))
        const batch = await run(s().putMany(Array.from({ length: 5 }, (_, i) => Records.tip(`durable batch ${i}`, { embedding: basis([23 + i, 1]), createdAt: NOW + i }))))
        await run(s().vote(batch[0]!.id, "up", 3))
        const gone = await run(s().put(Records.tip("durable removed", { embedding: basis([30, 1]) })))
        await run(s().remove([gone.id]))
        const ids = [a.id, ...batch.map((r) => r.id)]
        acknowledged = []
        for (const id of ids) acknowledged.push(Option.getOrThrow(await run(s().get(id))))
        await held.close()
        held = await acquire(backend.reopen!)
        const n = await run(s().count())
        ensure(n === ids.length, `after close and reopen ${n} records, not the ${ids.length} acknowledged`)
        for (const r of acknowledged) {
          const g = Option.getOrUndefined(await run(s().get(r.id)))
          ensure(g !== undefined, `the acknowledged record ${show(r.id)} (${show(r.text)}) is missing after reopening`)
          ensure(same(fieldsOf(g!), fieldsOf(r)), `record ${show(r.id)} changed across reopening: ${show(fieldsOf(r))} became ${show(fieldsOf(g!))}`)
        }
        ensure(Option.isNone(await run(s().get(gone.id))), `the removed record ${show(gone.id)} is back after reopening`)
      })

      if (backend.interruptWrite !== undefined) {
        checked.push("interrupted-write")
        await property("interrupted-write", async () => {
          // not cleared: the records acknowledged before the interruption must survive it
          const before = acknowledged.length
          await held.close()
          await backend.interruptWrite!()
          try {
            held = await acquire(backend.reopen!)
          } catch (e) {
            held = { service: held.service, close: () => Promise.resolve() }
            throw new Broken(`the store refuses to open after an interrupted write: ${describe(e)}`)
          }
          const n = await run(s().count())
          ensure(Number.isInteger(n) && n >= before, `after an interrupted write the store counts ${show(n)}, fewer than the ${before} acknowledged before it`)
          for (const r of acknowledged) {
            ensure(Option.isSome(await run(s().get(r.id))), `the acknowledged record ${show(r.id)} is missing after an interrupted write`)
          }
        }, false)
      }
    }
    await run(s().removeWhere({})).catch(() => undefined)
  } finally {
    await held.close()
  }
  if (findings.length > 0) throw new MemoryBackendCheckError({ backend: backend.name, findings })
  return { backend: backend.name, checked, operations, location, vectorIndex }
}
