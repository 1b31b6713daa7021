/**
 * `@autodidact/core/node`: the parts of core that need Node's file system (`node:fs`, `node:path`): atomic
 * file writes for checkpoints, stores and skill libraries, and the run directory every learning command writes
 * (`config.json`, `metrics.jsonl`, `checkpoints/`). The main entry `@autodidact/core` has no Node built-in in its
 * import graph and bundles for browsers.
 * @since 0.1.0
 */
export * as AtomicFile from "./AtomicFile.js"
export * as RunDirectory from "./RunDirectory.js"
export { ResumeConfigError, RunDirectoryError } from "./RunDirectory.js"
