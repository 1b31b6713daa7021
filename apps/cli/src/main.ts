/**
 * Entry point of the `autodidact` command (run by `bin/autodidact.js`; bundled with esbuild into
 * `dist/autodidact.js` at build time).
 *
 * Start-up loads only the command definitions (`Commands.ts`) and `effect/cli`: `--help`, `--version` and parse
 * errors never load a command's implementation. The exception is the list of advantage estimators that `train --algo`
 * and `compare --algos` accept: a command line naming `train` or `compare` first reads it from the registry of
 * `@autodidact/optim` (through `Exec.ts`), so that an estimator registered there (one written by
 * `nx g @autodidact/tools:estimator`) is offered, listed by `--help` and checked while parsing; should the package
 * fail to load, the built-in names are offered and the command reports the failure when it runs. When a command
 * runs, its module is imported from `Exec.ts`, which
 * is compiled by `tsc` and never bundled: the command then runs in that module's Effect runtime (the `effect` the
 * packages use), and only plain values (the parsed flags, the outcome) cross between the two.
 *
 * Failures are printed to stderr as one line, `error: <Tag>: <message>` (the tagged error names the offending value),
 * and the process exits with code 1; defects (bugs) print their cause in full. Parse errors and help are rendered by
 * `effect/cli` itself. Ctrl-C interrupts the running command, whose scopes close (vector envs, files). Log lines go to
 * stderr, so that stdout holds only results (`--json`).
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node-shared/NodeRuntime"
import { Cause, Effect, Layer, Logger } from "effect"
import { Command } from "effect/cli"
import { isCliError } from "effect/cli/CliError"
import { makeApp, type Run, version } from "./Commands.js"
import * as NodeServices from "./NodeServices.js"

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

/** Run a leaf command through `Exec.ts` (loaded now), waiting on interruption until its scopes have closed. */
const run: Run = (command, config) =>
  Effect.callback<void, unknown>((resume) => {
    const controller = new AbortController()
    const settled = import("./Exec.js")
      .then((exec) => exec.runDetached(command, config, controller.signal))
      .then(
        (outcome) => {
          if (outcome._tag === "Success" || outcome._tag === "Interrupted") resume(Effect.void)
          else if (outcome._tag === "Failure") resume(Effect.fail(outcome.error))
          else resume(Effect.die(outcome.defect))
        },
        (defect: unknown) => resume(Effect.die(defect))
      )
    return Effect.promise(() => {
      controller.abort()
      return settled
    })
  })

/** The estimators `train` / `compare` offer, read from the registry only when the command line names one of them. */
const estimators = async (argv: ReadonlyArray<string>): Promise<ReadonlyArray<string> | undefined> => {
  if (!argv.includes("train") && !argv.includes("compare")) return undefined
  try {
    return await import("./Exec.js").then((exec) => exec.textEstimators())
  } catch {
    return undefined
  }
}

/** Every log line to stderr, in Effect's simple format. */
const StderrLogger = Logger.layer([Logger.withConsoleError(Logger.formatSimple)])

Command.run(makeApp(run, { estimators: await estimators(process.argv.slice(2)) }), { version }).pipe(
  Effect.tapCause(report),
  Effect.provide(Layer.mergeAll(NodeServices.layer, StderrLogger)),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
