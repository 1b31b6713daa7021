/** Paths the CLI resolves relative to the repository root (the workspace that holds apps/cli). */
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The workspace root: two levels above apps/cli. */
export const workspaceRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** `../shared/data` beside the workspace root (reference data that is never copied into the project). */
export const sharedData = (...parts: ReadonlyArray<string>): string =>
  path.resolve(workspaceRoot, "..", "shared", "data", ...parts)
