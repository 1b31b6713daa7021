/**
 * Serve one request-handling effect with effect's `HttpServer` on a Node `http.Server` (`NodeHttpServer.layer`),
 * as a scoped resource: listening when it succeeds, closed when the scope closes. Shared by the gateway and the
 * environment server; small JSON/error helpers for OpenAI-style answers live here too.
 *
 * @since 0.1.0
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, type Scope, Stream } from "effect"
import { HttpServer, HttpServerResponse } from "effect/http"
import type { HttpServerRequest } from "effect/http"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
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

/**
 * Start serving `app` (run once per request) and return where it listens.
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
    let server: http.Server | undefined
    const ctx = yield* Layer.build(NodeHttpServer.layer(() => (server = http.createServer()), { host, port })).pipe(
      Effect.mapError((e) => new ServerStartError({ host, port, reason: causeMessage(e) }))
    )
    yield* HttpServer.serveEffect()(app).pipe(Effect.provideContext(ctx)) as Effect.Effect<void, never, Scope.Scope>
    const address = server!.address() as AddressInfo
    const urlHost = address.address.includes(":") ? `[${address.address}]` : address.address
    return { host: address.address, port: address.port, url: `http://${urlHost}:${address.port}` }
  }) as any

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
