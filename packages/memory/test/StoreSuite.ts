/**
 * The experience-store conformance suite, run against every backend (PGlite in `Store.test.ts`, a PostgreSQL server
 * in `Store.integration.test.ts`). One store per file, shared by the tests; each test clears it first.
 */
import { type MissingPeerError, Rng, Trajectory } from "@autodidact/core"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as Embedder from "../src/embedders/Embedder.js"
import { latestVersion, migrate } from "../src/store/Migrations.js"
import * as Records from "../src/store/Records.js"
import type { Filters } from "../src/store/Retrieval.js"
import { cosine } from "../src/store/Retrieval.js"
import type { Backend } from "../src/store/SqlBackend.js"
import * as Store from "../src/store/Store.js"
import type { StoreOpenError } from "../src/store/StoreErrors.js"

export const DIM = 256

/** The backend under the store, for the migration tests. */
export class TestBackend extends Context.Service<TestBackend, Backend>()("test/TestBackend") {}

export const suiteLayer = (
  openBackend: Effect.Effect<Backend, StoreOpenError | MissingPeerError, import("effect").Scope.Scope>,
  options: Store.StoreOptions = {}
) => {
  const backend = Layer.effect(TestBackend, openBackend)
  const store = Layer.effect(
    Store.ExperienceStore,
    Effect.gen(function*() {
      return yield* Store.make(yield* TestBackend, options)
    })
  )
  return Layer.provideMerge(store, backend).pipe(Layer.provideMerge(Embedder.layerHashed({ dimension: DIM })))
}

const basis = (weights: Record<number, number>): Float32Array => {
  const v = new Float32Array(DIM)
  for (const [i, w] of Object.entries(weights)) v[Number(i)] = w
  return v
}

const HOUR = 3_600_000
const NOW = 1_700_000_000_000

const traj = (success: boolean, task: string, ret: number): Trajectory.Trajectory =>
  Trajectory.fromSteps(
    "TextWorld-v0",
    [
      { observation: "room", action: "go north", reward: 0, terminated: false, truncated: false },
      { observation: [1, 2], action: 3, reward: ret, terminated: true, truncated: false, info: { note: "end" } }
    ],
    { task, success, seed: 7 }
  )

/** The part of either face of the store that {@link mergeRule} uses, with Promises. */
export interface PutApi {
  put(record: Records.NewRecord): Promise<Store.PutResult>
  putMany(records: ReadonlyArray<Records.NewRecord>): Promise<ReadonlyArray<Store.PutResult>>
  get(id: string): Promise<Records.ExperienceRecord | undefined>
  removeWhere(filters: Filters): Promise<number>
}

/** The Effect service as a {@link PutApi}. */
export const putApiOf = (store: Store.ExperienceStore["Service"]): PutApi => ({
  put: (r) => Effect.runPromise(store.put(r)),
  putMany: (rs) => Effect.runPromise(store.putMany(rs)),
  get: (id) => Effect.runPromise(Effect.map(store.get(id), Option.getOrUndefined)),
  removeWhere: (f) => Effect.runPromise(store.removeWhere(f))
})

/**
 * One merge rule for duplicates: `put`s one after the other, one `putMany` holding all of them, and a `putMany` onto a
 * stored one leave the same record (support and votes summed, highest importance, latest access, tags united, the
 * first record's id, creation time and payload kept); a repeated write with the record's own id changes nothing.
 * Clears the store.
 */
