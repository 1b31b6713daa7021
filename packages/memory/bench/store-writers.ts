/**
 * Concurrent writer processes against one PostgreSQL server: `writers` child processes each write `perWriter`
 * records in batches of `batch` (one transaction each, fixed ids), retrying transient errors, while the parent reads
 * the table continuously (every batch must be absent or whole) and terminates one server backend every `chaosMs`
 * (0: never); every 4th batch is resent as after a lost acknowledgement. Prints records/s, lost, duplicated, partial
 * reads, retries. The test `StoreWriters.integration.test.ts` runs the same at 8 × 500.
 *
 *   eval "export $(tools/postgres-test-server.sh start | tail -n 1)"
 *   cd packages/memory && node --conditions=@autodidact/source --import tsx bench/store-writers.ts [writers=8] [perWriter=10000] [batch=100] [chaosMs=500]
 */
import { Effect } from "effect"
import { runWriters } from "../test/StoreWriters.js"

const url = process.env.AUTODIDACT_PG_URL
if (url === undefined || url === "") {
  console.error("store-writers: set AUTODIDACT_PG_URL (tools/postgres-test-server.sh start prints it)")
  process.exit(2)
}
const [writers, perWriter, batch, chaosMs] = [8, 10_000, 100, 500].map((d, i) => Number(process.argv[2 + i] ?? d))

const rows: Array<Array<string>> = []
for (const chaos of chaosMs > 0 ? [0, chaosMs] : [0]) {
  const r = await Effect.runPromise(runWriters({ url, writers, perWriter, batch, replayEvery: 4, chaosMs: chaos }))
  const slowest = Math.max(...r.writers.map((w) => w.ms)) / 1000
  rows.push([
    chaos === 0 ? "none" : `every ${chaos} ms`,
    `${writers} × ${perWriter}`,
    `${Math.round(r.expected / slowest).toLocaleString("en-US")} rec/s (${slowest.toFixed(1)} s)`,
    String(r.lost),
    String(r.duplicated),
    `${r.partialReads} / ${r.reads}`,
    String(r.terminated),
    String(r.retries)
  ])
}
console.log(`\n${writers} writer processes × ${perWriter} records, batches of ${batch}, on ${new URL(url).host}\n`)
console.log("| backends terminated | records | throughput (slowest writer, from its start) | lost | duplicated | partial reads / reads | terminated | retries |")
console.log("| --- | --- | --- | --- | --- | --- | --- | --- |")
for (const r of rows) console.log(`| ${r.join(" | ")} |`)
