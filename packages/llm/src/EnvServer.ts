/**
 * Serve any registered Autodidact text environment (`TextHousehold-v0`, `TextFrozenLake-v1`,
 * `Sokoban-6x6-1box-v0`, ...) over HTTP with the AgentGym environment-server protocol, so that AgentGym's clients,
 * AgentGym-RL and verl-agent style trainers in Python can roll out on them.
 *
 * **Protocol** (routes and JSON field names follow AgentGym's `agentenv-*` servers, e.g.
 * `agentenv-alfworld/agentenv_alfworld/server.py` and `env_wrapper.py`, and `agentenv-webshop/.../server.py` in
 * github.com/WooooDyy/AgentGym), except that environment ids are unguessable strings (a random UUID from Web Crypto,
 * not AgentGym's counter: a client cannot reach another's session by guessing); the id is read from `id` or
 * `env_idx`, and a client sends back the value `/create` gave it.
 * - `GET /` → `"This is environment <EnvId>."`; `GET /list_envs` → `[ids]` only with `listSessions: true` (it would
 *   hand every client the others' ids), else `403`.
 * - `POST /create` → `{ id }`: a fresh environment (`Registry.make(envId, kwargs)`).
 * - `POST /reset` `{ id, data_idx?, seed? }` → `{ id, observation, available_actions, task, info }`. The seed is
 *   `seed`, else `data_idx` (AgentGym's task index; also `idx` / `game`), else 0, so one `data_idx` always gives the
 *   same task.
 * - `POST /step` `{ id, action }` → `{ observation, state, reward, done, terminated, truncated, available_actions,
 *   info }` (`state` repeats the observation for WebShop-style clients). An inadmissible action is handled by the
 *   environment's own policy (penalized, `info.invalidAction: true`); stepping a finished episode is `409`.
 * - `GET /observation?id=` → the current observation (a string); `GET /available_actions?id=` → `[string]`;
 *   `GET /detail?id=` → `{ id, env, task, seed, steps, reward, done }`.
 * - `POST /close` `{ id }` → `{ closed: true }`.
 * - Errors: `{ error: message }` with status 400 (not JSON, not a JSON object, a field of the wrong type or an id
 *   that is not a UUID), 401 (`token` set and the request has no `Authorization: Bearer <token>` or a wrong one;
 *   nothing is done), 403 (`/list_envs` without `listSessions`), 404 (unknown or reaped id), 409 (reset needed or
 *   finished), 413 (a body over `maxBodyBytes`, default 1 MiB), 503 (too many sessions). A bad request never affects
 *   the other sessions.
 *
 * **Access**: bind to `127.0.0.1` (the default) or set `token` (a shared bearer token every request must carry,
 * compared in constant time); session ids are capabilities: whoever has one can drive that session.
 *
 * **Sessions**: each id owns its environment; requests are handled one at a time on the event loop, so sessions never
 * share state. A session idle (no request) for longer than `idleTtl` (default 10 minutes) is closed by a reaper
 * that runs every `idleTtl / 2` (at most every 30 s); at most `maxSessions` (default 1024) live at once.
 *
 * @example
 * ```ts
 * import { EnvServer } from "@autodidact/llm"
 * import { Effect } from "effect"
 * Effect.runPromise(Effect.scoped(Effect.gen(function*() {
 *   const s = yield* EnvServer.start({ envId: "TextHousehold-v0", port: 36001 })
 *   console.log(`AgentGym server on ${s.url}`)
 *   yield* Effect.never
 * })))
 * // python: i = requests.post(f"{url}/create").json()["id"]; requests.post(f"{url}/reset", json={"id": i, "data_idx": 3})
 * ```
 * @see Xi et al., "AgentGym: Evolving Large Language Model-based Agents across Diverse Environments", arXiv:2406.04151
 * @since 0.1.0
 */
import type { Env } from "@autodidact/envs"
import { Registry, TextEnv } from "@autodidact/envs"
import { Duration, Effect, Exit, Schedule, Scope } from "effect"
import { HttpServerRequest } from "effect/http"
import * as HttpListen from "./internal/HttpListen.js"
import { LlmConfigError, type ServerStartError } from "./LlmErrors.js"

