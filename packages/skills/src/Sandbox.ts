/**
 * The skill sandbox: untrusted JavaScript runs in QuickJS (quickjs-emscripten, a WebAssembly build of QuickJS) inside
 * a `worker_threads` Worker that has its own QuickJS module, with a time limit, a hard memory bound and a small stack;
 * the only way out is the host functions the caller grants, which run on the main thread.
 *
 * **When to use**: every skill call (`SkillLibrary` never runs skill code anywhere else).
 *
 * **Details**
 * - A skill is a script that defines a global function (the `entry`, default `"main"`); a call evaluates the script in a
 *   fresh QuickJS runtime and context, then calls `entry(args)` with the JSON arguments; the result must be JSON
 *   (`undefined` is allowed). Skills are synchronous: a returned Promise is a runtime error.
 * - Granted host functions appear as guest globals (`observe()`, `act(action)`, `callSkill(name, args)`, ...). A call
 *   sends the JSON arguments to the main thread (a message), the worker blocks on an `Atomics.wait` until the host
 *   function (sync or async) has answered, and the JSON result comes back. A host function that throws ends the whole
 *   evaluation with {@link HostCallError} (the guest cannot catch and continue).
 * - Limits, each ending in a typed error:
 *   time — QuickJS's interrupt handler at the deadline ({@link SkillTimeoutError}), and a host-side hard kill
 *   (`worker.terminate()`) `killGraceMs` later, which also covers time spent in host functions and allocation-heavy
 *   code whose interrupt fires late;
 *   memory — `runtime.setMemoryLimit` plus a `WebAssembly.Memory` with a `maximum` (QuickJS's own limit does not
 *   bound string or ArrayBuffer growth; the wasm maximum does), plus V8 `resourceLimits` on the worker
 *   ({@link SkillMemoryError});
 *   stack — `runtime.setMaxStackSize` (256 KiB by default; {@link SkillStackOverflowError}).
 * - Absent in the guest: `process`, `require`, `import` (no module loader), `fs`, network (`fetch`, sockets), timers.
 *   QuickJS has its own heap and its own `globalThis` and `Object.prototype`; nothing a guest mutates reaches the host.
 * - Workers are pooled (`poolSize`, default 2) and reused after a clean call; a worker that was killed, ran out of
 *   memory, or failed to release its runtime is discarded and replaced on demand. The QuickJS WebAssembly module is
 *   compiled once on the main thread and shared with every worker.
 * - Nested calls (`nested: true`: a call made from a host function of a running call, e.g. a skill calling a skill)
 *   go ahead of queued calls and, when no worker is idle, start one beyond `poolSize`, retired when it goes idle: the
 *   caller's worker is blocked until the nested call returns, so making it wait for a pooled worker could only end in
 *   the caller's time limit. Extra workers are bounded by the concurrent calls times their nesting depth.
 *
 * **Gotchas**: WebAssembly memory never shrinks, so a worker's memory is bounded by `memoryLimitBytes` plus the
 * 16 MiB QuickJS baseline, not returned; `close()` (or the layer's scope) terminates the workers.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Sandbox } from "@autodidact/skills"
 *
 * const program = Effect.gen(function*() {
 *   const sandbox = yield* Sandbox.Sandbox
 *   return yield* sandbox.run({ source: "function main(a) { return a.x + 1 }", args: { x: 41 } })
 * }).pipe(Effect.provide(Sandbox.layer()))
 * ```
 * @see https://github.com/justjake/quickjs-emscripten
 * @since 0.1.0
 */
import { Context, Effect, Layer, Schema } from "effect"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads"

// ---------------------------------------------------------------------------------------------------------------------
// errors

/** The call ran past its time limit (interrupted in the guest, or the worker was killed at the deadline). */
export class SkillTimeoutError extends Schema.TaggedError<SkillTimeoutError>()("SkillTimeoutError", {
  limitMs: Schema.Number,
  hardKill: Schema.Boolean
}) {
  override get message() {
    return `skill ran past its ${this.limitMs} ms time limit${this.hardKill ? " (worker killed)" : ""}`
  }
}

