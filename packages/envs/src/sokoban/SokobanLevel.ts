/**
 * Sokoban levels: a compact typed-array model and a loader for the Boxoban / XSB text format.
 *
 * A level is a `height × width` grid addressed by row-major cell index `row * width + col`; walls are a
 * `Uint8Array` mask, goals and boxes are sorted `Int32Array`s of cell indices, the player is one cell index.
 *
 * **When to use**
 * - {@link parseLevels} / {@link parseLevelsSync} to read the Boxoban files (Guez et al. 2018) or any XSB text;
 *   {@link renderLevel} / {@link formatLevels} to write them back. Reading a level file from disk (`loadLevelFile`,
 *   `readLevelFile`) needs Node's `fs` and lives in `@autodidact/envs/node` (its `SokobanLevel` namespace is this
 *   one plus the file loaders).
 *
 * **Details**
 * - Format (Boxoban, `deepmind/boxoban-levels`): a header line `; N` starts each level, then `height` rows of
 *   `width` characters: `#` wall, `@` player, `$` box, `.` goal, ` ` floor; the standard XSB characters `*` (box on
 *   goal) and `+` (player on goal) are accepted too (and `-`/`_` as floor). Levels are separated by blank lines;
 *   a block of rows without a header is accepted as a level whose id is its 0-based index.
 * - Validation: every row must have exactly `width` characters and every level exactly `height` rows (defaults
 *   10 × 10, the Boxoban size); exactly one player; at least one box; as many boxes as goals; no other characters.
 *   Any violation fails with a {@link LevelParseError} naming the level, the 1-based line and column and the
 *   offending character or value.
 *
 * **Gotchas**
 * - Trailing spaces count toward a row's width; a row of only spaces is read as a level separator.
 *
 * @example
 * ```ts
 * import { SokobanLevel } from "@autodidact/envs"
 * const [level] = SokobanLevel.parseLevelsSync("; 0\n#####\n#@$.#\n#####\n", { width: 5, height: 3 })
 * level.boxes // Int32Array [7]
 * ```
 * @see https://github.com/deepmind/boxoban-levels (Boxoban levels; Guez et al. 2018, "An investigation of
 *   model-free planning", arXiv:1901.03559)
 * @see https://github.com/mpSchrader/gym-sokoban (gym-sokoban by Max-Philipp Schrader: room codes and rules)
 * @see http://sokobano.de/wiki/index.php?title=Level_format (XSB level format)
 * @category models
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"

/**
 * A Sokoban level (initial state). Cells are row-major indices in `[0, width * height)`.
 * @category models
 */
export interface Level {
  /** The level's id: the text after `;` in its header, or its 0-based index when it has none. */
  readonly id: string
  /** Number of columns (≥ 1). */
  readonly width: number
  /** Number of rows (≥ 1). */
  readonly height: number
  /** `Uint8Array(width * height)`: 1 where a wall is, 0 elsewhere. */
  readonly walls: Uint8Array
  /** Goal cells, sorted ascending, length = number of boxes. */
  readonly goals: Int32Array
  /** Box cells, sorted ascending, length ≥ 1. */
  readonly boxes: Int32Array
  /** The player's cell. */
  readonly player: number
}

/**
 * A level text that does not describe valid levels. `line` and `column` are 1-based positions in the parsed text
 * (`column` is absent when the whole line or level is at fault); `value` is the offending character or value.
 * @category errors
 */
export class LevelParseError extends Schema.TaggedError<LevelParseError>()("LevelParseError", {
  source: Schema.String,
  level: Schema.Number,
  id: Schema.String,
  line: Schema.Number,
  column: Schema.optional(Schema.Number),
  value: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    const at = this.column === undefined ? `line ${this.line}` : `line ${this.line}, column ${this.column}`
    return `${this.source}: level ${this.id} (#${this.level}), ${at}: ${this.reason} (${JSON.stringify(this.value)})`
  }
}

