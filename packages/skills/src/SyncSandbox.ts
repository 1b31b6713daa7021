/**
 * A synchronous, in-process QuickJS runner: the same guest API, limits and typed errors as {@link Sandbox}, but the
 * QuickJS WebAssembly module runs on the calling thread, so a call (and every host function it makes) completes
 * before `run` returns. This is what a synchronous environment `step` needs — e.g. skills as macro-actions inside
 * the synchronous rollouts of `@autodidact/optim`'s `MultiTurnTrainer` (see `SkillOptions.SyncSkillOptionsEnv`).
 *
 * **When to use**: skills you admitted (through the worker sandbox) and now call many times from synchronous code.
 * For untrusted code arriving from outside, prefer the worker {@link Sandbox}: it adds a host-side hard kill.
 *
 * **Details**
 * - Isolation is QuickJS's, as in the worker: a fresh runtime and context per call, no `process`, `require`,
 *   `import`, timers, file system or network; the only way out is the granted host functions (called synchronously).
 * - Limits: time (QuickJS interrupt handler at the deadline → {@link Sandbox.SkillTimeoutError}), memory
 *   (`setMemoryLimit` plus a `WebAssembly.Memory` with a `maximum` → {@link Sandbox.SkillMemoryError}), stack
 *   (`setMaxStackSize` → {@link Sandbox.SkillStackOverflowError}). There is no hard kill: time spent inside a host
 *   function is the host's. The time limit is wall-clock: a skill that allocates without end ends in whichever
 *   limit it reaches first, so on a slow or loaded machine it may be `SkillTimeoutError` rather than
 *   `SkillMemoryError`; give such a call a time limit well above the time it takes to fill the memory budget
 *   (`request.timeoutMs`) when the memory error is what you need to see. A guest error is read with the memory limit
 *   lifted, so an "out of memory" is reported as `SkillMemoryError` even when reading it allocates.
 * - A call that ends with the QuickJS module aborted (a wasm trap, e.g. memory exhausted below QuickJS's own limit)
 *   poisons the runner: later calls fail with `SkillRuntimeError` named `SandboxPoisoned`; make a new runner.
 *
 * @see https://github.com/justjake/quickjs-emscripten
 * @since 0.1.0
 */
import { Effect } from "effect"
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSContext, type QuickJSHandle, type QuickJSWASMModule, RELEASE_SYNC } from "quickjs-emscripten"
import {
  HostCallError,
  type HostFunction,
  type RunRequest,
  type SandboxError,
  SkillCompileError,
  SkillMemoryError,
  SkillRuntimeError,
  SkillStackOverflowError,
  SkillTimeoutError
} from "./Sandbox.js"

/** Limits of a synchronous runner (the same meaning and defaults as the worker sandbox's). */
export interface SyncSandboxOptions {
  readonly timeoutMs?: number
  readonly memoryLimitBytes?: number
  readonly maxStackBytes?: number
  readonly maxMessageChars?: number
}

const WASM_PAGE = 65536
const BASELINE_BYTES = 16 * 1024 * 1024
const WasmMemory = (globalThis as unknown as { readonly WebAssembly: { readonly Memory: new(d: { initial: number; maximum: number }) => object } })
  .WebAssembly.Memory

interface GuestError {
  readonly name: string
  readonly message: string
  readonly stack?: string
}

const PRELUDE = (hostNames: ReadonlyArray<string>) =>
  "(function (host) { const P = JSON.parse, S = JSON.stringify, G = globalThis, N = " + JSON.stringify(hostNames) + ";" +
  " for (const n of N) { const f = function (...a) { const r = host(n, S(a)); return r === undefined ? undefined : P(r); }; Object.defineProperty(G, n, { value: f, writable: false, configurable: false }); }" +
  " return function (entry, argsJson) { const f = G[entry]; if (typeof f !== 'function') throw new TypeError('the skill defines no function ' + entry);" +
  " const r = f(argsJson === undefined ? undefined : P(argsJson)); if (r !== null && typeof r === 'object' && typeof r.then === 'function') throw new TypeError('skills are synchronous: return a value, not a Promise');" +
  " return r === undefined ? undefined : S(r); }; })"

/**
 * A synchronous QuickJS runner (see the module docs). Build it with {@link make}.
 *
 * @category models
 * @since 0.1.0
 */
export class SyncSandbox {
  readonly timeoutMs: number
  readonly memoryLimitBytes: number
  readonly maxStackBytes: number
  readonly maxMessageChars: number
  private poisoned = false
  calls = 0

  constructor(private readonly mod: QuickJSWASMModule, options: SyncSandboxOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 1000
    this.memoryLimitBytes = options.memoryLimitBytes ?? 32 * 1024 * 1024
    this.maxStackBytes = options.maxStackBytes ?? 256 * 1024
    this.maxMessageChars = options.maxMessageChars ?? 1 << 20
  }