/** The call ran out of its memory budget. */
export class SkillMemoryError extends Schema.TaggedError<SkillMemoryError>()("SkillMemoryError", {
  limitBytes: Schema.Number,
  detail: Schema.String
}) {
  override get message() {
    return `skill exceeded its ${this.limitBytes}-byte memory limit: ${this.detail}`
  }
}

/** The guest's recursion exceeded the stack limit. */
export class SkillStackOverflowError extends Schema.TaggedError<SkillStackOverflowError>()("SkillStackOverflowError", {
  limitBytes: Schema.Number
}) {
  override get message() {
    return `skill overflowed its ${this.limitBytes}-byte stack`
  }
}

/** The guest threw (or returned something that is not JSON); `name`/`guestMessage` are the guest error's. */
export class SkillRuntimeError extends Schema.TaggedError<SkillRuntimeError>()("SkillRuntimeError", {
  name: Schema.String,
  guestMessage: Schema.String,
  stack: Schema.optional(Schema.String)
}) {
  override get message() {
    return `${this.name}: ${this.guestMessage}`
  }
}

/** The skill source does not parse. */
export class SkillCompileError extends Schema.TaggedError<SkillCompileError>()("SkillCompileError", {
  guestMessage: Schema.String
}) {
  override get message() {
    return `skill does not compile: ${this.guestMessage}`
  }
}

/** A host function refused its call (unknown function, invalid arguments, or the function threw). */
export class HostCallError extends Schema.TaggedError<HostCallError>()("HostCallError", {
  fn: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `host function ${this.fn}: ${this.reason}`
  }
}

/** Every way a sandboxed call can fail. */
export type SandboxError =
  | SkillTimeoutError
  | SkillMemoryError
  | SkillStackOverflowError
  | SkillRuntimeError
  | SkillCompileError
  | HostCallError

/** Whether a value is one of the {@link SandboxError}s. */
export const isSandboxError = (e: unknown): e is SandboxError =>
  e instanceof SkillTimeoutError || e instanceof SkillMemoryError || e instanceof SkillStackOverflowError ||
  e instanceof SkillRuntimeError || e instanceof SkillCompileError || e instanceof HostCallError

// ---------------------------------------------------------------------------------------------------------------------
// options and requests

/** A function granted to the guest. It receives the guest's (JSON) arguments; throw to refuse the call. */
export type HostFunction = (...args: Array<unknown>) => unknown

/** Sandbox limits and pool size. */
export interface SandboxOptions {
  /** Default per-call time limit (default 1000 ms). */
  readonly timeoutMs?: number
  /** How long after the deadline the host kills the worker (default 250 ms). */
  readonly killGraceMs?: number
  /** QuickJS heap limit and the wasm memory head-room above the 16 MiB baseline (default 32 MiB). */
  readonly memoryLimitBytes?: number
  /** QuickJS stack limit (default 256 KiB; the notes found larger values unsafe). */
  readonly maxStackBytes?: number
  /** Number of pooled workers (default 2). */
  readonly poolSize?: number
  /** Largest accepted source, argument or result JSON, in characters (default 1 MiB). */
  readonly maxMessageChars?: number
}

/** One evaluation. */
export interface RunRequest {
  /** The skill's JavaScript: a script defining the global function `entry`. */
  readonly source: string
  /** Name of the function to call (default `"main"`). */
  readonly entry?: string
  /** JSON arguments passed as the entry's single parameter. */
  readonly args?: unknown
  /** Functions granted to the guest, by global name. */
  readonly host?: Readonly<Record<string, HostFunction>>
  /** Time limit of this call (default: the sandbox's). */
  readonly timeoutMs?: number
  /** Only compile the source (check syntax), run nothing. */
  readonly compileOnly?: boolean
  /**
   * Made from a host function of a running call (its worker waits for this one): runs ahead of queued calls, on a
   * worker beyond `poolSize` when none is idle (see the module docs). Default false.
   */
  readonly nested?: boolean
}