/**
 * A level file that cannot be read (missing, unreadable); thrown by the file loaders of `@autodidact/envs/node`.
 * @category errors
 */
export class LevelFileError extends Schema.TaggedError<LevelFileError>()("LevelFileError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Cannot read level file ${this.path}: ${this.reason}`
  }
}

/** Options of {@link parseLevels}. */
export interface ParseOptions {
  /** Name of the text's origin for error messages (default `"<text>"`). */
  readonly source?: string | undefined
  /** Required row length; `"any"` accepts rows of any length, padding short rows with floor. Default 10. */
  readonly width?: number | "any" | undefined
  /** Required number of rows; `"any"` accepts any number. Default 10. */
  readonly height?: number | "any" | undefined
}

interface Block {
  readonly id: string
  readonly headerLine: number
  readonly firstLine: number
  readonly rows: Array<string>
}

const cellCode = (ch: string): number => {
  switch (ch) {
    case "#":
      return 0
    case " ":
    case "-":
    case "_":
      return 1
    case ".":
      return 2
    case "*":
      return 3
    case "$":
      return 4
    case "@":
      return 5
    case "+":
      return 6
    default:
      return -1
  }
}

/**
 * Parse one or more levels; the core of {@link parseLevels}, returning either the levels or the first error.
 */
const parse = (text: string, options: ParseOptions): Array<Level> | LevelParseError => {
  const source = options.source ?? "<text>"
  const wantW = options.width ?? 10
  const wantH = options.height ?? 10
  const lines = text.split(/\r?\n/)
  const blocks: Array<Block> = []
  let current: Block | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.startsWith(";")) {
      current = { id: line.slice(1).trim(), headerLine: i + 1, firstLine: i + 2, rows: [] }
      blocks.push(current)
    } else if (line.trim() === "") {
      if (current !== undefined && current.rows.length > 0) current = undefined
    } else {
      if (current === undefined) {
        current = { id: String(blocks.length), headerLine: i + 1, firstLine: i + 1, rows: [] }
        blocks.push(current)
      }
      current.rows.push(line)
    }
  }
  const levels: Array<Level> = []
  for (let b = 0; b < blocks.length; b++) {
    const block = blocks[b]!
    const fail = (line: number, value: string, reason: string, column?: number) =>
      new LevelParseError({
        source,
        level: b,
        id: block.id,
        line,
        ...(column === undefined ? {} : { column }),
        value,
        reason
      })
    const rows = block.rows
    if (rows.length === 0) return fail(block.headerLine, "", "level has no rows")
    const height = rows.length
    if (wantH !== "any" && height !== wantH) {
      // too many rows: point at the first extra row; too few: at the last row there is
      const line = height > wantH ? block.firstLine + wantH : block.firstLine + height - 1
      return fail(line, String(height), `level has ${height} rows, expected ${wantH}`)
    }
    let width = 0
    for (const r of rows) width = Math.max(width, r.length)
    if (wantW !== "any") {
      for (let r = 0; r < height; r++) {
        if (rows[r]!.length !== wantW) {
          return fail(block.firstLine + r, rows[r]!, `row has ${rows[r]!.length} characters, expected ${wantW}`)
        }
      }
      width = wantW
    }
    const walls = new Uint8Array(width * height)
    const goals: Array<number> = []
    const boxes: Array<number> = []
    let player = -1
    for (let r = 0; r < height; r++) {
      const row = rows[r]!
      for (let c = 0; c < width; c++) {
        const ch = c < row.length ? row[c]! : " "
        const code = cellCode(ch)
        const cell = r * width + c
        if (code < 0) return fail(block.firstLine + r, ch, "unknown character", c + 1)
        if (code === 0) walls[cell] = 1
        if (code === 2 || code === 3 || code === 6) goals.push(cell)
        if (code === 3 || code === 4) boxes.push(cell)
        if (code === 5 || code === 6) {
          if (player >= 0) return fail(block.firstLine + r, ch, "more than one player", c + 1)
          player = cell
        }
      }
    }
    if (player < 0) return fail(block.headerLine, "", "level has no player")
    if (boxes.length === 0) return fail(block.headerLine, "", "level has no boxes")
    if (boxes.length !== goals.length) {
      return fail(block.headerLine, `${boxes.length} boxes, ${goals.length} goals`, "number of boxes differs from number of goals")
    }
    levels.push({
      id: block.id,
      width,
      height,
      walls,
      goals: Int32Array.from(goals),
      boxes: Int32Array.from(boxes),
      player
    })
  }
  return levels
}

