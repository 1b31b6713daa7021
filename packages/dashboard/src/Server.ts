/**
 * The dashboard's HTTP server (`node:http`): the static UI, uPlot from `node_modules`, JSON endpoints over a
 * {@link Runs.RunStore}, and server-sent events when runs change.
 *
 * *Endpoints*:
 * - `GET /api/runs` → `{ root, runs: RunSummary[] }`
 * - `GET /api/series?metric=episodeReturn&run=a&run=b&x=step|wall&smoothing=0.6&maxPoints=2000&bands=1` → `SeriesResult`
 * - `GET /api/series.csv?` (the same parameters, `maxPoints` up to 100000 by default; `name`: the file's name
 *   without `.csv`, default the metric) → `text/csv`, see `Runs.seriesCsv`
 * - `GET /api/config?run=a&run=b` → `Runs.ConfigDiff`: the runs' `config.json` side by side, differing keys marked
 * - `GET /api/trajectories?run=a` → `{ files: [{ file, episodes }] }`; `GET /api/trajectory?run=a&file=f.jsonl&index=0`
 *   → the episode's JSON (422 `{ error }` naming the file and line when it is not JSON or its steps' `info` extras
 *   do not match `Runs.StepExtras`)
 * - `GET /api/runners?run=a` → the runners table of a `train --cluster` run (`RunnersView`: latest row per runner,
 *   totals, run-wide retries; `runners: []` for other runs)
 * - `GET /api/library?run=a` → memory and skills of run `a` (without `run`: of the runs directory), see {@link Library}
 * - `GET /api/events` → `text/event-stream`, an `update` event `{ changed: string[] }` whenever metrics grow or
 *   runs appear (polling file sizes every `pollMs`)
 *
 * *Gotchas*: binds 127.0.0.1 unless told otherwise (`host`; there is no authentication). Every file a request
 * reads goes through `Paths.realInside`: a run name, trajectory file or static path that is not a plain relative
 * name (`..`, `%2e%2e%2f`, `%2F`-encoded separators, absolute paths, backslashes, NUL) or whose real path (symlinks
 * resolved) leaves the runs directory, the run or `ui/` is answered 404, the same as a missing file. The server is a scoped resource: closing the scope closes every connection, SSE streams included.
 *
 * @example
 * import { serve } from "@autodidact/dashboard"
 * import { Effect } from "effect"
 * Effect.runFork(Effect.scoped(Effect.flatMap(serve({ runsDir: "runs", port: 0 }), (s) => Effect.log(s.url).pipe(Effect.andThen(Effect.never)))))
 * @since 0.0.0
 */
import { Effect, type Scope } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { uiDir, uplotDir } from "./Assets.js"
import { DashboardError } from "./Errors.js"
import * as Library from "./Library.js"
import { isPlainRelative, realInside } from "./Paths.js"
import * as Runs from "./Runs.js"

/** Options of {@link serve}. */
export interface ServeOptions {
  readonly runsDir: string
  /** 0 picks a free port. Default 6060. */
  readonly port?: number
  /** Default 127.0.0.1. */
  readonly host?: string
  /** How often to poll metrics files for live updates, in ms. Default 1000. */
  readonly pollMs?: number
}

/** A running dashboard. */
export interface Dashboard {
  readonly url: string
  readonly host: string
  readonly port: number
  readonly store: Runs.RunStore
}

const mime: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png"
}

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message)
  }
}

/** Serve `rel` from `base` only if its real path lies inside the real `base` (`Paths.realInside`); else 404. */
const sendFile = async (res: http.ServerResponse, base: string, rel: string): Promise<void> => {
  const real = realInside(base, rel)
  if (real === undefined) throw new HttpError(404, "not found")
  const body = await fs.promises.readFile(real)
  res.writeHead(200, { "content-type": mime[path.extname(real)] ?? "application/octet-stream", "cache-control": "no-cache" })
  res.end(body)
}