/** Counters of a pool (for benchmarks and health checks). */
export interface SandboxStats {
  readonly calls: number
  readonly workersStarted: number
  readonly workersKilled: number
  readonly liveWorkers: number
}

const WASM_PAGE = 65536
const BASELINE_BYTES = 16 * 1024 * 1024

// ---------------------------------------------------------------------------------------------------------------------
// the worker (plain JavaScript, evaluated with `eval: true`, so it runs the same from source and from dist)

const WORKER_SOURCE = String.raw`
const { parentPort, workerData, receiveMessageOnPort } = require("node:worker_threads");
const ctrl = new Int32Array(workerData.ctrl);
const replyPort = workerData.replyPort;
const memory = new WebAssembly.Memory({ initial: 256, maximum: workerData.maxPages });
const ready = import(workerData.quickjsUrl).then((q) => {
  const opts = { wasmMemory: memory };
  if (workerData.wasmModule) opts.wasmModule = workerData.wasmModule;
  return q.newQuickJSWASMModuleFromVariant(q.newVariant(q.RELEASE_SYNC, opts));
});
ready.then(() => parentPort.postMessage({ type: "ready" }),
  (e) => parentPort.postMessage({ type: "fatal", message: String((e && e.stack) || e) }));

function hostCall(id, name, argsJson, hardDeadline) {
  Atomics.store(ctrl, 0, 0);
  parentPort.postMessage({ type: "host", id, name, argsJson });
  while (Atomics.load(ctrl, 0) === 0) {
    if (Date.now() > hardDeadline) return { error: { fn: name, reason: "no answer before the deadline" }, timeout: true };
    Atomics.wait(ctrl, 0, 0, 50);
  }
  const m = receiveMessageOnPort(replyPort);
  return m ? m.message : { error: { fn: name, reason: "no answer" } };
}

// read with the memory limit lifted: an "out of memory" error leaves the runtime at its limit and reading the
// error allocates (under the limit the read fails and the memory error would look like a nameless runtime error)
function dumpError(rt, ctx, h) {
  rt.setMemoryLimit(-1);
  try {
    const d = ctx.dump(h);
    if (d && typeof d === "object") return { name: String(d.name ?? "Error"), message: String(d.message ?? JSON.stringify(d)), stack: typeof d.stack === "string" ? d.stack : undefined };
    return { name: "Error", message: String(d) };
  } catch (e) { return { name: "Error", message: "(unreadable guest error)" }; }
}

function classifyGuest(g, phase, state, msg) {
  if (state.hostError) return { kind: "host", ...state.hostError };
  if (state.interrupted || (g.name === "InternalError" && g.message === "interrupted")) return { kind: "timeout" };
  if (g.name === "InternalError" && (g.message === "out of memory" || g.message === "string too long")) return { kind: "memory", detail: g.message };
  if ((g.name === "InternalError" || g.name === "RangeError") && /stack overflow/.test(g.message)) return { kind: "stack" };
  if (phase === "load" && g.name === "SyntaxError") return { kind: "compile", message: g.message };
  return { kind: "runtime", name: g.name, message: g.message, stack: g.stack };
}

function classifyHost(e, state) {
  const text = String((e && e.message) || e);
  if (state.hostError) return { kind: "host", ...state.hostError };
  if (e instanceof RangeError && /call stack/i.test(text)) return { kind: "stack" };
  if (state.interrupted) return { kind: "timeout" };
  return { kind: "memory", detail: "QuickJS aborted: " + text };
}

function run(mod, msg) {
  const state = { interrupted: false, hostError: null, recycle: false };
  const deadline = Date.now() + msg.timeoutMs;
  const rt = mod.newRuntime();
  rt.setMemoryLimit(msg.memoryLimit);
  rt.setMaxStackSize(msg.maxStack);
  rt.setInterruptHandler(() => {
    if (state.hostError) return true;
    if (Date.now() > deadline) { state.interrupted = true; return true; }
    return false;
  });
  const ctx = rt.newContext();
  const handles = [];
  let out;
  let phase = "load";
  try {
    if (msg.compileOnly) {
      const r = ctx.evalCode(msg.source, "skill.js", { type: "global", compileOnly: true });
      if (r.error) { out = { ok: false, error: classifyGuest(dumpError(rt, ctx, r.error), "load", state, msg) }; r.error.dispose(); }
      else { r.value.dispose(); out = { ok: true, json: undefined }; }
    } else {
      const hostFn = ctx.newFunction("__host", (nameH, argsH) => {
        const name = ctx.typeof(nameH) === "string" ? ctx.getString(nameH) : "?";
        if (ctx.typeof(argsH) !== "string") { state.hostError = { fn: name, reason: "arguments are not JSON" }; return { error: ctx.newError("HostCallError: arguments are not JSON") }; }
        const argsJson = ctx.getString(argsH);
        if (argsJson.length > msg.maxChars) { state.hostError = { fn: name, reason: "arguments exceed " + msg.maxChars + " characters" }; return { error: ctx.newError("HostCallError") }; }
        const reply = hostCall(msg.id, name, argsJson, deadline + msg.killGraceMs);
        if (reply.timeout) { state.interrupted = true; return { error: ctx.newError("interrupted") }; }
        if (reply.error) { state.hostError = reply.error; return { error: ctx.newError("HostCallError: " + reply.error.reason) }; }
        return reply.json === undefined ? ctx.undefined : ctx.newString(reply.json);
      });
      handles.push(hostFn);
      const prelude = "(function (host) { const P = JSON.parse, S = JSON.stringify, G = globalThis, N = " + JSON.stringify(msg.hostNames) + ";" +
        " for (const n of N) { const f = function (...a) { const r = host(n, S(a)); return r === undefined ? undefined : P(r); }; Object.defineProperty(G, n, { value: f, writable: false, configurable: false }); }" +
        " return function (entry, argsJson) { const f = G[entry]; if (typeof f !== 'function') throw new TypeError('the skill defines no function ' + entry);" +
        " const r = f(argsJson === undefined ? undefined : P(argsJson)); if (r !== null && typeof r === 'object' && typeof r.then === 'function') throw new TypeError('skills are synchronous: return a value, not a Promise');" +
        " return r === undefined ? undefined : S(r); }; })";
      const pre = ctx.evalCode(prelude, "prelude.js");
      const preFn = ctx.unwrapResult(pre);
      handles.push(preFn);
      const callR = ctx.callFunction(preFn, ctx.undefined, [hostFn]);
      const callFn = ctx.unwrapResult(callR);
      handles.push(callFn);
      const loaded = ctx.evalCode(msg.source, "skill.js", { type: "global" });
      if (loaded.error) { out = { ok: false, error: classifyGuest(dumpError(rt, ctx, loaded.error), "load", state, msg) }; loaded.error.dispose(); }
      else {
        loaded.value.dispose();
        phase = "call";
        const entryH = ctx.newString(msg.entry); handles.push(entryH);
        const argsH = msg.argsJson === undefined ? ctx.undefined : ctx.newString(msg.argsJson);
        if (msg.argsJson !== undefined) handles.push(argsH);
        const r = ctx.callFunction(callFn, ctx.undefined, [entryH, argsH]);
        if (r.error) { out = { ok: false, error: classifyGuest(dumpError(rt, ctx, r.error), "call", state, msg) }; r.error.dispose(); }
        else {
          const t = ctx.typeof(r.value);
          if (state.hostError) out = { ok: false, error: { kind: "host", ...state.hostError } };
          else if (t === "undefined") out = { ok: true, json: undefined };
          else if (t !== "string") out = { ok: false, error: { kind: "runtime", name: "TypeError", message: "the result is not JSON" } };
          else {
            const s = ctx.getString(r.value);
            out = s.length > msg.maxChars
              ? { ok: false, error: { kind: "memory", detail: "result exceeds " + msg.maxChars + " characters" } }
              : { ok: true, json: s };
          }
          r.value.dispose();
        }
      }
    }
  } catch (e) {
    state.recycle = true;
    out = { ok: false, error: classifyHost(e, state) };
  }
  try {
    for (let i = handles.length - 1; i >= 0; i--) if (handles[i].alive) handles[i].dispose();
    ctx.dispose();
    rt.dispose();
  } catch (e) {
    state.recycle = true;
  }
  if (!out.ok && (out.error.kind === "memory" || out.error.kind === "timeout")) state.recycle = true;
  return { type: "done", id: msg.id, recycle: state.recycle, wasmBytes: memory.buffer.byteLength, ...out };
}

parentPort.on("message", (msg) => {
  ready.then((mod) => parentPort.postMessage(run(mod, msg)),
    (e) => parentPort.postMessage({ type: "done", id: msg.id, ok: false, recycle: true, error: { kind: "runtime", name: "SandboxError", message: "QuickJS failed to load: " + e } }));
});
`

