/**
 * Optional peer dependencies: the heavy or native backends (ONNX Runtime, the TF.js backends, PGlite, `@effect/sql-pg`,
 * QuickJS, HiGHS, tokenizers) that a package reaches only through its own subpath entry point, so that a user pays
 * (in megabytes and start-up time) only for the entry points they import.
 *
 * *When to use*: in the module of a subpath entry point that needs a backend, load it with {@link load} (at the
 * entry point's top level, or at first use) instead of a static `import`. When the user has not installed the
 * backend, loading fails with {@link MissingPeerError}, which names the npm package to install and the entry point
 * that needs it, instead of Node's `ERR_MODULE_NOT_FOUND` from somewhere inside a dependency.
 *
 * @example
 * ```ts
 * // packages/kernels/src/ort.ts
 * const ort = await OptionalPeer.load("onnxruntime-node", "@autodidact/kernels/ort", () => import("onnxruntime-node"))
 * ```
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * An entry point was imported (or a feature used) whose optional peer dependency is not installed.
 * `install` is the command that fixes it.
 */
export class MissingPeerError extends Schema.TaggedError<MissingPeerError>()("MissingPeerError", {
  /** The npm package that is missing, e.g. `"onnxruntime-node"`. */
  peer: Schema.String,
  /** What needs it, e.g. `"@autodidact/kernels/ort"`. */
  entryPoint: Schema.String,
  /** The command that installs it, e.g. `"npm install onnxruntime-node"`. */
  install: Schema.String
}) {
  override get message() {
    return `${this.entryPoint} needs the optional peer dependency ${this.peer}, which is not installed: ${this.install}`
  }
}

/**
 * Whether `error` is the module loader's "cannot find package `peer`" (Node's `ERR_MODULE_NOT_FOUND` /
 * `MODULE_NOT_FOUND`, or a bundler's "Cannot find module"), as opposed to an error thrown while the peer loads.
 */
export const isNotFound = (error: unknown, peer: string): boolean => {
  if (typeof error !== "object" || error === null) return false
  const message = String((error as { message?: unknown }).message ?? "")
  const match = /Cannot find (?:package|module) ['"]([^'"]+)['"]/.exec(message)
  if (match === null) return false
  const missing = match[1]!
  return missing === peer || missing.startsWith(`${peer}/`)
}

/**
 * Load the optional peer `peer` with `importer` (a dynamic `import(...)` written at the call site so bundlers see it).
 * Fails with {@link MissingPeerError} when `peer` is not installed; any other load error is rethrown as it is.
 * `version`, when given, is shown in the install command (`npm install onnxruntime-node@^1.30`).
 */
export const load = async <A>(
  peer: string,
  entryPoint: string,
  importer: () => Promise<A>,
  version?: string
): Promise<A> => {
  try {
    return await importer()
  } catch (error) {
    if (isNotFound(error, peer)) {
      throw new MissingPeerError({
        peer,
        entryPoint,
        install: `npm install ${version === undefined ? peer : `${peer}@${version}`}`
      })
    }
    throw error
  }
}
