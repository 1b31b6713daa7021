/**
 * Child process of `StoreWriters.ts`: one writer of the concurrency test and bench. Writes `count` tips with fixed
 * ids `w<w>-r<i>` in batches of `batch` (one `putMany`, one transaction each, tagged `w<w>-b<b>`) to the PostgreSQL
 * server at `url` through the plain `ExperienceStore.open`, retrying a batch on a transient error
 * (`StoreErrors.isTransient`) with the same records; every `replayEvery`-th batch is sent a second time after it
 * committed, as a client does whose commit acknowledgement was lost. Prints one JSON line with its figures.
 *
 *   node --conditions=@autodidact/source --import tsx test/StoreWriterChild.ts <url> <w> <count> <batch> <replayEvery>
 */
import { ExperienceStore, type OpenStore } from "../src/store/Store.js"
import * as Records from "../src/store/Records.js"
import { isTransient } from "../src/store/StoreErrors.js"

const [url, wArg, countArg, batchArg, replayArg] = process.argv.slice(2)
const w = Number(wArg)
const count = Number(countArg)
const batch = Number(batchArg)
const replayEvery = Number(replayArg)
const MAX_ATTEMPTS = 30

process.stdin.on("end", () => process.exit(1)) // the parent is gone: do not linger
process.stdin.resume()

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const errors: Array<string> = []
let retries = 0

/** Run `f`, retrying transient errors with a growing pause. */
const retrying = async <A>(f: () => Promise<A>): Promise<A> => {
  for (let attempt = 1;; attempt++) {
    try {
      return await f()
    } catch (e) {
      // a store that fails to open because its connection was terminated is transient too
      const transient = isTransient(e) || (e as { _tag?: string })?._tag === "StoreOpenError"
      if (!transient || attempt >= MAX_ATTEMPTS) throw e
      retries++
      if (errors.length < 5) errors.push(String((e as Error).message).slice(0, 160))
      await sleep(Math.min(200, 5 * attempt))
    }
  }
}

const main = async () => {
  const t0 = performance.now()
  const store: OpenStore = await retrying(() => ExperienceStore.open({ url, dimension: 16, maxConnections: 2 }))
  let replays = 0
  let replayNotMerged = 0
  for (let b = 0; b * batch < count; b++) {
    const records = Array.from({ length: Math.min(batch, count - b * batch) }, (_, j) => {
      const i = b * batch + j
      return Records.tip(`writer ${w} record ${i}`, { id: `w${w}-r${i}`, tags: [`w${w}-b${b}`], payload: { w, i } })
    })
    await retrying(() => store.putMany(records))
    if (replayEvery > 0 && b % replayEvery === replayEvery - 1) {
      const again = await retrying(() => store.putMany(records))
      replays++
      replayNotMerged += again.filter((r, j) => r.status !== "merged" || r.id !== records[j].id).length
    }
  }
  await store.close()
  process.stdout.write(
    `${JSON.stringify({ w, written: count, retries, replays, replayNotMerged, ms: performance.now() - t0, errors })}\n`
  )
}
main().then(() => process.exit(0), (e) => {
  process.stderr.write(`writer ${w} failed: ${String((e as Error)?.message ?? e)} (${(e as { _tag?: string })?._tag}, ${e?.constructor?.name}) ${(e as Error)?.stack?.slice(0, 1500)}\n`)
  process.exit(1)
})
