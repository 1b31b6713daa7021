/**
 * `autodidact report --runs runs --out report.html [--format html|png] [--smoothing 0.6]`: write one
 * self-contained report (data, uPlot and scripts inlined) or a PNG of it rendered by Chromium.
 * @since 0.1.0
 */
import { writeReport } from "@autodidact/dashboard"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { jsonFlag } from "../Flags.js"
import * as Output from "../Output.js"

/** `autodidact report` */
export const reportCommand = Command.make(
  "report",
  {
    runs: Flag.String("runs").pipe(Flag.withDefault("runs"), Flag.withDescription("Runs directory to report on")),
    out: Flag.String("out").pipe(Flag.withDefault("report.html"), Flag.withDescription("File to write")),
    format: Flag.Literals("format", ["html", "png"]).pipe(Flag.withDefault("html" as const), Flag.withDescription("html (self-contained) or png (needs Chromium)")),
    smoothing: Flag.Finite("smoothing").pipe(Flag.withDefault(0.6), Flag.withDescription("EMA weight of the curves, in [0, 1)")),
    json: jsonFlag
  },
  (config) =>
    Effect.gen(function* () {
      const out = yield* writeReport({ runsDir: config.runs, out: config.out, format: config.format, smoothing: config.smoothing })
      Output.printSummary(config.json, "Report", { out, format: config.format, runs: config.runs })
    })
).pipe(Command.withDescription("Write a self-contained HTML (or PNG) report of a runs directory"))
