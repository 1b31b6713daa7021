/**
 * `autodidact report --runs runs --out report.html [--format html|png] [--smoothing 0.6]`: write one
 * self-contained report (data, uPlot and scripts inlined) or a PNG of it rendered by Chromium.
 * @since 0.1.0
 */
import { writeReport } from "@autodidact/dashboard"
import { Effect } from "effect"
import * as Output from "../Output.js"
import type { Configs } from "../Commands.js"

/** `autodidact report` */
/** `autodidact report` */
export const handleReport = (config: Configs["report"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      const out = yield* writeReport({ runsDir: config.runs, out: config.out, format: config.format, smoothing: config.smoothing })
      Output.printSummary(config.json, "Report", { out, format: config.format, runs: config.runs })
    })
