/**
 * The worker-thread side of {@link TopKShards}: owns one contiguous row shard in its own WebAssembly instance (a
 * `WasmSimd.makeTopKIndex`), answers search requests with its local top-k (row ids made global) and never shares
 * memory with the host. Not part of the public API; started by `TopKShards.make` / `TopKShards.makeUnscoped`.
 * @since 0.1.0
 */
import { isMainThread, parentPort, workerData } from "node:worker_threads"
import type { ShardError, ShardReply, ShardRequest, ShardSetup } from "./TopKShards.js"
import * as WasmSimd from "./WasmSimd.js"

const describe = (e: unknown): ShardError => {
  const x = e as { _tag?: unknown; kernel?: unknown; backend?: unknown; input?: unknown; reason?: unknown; shape?: unknown; detail?: unknown; message?: unknown }
  if (x !== null && typeof x === "object" && x._tag === "KernelInputError") {
    return {
      tag: "KernelInputError",
      kernel: String(x.kernel),
      backend: String(x.backend),
      input: String(x.input),
      reason: String(x.reason),
      shape: String(x.shape),
      detail: String(x.detail),
      message: String(x.message)
    }
  }
  return { tag: "Error", message: e instanceof Error ? (e.stack ?? e.message) : String(e) }
}

const main = (setup: ShardSetup): void => {
  const port = parentPort!
  let index: WasmSimd.TopKIndex
  try {
    const available = WasmSimd.load()
    if (!available.ok) throw new Error(`WebAssembly SIMD unavailable in the worker: ${available.reason}`)
    index = WasmSimd.makeTopKIndex(setup.matrix, setup.numRows, setup.dim)
  } catch (e) {
    port.postMessage({ type: "ready", id: -1, error: describe(e) } satisfies ShardReply)
    return
  }
  port.postMessage({ type: "ready", id: -1, prefiltered: index.prefiltered } satisfies ShardReply)
  port.on("message", (msg: ShardRequest) => {
    if (msg.type === "crash") {
      // test hook: an uncaught exception in the worker (the host must fail pending calls, never hang)
      setImmediate(() => {
        throw new Error("TopKShards worker: crash requested")
      })
      return
    }
    try {
      const k = Math.min(msg.k, setup.numRows)
      const r = index.search(msg.queries, msg.numQueries, k, msg.metric)
      const lo = setup.lo
      if (lo !== 0) for (let i = 0; i < r.indices.length; i++) r.indices[i] = r.indices[i]! + lo
      port.postMessage({ type: "result", id: msg.id, k, indices: r.indices, scores: r.scores } satisfies ShardReply, [
        r.indices.buffer as ArrayBuffer,
        r.scores.buffer as ArrayBuffer
      ])
    } catch (e) {
      const error = describe(e)
      // a row named in the message is local to the shard: make it global
      if (error.tag === "KernelInputError") {
        error.detail = error.detail.replace(/row (\d+)/g, (_, j: string) => `row ${Number(j) + setup.lo}`)
      }
      port.postMessage({ type: "result", id: msg.id, error } satisfies ShardReply)
    }
  })
}

if (!isMainThread && parentPort !== null && (workerData as { kind?: unknown } | null)?.kind === "autodidact-topk-shard") {
  main(workerData as ShardSetup)
}
