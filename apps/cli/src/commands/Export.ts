/**
 * `autodidact export --from DIR --format chat|verl --out FILE [--per episode|turn] [--advantage recorded|grpo]`:
 * export gateway recordings or environment trajectories (a run directory's `trajectories/*.jsonl`, or a JSONL file)
 * to chat-format JSONL (OpenAI fine-tuning / TRL) or the per-step verl layout (see `@autodidact/llm` `Export`).
 * @since 0.1.0
 */
import { Export } from "@autodidact/llm"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as Inputs from "../Inputs.js"
import * as Output from "../Output.js"
import type { Configs } from "../Commands.js"

/** `autodidact export` */
/** `autodidact export` */
export const handleExport = (config: Configs["export"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      if (fs.existsSync(config.from) && fs.statSync(config.from).isFile()) yield* Inputs.requireNonEmptyFile("from", config.from)
      const episodes = yield* Export.read(config.from)
      yield* Inputs.requireSome("from", config.from, episodes, "episodes or recorded sessions")
      const rows = config.format === "chat" ? Export.toChat(episodes, { per: config.per }) : Export.toVerl(episodes, { advantage: config.advantage })
      yield* Export.writeJsonl(config.out, rows)
      Output.printSummary(config.json, "Export", { from: config.from, format: config.format, episodes: episodes.length, rows: rows.length, out: config.out })
    })
