/**
 * The one containment check of the dashboard: every file it reads on behalf of a request (a run directory, a
 * trajectory file, a skill record, a memory summary, a static UI file) goes through {@link realInside}, so a name
 * from a URL can never reach a file outside the folder it was asked in, whether by `..`, an absolute path, a
 * backslash, a NUL byte, or a symlink whose target lies elsewhere.
 *
 * *Details*: the name is checked lexically first (no NUL, no backslash, not absolute, no `.`/`..`/empty segments),
 * then both the base and the joined path are resolved with `fs.realpathSync`, and the real path must lie strictly
 * inside the real base. A missing file is `undefined` like a refused one: callers answer 404 for both, so a
 * request cannot probe what exists outside.
 *
 * @example
 * import { Paths } from "@autodidact/dashboard"
 * const file = Paths.realInside("runs/a", "trajectories/eval.jsonl") // undefined if it leaves runs/a
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * Whether `name` is a plain relative path: `/`-separated segments, none empty, `.` or `..`, no backslash, no NUL
 * byte, not absolute (also not a Windows drive path).
 */
export const isPlainRelative = (name: string): boolean =>
  name.length > 0 &&
  !name.includes("\0") &&
  !name.includes("\\") &&
  !path.isAbsolute(name) &&
  !/^[A-Za-z]:/.test(name) &&
  !name.split("/").some((s) => s === "" || s === "." || s === "..")

/**
 * The real path (symlinks resolved) of `name` under `base`, or `undefined` when `name` is not a plain relative path
 * ({@link isPlainRelative}), when it does not exist, or when its real path is not strictly inside the real path of
 * `base` (a symlink leading out). Synchronous (two `realpath` calls).
 */
export const realInside = (base: string, name: string): string | undefined => {
  if (!isPlainRelative(name)) return undefined
  let baseReal: string
  let real: string
  try {
    baseReal = fs.realpathSync(base)
    real = fs.realpathSync(path.join(base, name))
  } catch {
    return undefined
  }
  const rel = path.relative(baseReal, real)
  if (rel === "" || rel === ".." || rel.startsWith(".." + path.sep) || path.isAbsolute(rel)) return undefined
  return real
}