// ---------------------------------------------------------------------------------------------------------------------
// the pool

/** Node's WebAssembly global (its types are not in this project's `lib`). */
const WasmModule = (globalThis as unknown as { readonly WebAssembly: { readonly Module: new(bytes: Uint8Array) => object } }).WebAssembly.Module

const resolveQuickjs = (): { readonly url: string; readonly wasm: object | undefined } => {
  const url = import.meta.resolve("quickjs-emscripten")
  let wasm: object | undefined
  try {
    const req = createRequire(fileURLToPath(url))
    const variantMain = req.resolve("@jitl/quickjs-wasmfile-release-sync")
    const wasmPath = createRequire(variantMain).resolve("@jitl/quickjs-wasmfile-release-sync/wasm")
    wasm = new WasmModule(readFileSync(wasmPath))
  } catch {
    wasm = undefined // each worker loads its own copy
  }
  return { url, wasm }
}

let quickjsCache: ReturnType<typeof resolveQuickjs> | undefined

interface Job {
  readonly id: number
  readonly request: RunRequest
  readonly resolve: (value: unknown) => void
  readonly reject: (error: SandboxError) => void
  timer?: ReturnType<typeof setTimeout>
}

interface Slot {
  readonly worker: Worker
  readonly ctrl: Int32Array
  readonly port: MessagePort
  readonly ready: Promise<void>
  job: Job | undefined
  dead: boolean
}

