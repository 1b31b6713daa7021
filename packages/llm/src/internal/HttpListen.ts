/**
 * Serve one request-handling effect on a Node `http.Server`, as a scoped resource: listening when it succeeds, closed
 * (with its open connections) when the scope closes. Shared by the gateway and the environment server; small
 * JSON/error helpers for OpenAI-style answers live here too.
 *
 * The effect runs as a Web `Request` handler (`HttpEffect.toWebHandlerWith` from `effect/http`) bridged to
 * `node:http` here, so this package needs no `@effect/platform-node` (whose `undici` 8 requires Node ≥ 22.19).
 * A client that closes its connection before the response ends aborts the request's `signal`, which interrupts the
 * handler (as `NodeHttpServer` does); {@link clientGone} observes it.
 *
 * @since 0.1.0
 */
import { Effect, type Scope, Stream } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import type { HttpServerRequest } from "effect/http"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { ServerStartError } from "../LlmErrors.js"

/** Where a server listens. @category models @since 0.1.0 */
export interface Listening {
  readonly host: string
  readonly port: number
  /** `http://host:port` (IPv6 hosts in brackets). */
  readonly url: string
}

/** Options of {@link listen}. @category models @since 0.1.0 */
export interface ListenOptions {
  /** Default `127.0.0.1`. */
  readonly host?: string | undefined
  /** Default 0 (any free port). */
  readonly port?: number | undefined
}

/** A Node request as a Web `Request` whose `signal` aborts when the client closes the connection before the response ends. */
const toWebRequest = (req: http.IncomingMessage, res: http.ServerResponse): Request => {
  const abort = new AbortController()
  res.once("close", () => {
    if (!res.writableFinished) abort.abort()
  })
  const headers = new Headers()
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!)
  const method = req.method ?? "GET"
  const body = method === "GET" || method === "HEAD" ? undefined : (Readable.toWeb(req) as ReadableStream<Uint8Array>)
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
    method,
    headers,
    body,
    signal: abort.signal,
    ...(body === undefined ? {} : { duplex: "half" })
  } as RequestInit)
}

/** Write a Web `Response` to a Node response (streamed chunk by chunk, so server-sent events flow as produced). */
const writeWebResponse = async (response: Response, res: http.ServerResponse): Promise<void> => {
  res.statusCode = response.status
  for (const [k, v] of response.headers) if (k !== "set-cookie") res.setHeader(k, v)
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) res.setHeader("set-cookie", cookies)
  if (response.body === null) {
    res.end()
    return
  }
  res.flushHeaders()
  await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>), res)
}

/**
 * Start serving `app` (run once per request) and return where it listens. Fails with `ServerStartError` for a port
 * outside [0, 65535] or when the address cannot be bound (in use, not permitted).
 *
 * @category servers
 * @since 0.1.0
 */
export const listen = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  options: ListenOptions = {}
): Effect.Effect<Listening, ServerStartError, Scope.Scope | Exclude<R, HttpServerRequest.HttpServerRequest | Scope.Scope>> =>
  Effect.gen(function*() {
    const host = options.host ?? "127.0.0.1"
    const port = options.port ?? 0
    if (!Number.isSafeInteger(port) || port < 0 || port > 65535) {
      return yield* new ServerStartError({ host, port, reason: "the port must be an integer in [0, 65535]" })
    }
    const context = yield* Effect.context<Exclude<R, HttpServerRequest.HttpServerRequest | Scope.Scope>>()
    // `app` needs only `R` (in `context`), the request and the per-request scope, which the handler provides
    const handler = HttpEffect.toWebHandlerWith(context)(app as Effect.Effect<HttpServerResponse.HttpServerResponse, E, never>) as (request: Request) => Promise<Response>
    const server = http.createServer((req, res) => {
      handler(toWebRequest(req, res)).then((response) => writeWebResponse(response, res)).catch(() => {
        if (!res.headersSent) res.statusCode = 500
        res.end()
      })
    })
    yield* Effect.acquireRelease(
      Effect.callback<void, ServerStartError>((resume) => {
        const onError = (e: Error) => resume(Effect.fail(new ServerStartError({ host, port, reason: causeMessage(e) })))
        server.once("error", onError)
        server.listen(port, host, () => {
          server.off("error", onError)
          resume(Effect.void)
        })
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    const address = server.address() as AddressInfo
    const urlHost = address.address.includes(":") ? `[${address.address}]` : address.address
    return { host: address.address, port: address.port, url: `http://${urlHost}:${address.port}` }
  })

/**
 * Succeeds when the client closes its connection before the response was written (the request's abort signal;
 * never for a request that was not served by {@link listen}).
 *
 * @category requests
 * @since 0.1.0
 */
export const clientGone = (req: HttpServerRequest.HttpServerRequest): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const signal = (req.source as { readonly signal?: AbortSignal | undefined }).signal
    if (signal === undefined) return
    if (signal.aborted) {
      resume(Effect.void)
      return
    }
    const onAbort = () => resume(Effect.void)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

const causeMessage = (e: unknown): string => {
  const c = (e as { cause?: unknown }).cause
  return c instanceof Error ? c.message : e instanceof Error ? e.message : String(e)
}

/** A JSON response. @category responses @since 0.1.0 */
export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(JSON.stringify(body), { status, contentType: "application/json", headers })

/** An OpenAI-style error response `{ error: { message, type, code } }`. @category responses @since 0.1.0 */
export const openAiError = (status: number, message: string, type: string, code: string | null = null): HttpServerResponse.HttpServerResponse =>
  json({ error: { message, type, param: null, code } }, status)

/** Why a request body could not be read. @category models @since 0.1.0 */
export type BodyResult = { readonly _tag: "Ok"; readonly text: string } | { readonly _tag: "TooLarge"; readonly bytes: number } | { readonly _tag: "Broken"; readonly reason: string }

/**
 * Read a request body as UTF-8, stopping as soon as it exceeds `maxBytes` (a `content-length` over the limit is
 * refused before reading).
 *
 * @category requests
 * @since 0.1.0
 */
export const readBody = (request: HttpServerRequest.HttpServerRequest, maxBytes: number): Effect.Effect<BodyResult> => {
  const declared = Number(request.headers["content-length"])
  if (Number.isFinite(declared) && declared > maxBytes) return Effect.succeed({ _tag: "TooLarge", bytes: declared })
  const chunks: Array<Uint8Array> = []
  let total = 0
  return request.stream.pipe(
    Stream.runForEachWhile((chunk) =>
      Effect.sync(() => {
        total += chunk.length
        if (total > maxBytes) return false
        chunks.push(chunk)
        return true
      })
    ),
    Effect.map((): BodyResult => (total > maxBytes ? { _tag: "TooLarge", bytes: total } : { _tag: "Ok", text: Buffer.concat(chunks).toString("utf8") })),
    Effect.catch((e) => Effect.succeed<BodyResult>({ _tag: "Broken", reason: String((e as { message?: unknown }).message ?? e) }))
  )
}
