/**
 * Checks of the files a command reads (`--levels`, `--spec`, `--source`, `--resume`, `--library`, `--from`): each
 * must exist, be a regular file and hold something other than white space; a file that is empty, or that parses to
 * nothing usable (a level file without levels, an export source without episodes), fails with
 * {@link InputFileError} naming the flag and the path, instead of a run that does nothing and exits 0. The
 * content's schema is checked by the command's own reader (e.g. `LevelParseError`, `SkillInputError`).
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import * as fs from "node:fs"

/** A file given to a flag that is missing, not a file, empty, or holds nothing usable. */
export class InputFileError extends Schema.TaggedError<InputFileError>()("InputFileError", {
  flag: Schema.String,
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `--${this.flag} ${this.path}: ${this.reason}`
  }
}

/** Fails with {@link InputFileError} unless `file` is a regular file holding more than white space. */
export const requireNonEmptyFile = (flag: string, file: string): Effect.Effect<void, InputFileError> =>
  Effect.suspend(() => {
    let stat: fs.Stats
    try {
      stat = fs.statSync(file)
    } catch {
      return Effect.fail(new InputFileError({ flag, path: file, reason: "does not exist" }))
    }
    if (!stat.isFile()) return Effect.fail(new InputFileError({ flag, path: file, reason: "is not a file" }))
    if (stat.size === 0) return Effect.fail(new InputFileError({ flag, path: file, reason: "is empty" }))
    // a white-space-only file: read at most the first 64 KiB to tell (larger files have content)
    if (stat.size <= 65_536 && fs.readFileSync(file, "utf8").trim().length === 0) {
      return Effect.fail(new InputFileError({ flag, path: file, reason: "holds only white space" }))
    }
    return Effect.void
  })

/** Fails with {@link InputFileError} when `items` is empty (`what`: e.g. "levels", "episodes"). */
export const requireSome = <A>(flag: string, file: string, items: ReadonlyArray<A>, what: string): Effect.Effect<ReadonlyArray<A>, InputFileError> =>
  items.length > 0 ? Effect.succeed(items) : Effect.fail(new InputFileError({ flag, path: file, reason: `holds no ${what}` }))
