// Test support: run an `autodidact` command line in this process (the command tree of src/index.ts with each
// command's handler), capturing what it writes to stdout and stderr, with the bin's exit-code contract (0 on
// success, 1 and an `error: <Tag>: <message>` line on a failure). One module load per test file instead of a child
// process (and a TypeScript compile through tsx) per command: the real bin is still spawned by the tests that are
// about the bin itself (start-up, signals, exit codes).
import { Cause, Effect, Exit, Layer, Logger } from "effect"
import { Command } from "effect/cli"
import { isCliError } from "effect/cli/CliError"
import { TestConsole } from "effect/testing"
import { format } from "node:util"
import { vi } from "vitest"
import { makeCliApp, version } from "../src/index.js"
import * as NodeServices from "../src/NodeServices.js"

/** What a command printed and how it ended, as `spawnSync` of the bin reports it. */
export interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  /** stdout's non-empty lines parsed as JSON (for `--json`). */
  readonly json: () => Array<Record<string, any>>
}

const logger = Logger.layer([Logger.withConsoleError(Logger.formatSimple)])

// one command at a time: stdout/stderr capture and the working directory are process-wide
let queue: Promise<unknown> = Promise.resolve()

/** Run `argv` (without the program name) in `cwd` (default: the current directory). */
export const cli = (argv: ReadonlyArray<string>, cwd?: string): Promise<Ran> => {
  const next = queue.then(() => runNow(argv, cwd))
  queue = next.catch(() => undefined)
  return next
}

const runNow = async (argv: ReadonlyArray<string>, cwd?: string): Promise<Ran> => {
  let stdout = ""
  let stderr = ""
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true))
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true))
  // vitest routes `console` to its reporter: commands that print with console.log are captured here too
  const log = vi.spyOn(console, "log").mockImplementation((...a: Array<unknown>) => void (stdout += `${format(...a)}\n`))
  const info = vi.spyOn(console, "info").mockImplementation((...a: Array<unknown>) => void (stdout += `${format(...a)}\n`))
  const error = vi.spyOn(console, "error").mockImplementation((...a: Array<unknown>) => void (stderr += `${format(...a)}\n`))
  const warn = vi.spyOn(console, "warn").mockImplementation((...a: Array<unknown>) => void (stderr += `${format(...a)}\n`))
  const previous = process.cwd()
  let code = 0
  try {
    if (cwd !== undefined) process.chdir(cwd)
    // effect/cli prints help and parse errors through the Console service: a test console, copied out afterwards
    const exit = await Effect.runPromiseExit(
      Effect.gen(function* () {
        // built per command line: an estimator a test registers (Advantages.register) is offered by train --algo
        const ended = yield* Effect.exit(Command.runWith(makeCliApp(), { version })(argv))
        stdout += (yield* TestConsole.logLines).map((l) => `${String(l)}\n`).join("")
        stderr += (yield* TestConsole.errorLines).map((l) => `${String(l)}\n`).join("")
        return yield* ended
      }).pipe(Effect.provide(TestConsole.layer), Effect.provide(Layer.mergeAll(NodeServices.layer, logger)))
    )
    if (Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)) {
      code = 1
      const error = Cause.squash(exit.cause)
      if (!isCliError(error)) {
        const tag = typeof error === "object" && error !== null && "_tag" in error ? `${String(error._tag)}: ` : ""
        stderr += `error: ${tag}${error instanceof Error ? error.message : String(error)}\n`
        if (!Cause.hasFails(exit.cause) && error instanceof Error && error.stack) stderr += `${error.stack}\n`
      }
    }
  } finally {
    process.chdir(previous)
    for (const spy of [out, err, log, info, error, warn]) spy.mockRestore()
  }
  const lines = stdout.split("\n").filter((l) => l.trim().length > 0)
  return { code, stdout, stderr, json: () => lines.map((l) => JSON.parse(l) as Record<string, any>) }
}