interface DoneMessage {
  readonly type: "done"
  readonly id: number
  readonly ok: boolean
  readonly recycle: boolean
  readonly json?: string
  readonly error?: {
    readonly kind: "timeout" | "memory" | "stack" | "runtime" | "compile" | "host"
    readonly name?: string
    readonly message?: string
    readonly stack?: string
    readonly detail?: string
    readonly fn?: string
    readonly reason?: string
  }
}

const positive = (name: string, v: number): number => {
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`Sandbox: ${name} must be a positive number, got ${v}`)
  return v
}

/**
 * A pool of sandbox workers behind a Promise API (the {@link Sandbox} service wraps it in Effect).
 *
 * @category models
 * @since 0.1.0
 */
export class SandboxPool {
  readonly timeoutMs: number
  readonly killGraceMs: number
  readonly memoryLimitBytes: number
  readonly maxStackBytes: number
  readonly poolSize: number
  readonly maxMessageChars: number
  private readonly slots: Array<Slot> = []
  private readonly queue: Array<Job> = []
  private nextId = 1
  private closed = false
  private counters = { calls: 0, workersStarted: 0, workersKilled: 0 }

  constructor(options: SandboxOptions = {}) {
    this.timeoutMs = positive("timeoutMs", options.timeoutMs ?? 1000)
    this.killGraceMs = positive("killGraceMs", options.killGraceMs ?? 250)
    this.memoryLimitBytes = positive("memoryLimitBytes", options.memoryLimitBytes ?? 32 * 1024 * 1024)
    this.maxStackBytes = positive("maxStackBytes", options.maxStackBytes ?? 256 * 1024)
    this.poolSize = Math.floor(positive("poolSize", options.poolSize ?? 2))
    this.maxMessageChars = positive("maxMessageChars", options.maxMessageChars ?? 1 << 20)
  }