export const mergeRule = async (api: PutApi): Promise<void> => {
  const copies = [
    Records.insight("Check the map first", {
      task: "nav",
      tags: ["b"],
      importance: 0.3,
      createdAt: NOW,
      lastAccessedAt: NOW + 5,
      sourceIds: ["a"]
    }),
    Records.insight("Check the map first", {
      task: "nav",
      tags: ["a", "b"],
      importance: 0.8,
      upvotes: 2,
      support: 2,
      createdAt: NOW + 1,
      lastAccessedAt: NOW + 9,
      sourceIds: ["b"]
    }),
    Records.insight("Check the map first", { task: "nav", tags: ["c"], importance: 0.5, downvotes: 1, createdAt: NOW + 2, lastAccessedAt: NOW + 2 })
  ]
  const expected = {
    support: 4,
    upvotes: 2,
    downvotes: 1,
    importance: 0.8,
    tags: ["a", "b", "c"],
    createdAt: NOW,
    lastAccessedAt: NOW + 9,
    payload: { sourceIds: ["a"] }
  }
  const fields = (r: Records.ExperienceRecord | undefined) => ({
    support: r?.support,
    upvotes: r?.upvotes,
    downvotes: r?.downvotes,
    importance: r?.importance,
    tags: r?.tags,
    createdAt: r?.createdAt,
    lastAccessedAt: r?.lastAccessedAt,
    payload: r?.payload
  })
  // put, put, put
  await api.removeWhere({})
  const one = []
  for (const c of copies) one.push(await api.put(c))
  expect(one.map((r) => r.status)).toEqual(["inserted", "merged", "merged"])
  expect(new Set(one.map((r) => r.id)).size).toBe(1)
  expect(fields(await api.get(one[0].id))).toEqual(expected)
  // putMany of all three in one batch
  await api.removeWhere({})
  const batch = await api.putMany(copies)
  expect(batch.map((r) => r.status)).toEqual(["inserted", "merged", "merged"])
  expect(new Set(batch.map((r) => r.id)).size).toBe(1)
  expect(fields(await api.get(batch[0].id))).toEqual(expected)
  // put, then putMany of the other two onto the stored one
  await api.removeWhere({})
  const first = await api.put(copies[0])
  const rest = await api.putMany(copies.slice(1))
  expect(rest).toEqual([{ id: first.id, status: "merged" }, { id: first.id, status: "merged" }])
  expect(fields(await api.get(first.id))).toEqual(expected)
  // a write repeated with the record's own id (a retry) changes nothing, in a put or within a batch
  await api.removeWhere({})
  const fixed = Records.tip("retried tip", { id: "fixed-1", tags: ["t"], upvotes: 1 })
  expect(await api.put(fixed)).toEqual({ id: "fixed-1", status: "inserted" })
  expect(await api.put(fixed)).toEqual({ id: "fixed-1", status: "merged" })
  expect(await api.putMany([fixed, fixed, Records.tip("another tip", { id: "fixed-2" }), Records.tip("another tip", { id: "fixed-2" })]))
    .toEqual([
      { id: "fixed-1", status: "merged" },
      { id: "fixed-1", status: "merged" },
      { id: "fixed-2", status: "inserted" },
      { id: "fixed-2", status: "merged" }
    ])
  expect(await api.get("fixed-1")).toMatchObject({ support: 1, upvotes: 1 })
  expect(await api.get("fixed-2")).toMatchObject({ support: 1 })
  // one explicit id for two different records in a batch is refused, naming the later one; nothing is stored
  const clash = await api.putMany([Records.tip("x", { id: "same" }), Records.tip("y", { id: "same" })]).then(
    () => undefined,
    (e: unknown) => e
  )
  expect(clash).toMatchObject({ _tag: "InvalidRecordError", field: "records[1].id", value: "same" })
  expect(await api.get("same")).toBeUndefined()
  await api.removeWhere({})
}

