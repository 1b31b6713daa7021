// A trainer process for the integration tests: `trainer.ts <postgres-url> <json options>`. Prints one line per
// consumed episode (`episode <id> <runner>`) and per availability change to stdout, and the result as the last line
// (`result <json>`).
import * as NodeRuntime from "@effect/platform-node-shared/NodeRuntime"
import { RolloutService, Trainer } from "@autodidact/cluster"
import { Effect } from "effect"

const [url, json] = process.argv.slice(2)
if (url === undefined || json === undefined) {
  process.stderr.write("usage: trainer.ts <postgres-url> <json options>\n")
  process.exit(2)
}
const options = JSON.parse(json) as Partial<Trainer.Options> & { envId: string }
const say = (line: string) => process.stdout.write(line + "\n")
const program = Effect.gen(function*() {
  const svc = yield* RolloutService.RolloutService
  const result = yield* Trainer.train(options, { onEpisode: (row) => say(`episode ${row.episodeId} ${row.runner}`) })
  say(`result ${JSON.stringify({ weightsHash: result.weightsHash, returns: result.returns, episodes: result.episodes, runners: result.runners, stats: svc.stats })}`)
})
NodeRuntime.runMain(program.pipe(Effect.provide(RolloutService.layerCluster({
  url,
  onAvailability: (a) => say(a._tag === "Down" ? `trainer: postgres: unavailable (${a.reason}); waiting` : `trainer: postgres: available again after ${a.downSeconds.toFixed(1)} s; resuming`),
  onRetry: (reason) => say(`trainer: send retried (${reason})`)
}))))
