/** Synthetic run directories for tests and the benchmark (no training needed). */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const tempDir = (prefix = "dashboard-"): string => fs.mkdtempSync(path.join(os.tmpdir(), prefix))

export interface FixtureRun {
  readonly name: string
  readonly config: Record<string, unknown>
  readonly rows: ReadonlyArray<Record<string, unknown>>
  /** Raw text appended after the rows (e.g. a truncated line). */
  readonly tail?: string
}

export const writeRun = (root: string, run: FixtureRun): string => {
  const dir = path.join(root, run.name)
  fs.mkdirSync(path.join(dir, "checkpoints"), { recursive: true })
  fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify(run.config, null, 2) + "\n")
  fs.writeFileSync(path.join(dir, "metrics.jsonl"), run.rows.map((r) => JSON.stringify(r) + "\n").join("") + (run.tail ?? ""))
  return dir
}

export const cartPoleConfig = (seed: number, extra: Record<string, unknown> = {}) => ({
  command: "train",
  env: "CartPole-v1",
  algo: "ppo",
  seed,
  totalSteps: 20000,
  ppo: { learningRate: 0.00025, seed },
  versions: { core: "0.1.0" },
  startedAt: new Date(2026, 0, seed).toISOString(),
  ...extra
})

/** `n` episode rows with a rising, seed-dependent return, plus an update row every 10 episodes. */
export const learningRows = (n: number, seed: number, stepEvery = 20): Array<Record<string, unknown>> => {
  const rows: Array<Record<string, unknown>> = []
  for (let i = 0; i < n; i++) {
    const globalStep = (i + 1) * stepEvery
    const episodeReturn = Math.round(10 + 490 * (1 - Math.exp(-i / (n / 3))) + ((i * 7919 + seed * 104729) % 41) - 20)
    rows.push({ kind: "episode", globalStep, episodeReturn, episodeLength: episodeReturn, wallSeconds: globalStep / 1000 + seed * 0.01 })
    if (i % 10 === 9) {
      rows.push({
        kind: "update",
        globalStep,
        wallSeconds: globalStep / 1000,
        policyLoss: -0.01 * Math.exp(-i / n),
        valueLoss: 50 * Math.exp(-i / n),
        entropy: 0.69 - 0.3 * (i / n),
        approxKl: 0.01,
        clipFraction: 0.1,
        explainedVariance: i / n,
        learningRate: 0.00025 * (1 - i / n)
      })
    }
  }
  return rows
}
