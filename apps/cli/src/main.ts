/**
 * Entry point of the `autodidact` command (run by `bin/autodidact.js`).
 *
 * Failures are printed to stderr as one line, `error: <Tag>: <message>` (the tagged error names the offending value),
 * and the process exits with code 1; defects (bugs) print their cause in full. Parse errors and help are rendered by
 * `effect/cli` itself. Ctrl-C interrupts the running command, whose scopes close (vector envs, files). Log lines
 * (warnings such as a missing NumPy baseline) go to stderr, so that stdout holds only results (`--json`).
 * @since 0.1.0
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Effect, Layer, Logger } from "effect"
import { Command } from "effect/cli"
import { isCliError } from "effect/cli/CliError"
import { app, version } from "./App.js"

const report = (cause: Cause.Cause<unknown>) =>
  Effect.sync(() => {
    if (Cause.hasInterruptsOnly(cause)) return
    const error = Cause.squash(cause)
    if (isCliError(error)) return // already shown by effect/cli
    const tag = typeof error === "object" && error !== null && "_tag" in error ? `${String(error._tag)}: ` : ""
    const message = error instanceof Error ? error.message : String(error)
    process.stderr.write(`error: ${tag}${message}\n`)
    if (!Cause.hasFails(cause) && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`)
  })

/** Every log line to stderr, in Effect's simple format. */
const StderrLogger = Logger.layer([Logger.withConsoleError(Logger.formatSimple)])

Command.run(app, { version }).pipe(
  Effect.tapCause(report),
  Effect.provide(Layer.mergeAll(NodeServices.layer, StderrLogger)),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
