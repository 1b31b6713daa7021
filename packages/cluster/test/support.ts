// Test support: a private PostgreSQL server (tools/postgres-test-server.sh with its own state file, so stopping it
// never touches the shared server other packages' tests use) and child processes run through tsx with the
// `@autodidact/source` condition (as apps/cli/bin/autodidact.js does).
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(here, "../../..")
const script = path.join(repoRoot, "tools/postgres-test-server.sh")

/** Debian's PostgreSQL binaries, if installed. */
export const pgBin = (): string | undefined => {
  const base = "/usr/lib/postgresql"
  if (!fs.existsSync(base)) return undefined
  const versions = fs.readdirSync(base).sort((a, b) => Number(a) - Number(b))
  for (const v of versions.reverse()) if (fs.existsSync(path.join(base, v, "bin", "pg_ctl"))) return path.join(base, v, "bin")
  return undefined
}

/** Why the PostgreSQL tests cannot run here (undefined: they can). In CI this is a failure, not a skip. */
export const pgMissing = (): string | undefined =>
  pgBin() === undefined ? "PostgreSQL's Debian binaries (/usr/lib/postgresql/*/bin/pg_ctl) are not installed: apt-get install -y postgresql" : undefined

const asOwner = (cmd: string, args: ReadonlyArray<string>) =>
  process.getuid?.() === 0 ? execFileSync("runuser", ["-u", "postgres", "--", cmd, ...args], { stdio: "pipe" }) : execFileSync(cmd, args, { stdio: "pipe" })

/** A private server: its URL, a way to stop it for a while (data kept) and start it again, and a final stop. */
export interface PrivatePg {
  readonly url: string
  readonly pause: () => void
  readonly resume: () => void
  readonly stop: () => void
}

export const startPrivatePg = (): PrivatePg => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-cluster-test-"))
  const state = path.join(dir, "pg.state")
  const env: NodeJS.ProcessEnv = { ...process.env, AUTODIDACT_PG_STATE: state }
  delete env["AUTODIDACT_PG_PORT"]
  const out = execFileSync("bash", [script, "start"], { env, stdio: ["ignore", "pipe", "pipe"] }).toString().trim().split("\n")
  const url = out[out.length - 1]!.replace(/^AUTODIDACT_PG_URL=/, "")
  const vars = Object.fromEntries(fs.readFileSync(state, "utf8").trim().split("\n").map((l) => {
    const i = l.indexOf("=")
    return [l.slice(0, i), l.slice(i + 1).replace(/^'|'$/g, "")]
  })) as { PGDATA: string; PORT: string; BIN: string }
  const pgCtl = path.join(vars.BIN, "pg_ctl")
  return {
    url,
    pause: () => asOwner(pgCtl, ["-D", vars.PGDATA, "-m", "fast", "-w", "stop"]),
    resume: () => asOwner(pgCtl, ["-D", vars.PGDATA, "-l", path.join(vars.PGDATA, "server.log"), "-w", "-t", "60", "-o", `-h 127.0.0.1 -p ${vars.PORT} -k ${vars.PGDATA} -c fsync=off -c max_connections=50`, "start"]),
    stop: () => {
      try {
        execFileSync("bash", [script, "stop"], { env, stdio: "pipe" })
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  }
}

/** A free TCP port on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

/** A child process with its output collected line by line. */
export interface Proc {
  readonly child: ChildProcess
  readonly lines: Array<string>
  /** Resolves with the first line (from the start) matching `pred`; rejects after `timeoutMs`. */
  readonly waitFor: (pred: (line: string) => boolean, timeoutMs: number) => Promise<string>
  readonly exited: Promise<number | null>
  readonly kill: (signal?: NodeJS.Signals) => void
}

const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href

/**
 * Run `test/processes/<name>.ts args...`: its bundle when the run's globalSetup wrote one (vitest.thread-worker.ts:
 * plain JavaScript, no tsx), else under tsx with the source condition.
 */
export const spawnTs = (name: string, args: ReadonlyArray<string>): Proc => {
  const bundles = process.env["AUTODIDACT_CLUSTER_TEST_SCRIPTS"]
  const bundle = bundles === undefined || bundles === "" ? undefined : path.join(bundles, `${name}.mjs`)
  const command = bundle !== undefined && fs.existsSync(bundle)
    ? [bundle]
    : ["--conditions=@autodidact/source", "--import", tsx, path.join(here, "processes", `${name}.ts`)]
  const child = spawn(process.execPath, [...command, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    cwd: path.resolve(here, "..")
  })
  const lines: Array<string> = []
  const waiters: Array<{ pred: (l: string) => boolean; resolve: (l: string) => void }> = []
  const onData = (buffered: { rest: string }) => (chunk: Buffer) => {
    const text = buffered.rest + chunk.toString()
    const parts = text.split("\n")
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
  child.stdout!.on("data", onData({ rest: "" }))
  child.stderr!.on("data", onData({ rest: "" }))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  return {
    child,
    lines,
    exited,
    kill: (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    },
    waitFor: (pred, timeoutMs) =>
      new Promise((resolve, reject) => {
        const hit = lines.find(pred)
        if (hit !== undefined) return resolve(hit)
        const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms; last lines:\n${lines.slice(-15).join("\n")}`)), timeoutMs)
        waiters.push({ pred, resolve: (l) => (clearTimeout(timer), resolve(l)) })
      })
  }
}