  /** Pool counters. */
  stats(): SandboxStats {
    return { ...this.counters, liveWorkers: this.slots.length }
  }

  /** Start workers up to the pool size now (otherwise they start on demand). */
  async warm(): Promise<void> {
    while (this.slots.length < this.poolSize) this.spawn()
    await Promise.all(this.slots.map((s) => s.ready.catch(() => undefined)))
  }

  /**
   * Run one evaluation; resolves to the guest's JSON result, rejects with a {@link SandboxError}. An `AbortSignal`
   * kills the worker running the call.
   */
  run(request: RunRequest, signal?: AbortSignal): Promise<unknown> {
    if (this.closed) return Promise.reject(runtimeError("SandboxClosed", "the sandbox is closed"))
    return new Promise<unknown>((resolve, reject) => {
      const job: Job = { id: this.nextId++, request, resolve, reject }
      this.counters.calls++
      if (signal !== undefined) {
        signal.addEventListener("abort", () => this.abort(job), { once: true })
      }
      // a nested call's caller holds a worker until it returns: serve it first (see the module docs)
      if (request.nested === true) this.queue.unshift(job)
      else this.queue.push(job)
      this.pump()
    })
  }

  /** Terminate every worker; pending calls fail. */
  async close(): Promise<void> {
    this.closed = true
    for (const job of this.queue.splice(0)) job.reject(runtimeError("SandboxClosed", "the sandbox is closed"))
    await Promise.all(this.slots.slice().map((s) => this.kill(s, runtimeError("SandboxClosed", "the sandbox is closed"))))
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === undefined && !s.dead)
      if (slot === undefined && (this.slots.length < this.poolSize || this.queue[0]!.request.nested === true)) slot = this.spawn()
      if (slot === undefined) return
      const job = this.queue.shift()!
      this.start(slot, job)
    }
  }

  private spawn(): Slot {
    quickjsCache ??= resolveQuickjs()
    const sab = new SharedArrayBuffer(4)
    const { port1, port2 } = new MessageChannel()
    const workerData = {
      ctrl: sab,
      replyPort: port2,
      quickjsUrl: quickjsCache.url,
      wasmModule: quickjsCache.wasm,
      maxPages: Math.ceil((BASELINE_BYTES + this.memoryLimitBytes) / WASM_PAGE)
    }
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData,
      transferList: [port2],
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      stdout: true,
      stderr: true
    })
    worker.unref()
    this.counters.workersStarted++
    let onReady!: () => void
    let onFail!: (e: Error) => void
    const ready = new Promise<void>((res, rej) => {
      onReady = res
      onFail = rej
    })
    ready.catch(() => undefined)
    const slot: Slot = { worker, ctrl: new Int32Array(sab), port: port1, ready, job: undefined, dead: false }
    worker.on("message", (m: { type: string } & Record<string, unknown>) => {
      if (m.type === "ready") onReady()
      else if (m.type === "fatal") {
        onFail(new Error(String(m.message)))
        void this.kill(slot, runtimeError("SandboxError", `QuickJS failed to load: ${String(m.message)}`))
      } else if (m.type === "host") void this.hostCall(slot, m as never)
      else if (m.type === "done") this.finish(slot, m as unknown as DoneMessage)
    })
    worker.on("error", (e: Error & { code?: string }) => {
      onFail(e)
      const err = e.code === "ERR_WORKER_OUT_OF_MEMORY"
        ? new SkillMemoryError({ limitBytes: this.memoryLimitBytes, detail: "the worker's JS heap ran out" })
        : runtimeError("SandboxCrash", `sandbox worker crashed: ${e.message}`)
      void this.kill(slot, err)
    })
    worker.on("exit", () => {
      onFail(new Error("worker exited"))
      if (!slot.dead) void this.kill(slot, runtimeError("SandboxCrash", "sandbox worker exited"))
    })
    this.slots.push(slot)
    return slot
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job
    const r = job.request
    const timeoutMs = r.timeoutMs ?? this.timeoutMs
    let argsJson: string | undefined
    try {
      argsJson = r.args === undefined ? undefined : JSON.stringify(r.args)
    } catch (e) {
      return this.settle(slot, () => job.reject(new HostCallError({ fn: "(arguments)", reason: `not JSON: ${String(e)}` })))
    }
    if (r.source.length > this.maxMessageChars || (argsJson?.length ?? 0) > this.maxMessageChars) {
      return this.settle(slot, () => job.reject(new SkillCompileError({ guestMessage: `source or arguments exceed ${this.maxMessageChars} characters` })))
    }
    const hostNames = Object.keys(r.host ?? {})
    for (const n of hostNames) {
      if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(n)) {
        return this.settle(slot, () => job.reject(new HostCallError({ fn: n, reason: "not a valid identifier" })))
      }
    }
    slot.ready.then(() => {
      if (slot.job !== job || slot.dead) return
      job.timer = setTimeout(() => {
        this.counters.workersKilled++
        void this.kill(slot, new SkillTimeoutError({ limitMs: timeoutMs, hardKill: true }))
      }, timeoutMs + this.killGraceMs)
      slot.worker.postMessage({
        id: job.id,
        source: r.source,
        entry: r.entry ?? "main",
        argsJson,
        hostNames,
        timeoutMs,
        killGraceMs: this.killGraceMs,
        memoryLimit: this.memoryLimitBytes,
        maxStack: this.maxStackBytes,
        maxChars: this.maxMessageChars,
        compileOnly: r.compileOnly === true
      })
    }, () => undefined)
  }

  private settle(slot: Slot, f: () => void): void {
    slot.job = undefined
    f()
    // a worker started beyond the pool size for a nested call is retired once idle (unless a nested call waits)
    if (this.slots.length > this.poolSize && !this.queue.some((j) => j.request.nested === true)) {
      void this.kill(slot, undefined)
      return
    }
    queueMicrotask(() => this.pump())
  }

  private async hostCall(slot: Slot, m: { id: number; name: string; argsJson: string }): Promise<void> {
    const job = slot.job
    if (job === undefined || job.id !== m.id) return
    let reply: { json?: string; error?: { fn: string; reason: string } }
    const fn = job.request.host?.[m.name]
    if (fn === undefined) reply = { error: { fn: m.name, reason: "not granted" } }
    else {
      try {
        const args: unknown = JSON.parse(m.argsJson)
        if (!Array.isArray(args)) throw new TypeError("arguments are not an array")
        const value = await fn(...args)
        const json = value === undefined ? undefined : JSON.stringify(value)
        if (json !== undefined && json.length > this.maxMessageChars) throw new RangeError("result too large")
        reply = json === undefined ? {} : { json }
      } catch (e) {
        reply = { error: { fn: m.name, reason: e instanceof HostCallError ? e.reason : e instanceof Error ? e.message : String(e) } }
      }
    }
    if (slot.job !== job || slot.dead) return
    slot.port.postMessage(reply)
    Atomics.store(slot.ctrl, 0, 1)
    Atomics.notify(slot.ctrl, 0)
  }

  private finish(slot: Slot, m: DoneMessage): void {
    const job = slot.job
    if (job === undefined || job.id !== m.id) return
    if (job.timer !== undefined) clearTimeout(job.timer)
    const timeoutMs = job.request.timeoutMs ?? this.timeoutMs
    const settle = () => {
      if (m.ok) {
        try {
          job.resolve(m.json === undefined ? undefined : JSON.parse(m.json))
        } catch (e) {
          job.reject(runtimeError("TypeError", `the result is not JSON: ${String(e)}`))
        }
        return
      }
      const e = m.error!
      switch (e.kind) {
        case "timeout":
          return job.reject(new SkillTimeoutError({ limitMs: timeoutMs, hardKill: false }))
        case "memory":
          return job.reject(new SkillMemoryError({ limitBytes: this.memoryLimitBytes, detail: e.detail ?? "out of memory" }))
        case "stack":
          return job.reject(new SkillStackOverflowError({ limitBytes: this.maxStackBytes }))
        case "compile":
          return job.reject(new SkillCompileError({ guestMessage: e.message ?? "" }))
        case "host":
          return job.reject(new HostCallError({ fn: e.fn ?? "?", reason: e.reason ?? "refused" }))
        default:
          return job.reject(
            new SkillRuntimeError({ name: e.name ?? "Error", guestMessage: e.message ?? "", ...(e.stack !== undefined ? { stack: e.stack } : {}) })
          )
      }
    }
    if (m.recycle) {
      this.counters.workersKilled++
      slot.job = undefined
      void this.kill(slot, undefined)
      settle()
      return
    }
    this.settle(slot, settle)
  }

  private abort(job: Job): void {
    const slot = this.slots.find((s) => s.job === job)
    if (slot !== undefined) {
      this.counters.workersKilled++
      void this.kill(slot, runtimeError("Aborted", "the call was interrupted"))
      return
    }
    const i = this.queue.indexOf(job)
    if (i >= 0) {
      this.queue.splice(i, 1)
      job.reject(runtimeError("Aborted", "the call was interrupted"))
    }
  }

  private async kill(slot: Slot, error: SandboxError | undefined): Promise<void> {
    if (slot.dead) return
    slot.dead = true
    const i = this.slots.indexOf(slot)
    if (i >= 0) this.slots.splice(i, 1)
    const job = slot.job
    slot.job = undefined
    if (job !== undefined) {
      if (job.timer !== undefined) clearTimeout(job.timer)
      job.reject(error ?? runtimeError("SandboxCrash", "sandbox worker stopped"))
    }
    slot.port.close()
    await slot.worker.terminate().catch(() => undefined)
    if (!this.closed) queueMicrotask(() => this.pump())
  }
}