/** Options of the server. @category models @since 0.1.0 */
export interface Options {
  /** A registered environment id whose environment implements the text contract. */
  readonly envId: string
  /** Constructor options of the environment. */
  readonly kwargs?: { readonly [key: string]: unknown } | undefined
  /** Default `127.0.0.1`. */
  readonly host?: string | undefined
  /** Default 0 (any free port). */
  readonly port?: number | undefined
  /** Idle time after which a session is closed (default 10 minutes). */
  readonly idleTtl?: Duration.Input | undefined
  /** Most sessions alive at once (default 1024). */
  readonly maxSessions?: number | undefined
  /** A bearer token every request must carry (`Authorization: Bearer <token>`); default none. Non-empty. */
  readonly token?: string | undefined
  /** Largest accepted request body in bytes (default 1 MiB); larger ones get `413`. */
  readonly maxBodyBytes?: number | undefined
  /** Answer `GET /list_envs` with every live session id (default false: `403`, since ids are capabilities). */
  readonly listSessions?: boolean | undefined
}

interface Session {
  readonly env: Env.Env<string, string>
  readonly text: TextEnv.TextEnv
  lastUsed: number
  observation: string | undefined
  seed: number | undefined
  steps: number
  reward: number
  done: boolean
}

/** A running server: where it listens, and its live session ids (for tests and monitoring). @category models @since 0.1.0 */
export interface Running extends HttpListen.Listening {
  readonly sessions: () => ReadonlyArray<string>
}

type Obj = { readonly [key: string]: unknown }
const isObj = (u: unknown): u is Obj => typeof u === "object" && u !== null && !Array.isArray(u)

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const show = (v: unknown): string => {
  const s = typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v))
  return s.length > 100 ? `${s.slice(0, 100)}...` : s
}

/** String equality in time independent of where the strings differ (the token check). */
const sameText = (a: string, b: string): boolean => {
  let diff = a.length ^ b.length
  for (let i = 0; i < b.length; i++) diff |= (a.charCodeAt(i % Math.max(a.length, 1)) || 0) ^ b.charCodeAt(i)
  return diff === 0
}

class HttpFail {
  constructor(readonly status: number, readonly message: string) {}
}

const seedOf = (b: Obj): number | HttpFail => {
  for (const k of ["seed", "data_idx", "idx", "game"]) {
    const v = b[k]
    if (v === undefined || v === null) continue
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) return new HttpFail(400, `${k} must be a non-negative integer, got ${JSON.stringify(v)}`)
    return v
  }
  return 0
}

/**
 * Start the server as a scoped resource. Fails with `LlmConfigError` for an unknown or non-text environment id or
 * bad options, `ServerStartError` when the address cannot be bound.
 *
 * @category servers
 * @since 0.1.0
 */
