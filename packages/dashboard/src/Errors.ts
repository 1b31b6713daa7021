/**
 * Errors of the dashboard: one tagged error with a `reason` for the data layer and server, and one for a missing
 * browser when a PNG report is asked for.
 * @since 0.0.0
 */
import { Schema } from "effect"

/** A runs directory, run or file that cannot be read, or a server that cannot listen. */
export class DashboardError extends Schema.TaggedError<DashboardError>()("DashboardError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.path}: ${this.reason}`
  }
}

/** `--format png` needs Chromium (Debian: `apt-get install chromium`) and `playwright-core`. */
export class ChromiumNotFoundError extends Schema.TaggedError<ChromiumNotFoundError>()("ChromiumNotFoundError", {
  executablePath: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `PNG reports need Chromium at ${this.executablePath} (apt-get install -y chromium) and playwright-core: ${this.reason}`
  }
}
