/**
 * Flag helpers of the command definitions: every flag's help line ends with its default (or "required") and unit,
 * e.g. `Iterations to run (default: 1000 iterations)`, so that `--help` of every command shows both.
 * @since 0.1.0
 */
import { Flag } from "effect/cli"

const show = (value: unknown): string =>
  typeof value === "number" && Number.isInteger(value) && Math.abs(value) >= 10_000 ? value.toLocaleString("en-US").replaceAll(",", "_") : String(value)

/** `text (default: VALUE UNIT)`. */
export const describeDefault = (text: string, value: unknown, unit?: string): string =>
  `${text} (default: ${show(value)}${unit === undefined ? "" : ` ${unit}`})`

/** A flag with a default: `Flag.withDefault(value)` and a description naming the value and its unit. */
export const withDefault = <const B extends string | number | boolean>(value: B, text: string, unit?: string) =>
<A>(self: Flag.Flag<A>): Flag.Flag<A | B> =>
  self.pipe(Flag.withDefault(value), Flag.withDescription(describeDefault(text, value, unit))) as Flag.Flag<A | B>

/** An optional flag; `absent` says what is used without it (e.g. `"iterations / 10"`, `"$AUTODIDACT_LLM_MODEL"`). */
export const optional = (text: string, absent: string, unit?: string) => <A>(self: Flag.Flag<A>) =>
  self.pipe(Flag.optional, Flag.withDescription(`${text} (default: ${absent}${unit === undefined ? "" : `; unit: ${unit}`})`))

/** A required flag (no default). */
export const required = (text: string, unit?: string) => <A>(self: Flag.Flag<A>): Flag.Flag<A> =>
  self.pipe(Flag.withDescription(`${text} (required${unit === undefined ? "" : `; unit: ${unit}`})`))

/** `--json`: print machine-readable results (one JSON object per line on stdout) instead of tables. */
export const jsonFlag = Flag.Boolean("json").pipe(withDefault(false, "Print machine-readable JSON lines instead of tables"))
