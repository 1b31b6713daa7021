// A runner process for the integration tests and the benchmark: `runner.ts <postgres-url> <port>`.
import * as NodeRuntime from "@effect/platform-node-shared/NodeRuntime"
import { Runner } from "@autodidact/cluster"

const [url, port] = process.argv.slice(2)
if (url === undefined || port === undefined) {
  process.stderr.write("usage: runner.ts <postgres-url> <port>\n")
  process.exit(2)
}
NodeRuntime.runMain(Runner.run({ url, port: Number(port) }))
