/**
 * Flag helpers of the command definitions: every flag's help line ends with its default (or "required"), its unit
 * and, for numbers, its range, e.g. `Iterations to run (default: 1000 iterations; range: ≥ 1)`, so that `--help` of
 * every command shows them.
 *
 * **Numeric flags** are made with {@link int} / {@link finite} and a {@link Range} (or the shorthands
 * {@link positiveInt}, {@link nonNegativeInt}, {@link seed}, {@link port}): a value outside the range is refused while
 * parsing, before any command runs, with `effect/cli`'s typed `InvalidValue` error naming the flag, the value and the
 * range (`Invalid value for flag --max-nodes: "-5". Expected: an integer ≥ 1`), and the help line states the range.
 * @since 0.1.0
 */
import { Flag } from "effect/cli"

/**
 * The accepted values of a numeric flag: `min`/`max` are inclusive bounds, `above`/`below` exclusive ones; a bound
 * left out is open.
 */
export interface Range {
  readonly min?: number
  readonly max?: number
  readonly above?: number
  readonly below?: number
}

const show = (value: unknown): string =>
  typeof value === "number" && Number.isInteger(value) && Math.abs(value) >= 10_000 ? value.toLocaleString("en-US").replaceAll(",", "_") : String(value)

/** The range in words: `≥ 1`, `> 0`, `0 to 65535`, `≥ 0 and < 1`. */
export const describeRange = (r: Range): string => {
  const lower = r.min !== undefined ? `≥ ${show(r.min)}` : r.above !== undefined ? `> ${show(r.above)}` : undefined
  const upper = r.max !== undefined ? `≤ ${show(r.max)}` : r.below !== undefined ? `< ${show(r.below)}` : undefined
  if (r.min !== undefined && r.max !== undefined) return `${show(r.min)} to ${show(r.max)}`
  return lower !== undefined && upper !== undefined ? `${lower} and ${upper}` : lower ?? upper ?? "any"
}

/** Whether `x` lies in `r`. */
export const inRangeOf = (r: Range, x: number): boolean =>
  (r.min === undefined || x >= r.min) && (r.max === undefined || x <= r.max) && (r.above === undefined || x > r.above) && (r.below === undefined || x < r.below)

// the range of each numeric flag made here, for its help line (looked up by the description helpers below)
const ranges = new WeakMap<object, Range>()

const ranged = (self: Flag.Flag<number>, range: Range, what: string): Flag.Flag<number> => {
  const flag = self.pipe(Flag.filter((x: number) => inRangeOf(range, x), () => `${what} ${describeRange(range)}`))
  ranges.set(flag, range)
  return flag
}

/** An integer flag accepting only `range` (refused at parse time with a typed `InvalidValue` naming flag and value). */
export const int = (name: string, range: Range): Flag.Flag<number> => ranged(Flag.Int(name), range, "an integer")

/** A finite-number flag accepting only `range`. */
export const finite = (name: string, range: Range): Flag.Flag<number> => ranged(Flag.Finite(name), range, "a number")

/** An integer ≥ 1 (a count of things that must happen at least once: episodes, iterations, steps). */
export const positiveInt = (name: string): Flag.Flag<number> => int(name, { min: 1 })

/** An integer ≥ 0 (0 meaning none). */
export const nonNegativeInt = (name: string): Flag.Flag<number> => int(name, { min: 0 })

/** The range of every `--seed`: a 32-bit unsigned integer. */
export const seedRange: Range = { min: 0, max: 2 ** 32 - 1 }

/** `--seed`: an integer from 0 to 2^32 − 1. */
export const seed = (): Flag.Flag<number> => int("seed", seedRange)

/** A TCP port flag: 0 (any free port) to 65535. */
export const port = (name = "port"): Flag.Flag<number> => int(name, { min: 0, max: 65_535 })

const rangeText = (self: object): string => {
  const r = ranges.get(self)
  return r === undefined ? "" : `; range: ${describeRange(r)}`
}

/** `text (default: VALUE UNIT)`, with `more` (e.g. `; range: ≥ 1`) inside the parentheses. */
export const describeDefault = (text: string, value: unknown, unit?: string, more = ""): string =>
  `${text} (default: ${show(value)}${unit === undefined ? "" : ` ${unit}`}${more})`

/** A flag with a default: `Flag.withDefault(value)` and a description naming the value, its unit and its range. */
export const withDefault = <const B extends string | number | boolean>(value: B, text: string, unit?: string) =>
<A>(self: Flag.Flag<A>): Flag.Flag<A | B> =>
  self.pipe(
    Flag.withDefault(value),
    Flag.withDescription(describeDefault(text, value, unit, rangeText(self)))
  ) as Flag.Flag<A | B>

/** An optional flag; `absent` says what is used without it (e.g. `"iterations / 10"`, `"$AUTODIDACT_LLM_MODEL"`). */
export const optional = (text: string, absent: string, unit?: string) => <A>(self: Flag.Flag<A>) =>
  self.pipe(Flag.optional, Flag.withDescription(`${text} (default: ${absent}${unit === undefined ? "" : `; unit: ${unit}`}${rangeText(self)})`))

/** A required flag (no default). */
export const required = (text: string, unit?: string) => <A>(self: Flag.Flag<A>): Flag.Flag<A> =>
  self.pipe(Flag.withDescription(`${text} (required${unit === undefined ? "" : `; unit: ${unit}`}${rangeText(self)})`))

/** `--json`: print machine-readable results (one JSON object per line on stdout) instead of tables. */
export const jsonFlag = Flag.Boolean("json").pipe(withDefault(false, "Print machine-readable JSON lines instead of tables"))