export const start = (options: Options): Effect.Effect<Running, LlmConfigError | ServerStartError, Scope.Scope> =>
  Effect.gen(function*() {
    const { envId } = options
    const kwargs = options.kwargs ?? {}
    const make = () => Registry.make<string, string>(envId, kwargs)
    // check the id and the text contract once, up front
    yield* Effect.try({
      try: () => {
        const probe = make()
        const ok = TextEnv.isTextEnv(probe.unwrapped)
        probe.close()
        if (!ok) throw new Error("not a text environment (no admissibleActions/stateKey/toMessages): serve a text environment such as TextHousehold-v0")
      },
      catch: (e) => new LlmConfigError({ option: "env", value: envId, reason: String((e as Error).message ?? e) })
    })
    const ttl = Duration.fromInputUnsafe(options.idleTtl ?? Duration.minutes(10))
    const ttlMs = Duration.toMillis(ttl)
    if (!(ttlMs > 0)) return yield* new LlmConfigError({ option: "idleTtl", value: Duration.format(ttl), reason: "must be positive" })
    const maxSessions = options.maxSessions ?? 1024
    if (!Number.isSafeInteger(maxSessions) || maxSessions < 1) return yield* new LlmConfigError({ option: "maxSessions", value: maxSessions, reason: "must be a positive integer" })

    const maxBody = options.maxBodyBytes ?? 1024 * 1024
    if (!Number.isSafeInteger(maxBody) || maxBody < 1) return yield* new LlmConfigError({ option: "maxBodyBytes", value: maxBody, reason: "must be a positive integer" })
    const token = options.token
    if (token !== undefined && (typeof token !== "string" || token.trim() === "")) return yield* new LlmConfigError({ option: "token", value: "(hidden)", reason: "must be a non-empty string" })
    const expected = token === undefined ? undefined : `Bearer ${token}`

    const sessions = new Map<string, Session>()
    const closeSession = (id: string) => {
      const s = sessions.get(id)
      if (s === undefined) return false
      sessions.delete(id)
      try {
        s.env.close()
      } catch {
        // closing is best effort
      }
      return true
    }
    yield* Effect.addFinalizer(() => Effect.sync(() => [...sessions.keys()].forEach(closeSession)))

    const reap = Effect.sync(() => {
      const now = Date.now()
      for (const [id, s] of sessions) if (now - s.lastUsed > ttlMs) closeSession(id)
    })
    yield* Effect.forkScoped(Effect.repeat(reap, Schedule.spaced(Duration.millis(Math.min(ttlMs / 2, 30_000)))))

    const get = (id: unknown): Session | HttpFail => {
      if (typeof id !== "string" || !UUID.test(id)) return new HttpFail(400, `the environment id must be the id /create returned (a UUID string), got ${show(id)}`)
      const s = sessions.get(id.toLowerCase())
      if (s === undefined) return new HttpFail(404, `the id ${id} is not valid (never created, closed, or reaped after ${Duration.format(ttl)} idle)`)
      s.lastUsed = Date.now()
      return s
    }
    const idOf = (b: Obj) => b["id"] ?? b["env_idx"]

    const handle = (method: string, route: string, query: URLSearchParams, body: unknown): unknown => {
      const b: Obj = isObj(body) ? body : {}
      if (method === "GET" && route === "/") return `This is environment ${envId}.`
      if (method === "GET" && route === "/list_envs") {
        return options.listSessions === true ? [...sessions.keys()] : new HttpFail(403, "listing sessions is off (session ids are capabilities): start the server with listSessions: true")
      }
      if (method === "POST" && route === "/create") {
        if (sessions.size >= maxSessions) return new HttpFail(503, `too many sessions (${maxSessions}): close some first`)
        const env = make()
        const text = env.unwrapped
        if (!TextEnv.isTextEnv(text)) {
          env.close()
          return new HttpFail(500, `${envId} is not a text environment`)
        }
        const id = globalThis.crypto.randomUUID()
        sessions.set(id, { env, text, lastUsed: Date.now(), observation: undefined, seed: undefined, steps: 0, reward: 0, done: false })
        return { id }
      }
      if (method === "POST" && route === "/reset") {
        const s = get(idOf(b))
        if (s instanceof HttpFail) return s
        const seed = seedOf(b)
        if (seed instanceof HttpFail) return seed
        const r = s.env.reset({ seed })
        Object.assign(s, { observation: r.observation, seed, steps: 0, reward: 0, done: false })
        return { id: idOf(b), observation: r.observation, available_actions: [...s.text.admissibleActions()], task: s.text.task, info: r.info }
      }
      if (method === "POST" && route === "/step") {
        const s = get(idOf(b))
        if (s instanceof HttpFail) return s
        if (typeof b["action"] !== "string") return new HttpFail(400, `action must be a string, got ${JSON.stringify(b["action"])}`)
        if (s.observation === undefined) return new HttpFail(409, "reset the environment before stepping it")
        if (s.done) return new HttpFail(409, `the episode of environment ${String(idOf(b))} has finished: reset it`)
        const r = s.env.step(b["action"])
        s.observation = r.observation
        s.steps++
        s.reward += r.reward
        s.done = r.terminated || r.truncated
        return {
          observation: r.observation,
          state: r.observation,
          reward: r.reward,
          done: s.done,
          terminated: r.terminated,
          truncated: r.truncated,
          available_actions: s.done ? [] : [...s.text.admissibleActions()],
          info: r.info
        }
      }
      if (method === "GET" && (route === "/observation" || route === "/available_actions" || route === "/detail")) {
        const s = get(query.get("id") ?? query.get("env_idx"))
        if (s instanceof HttpFail) return s
        if (route === "/detail") return { id: query.get("id") ?? query.get("env_idx"), env: envId, task: s.observation === undefined ? null : s.text.task, seed: s.seed ?? null, steps: s.steps, reward: s.reward, done: s.done }
        if (s.observation === undefined) return new HttpFail(409, "reset the environment first")
        return route === "/observation" ? s.observation : s.done ? [] : [...s.text.admissibleActions()]
      }
      if (method === "POST" && route === "/close") {
        const s = get(idOf(b))
        if (s instanceof HttpFail) return s
        return { closed: closeSession(String(idOf(b)).toLowerCase()) }
      }
      return new HttpFail(404, `no route ${method} ${route}`)
    }

    const app = Effect.gen(function*() {
      const req = yield* HttpServerRequest.HttpServerRequest
      if (expected !== undefined && !sameText(req.headers["authorization"] ?? "", expected)) {
        return HttpListen.json({ error: req.headers["authorization"] === undefined ? "this server needs Authorization: Bearer <token>" : "wrong token" }, 401, { "www-authenticate": "Bearer" })
      }
      const url = new URL(req.url, "http://env")
      let body: unknown = undefined
      if (req.method === "POST") {
        const read = yield* HttpListen.readBody(req, maxBody)
        if (read._tag === "TooLarge") return HttpListen.json({ error: `request body of at least ${read.bytes} bytes is over the limit of ${maxBody} bytes` }, 413, { connection: "close" })
        if (read._tag === "Broken") return HttpListen.json({ error: read.reason }, 400)
        if (read.text.trim() !== "") {
          try {
            body = JSON.parse(read.text)
          } catch {
            return HttpListen.json({ error: `the body is not JSON: ${show(read.text)}` }, 400)
          }
          if (!isObj(body)) return HttpListen.json({ error: `the body must be a JSON object, got ${show(body)}` }, 400)
        }
      }
      let out: unknown
      try {
        out = handle(req.method, url.pathname.replace(/(.)\/+$/, "$1"), url.searchParams, body)
      } catch (e) {
        out = new HttpFail(400, `${(e as { _tag?: string })._tag ?? "Error"}: ${String((e as Error).message ?? e)}`)
      }
      return out instanceof HttpFail ? HttpListen.json({ error: out.message }, out.status) : HttpListen.json(out)
    })

    const listening = yield* HttpListen.listen(app, { host: options.host, port: options.port })
    return { ...listening, sessions: () => [...sessions.keys()] }
  })

/** A server started by {@link serve}: where it listens, its live sessions, and `close()`. @category plain @since 0.2.0 */
export interface Served extends Running {
  /** Stop listening and close open connections; idempotent. */
  close(): Promise<void>
}

/**
 * The plain (Promise) face of {@link start}: `const server = await EnvServer.serve({ envId: "TextHousehold-v0" })`,
 * then `server.url`, and `await server.close()`. Rejects with the same `LlmConfigError` / `ServerStartError` as
 * {@link start} (`instanceof` and `_tag` work).
 *
 * @category plain
 * @since 0.2.0
 */
export const serve = async (options: Options): Promise<Served> => {
  const scope = Effect.runSync(Scope.make())
  const exit = await Effect.runPromiseExit(Scope.provide(start(options), scope))
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, exit))
    return Effect.runPromise(Effect.failCause(exit.cause))
  }
  let closed: Promise<void> | undefined
  return { ...exit.value, close: () => (closed ??= Effect.runPromise(Scope.close(scope, Exit.void))) }
}
