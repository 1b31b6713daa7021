/**
 * `selfplay` and `eval --against` in process: the run directory (config.json, update and evaluation rows with an
 * exact NashConv, the atomic checkpoint, policy.json), resuming after an interruption, evaluation against random,
 * CFR+ and minimax with Wilson intervals, the DRRN text policy (NashConv of the network tabulated over Kuhn's
 * information states, policy.json, eval --run), and the typed refusals (a game not registered yet, a checkpoint of another
 * game, minimax on poker).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { handleSelfplay, evaluateSelfplay } from "../src/commands/SelfPlay.js"

const base = {
  algo: "spiral" as const, policy: "tabular" as const, seed: 1, totalSteps: 20_000, episodesPerUpdate: 128,
  learningRate: 0.05, magnet: 0.02, magnetEvery: 0, unsampled: "baseline" as const, critic: 0, fullStepVisits: 1, update: "mmd" as const, opponents: "latest" as const, sharing: "shared" as const,
  evalPolicy: "average" as const, evalEvery: 10, resume: false, overwrite: false, json: true
}
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-selfplay-"))
const quiet = <A, E>(run: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const write = process.stdout.write
    process.stdout.write = (() => true) as typeof process.stdout.write
    return yield* Effect.exit(run).pipe(Effect.ensuring(Effect.sync(() => void (process.stdout.write = write))))
  })
const rows = (out: string) => fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)

describe("autodidact selfplay", () => {
  it.effect("Kuhn: config.json, update rows, NashConv evaluation rows below uniform's 0.9167, checkpoint and policy.json; eval vs random and cfr", () =>
    Effect.gen(function* () {
      const out = path.join(tmp(), "kuhn")
      const exit = yield* quiet(handleSelfplay({ ...base, game: "kuhn_poker", out, totalSteps: 10_000 }))
      expect(exit._tag).toBe("Success")
      expect(JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))).toMatchObject({ command: "selfplay", game: "kuhn_poker", algo: "spiral", estimator: "rae" })
      const r = rows(out)
      expect(r.filter((x) => x.kind === "update").length).toBeGreaterThan(10)
      const evals = r.filter((x) => x.kind === "evaluation")
      expect(evals.length).toBeGreaterThan(1)
      expect(evals.at(-1)!.nashConv as number).toBeLessThan(0.9167 / 2)
      expect(fs.existsSync(path.join(out, "checkpoints", "selfplay.json"))).toBe(true)
      expect(JSON.parse(fs.readFileSync(path.join(out, "policy.json"), "utf8")).format).toBe("autodidact.tabular-policy")
      const config = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
      const [vsRandom] = yield* evaluateSelfplay(out, config, { against: "random", episodes: 100, seed: 3, sample: false, depth: undefined })
      expect(vsRandom!.wins + vsRandom!.draws + vsRandom!.losses).toBe(100)
      expect(vsRandom!.meanReturn).toBeGreaterThan(0) // beats uniform random
      expect(vsRandom!.nashConv).toBeCloseTo(evals.at(-1)!.nashConv as number, 9)
      const [vsCfr] = yield* evaluateSelfplay(out, config, { against: "cfr", episodes: 50, seed: 3, sample: false, depth: undefined })
      expect(vsCfr!.winCi).toMatch(/^\[0\.\d{4}, [01]\.\d{4}\]$/)
      const minimax = yield* Effect.exit(evaluateSelfplay(out, config, { against: "minimax", episodes: 10, seed: 3, sample: false, depth: undefined }))
      expect(JSON.stringify(minimax)).toContain("needs a two-player perfect-information game; kuhn_poker")
    }))

  it.effect("--policy drrn on Kuhn: NashConv rows of the tabulated network fall below uniform's 0.9167; policy.json; eval --run vs random and cfr", () =>
    Effect.gen(function* () {
      const out = path.join(tmp(), "drrn")
      const exit = yield* quiet(handleSelfplay({ ...base, policy: "drrn", game: "kuhn_poker", out, totalSteps: 8_000, episodesPerUpdate: 256, evalEvery: 10, evalPolicy: "current" }))
      expect(exit._tag).toBe("Success")
      expect(JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))).toMatchObject({ command: "selfplay", policy: "drrn" })
      const evals = rows(out).filter((x) => x.kind === "evaluation")
      expect(evals.length).toBeGreaterThan(1)
      expect(evals.at(-1)!.nashConv as number).toBeLessThan(0.9167)
      expect(evals.at(-1)!.nashConv as number).toBeLessThan(evals[0]!.nashConv as number)
      expect(JSON.parse(fs.readFileSync(path.join(out, "checkpoints", "selfplay.json"), "utf8")).drrn).toHaveLength(1)
      const policy = JSON.parse(fs.readFileSync(path.join(out, "policy.json"), "utf8"))
      expect(policy.format).toBe("autodidact.tabular-policy")
      const config = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
      const [vsRandom] = yield* evaluateSelfplay(out, config, { against: "random", episodes: 100, seed: 3, sample: false, depth: undefined })
      expect(vsRandom!.wins + vsRandom!.draws + vsRandom!.losses).toBe(100)
      expect(vsRandom!.nashConv).toBeCloseTo(evals.at(-1)!.nashConv as number, 9)
      const [vsCfr] = yield* evaluateSelfplay(out, config, { against: "cfr", episodes: 20, seed: 3, sample: false, depth: undefined })
      expect(vsCfr!.episodes).toBe(20)
    }))

  it.effect("resumes from the checkpoint to the same end state as an uninterrupted run", () =>
    Effect.gen(function* () {
      const dir = tmp()
      const straight = path.join(dir, "straight")
      const cut = path.join(dir, "cut")
      yield* quiet(handleSelfplay({ ...base, game: "kuhn_poker", out: straight, totalSteps: 12_000 }))
      yield* quiet(handleSelfplay({ ...base, game: "kuhn_poker", out: cut, totalSteps: 6_000 }))
      yield* quiet(handleSelfplay({ ...base, game: "kuhn_poker", out: cut, totalSteps: 12_000, resume: true }))
      const a = JSON.parse(fs.readFileSync(path.join(straight, "checkpoints", "selfplay.json"), "utf8"))
      const b = JSON.parse(fs.readFileSync(path.join(cut, "checkpoints", "selfplay.json"), "utf8"))
      expect(b.globalStep).toBe(a.globalStep)
      expect(b.tables).toEqual(a.tables)
      const steps = rows(cut).filter((x) => x.kind === "update").map((x) => x.globalStep as number)
      expect(steps).toEqual([...steps].sort((x, y) => x - y)) // no duplicated or backwards rows
    }))

  it.effect("Connect Four and Negotiation train (no exact NashConv: too large a tree); typed refusals: an unknown game, a checkpoint of another game", () =>
    Effect.gen(function* () {
      const dir = tmp()
      for (const game of ["connect_four", "negotiation"]) {
        const exit = yield* quiet(handleSelfplay({ ...base, game, out: path.join(dir, game), totalSteps: 300, evalEvery: 0 }))
        expect(exit._tag).toBe("Success")
        expect(rows(path.join(dir, game)).some((x) => x.kind === "exploitability" || "nashConv" in x)).toBe(false)
      }
      const unknown = yield* quiet(handleSelfplay({ ...base, game: "go", out: path.join(dir, "go") }))
      expect(JSON.stringify(unknown)).toContain("UnknownGameError")
      const out = path.join(dir, "k")
      yield* quiet(handleSelfplay({ ...base, game: "kuhn_poker", out, totalSteps: 2_000 }))
      const wrong = yield* Effect.exit(evaluateSelfplay(out, { command: "selfplay", game: "leduc_poker" }, { against: "random", episodes: 4, seed: 0, sample: false, depth: undefined }))
      expect(JSON.stringify(wrong)).toContain('"_tag":"CheckpointGameMismatchError","expected":["leduc_poker"],"found":["kuhn_poker"]')
    }))

  it.effect("tic-tac-toe: evaluation rows against random and minimax; eval --against minimax reports Wilson intervals", () =>
    Effect.gen(function* () {
      const out = path.join(tmp(), "ttt")
      yield* quiet(handleSelfplay({ ...base, game: "tic_tac_toe", out, totalSteps: 5_000, evalEvery: 0 }))
      const evals = rows(out).filter((x) => x.kind === "evaluation")
      expect(evals.map((x) => x.opponent)).toEqual(["random", "minimax"])
      const config = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
      const [r] = yield* evaluateSelfplay(out, config, { against: "minimax", episodes: 10, seed: 1, sample: false, depth: undefined })
      expect(r!.wins).toBe(0) // nobody beats perfect play
      expect(r!.lossCi).toMatch(/^\[/)
    }))
})