const sendJson = (res: http.ServerResponse, body: unknown, status = 200): void => {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" })
  res.end(JSON.stringify(body))
}

/**
 * Validate a `run` query value: 400 when absent, 404 when it is not a discovered run whose real path lies inside
 * the runs directory (`..`, absolute paths, backslashes, NUL bytes and symlinks leading out all end here).
 */
const runDir = (store: Runs.RunStore, name: string | null): string => {
  if (name === null || name.length === 0) throw new HttpError(400, "missing run")
  const dir = store.resolve(name)
  if (dir === undefined) throw new HttpError(404, isPlainRelative(name) ? `unknown run ${name}` : "not found")
  return dir
}

/** The `run` query values (repeated, or comma-separated), empty ones dropped. */
const runNames = (q: URLSearchParams): Array<string> => q.getAll("run").flatMap((r) => r.split(",")).filter((r) => r.length > 0)

/** The decoded path of a request URL; a malformed percent-encoding is a 404 like any other unknown path. */
const decodedPath = (pathname: string): string => {
  try {
    return decodeURIComponent(pathname)
  } catch {
    throw new HttpError(404, "not found")
  }
}

/** The request handler (exported for tests that want no socket). */
export const handler = (store: Runs.RunStore, clients: Set<http.ServerResponse>) =>
  async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    try {
      if (req.method !== "GET" && req.method !== "HEAD") throw new HttpError(405, "method not allowed")
      const url = new URL(req.url ?? "/", "http://localhost")
      const p = decodedPath(url.pathname)
      const q = url.searchParams
      if (p === "/favicon.ico") {
        res.writeHead(204)
        return void res.end()
      }
      if (p === "/" || p === "/index.html") return await sendFile(res, uiDir(), "index.html")
      if (p.startsWith("/ui/")) return await sendFile(res, uiDir(), p.slice(4))
      if (p === "/vendor/uPlot.iife.min.js" || p === "/vendor/uPlot.min.css") return await sendFile(res, uplotDir(), p.slice(8))
      if (p === "/api/runs") {
        await store.refresh()
        return sendJson(res, { root: path.resolve(store.root), rootLibrary: Library.present(store.root), runs: store.summaries() })
      }
      if (p === "/api/series" || p === "/api/series.csv") {
        await store.refresh()
        const names = runNames(q)
        for (const n of names) runDir(store, n)
        const metric = q.get("metric") ?? "episodeReturn"
        const x = q.get("x") === "wall" ? "wall" : "step"
        const smoothing = Number(q.get("smoothing") ?? "0")
        const maxPoints = Number(q.get("maxPoints") ?? (p === "/api/series.csv" ? "100000" : "2000"))
        const result = store.series({
          metric,
          runs: names,
          xAxis: x,
          smoothing: Number.isFinite(smoothing) ? smoothing : 0,
          maxPoints: Number.isFinite(maxPoints) ? Math.min(maxPoints, 100_000) : 2000,
          bands: p === "/api/series" && q.get("bands") === "1"
        })
        if (p === "/api/series") return sendJson(res, result)
        res.writeHead(200, {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="${(q.get("name") ?? metric).replace(/[^A-Za-z0-9._-]/g, "_")}.csv"`,
          "cache-control": "no-store"
        })
        return void res.end(Runs.seriesCsv(result))
      }
      if (p === "/api/config") {
        await store.refresh()
        const names = runNames(q)
        for (const n of names) runDir(store, n)
        return sendJson(res, Runs.configDiff(names.map((name) => ({ name, config: store.config(name) ?? {} }))))
      }
      if (p === "/api/runners") {
        await store.refresh()
        const name = q.get("run")
        runDir(store, name)
        return sendJson(res, store.runners(name!))
      }
      if (p === "/api/trajectories") {
        return sendJson(res, { files: await Runs.trajectoryFiles(runDir(store, q.get("run"))) })
      }
      if (p === "/api/trajectory") {
        const dir = runDir(store, q.get("run"))
        const ep = await Runs.trajectory(dir, q.get("file") ?? "", Number(q.get("index") ?? "0")).catch((e: unknown) => {
          throw e instanceof DashboardError ? new HttpError(422, e.message) : e
        })
        if (ep === undefined) throw new HttpError(404, "no such episode")
        return sendJson(res, ep)
      }
      if (p === "/api/library") {
        const name = q.get("run")
        if (name === null || name === "") return sendJson(res, await Library.read(store.root))
        await store.refresh()
        return sendJson(res, await Library.read(runDir(store, name), name))
      }
      if (p === "/api/events") {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
        res.write(": connected\n\n")
        clients.add(res)
        res.on("close", () => clients.delete(res))
        return
      }
      throw new HttpError(404, "not found")
    } catch (e) {
      const status = e instanceof HttpError ? e.status : 500
      if (!res.headersSent) sendJson(res, { error: e instanceof Error ? e.message : String(e) }, status)
      else res.end()
    }
  }

/**
 * Start the dashboard server as a scoped resource: listening when this succeeds, closed (connections and the
 * live-update poller included) when the scope closes.
 * @category server
 */
export const serve = (options: ServeOptions): Effect.Effect<Dashboard, DashboardError, Scope.Scope> =>
  Effect.gen(function* () {
    const store = yield* Runs.load(options.runsDir)
    const host = options.host ?? "127.0.0.1"
    const pollMs = options.pollMs ?? 1000
    const clients = new Set<http.ServerResponse>()
    const { server, timer } = yield* Effect.acquireRelease(
      Effect.callback<{ server: http.Server; timer: NodeJS.Timeout }, DashboardError>((resume) => {
        const server = http.createServer((req, res) => void handler(store, clients)(req, res))
        server.once("error", (e) => resume(Effect.fail(new DashboardError({ path: `${host}:${options.port ?? 6060}`, reason: `cannot listen: ${e.message}` }))))
        server.listen(options.port ?? 6060, host, () => {
          let polling = false
          let beats = 0
          // What the SSE clients were last told about, so refreshes made by API requests do not hide changes.
          let seen = store.versions()
          const timer = setInterval(() => {
            if (polling || clients.size === 0) return
            polling = true
            store
              .refresh()
              .then(() => {
                const now = store.versions()
                const changed = [...now].filter(([name, v]) => seen.get(name) !== v).map(([name]) => name)
                for (const name of seen.keys()) if (!now.has(name)) changed.push(name)
                seen = now
                const msg = changed.length > 0 ? `event: update\ndata: ${JSON.stringify({ changed })}\n\n` : ++beats % 15 === 0 ? ": ping\n\n" : ""
                if (msg !== "") for (const c of clients) c.write(msg)
              })
              .catch(() => undefined)
              .finally(() => {
                polling = false
              })
          }, pollMs)
          resume(Effect.succeed({ server, timer }))
        })
      }),
      ({ server, timer }) =>
        Effect.callback<void>((resume) => {
          clearInterval(timer)
          for (const c of clients) c.end()
          clients.clear()
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    void timer
    const port = (server.address() as AddressInfo).port
    const shownHost = host.includes(":") ? `[${host}]` : host
    return { url: `http://${shownHost}:${port}/`, host, port, store }
  })

/**
 * Serve until interrupted (Ctrl-C): {@link serve} in its own scope, printing the URL and runs directory to stderr;
 * the server closes when the fiber is interrupted. Fails with `DashboardError` when the runs directory cannot be
 * read or the port cannot be listened on.
 * @category server
 * @since 0.0.0
 */
export const serveForever = (options: ServeOptions): Effect.Effect<never, DashboardError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const d = yield* serve(options)
      process.stderr.write(`Dashboard on ${d.url} (runs: ${path.resolve(options.runsDir)}); Ctrl-C to stop\n`)
      return yield* Effect.never
    })
  )
