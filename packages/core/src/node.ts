/**
 * `@autodidact/core/node`: the parts of core that need Node's file system (`node:fs`, `node:path`): atomic
 * file writes for checkpoints, stores and skill libraries. The main entry `@autodidact/core` has no Node built-in
 * in its import graph and bundles for browsers.
 * @since 0.1.0
 */
export * as AtomicFile from "./AtomicFile.js"