/**
 * Parse every level of a Boxoban/XSB text.
 *
 * @param text - the file's content (LF or CRLF line ends).
 * @param options - `source` names the text in errors; `width`/`height` are the required size (default 10 × 10).
 * @returns the levels in file order (an empty array for a text without levels).
 * @throws never; fails with {@link LevelParseError} at the first invalid level (wrong width/height, no player or
 *   several, boxes ≠ goals, no boxes, unknown character).
 * @category parsing
 */
export const parseLevels = (text: string, options: ParseOptions = {}): Effect.Effect<Array<Level>, LevelParseError> =>
  Effect.suspend(() => {
    const result = parse(text, options)
    return result instanceof LevelParseError ? Effect.fail(result) : Effect.succeed(result)
  })

/**
 * {@link parseLevels} for synchronous code.
 * @throws LevelParseError at the first invalid level.
 * @category parsing
 */
export const parseLevelsSync = (text: string, options: ParseOptions = {}): Array<Level> => {
  const result = parse(text, options)
  if (result instanceof LevelParseError) throw result
  return result
}

/**
 * Build a level from parts (validated like a parsed one).
 * @param rows - the level's rows in the text format, e.g. `["#####", "#@$.#", "#####"]`; sizes are taken from them.
 * @throws LevelParseError as {@link parseLevelsSync}.
 * @category constructors
 */
export const fromRows = (rows: ReadonlyArray<string>, id = "0"): Level =>
  parseLevelsSync(`; ${id}\n${rows.join("\n")}\n`, { width: "any", height: "any" })[0]!

const CHARS = ["#", " ", ".", "*", "$", "@", "+"] as const

/**
 * Draw a level (or a state of it: `boxes`/`player` override the level's) as `height` rows joined by `\n`, in the
 * characters of the level format (`*` box on goal, `+` player on goal). Parsing the result gives the level back.
 * @category rendering
 */
export const renderLevel = (
  level: Level,
  state?: { readonly boxes: ArrayLike<number>; readonly player: number }
): string => {
  const { height, width } = level
  const codes = new Uint8Array(width * height)
  for (let i = 0; i < codes.length; i++) codes[i] = level.walls[i] === 1 ? 0 : 1
  for (let i = 0; i < level.goals.length; i++) codes[level.goals[i]!] = 2
  const boxes = state?.boxes ?? level.boxes
  for (let i = 0; i < boxes.length; i++) codes[boxes[i]!] = codes[boxes[i]!] === 2 ? 3 : 4
  const player = state?.player ?? level.player
  codes[player] = codes[player] === 2 ? 6 : 5
  const rows: Array<string> = []
  for (let r = 0; r < height; r++) {
    let s = ""
    for (let c = 0; c < width; c++) s += CHARS[codes[r * width + c]!]
    rows.push(s)
  }
  return rows.join("\n")
}

/**
 * Write levels in the Boxoban file format: `; id`, the rows, a blank line, for each level.
 * `formatLevels(parseLevelsSync(text))` equals a Boxoban file's text.
 * @category rendering
 */
export const formatLevels = (levels: ReadonlyArray<Level>): string =>
  levels.map((l) => `; ${l.id}\n${renderLevel(l)}\n\n`).join("")
