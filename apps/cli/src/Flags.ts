/** Flags shared by every command. */
import { Flag } from "effect/cli"

/** `--json`: print machine-readable results (one JSON object per line on stdout) instead of tables. */
export const jsonFlag = Flag.Boolean("json").pipe(
  Flag.withDefault(false),
  Flag.withDescription("Print machine-readable JSON lines instead of tables")
)