  /** Whether a QuickJS abort made this runner unusable. */
  get isPoisoned(): boolean {
    return this.poisoned
  }

  /** Run one evaluation; returns the guest's JSON result or throws a {@link SandboxError}. */
  run(request: RunRequest): unknown {
    if (this.poisoned) throw new SkillRuntimeError({ name: "SandboxPoisoned", guestMessage: "an earlier call aborted QuickJS; make a new runner" })
    this.calls++
    const timeoutMs = request.timeoutMs ?? this.timeoutMs
    let argsJson: string | undefined
    try {
      argsJson = request.args === undefined ? undefined : JSON.stringify(request.args)
    } catch (e) {
      throw new HostCallError({ fn: "(arguments)", reason: `not JSON: ${String(e)}` })
    }
    if (request.source.length > this.maxMessageChars || (argsJson?.length ?? 0) > this.maxMessageChars) {
      throw new SkillCompileError({ guestMessage: `source or arguments exceed ${this.maxMessageChars} characters` })
    }
    const host = request.host ?? {}
    const hostNames = Object.keys(host)
    for (const n of hostNames) if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(n)) throw new HostCallError({ fn: n, reason: "not a valid identifier" })

    const state: { interrupted: boolean; hostError: HostCallError | undefined } = { interrupted: false, hostError: undefined }
    const deadline = Date.now() + timeoutMs
    const toError = (g: GuestError, phase: "load" | "call"): SandboxError => {
      if (state.hostError !== undefined) return state.hostError
      if (state.interrupted || (g.name === "InternalError" && g.message === "interrupted")) return new SkillTimeoutError({ limitMs: timeoutMs, hardKill: false })
      if (g.name === "InternalError" && (g.message === "out of memory" || g.message === "string too long")) {
        return new SkillMemoryError({ limitBytes: this.memoryLimitBytes, detail: g.message })
      }
      if ((g.name === "InternalError" || g.name === "RangeError") && /stack overflow/.test(g.message)) return new SkillStackOverflowError({ limitBytes: this.maxStackBytes })
      if (phase === "load" && g.name === "SyntaxError") return new SkillCompileError({ guestMessage: g.message })
      return new SkillRuntimeError({ name: g.name, guestMessage: g.message, ...(g.stack !== undefined ? { stack: g.stack } : {}) })
    }
    const rt = this.mod.newRuntime()
    rt.setMemoryLimit(this.memoryLimitBytes)
    rt.setMaxStackSize(this.maxStackBytes)
    rt.setInterruptHandler(() => {
      if (state.hostError !== undefined) return true
      if (Date.now() > deadline) {
        state.interrupted = true
        return true
      }
      return false
    })
    const ctx = rt.newContext()
    // A guest error is read with the memory limit lifted: an "out of memory" error leaves the runtime at its limit,
    // and reading the error (its name and message) allocates; under the limit that read fails and the memory error
    // would surface as a nameless SkillRuntimeError. The wasm memory's own maximum still bounds the runtime.
    const dumpUnlimited = (h: QuickJSHandle): GuestError => {
      rt.setMemoryLimit(-1)
      return dump(ctx, h)
    }
    const handles: Array<QuickJSHandle> = []
    let outcome: { ok: true; value: unknown } | { ok: false; error: SandboxError }
    try {
      if (request.compileOnly === true) {
        const r = ctx.evalCode(request.source, "skill.js", { type: "global", compileOnly: true })
        if (r.error !== undefined) {
          outcome = { ok: false, error: toError(dumpUnlimited(r.error), "load") }
          r.error.dispose()
        } else {
          r.value.dispose()
          outcome = { ok: true, value: undefined }
        }
      } else {
        const hostFn = ctx.newFunction("__host", (nameH, argsH) => {
          const name = ctx.typeof(nameH) === "string" ? ctx.getString(nameH) : "?"
          const fail = (reason: string) => {
            state.hostError = new HostCallError({ fn: name, reason })
            return { error: ctx.newError(`HostCallError: ${reason}`) }
          }
          if (ctx.typeof(argsH) !== "string") return fail("arguments are not JSON")
          const json = ctx.getString(argsH)
          if (json.length > this.maxMessageChars) return fail(`arguments exceed ${this.maxMessageChars} characters`)
          const fn: HostFunction | undefined = Object.prototype.hasOwnProperty.call(host, name) ? host[name] : undefined
          if (fn === undefined) return fail("not granted")
          let reply: string | undefined
          try {
            const args: unknown = JSON.parse(json)
            if (!Array.isArray(args)) throw new TypeError("arguments are not an array")
            const value = fn(...args)
            if (value !== null && typeof value === "object" && typeof (value as { then?: unknown }).then === "function") {
              throw new TypeError("a synchronous runner needs synchronous host functions")
            }
            reply = value === undefined ? undefined : JSON.stringify(value)
            if (reply !== undefined && reply.length > this.maxMessageChars) throw new RangeError("result too large")
          } catch (e) {
            return fail(e instanceof HostCallError ? e.reason : e instanceof Error ? e.message : String(e))
          }
          if (Date.now() > deadline) {
            state.interrupted = true
            return { error: ctx.newError("interrupted") }
          }
          return reply === undefined ? ctx.undefined : ctx.newString(reply)
        })
        handles.push(hostFn)
        const preFn = ctx.unwrapResult(ctx.evalCode(PRELUDE(hostNames), "prelude.js"))
        handles.push(preFn)
        const callFn = ctx.unwrapResult(ctx.callFunction(preFn, ctx.undefined, hostFn))
        handles.push(callFn)
        const loaded = ctx.evalCode(request.source, "skill.js", { type: "global" })
        if (loaded.error !== undefined) {
          outcome = { ok: false, error: toError(dumpUnlimited(loaded.error), "load") }
          loaded.error.dispose()
        } else {
          loaded.value.dispose()
          const entryH = ctx.newString(request.entry ?? "main")
          handles.push(entryH)
          const argsH = argsJson === undefined ? ctx.undefined : ctx.newString(argsJson)
          if (argsJson !== undefined) handles.push(argsH)
          const r = ctx.callFunction(callFn, ctx.undefined, entryH, argsH)
          if (r.error !== undefined) {
            outcome = { ok: false, error: toError(dumpUnlimited(r.error), "call") }
            r.error.dispose()
          } else {
            const t = ctx.typeof(r.value)
            if (state.hostError !== undefined) outcome = { ok: false, error: state.hostError }
            else if (t === "undefined") outcome = { ok: true, value: undefined }
            else if (t !== "string") outcome = { ok: false, error: new SkillRuntimeError({ name: "TypeError", guestMessage: "the result is not JSON" }) }
            else {
              const s = ctx.getString(r.value)
              outcome = s.length > this.maxMessageChars
                ? { ok: false, error: new SkillMemoryError({ limitBytes: this.memoryLimitBytes, detail: `result exceeds ${this.maxMessageChars} characters` }) }
                : { ok: true, value: JSON.parse(s) as unknown }
            }
            r.value.dispose()
          }
        }
      }
    } catch (e) {
      this.poisoned = true
      outcome = {
        ok: false,
        error: state.hostError ??
          (e instanceof RangeError && /call stack/i.test(String(e.message))
            ? new SkillStackOverflowError({ limitBytes: this.maxStackBytes })
            : state.interrupted
            ? new SkillTimeoutError({ limitMs: timeoutMs, hardKill: false })
            : new SkillMemoryError({ limitBytes: this.memoryLimitBytes, detail: `QuickJS aborted: ${String(e)}` }))
      }
    }
    try {
      for (let i = handles.length - 1; i >= 0; i--) if (handles[i]!.alive) handles[i]!.dispose()
      ctx.dispose()
      rt.dispose()
    } catch {
      this.poisoned = true
    }
    if (!outcome.ok) throw outcome.error
    return outcome.value
  }
}

