/**
 * `@autodidact/dashboard`: a local web dashboard over run directories and self-contained reports.
 * @since 0.0.0
 */
export * from "./Errors.js"
export * as Library from "./Library.js"
export * as Metrics from "./Metrics.js"
export * as Paths from "./Paths.js"
export * as Report from "./Report.js"
export * as Runs from "./Runs.js"
export * as Series from "./Series.js"
export * as Server from "./Server.js"
export { serve, serveForever } from "./Server.js"
export { writeReport } from "./Report.js"
