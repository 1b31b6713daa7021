/**
 * `autodidact export --from DIR --format chat|verl --out FILE [--per episode|turn] [--advantage recorded|grpo]`:
 * export gateway recordings or environment trajectories (a run directory's `trajectories/*.jsonl`, or a JSONL file)
 * to chat-format JSONL (OpenAI fine-tuning / TRL) or the per-step verl layout (see `@autodidact/llm` `Export`).
 * @since 0.1.0
 */
import { Export } from "@autodidact/llm"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { jsonFlag } from "../Flags.js"
import * as Output from "../Output.js"

/** `autodidact export` */
export const exportCommand = Command.make(
  "export",
  {
    from: Flag.String("from").pipe(Flag.withDescription("A gateway recording directory, a run directory with trajectories/, or a JSONL file")),
    format: Flag.Literals("format", ["chat", "verl"]).pipe(Flag.withDescription("chat: {messages, tools} rows; verl: one row per step with reward and advantage")),
    out: Flag.String("out").pipe(Flag.withDescription("JSONL file to write (atomically)")),
    per: Flag.Literals("per", ["episode", "turn"]).pipe(Flag.withDefault("episode" as const), Flag.withDescription("chat: one row per episode (its last turn's full context) or per model call")),
    advantage: Flag.Literals("advantage", ["recorded", "grpo"]).pipe(Flag.withDefault("recorded" as const), Flag.withDescription("verl: recorded step advantages, or episode-level GRPO advantages within each group")),
    json: jsonFlag
  },
  (config) =>
    Effect.gen(function* () {
      const episodes = yield* Export.read(config.from)
      const rows = config.format === "chat" ? Export.toChat(episodes, { per: config.per }) : Export.toVerl(episodes, { advantage: config.advantage })
      yield* Export.writeJsonl(config.out, rows)
      Output.printSummary(config.json, "Export", { from: config.from, format: config.format, episodes: episodes.length, rows: rows.length, out: config.out })
    })
).pipe(Command.withDescription("Export recorded or environment trajectories for Python trainers (TRL/OpenAI chat JSONL, verl)"))