const dump = (ctx: QuickJSContext, h: QuickJSHandle): GuestError => {
  try {
    const d: unknown = ctx.dump(h)
    if (d !== null && typeof d === "object") {
      const o = d as Record<string, unknown>
      return {
        name: String(o["name"] ?? "Error"),
        message: String(o["message"] ?? JSON.stringify(d)),
        ...(typeof o["stack"] === "string" ? { stack: o["stack"] } : {})
      }
    }
    return { name: "Error", message: String(d) }
  } catch {
    return { name: "Error", message: "(unreadable guest error)" }
  }
}

/**
 * Load a QuickJS module with a bounded `WebAssembly.Memory` (its own, not shared with the worker pool) and return a
 * synchronous runner over it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: SyncSandboxOptions = {}): Effect.Effect<SyncSandbox, SkillRuntimeError> =>
  Effect.tryPromise({
    try: async () => {
      const memoryLimit = options.memoryLimitBytes ?? 32 * 1024 * 1024
      const wasmMemory = new WasmMemory({ initial: 256, maximum: Math.ceil((BASELINE_BYTES + memoryLimit) / WASM_PAGE) })
      const mod = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: wasmMemory as never }))
      return new SyncSandbox(mod, options)
    },
    catch: (e) => new SkillRuntimeError({ name: "SandboxError", guestMessage: `QuickJS failed to load: ${String(e)}` })
  })
