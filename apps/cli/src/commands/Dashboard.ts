/**
 * `autodidact dashboard [--runs runs] [--port 6060] [--host 127.0.0.1]`: serve the run dashboard (runs table,
 * learning curves, live updates, episode viewer) until Ctrl-C.
 * @since 0.1.0
 */
import { serveForever } from "@autodidact/dashboard"
import { Command, Flag } from "effect/cli"

/** `autodidact dashboard` */
export const dashboardCommand = Command.make(
  "dashboard",
  {
    runs: Flag.String("runs").pipe(Flag.withDefault("runs"), Flag.withDescription("Runs directory to show (each run: config.json + metrics.jsonl)")),
    port: Flag.Int("port").pipe(Flag.withDefault(6060), Flag.withDescription("Port to listen on (0: any free port)")),
    host: Flag.String("host").pipe(Flag.withDefault("127.0.0.1"), Flag.withDescription("Address to bind (no authentication: keep it local)"))
  },
  (config) => serveForever({ runsDir: config.runs, port: config.port, host: config.host })
).pipe(Command.withDescription("Serve a local web dashboard over a runs directory (live updates)"))
