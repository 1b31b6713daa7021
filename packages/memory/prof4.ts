import { PGlite } from "@electric-sql/pglite"
import { generate } from "./test/fixtures/Dialogues.js"
import { tsQueryOf } from "./src/store/Retrieval.js"
const N = 100000
const d = generate({ seed: 1, conversations: Math.ceil(N / 240) })
const turns = d.turns.slice(0, N)
const db = await PGlite.create()
await db.exec("create table t(id text primary key, text text, tsv tsvector generated always as (to_tsvector('english'::regconfig, text)) stored); create index on t using gin(tsv)")
for (let i = 0; i < N; i += 1000) {
  const chunk = turns.slice(i, i + 1000)
  await db.query(`insert into t(id, text) select * from unnest($1::text[], $2::text[])`, [chunk.map((_, j) => String(i + j)), chunk.map((t) => t.text)])
}
await db.exec("analyze t")
for (const q of d.questions.slice(0, 5)) {
  const tsq = tsQueryOf(q.text)!
  const r = await db.query(`explain analyze SELECT id FROM t WHERE tsv @@ (SELECT to_tsquery('english'::regconfig, $1)) ORDER BY ts_rank(tsv, (SELECT to_tsquery('english'::regconfig, $1))) DESC, id LIMIT 100`, [tsq])
  const c = await db.query(`select count(*)::int n from t where tsv @@ to_tsquery('english'::regconfig, $1)`, [tsq])
  console.log(q.text, "|", tsq, "| matches", (c.rows[0] as any).n)
  console.log((r.rows as any[]).map((x) => x["QUERY PLAN"]).filter((l: string) => /Execution|Bitmap Heap|Sort/.test(l)).join("\n"))
}
