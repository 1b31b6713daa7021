/**
 * `autodidact dashboard [--runs runs] [--port 6060] [--host 127.0.0.1]`: serve the run dashboard (runs table,
 * learning curves, live updates, episode viewer) until Ctrl-C.
 * @since 0.1.0
 */
import { serveForever } from "@autodidact/dashboard"
import type { Effect } from "effect"
import type { Configs } from "../Commands.js"

/** `autodidact dashboard` */
/** `autodidact dashboard` */
export const handleDashboard = (config: Configs["dashboard"]): Effect.Effect<void, unknown> => serveForever({ runsDir: config.runs, port: config.port, host: config.host })