export const storeSuite = (name: string, storeLayer: ReturnType<typeof suiteLayer>) =>
  layer(storeLayer, { timeout: "180 seconds" })(name, (it) => {
    const fresh = Effect.gen(function*() {
      const store = yield* Store.ExperienceStore
      yield* store.removeWhere({})
      return store
    })

    it.effect("vector top-k stays exact through puts, removals, removeWhere and consolidation, with and without filters", () =>
      Effect.gen(function*() {
        const store = yield* fresh
        const rng = Rng.make(7)
        const vec = () => Float32Array.from({ length: DIM }, () => rng.normal(0, 1))
        // the records alive, mirrored here: id -> embedding, task
        const alive = new Map<string, { embedding: Float32Array; task: string }>()
        const putBatch = (n: number, round: number) =>
          Effect.gen(function*() {
            const records = Array.from({ length: n }, (_, i) => {
              const task = ["a", "b", "c"][i % 3]
              return Records.tip(`tip ${round}.${i}`, { embedding: vec(), task, importance: 0.5 })
            })
            const results = yield* store.putMany(records)
            results.forEach((r, i) => alive.set(r.id, { embedding: records[i].embedding!, task: records[i].task! }))
          })
        const check = (label: string) =>
          Effect.gen(function*() {
            for (const task of [undefined, "a", "b"]) {
              const q = vec()
              const hits = yield* store.query({
                embedding: q,
                k: 10,
                candidates: 10, // a pool of exactly k: one stale or missing row in it shows
                mode: "vector",
                touch: false,
                weights: { relevance: 1, recency: 0, importance: 0 },
                ...(task === undefined ? {} : { filters: { task } })
              })
              const expected = [...alive.entries()]
                .filter(([, r]) => task === undefined || r.task === task)
                .map(([id, r]) => ({ id, s: cosine(q, r.embedding) }))
                .sort((x, y) => y.s - x.s)
                .slice(0, 10)
                .map((x) => x.id)
              const got = hits.map((h) => h.record.id)
              if (store.vectorIndex === "hnsw") {
                // approximate: nearly all of the true top 10
                expect(got.filter((id) => expected.includes(id)).length, label).toBeGreaterThanOrEqual(8)
              } else expect(got, `${label}, task ${task}`).toEqual(expected)
            }
          })
        yield* putBatch(150, 0)
        yield* check("after the first batch")
        const someIds = [...alive.keys()].filter((_, i) => i % 4 === 1)
        expect(yield* store.remove(someIds)).toBe(someIds.length)
        for (const id of someIds) alive.delete(id)
        yield* check("after remove")
        yield* putBatch(90, 1)
        expect(yield* store.removeWhere({ task: "c" })).toBe([...alive.values()].filter((r) => r.task === "c").length)
        for (const [id, r] of [...alive.entries()]) if (r.task === "c") alive.delete(id)
        yield* check("after removeWhere")
        // consolidation: the 5 weakest (least important, then oldest) evicted beyond a capacity
        const report = yield* store.consolidate({ capacity: alive.size - 5, mergeKinds: [] })
        expect(report.evicted).toBe(5)
        const left = new Set<string>()
        for (const h of yield* store.query({ k: alive.size, touch: false, weights: { relevance: 0, recency: 1, importance: 0 } })) {
          left.add(h.record.id)
        }
        for (const id of [...alive.keys()]) if (!left.has(id)) alive.delete(id)
        expect(alive.size).toBe(left.size)
        yield* check("after consolidate")
      }))

    it.effect("each hit's recency and importance are those of the stored record after merges, touches and consolidation", () =>
      Effect.gen(function*() {
        const store = yield* fresh
        const texts = Array.from({ length: 40 }, (_, i) => `insight ${i % 20}: keep the ${["mug", "egg", "key"][i % 20 % 3]} near the sink`)
        // the second 20 are duplicates of the first 20 with other importance and access times: merges
        yield* store.putMany(texts.map((t, i) =>
          i < 20
            ? Records.insight(t, { importance: (i % 5) / 10, createdAt: NOW - i * HOUR, lastAccessedAt: NOW - i * HOUR })
            : Records.insight(t, { importance: 0.9, createdAt: NOW, lastAccessedAt: NOW - HOUR / 2 })
        ))
        // two insights with the same words (cosine 1): consolidation merges them into one with the group's fields
        yield* store.putMany([
          Records.insight("Keep the egg carton near the sink.", { importance: 0.2, createdAt: NOW - 100 * HOUR, lastAccessedAt: NOW - 100 * HOUR }),
          Records.insight("keep the egg carton near the sink!", { importance: 0.8, createdAt: NOW - HOUR, lastAccessedAt: NOW - HOUR })
        ])
        for (let i = 0; i < 5; i++) yield* store.query({ text: "mug near the sink", k: 3, now: NOW + i * HOUR }) // touches
        yield* store.consolidate({ threshold: 0.95, now: NOW + 6 * HOUR }) // merges near-duplicate insights
        for (const recencyFrom of ["created", "accessed"] as const) {
          const hits = yield* store.query({ text: "keep the egg carton", k: 8, touch: false, recencyFrom, now: NOW + 7 * HOUR })
          // the two "egg carton" insights, merged by consolidation into one whose fields are the group's, are among the hits
          expect(hits.filter((h) => h.record.text.toLowerCase().includes("egg carton")).length).toBe(1)
          for (const h of hits) {
            const stored = Option.getOrThrow(yield* store.get(h.record.id))
            const at = recencyFrom === "created" ? stored.createdAt : stored.lastAccessedAt
            expect(h.importance, h.record.text).toBe(stored.importance)
            expect(h.recency, `${recencyFrom} ${h.record.text}`).toBeCloseTo(Math.pow(0.995, Math.max(0, NOW + 7 * HOUR - at) / HOUR), 12)
          }
        }
      }))

    it.effect("round-trips every record kind", () =>
      Effect.gen(function*() {
        const store = yield* fresh
        const t = traj(true, "make tea", 1)
        const inputs: ReadonlyArray<Records.NewRecord> = [
          Records.trajectory(t, { importance: 0.7, tags: ["kitchen"], createdAt: NOW, lastAccessedAt: NOW + 1 }),
          Records.insight("Boil water before adding the tea bag", { task: "make tea", sourceIds: ["a", "b"] }),
          Records.reflection("I forgot to boil the water; next time boil first", { trajectoryId: "x", trial: 2 }),
          Records.tip("Kettles are usually on the counter", { env: "TextWorld-v0", payload: { source: "manual" } })
        ]
        const results = yield* store.putMany(inputs)
        expect(results.map((r) => r.status)).toEqual(["inserted", "inserted", "inserted", "inserted"])
        for (let i = 0; i < inputs.length; i++) {
          const got = Option.getOrThrow(yield* store.get(results[i].id))
          const input = inputs[i]
          expect(got.kind).toBe(input.kind)
          expect(got.text).toBe(input.text)
          expect(got.task).toBe(input.task)
          expect(got.env).toBe(input.env)
          expect(got.outcome).toBe(input.outcome ?? "unknown")
          expect(got.return).toBe(input.return)
          expect(got.embedding.length).toBe(DIM)
          expect(Array.from(got.embedding)).toEqual(Array.from(Embedder.hashedEmbedding(input.text, DIM)))
          expect(got.payload).toEqual(JSON.parse(JSON.stringify(Trajectory.toJsonValue(input.payload ?? null))))
        }
        const first = Option.getOrThrow(yield* store.get(results[0].id))
        expect(first).toMatchObject({
          outcome: "success",
          return: 1,
          importance: 0.7,
          tags: ["kitchen"],
          createdAt: NOW,
          lastAccessedAt: NOW + 1,
          support: 1,
          upvotes: 0,
          downvotes: 0
        })
        expect(Records.decodeTrajectory(first)).toEqual(t)
        // A given embedding is stored bit for bit.
        const e = basis({ 0: 0.1, 5: -0.3333333, 200: 1e-7 })
        const r = yield* store.put(Records.tip("exact", { embedding: e }))
        expect(Option.getOrThrow(yield* store.get(r.id)).embedding).toEqual(e)
        expect(Option.isNone(yield* store.get("missing"))).toBe(true)
      }))

    it.effect("dedups equal records on put and adds their support", () =>
      Effect.gen(function*() {
        const store = yield* fresh
        const a = yield* store.put(Records.insight("Check the map first", { task: "nav", tags: ["b"] }))
        const b = yield* store.put(Records.insight("Check the map first", { task: "nav", tags: ["a"], upvotes: 2 }))
        expect(b).toEqual({ id: a.id, status: "merged" })
        const batch = yield* store.putMany([Records.tip("same"), Records.tip("same")])
        expect(batch.map((x) => x.status)).toEqual(["inserted", "merged"])
        expect(batch[1].id).toBe(batch[0].id)
        const got = Option.getOrThrow(yield* store.get(a.id))
        expect(got).toMatchObject({ support: 2, upvotes: 2, tags: ["a", "b"] })
        expect(Option.getOrThrow(yield* store.get(batch[0].id)).support).toBe(2)
        // Different trajectories with the same text are different records.
        const t1 = yield* store.put(Records.trajectory(traj(true, "x", 1), { text: "same text" }))
        const t2 = yield* store.put(Records.trajectory(traj(true, "x", 2), { text: "same text" }))
        expect(t2.status).toBe("inserted")
        expect(t2.id).not.toBe(t1.id)
        expect(yield* store.count({})).toBe(4)
      }))

    it.effect("put, putMany and duplicates within a batch follow one merge rule (Effect service)", () =>
      Effect.gen(function*() {
        const store = yield* fresh
        yield* Effect.promise(() => mergeRule(putApiOf(store)))
      }))

    it.effect("orders by fused relevance plus small recency and importance terms (hand-computed, 5 records)", () =>
      Effect.gen(function*() {
        const store = yield* fresh
        // cosine to e0, hours since creation (and last access), importance:
        const spec = [
          ["A", basis({ 0: 1 }), 0, 0.2],
          ["B", basis({ 0: Math.SQRT1_2, 1: Math.SQRT1_2 }), 10, 0.9],
          ["C", basis({ 1: 1 }), 100, 1.0],
          ["D", basis({ 0: 0.6, 1: 0.8 }), 1, 0.5],
          ["E", basis({ 0: 0.8, 2: 0.6 }), 50, 0.1]
        ] as const
        yield* store.putMany(spec.map(([id, embedding, hours, importance]) =>
          Records.tip(`record ${id}`, {
            id,
            embedding,
            importance,
            createdAt: NOW - hours * HOUR,
            lastAccessedAt: NOW - hours * HOUR,
            task: "ranking"
          })
        ))
        const q = { embedding: basis({ 0: 1 }), now: NOW, touch: false, filters: { task: "ranking" } }
        // one ranker (vector): cosine ranks A, E, B, D, C; relevance 61 / (60 + rank) = [1, .98387, .96825, .95313,
        // .93846]; recency 0.995^h; score = rel + 0.05 rec + 0.05 imp:
        const hits = yield* store.query(q)
        expect(hits.map((h) => h.record.id)).toEqual(["B", "A", "D", "E", "C"])
        const expected: Record<string, number> = { A: 1.06, B: 1.06081, C: 1.01875, D: 1.02787, E: 1.02779 }
        for (const h of hits) expect(h.score).toBeCloseTo(expected[h.record.id], 4)
        expect(hits.find((h) => h.record.id === "D")!.recency).toBeCloseTo(0.995, 6)
        expect(hits.find((h) => h.record.id === "B")!.similarity).toBeCloseTo(Math.SQRT1_2, 5)
        // weights (2, 0.5, 0): A 2.5, B 2.41206, D 2.40375, E 2.35690, C 2.17981
        const weighted = yield* store.query({ ...q, weights: { relevance: 2, recency: 0.5, importance: 0 }, k: 3 })
        expect(weighted.map((h) => h.record.id)).toEqual(["A", "B", "D"])
        expect(weighted[2].score).toBeCloseTo(2.40375, 4)
        // Querying touches: last access becomes now; the default ranking (recency from creation) does not move,
        // recencyFrom "accessed" sees it.
        yield* store.query({ ...q, k: 1, touch: true, now: NOW + 100 * HOUR })
        expect(Option.getOrThrow(yield* store.get("B")).lastAccessedAt).toBe(NOW + 100 * HOUR)
        expect((yield* store.query(q)).map((h) => h.record.id)).toEqual(["B", "A", "D", "E", "C"])
        const accessed = yield* store.query({ ...q, now: NOW + 100 * HOUR, recencyFrom: "accessed" })
        expect(accessed.find((h) => h.record.id === "B")!.recency).toBe(1)
        expect(accessed.find((h) => h.record.id === "A")!.recency).toBeCloseTo(0.995 ** 100, 6)
        // a later duplicate of B with an older access time merges: the later access time (the touch) is kept, in what
        // `get` returns and in what ranking sees (a resident store writes touches in batches: the merge must see it)
        const [dupB] = yield* store.putMany([Records.tip("record B", {
          embedding: basis({ 0: Math.SQRT1_2, 1: Math.SQRT1_2 }),
          importance: 0.1,
          createdAt: NOW - 10 * HOUR,
          lastAccessedAt: NOW - 10 * HOUR,
          task: "ranking"
        })])
        expect(dupB).toEqual({ id: "B", status: "merged" })
        expect(Option.getOrThrow(yield* store.get("B")).lastAccessedAt).toBe(NOW + 100 * HOUR)
        const merged = yield* store.query({ ...q, now: NOW + 100 * HOUR, recencyFrom: "accessed" })
        expect(merged.find((h) => h.record.id === "B")!.recency).toBe(1)
        // Text queries go through the embedder.
        yield* store.putMany([
          Records.tip("The kettle is on the kitchen counter", { task: "text" }),
          Records.tip("Dogs bark at night", { task: "text" })
        ])
        const byText = yield* store.query({ text: "where is the kettle?", filters: { task: "text" } })
        expect(byText[0].record.text).toBe("The kettle is on the kitchen counter")
        expect(byText[0].relevance).toBeGreaterThan(byText[1].relevance)
        expect(byText[0].lexical).toBeGreaterThan(0) // "kettle" matches the full-text index
        expect(byText[1].lexical).toBe(0)
        // one ranker at a time; a bad mode is named
        const lexical = yield* store.query({ text: "kettle", mode: "lexical", filters: { task: "text" } })
        // (the indexed path's candidates are the text matches only; the exact path scores every record, 0 relevance)
        expect(lexical[0].record.text).toBe("The kettle is on the kitchen counter")
        expect(lexical[0].relevance).toBe(1)
        expect(lexical[0].similarity).toBe(0)
        for (const h of lexical.slice(1)) expect(h.relevance).toBe(0)
      }))

    it.effect("filters by kind, task, env, outcome, tags and importance", () =>
      Effect.gen(function*() {
        const store = yield* fresh
        yield* store.putMany([
          Records.trajectory(traj(true, "t1", 1), { tags: ["a", "b"], importance: 0.9 }),
          Records.trajectory(traj(false, "t1", 0), { tags: ["a"] }),
          Records.trajectory(traj(true, "t2", 1), { env: "Other-v0", tags: ["b"] }),
          Records.insight("insight one", { task: "t1", tags: ["a"] }),
          Records.reflection("reflection one", { task: "t2" })
        ])
        const ids = (f: Parameters<typeof store.count>[0]) =>
          store.query({ filters: f, k: 100, touch: false }).pipe(Effect.map((hs) => hs.length))
        expect(yield* ids({ kind: "trajectory" })).toBe(3)
        expect(yield* ids({ kind: ["insight", "reflection"] })).toBe(2)
        expect(yield* ids({ task: "t1" })).toBe(3)
        expect(yield* ids({ env: "Other-v0" })).toBe(1)
        expect(yield* ids({ outcome: "success" })).toBe(2)
        expect(yield* ids({ outcome: "failure" })).toBe(2)
        expect(yield* ids({ tags: ["a", "b"] })).toBe(1)
        expect(yield* ids({ anyTags: ["a", "b"] })).toBe(4)
        expect(yield* ids({ minImportance: 0.8 })).toBe(1)
        expect(yield* ids({ kind: "trajectory", task: "t1", outcome: "success" })).toBe(1)
        expect(yield* store.count({ kind: "trajectory", tags: ["b"] })).toBe(2)
        // Synapse exemplars: only successful trajectories, most similar first.
        const ex = yield* store.exemplars({ text: "t2: success", k: 5 })
        expect(ex.map((e) => e.trajectory.task)).toEqual(["t2", "t1"])
        expect(ex[0].trajectory.success).toBe(true)
        expect((yield* store.exemplars({ text: "anything", task: "t1" })).length).toBe(1)
      }))

    it.effect("rejects bad input with typed errors naming the value", () =>
      Effect.gen(function*() {
        const store = yield* fresh
        const err = <A, E>(e: Effect.Effect<A, E>) => Effect.flip(e)
        const wrongDim = yield* err(store.put(Records.tip("x", { embedding: new Float32Array(3) })))
        expect(wrongDim).toMatchObject({ _tag: "InvalidRecordError", field: "records[0].embedding" })
        expect(wrongDim.message).toContain("dimension 3")
        const nan = basis({ 4: Number.NaN })
        expect(yield* err(store.put(Records.tip("x", { embedding: nan })))).toMatchObject({
          _tag: "InvalidRecordError",
          field: "records[0].embedding[4]"
        })
        expect(yield* err(store.put(Records.tip("x", { importance: 7 })))).toMatchObject({
          _tag: "InvalidRecordError",
          field: "records[0].importance",
          value: 7
        })
        const big = yield* err(store.put(Records.tip("x", { payload: { blob: "x".repeat(Records.MaxPayloadBytes) } })))
        expect(big).toMatchObject({ _tag: "InvalidRecordError", field: "records[0].payload" })
        expect(yield* err(store.put({ kind: "memo" as never, text: "x" }))).toMatchObject({
          _tag: "InvalidRecordError",
          value: "memo"
        })
        // A bad record anywhere in a batch stores nothing.
        const before = yield* store.count()
        yield* err(store.putMany([Records.tip("ok 1"), Records.tip("ok 2", { support: -1 })]))
        expect(yield* store.count()).toBe(before)
        expect(yield* err(store.query({ filters: { kind: "memo" as never } }))).toMatchObject({
          _tag: "InvalidQueryError",
          option: "filters.kind",
          value: "memo"
        })
        expect(yield* err(store.query({ filters: { colour: "red" } as never }))).toMatchObject({
          _tag: "InvalidQueryError",
          option: "filters.colour"
        })
        expect(yield* err(store.query({ k: 0 }))).toMatchObject({ _tag: "InvalidQueryError", option: "k", value: 0 })
        expect(yield* err(store.query({ weights: { recency: -1 } }))).toMatchObject({ option: "weights.recency" })
        expect(yield* err(store.query({ mode: "bm25" as never }))).toMatchObject({ option: "mode", value: "bm25" })
        expect(yield* err(store.query({ rrfK: 0 }))).toMatchObject({ option: "rrfK", value: 0 })
        expect(yield* err(store.query({ recencyFrom: "now" as never }))).toMatchObject({ option: "recencyFrom" })
        expect(yield* err(store.query({ embedding: new Float32Array(2) }))).toMatchObject({
          _tag: "InvalidQueryError",
          option: "query.embedding"
        })
        expect(yield* err(store.vote("nope", "up"))).toMatchObject({ _tag: "InvalidQueryError", value: "nope" })
      }))

    it.effect("consolidate merges near-duplicate insights, forgets weak ones and respects capacity", () =>
      Effect.gen(function*() {
        const store = yield* fresh
        const [a, b, c, d] = yield* store.putMany([
          Records.insight("Always read the task twice", {
            embedding: basis({ 0: 1, 1: 0.01 }),
            support: 3,
            upvotes: 1,
            tags: ["x"],
            createdAt: NOW - 5 * HOUR
          }),
          Records.insight("Read the task two times", {
            embedding: basis({ 0: 1, 1: 0.02 }),
            support: 2,
            downvotes: 1,
            tags: ["y"],
            createdAt: NOW - 9 * HOUR
          }),
          Records.insight("Unrelated rule", { embedding: basis({ 3: 1 }), support: 1 }),
          Records.insight("A rule voted down", { embedding: basis({ 7: 1 }), support: 1 })
        ])
        yield* store.vote(d.id, "down", 1)
        const report = yield* store.consolidate({ threshold: 0.95, now: NOW })
        expect(report).toEqual({ merged: 1, weak: 1, evicted: 0, remaining: 2 })
        const kept = Option.getOrThrow(yield* store.get(a.id))
        expect(kept).toMatchObject({ support: 5, upvotes: 1, downvotes: 1, tags: ["x", "y"], createdAt: NOW - 9 * HOUR })
        expect(Option.isNone(yield* store.get(b.id))).toBe(true)
        expect(Option.isSome(yield* store.get(c.id))).toBe(true)
        expect(Records.strength(kept)).toBe(5)
        // Capacity: 6 tips, keep 3; the lowest recency+importance go first.
        yield* store.putMany([0, 1, 2, 3, 4, 5].map((i) =>
          Records.tip(`tip ${i}`, { id: `tip${i}`, importance: i / 10, lastAccessedAt: NOW - (5 - i) * HOUR })
        ))
        const cap = yield* store.consolidate({ capacity: { tip: 3 }, now: NOW })
        expect(cap.evicted).toBe(3)
        expect(yield* store.count({ kind: "tip" })).toBe(3)
        for (const id of ["tip3", "tip4", "tip5"]) expect(Option.isSome(yield* store.get(id))).toBe(true)
        const all = yield* store.consolidate({ capacity: 1, now: NOW })
        expect(all.remaining).toBe(1)
      }))

    it.effect("concurrent writers lose no records", () =>
      Effect.gen(function*() {
        const store = yield* fresh
        yield* Effect.forEach(
          Array.from({ length: 8 }, (_, w) => w),
          (w) =>
            Effect.forEach(
              Array.from({ length: 5 }, (_, b) => b),
              (b) => store.putMany(Array.from({ length: 5 }, (_, i) => Records.tip(`w${w} b${b} i${i}`))),
              { discard: true }
            ),
          { concurrency: "unbounded", discard: true }
        )
        expect(yield* store.count({ kind: "tip" })).toBe(200)
      }))

    it.effect("migrations are idempotent; a newer schema version or another dimension refuses to open", () =>
      Effect.gen(function*() {
        const backend = yield* TestBackend
        const sqlLayer = Layer.succeed(SqlClient.SqlClient, backend.sql)
        expect(yield* migrate(backend.location).pipe(Effect.provide(sqlLayer))).toEqual([])
        // migration 3: room on each page for heap-only access-time updates
        const options = yield* backend.sql<{ reloptions: ReadonlyArray<string> | null }>`
          SELECT reloptions FROM pg_class WHERE relname = 'experience'`
        expect(options[0].reloptions).toContain("fillfactor=90")
        const again = yield* Store.make(backend).pipe(Effect.provide(Embedder.layerHashed({ dimension: DIM })))
        expect(again.schemaVersion).toBe(latestVersion)
        const other = yield* Effect.exit(Store.make(backend).pipe(Effect.provide(Embedder.layerHashed({ dimension: 8 }))))
        expect(Exit.isFailure(other)).toBe(true)
        expect(JSON.stringify(other)).toContain("dimension 256")
        yield* backend.sql`INSERT INTO autodidact_schema_version (version, name, applied_at) VALUES (99, 'future', 0)`
        const newer = yield* Effect.flip(
          Store.make(backend).pipe(Effect.provide(Embedder.layerHashed({ dimension: DIM })))
        )
        yield* backend.sql`DELETE FROM autodidact_schema_version WHERE version = 99`
        expect(newer).toMatchObject({ _tag: "SchemaVersionError", found: 99, supported: latestVersion })
      }))
  })