const runtimeError = (name: string, message: string) => new SkillRuntimeError({ name, guestMessage: message })

// ---------------------------------------------------------------------------------------------------------------------
// the service

/**
 * Runs untrusted skill code (see the module docs).
 *
 * @category services
 * @since 0.1.0
 */
export class Sandbox extends Context.Service<
  Sandbox,
  {
    readonly run: (request: RunRequest) => Effect.Effect<unknown, SandboxError>
    readonly stats: () => SandboxStats
    readonly options: Required<SandboxOptions>
  }
>()("@autodidact/skills/Sandbox") {}

/** The service over an existing pool (the caller closes it). */
export const fromPool = (pool: SandboxPool): Sandbox["Service"] => ({
  run: (request) =>
    Effect.tryPromise({
      try: (signal) => pool.run(request, signal),
      catch: (e) => (isSandboxError(e) ? e : runtimeError("SandboxError", String(e)))
    }),
  stats: () => pool.stats(),
  options: {
    timeoutMs: pool.timeoutMs,
    killGraceMs: pool.killGraceMs,
    memoryLimitBytes: pool.memoryLimitBytes,
    maxStackBytes: pool.maxStackBytes,
    poolSize: pool.poolSize,
    maxMessageChars: pool.maxMessageChars
  }
})

/**
 * A scoped sandbox pool: workers start on demand and are terminated when the layer's scope closes.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: SandboxOptions = {}): Layer.Layer<Sandbox> =>
  Layer.effect(
    Sandbox,
    Effect.acquireRelease(Effect.sync(() => new SandboxPool(options)), (pool) => Effect.promise(() => pool.close())).pipe(
      Effect.map(fromPool)
    )
  )
