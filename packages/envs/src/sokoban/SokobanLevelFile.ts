/**
 * Sokoban level files read from disk with Node's `fs`: everything of {@link SokobanLevel} (parsing from a string,
 * rendering, the error classes) plus {@link readLevelFile} (Promise) and {@link loadLevelFile} (Effect). Public as
 * the `SokobanLevel` namespace of `@autodidact/envs/node`; the main entry's `SokobanLevel` has no file access, so it
 * bundles for browsers (fetch the text yourself and call `parseLevelsSync`).
 *
 * @example
 * ```ts
 * import { SokobanLevel } from "@autodidact/envs/node"
 * const levels = await SokobanLevel.readLevelFile("boxoban/unfiltered/valid/000.txt") // 1000 levels, 10 × 10
 * ```
 * @see https://github.com/deepmind/boxoban-levels (Boxoban level files)
 * @category parsing
 * @since 0.2.0
 */
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { type Level, LevelFileError, LevelParseError, parseLevelsSync, type ParseOptions } from "./SokobanLevel.js"

export * from "./SokobanLevel.js"

/**
 * Read a level file (UTF-8) and parse every level in it; `source` in errors defaults to the path.
 * @param path - the file's path.
 * @param options - as {@link parseLevelsSync} (`width`/`height` default 10 × 10, the Boxoban size).
 * @returns the levels in file order.
 * @throws LevelFileError (rejects) when the file cannot be read; LevelParseError at the first invalid level.
 * @category parsing
 */
export const readLevelFile = async (path: string, options: ParseOptions = {}): Promise<Array<Level>> => {
  let text: string
  try {
    text = await readFile(path, "utf8")
  } catch (e) {
    throw new LevelFileError({ path, reason: e instanceof Error ? e.message : String(e) })
  }
  return parseLevelsSync(text, { ...options, source: options.source ?? path })
}

/**
 * {@link readLevelFile} as an Effect: fails with {@link LevelFileError} when the file cannot be read,
 * {@link LevelParseError} when it is invalid.
 * @category parsing
 */
export const loadLevelFile = (
  path: string,
  options: ParseOptions = {}
): Effect.Effect<Array<Level>, LevelFileError | LevelParseError> =>
  Effect.tryPromise({
    try: () => readLevelFile(path, options),
    catch: (e) =>
      e instanceof LevelFileError || e instanceof LevelParseError
        ? e
        : new LevelFileError({ path, reason: e instanceof Error ? e.message : String(e) })
  })
