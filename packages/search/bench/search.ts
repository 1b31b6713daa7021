/**
 * Throughput of `Search.greet` (calls per second): replace with the package's hot path.
 *
 *   cd packages/search && node --import tsx --conditions=@autodidact/source bench/search.ts [CALLS=1000000]
 */
import { Search } from "@autodidact/search"

const calls = Number(process.argv[2] ?? 1_000_000)
let length = 0
const start = performance.now()
for (let i = 0; i < calls; i++) length += Search.greet("world").length
const seconds = (performance.now() - start) / 1000
console.log(`greet: ${(calls / seconds).toFixed(0)} calls/s (${calls} calls, checksum ${length})`)
