// Test support for the long-running commands (gateway, serve-env, runner): the real bin started with an async
// `spawn` (the test itself serves HTTP meanwhile, so it must not block in spawnSync), its output collected line by
// line, a way to wait for a line, and an exit promise.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const bin = fileURLToPath(new URL("../bin/autodidact.js", import.meta.url))

/** A running `autodidact` process. */
export interface Proc {
  readonly child: ChildProcess
  /** Every line of stdout and stderr so far, interleaved in arrival order. */
  readonly lines: Array<string>
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves with the first line (from the start) matching `pred`; rejects after `timeoutMs` or when the process exits first. */
  readonly waitFor: (pred: (line: string) => boolean, timeoutMs: number) => Promise<string>
  /** Exit code (null when ended by a signal) and signal. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  /** Send a signal to the bin if it is still running (SIGKILL: to its process group, the command included). */
  readonly kill: (signal?: NodeJS.Signals) => void
}

export const start = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Proc => {
  // its own process group, so that the SIGKILL fallback can end the command under the bin wrapper too
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env }, detached: true })
  const lines: Array<string> = []
  let out = ""
  let err = ""
  let done = false
  const waiters: Array<{ pred: (l: string) => boolean; resolve: (l: string) => void; reject: (e: Error) => void }> = []
  const onData = (buffered: { rest: string }, sink: (s: string) => void) => (chunk: Buffer) => {
    const text = chunk.toString()
    sink(text)
    const parts = (buffered.rest + text).split("\n")
    buffered.rest = parts.pop()!
    for (const line of parts) {
      lines.push(line)
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (waiters[i]!.pred(line)) {
          waiters[i]!.resolve(line)
          waiters.splice(i, 1)
        }
      }
    }
  }
  child.stdout!.on("data", onData({ rest: "" }, (s) => (out += s)))
  child.stderr!.on("data", onData({ rest: "" }, (s) => (err += s)))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => {
      done = true
      for (const w of waiters.splice(0)) w.reject(new Error(`exited (code ${code}, signal ${signal}) before the line; last lines:\n${lines.slice(-15).join("\n")}`))
      resolve({ code, signal })
    })
  )
  return {
    child,
    lines,
    stdout: () => out,
    stderr: () => err,
    exited,
    kill: (signal = "SIGINT") => {
      if (child.exitCode !== null || child.signalCode !== null) return
      // SIGKILL cannot be passed on by the wrapper: send it to the whole group; other signals go to the wrapper only
      if (signal === "SIGKILL") {
        try {
          process.kill(-child.pid!, "SIGKILL")
        } catch {
          child.kill("SIGKILL")
        }
      } else child.kill(signal)
    },
    waitFor: (pred, timeoutMs) =>
      new Promise((resolve, reject) => {
        const hit = lines.find(pred)
        if (hit !== undefined) return resolve(hit)
        if (done) return reject(new Error(`already exited; last lines:\n${lines.slice(-15).join("\n")}`))
        const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms; last lines:\n${lines.slice(-15).join("\n")}`)), timeoutMs)
        waiters.push({ pred, resolve: (l) => (clearTimeout(timer), resolve(l)), reject: (e) => (clearTimeout(timer), reject(e)) })
      })
  }
}

/** Run to completion; resolves with code and output. */
export const run = async (args: ReadonlyArray<string>, timeoutMs = 60_000) => {
  const p = start(args)
  const timer = setTimeout(() => p.kill("SIGKILL"), timeoutMs)
  const { code } = await p.exited
  clearTimeout(timer)
  return { code, stdout: p.stdout(), stderr: p.stderr() }
}

/** A free TCP port on 127.0.0.1 (for commands whose port must be known in advance). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

/** Stop a process (SIGINT, then SIGKILL after `graceMs`) and wait for it. */
export const stop = async (p: Proc, graceMs = 10_000) => {
  p.kill("SIGINT")
  const timer = setTimeout(() => p.kill("SIGKILL"), graceMs)
  const r = await p.exited
  clearTimeout(timer)
  return r
}

/** Debian's PostgreSQL binaries, if installed (what tools/postgres-test-server.sh needs). */
export const pgMissing = (): string | undefined => {
  const base = "/usr/lib/postgresql"
  const found = fs.existsSync(base) && fs.readdirSync(base).some((v) => fs.existsSync(path.join(base, v, "bin", "pg_ctl")))
  return found ? undefined : "PostgreSQL's Debian binaries (/usr/lib/postgresql/*/bin/pg_ctl) are not installed: apt-get install -y postgresql"
}

/**
 * A private PostgreSQL server from tools/postgres-test-server.sh, with its own state file (so stopping it never
 * touches a shared server other tests use): its URL and a stop that deletes its data.
 */
export const startPrivatePg = (): { readonly url: string; readonly stop: () => void } => {
  const script = fileURLToPath(new URL("../../../tools/postgres-test-server.sh", import.meta.url))
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-cli-pg-"))
  const env: NodeJS.ProcessEnv = { ...process.env, AUTODIDACT_PG_STATE: path.join(dir, "pg.state") }
  delete env["AUTODIDACT_PG_PORT"]
  // the script takes the first free port from 54329: a server started at the same moment elsewhere can take it
  // between the check and the bind, so try again (up to 3 times)
  const startOnce = () => execFileSync("bash", [script, "start"], { env, stdio: ["ignore", "pipe", "pipe"] }).toString().trim().split("\n")
  const out = ((): Array<string> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return startOnce()
      } catch (e) {
        if (attempt >= 3) throw e
      }
    }
  })()
  return {
    url: out[out.length - 1]!.replace(/^AUTODIDACT_PG_URL=/, ""),
    stop: () => {
      try {
        execFileSync("bash", [script, "stop"], { env, stdio: "pipe" })
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  }
}
