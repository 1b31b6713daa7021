/**
 * End-to-end tests of the `autodidact` command: each runs the real bin (as `npx autodidact` does) in a child
 * process and checks what it prints with `--json` and what it writes to the run directory.
 */
import { Trajectory } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { cli as inProcess } from "./inproc.js"
import { LEVELS } from "./levels.js"

const bin = fileURLToPath(new URL("../bin/autodidact.js", import.meta.url))

/** The real bin in a child process (for what is about the bin: start-up, exit codes, the error line). */
const binCli = (...args: Array<string>) => {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", timeout: 120_000 })
  const lines = r.stdout.split("\n").filter((l) => l.trim().length > 0)
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) }
}

/** A command line run in this process (test/inproc.ts): same output and exit-code contract, no child process. */
const cli = (...args: Array<string>) => inProcess(args)

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-cli-"))


describe("autodidact CLI", () => {
  it("--help lists every command", async () => {
    const r = binCli("--help")
    expect(r.code).toBe(0)
    for (const c of ["start", "train", "eval", "sokoban", "bench", "skills"]) expect(r.stdout).toContain(c)
  })

  it("sokoban solve --json reports solved count, total, mean plan length and seconds", async () => {
    const dir = tmp()
    const file = path.join(dir, "levels.txt")
    fs.writeFileSync(file, LEVELS)
    const r = (await cli("sokoban", "solve", "--levels", file, "--json"))
    expect(r.code, r.stderr).toBe(0)
    const [row] = r.json()
    expect(row).toMatchObject({ solved: 2, total: 2, unsolvable: 0 })
    // level 1: a single push right ("R"), plan length 1; level 0 needs at least 4 pushes + walking
    expect(row!["meanPlanLength"]).toBeGreaterThan(2)
    expect(typeof row!["seconds"]).toBe("number")
    const limited = (await cli("sokoban", "solve", "--levels", file, "--limit", "1", "--json")).json()[0]
    expect(limited).toMatchObject({ solved: 1, total: 1 })
  })

  it("sokoban solve on a malformed file fails with the typed parse error naming line and character", async () => {
    const dir = tmp()
    const file = path.join(dir, "bad.txt")
    fs.writeFileSync(file, LEVELS.replace("#   @$.  #", "#   @$.X #"))
    // the real bin: a failure is exit code 1 and one `error: <Tag>: <message>` line
    const r = binCli("sokoban", "solve", "--levels", file, "--json")
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error: LevelParseError: /m)
    expect(r.stdout).toBe("")
    expect(r.stderr).toContain("X")
  })

  it("train writes config.json, metrics.jsonl and a checkpoint; eval reads them back", async () => {
    const out = path.join(tmp(), "run")
    const r = (await cli("train", "--env", "CartPole-v1", "--seed", "3", "--total-steps", "4096", "--out", out, "--json"))
    expect(r.code, r.stderr).toBe(0)
    const [summary] = r.json()
    expect(summary).toMatchObject({ env: "CartPole-v1", algo: "ppo", seed: 3, stopReason: "budget", globalStep: 4096 })
    const config = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
    expect(config).toMatchObject({ command: "train", env: "CartPole-v1", seed: 3, totalSteps: 4096 })
    expect(config.versions["@autodidact/optim"]).toMatch(/^\d+\.\d+\.\d+/)
    const rows = fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    const episodes = rows.filter((row) => row.kind === "episode")
    expect(episodes.length).toBeGreaterThan(10)
    for (const e of episodes) {
      expect(Number.isInteger(e.globalStep)).toBe(true)
      expect(e.episodeReturn).toBe(e.episodeLength) // CartPole: +1 per step
      expect(e.wallSeconds).toBeGreaterThanOrEqual(0)
    }
    expect(rows.filter((row) => row.kind === "update")).toHaveLength(8) // 4096 / (4 envs x 128 steps)
    expect(fs.existsSync(path.join(out, "checkpoints", "latest.json"))).toBe(true)

    const ev = (await cli("eval", "--run", out, "--episodes", "5", "--json"))
    expect(ev.code, ev.stderr).toBe(0)
    const [report] = ev.json()
    expect(report).toMatchObject({ env: "CartPole-v1", episodes: 5 })
    expect(report!["meanReturn"]).toBeGreaterThanOrEqual(8) // CartPole episodes last at least 8 steps
    expect(report!["meanReturn"]).toBeLessThanOrEqual(500)

    // a second train into the same directory refuses to clobber it
    const again = (await cli("train", "--total-steps", "512", "--out", out, "--json"))
    expect(again.code).not.toBe(0)
    expect(again.stderr).toContain("RunDirectoryError")
  })

  it("train --save-trajectories writes evaluation episodes in the core Trajectory schema", async () => {
    const out = path.join(tmp(), "run")
    const r = (await cli("train", "--env", "CartPole-v1", "--seed", "2", "--total-steps", "1024", "--save-trajectories", "3", "--out", out, "--json"))
    expect(r.code, r.stderr).toBe(0)
    const file = path.join(out, "trajectories", "eval.jsonl")
    expect(r.json()[0]).toMatchObject({ trajectories: file })
    const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0)
    expect(lines).toHaveLength(3)
    const decode = Schema.decodeUnknownSync(Trajectory.Trajectory)
    for (const line of lines) {
      const ep = decode(JSON.parse(line))
      expect(ep.envId).toBe("CartPole-v1")
      expect(ep.length).toBe(ep.steps.length)
      expect(ep.length).toBeGreaterThanOrEqual(8)
      expect(ep.return).toBe(ep.length) // +1 per step
      const last = ep.steps[ep.steps.length - 1]!
      expect(last.terminated || last.truncated).toBe(true)
      for (const s of ep.steps) {
        expect(Array.isArray(s.observation) && (s.observation as Array<unknown>).length === 4).toBe(true) // [x, x_dot, theta, theta_dot]
        expect([0, 1]).toContain(s.action)
        expect(s.reward).toBe(1)
      }
      expect(Array.isArray(ep.finalObservation)).toBe(true)
    }
    expect((await cli("train", "--total-steps", "512", "--save-trajectories", "-1", "--out", path.join(tmp(), "bad"), "--json")).stderr).toContain("save-trajectories")
  })

  it("eval of a corrupted checkpoint fails with a typed error and does not crash", async () => {
    const out = path.join(tmp(), "run")
    expect((await cli("train", "--total-steps", "512", "--out", out, "--json")).code).toBe(0)
    const ckpt = path.join(out, "checkpoints", "latest.json")
    fs.writeFileSync(ckpt, fs.readFileSync(ckpt, "utf8").slice(0, 200))
    const r = (await cli("eval", "--run", out, "--episodes", "2", "--json"))
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/CorruptCheckpointError|CheckpointError/)
    expect(r.stderr).toContain("latest.json")
  })

  it("train --until-solved on an env without a threshold is refused with the offending value", async () => {
    const r = (await cli("train", "--env", "Sokoban-v0", "--until-solved", "--out", path.join(tmp(), "x"), "--json"))
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain("Sokoban-v0")
  })

  it("bench envs --json prints one line per mode with stepsPerSecond", async () => {
    const r = (await cli("bench", "envs", "--env", "CartPole-v1", "--steps", "4000", "--repeats", "1", "--batch-envs", "16", "--no-python", "--json"))
    expect(r.code, r.stderr).toBe(0)
    const rows = r.json()
    expect(rows.map((row) => row["mode"])).toEqual(["raw", "make", "vector-sync", "batched"])
    for (const row of rows) {
      expect(row["env"]).toBe("CartPole-v1")
      expect(row["stepsPerSecond"]).toBeGreaterThan(1000)
      expect(row["ratio"]).toBeNull()
    }
    expect(rows[2]!["numEnvs"]).toBe(64)
    expect(rows[3]!["numEnvs"]).toBe(16)
  })

  it("games solve: 300 CFR iterations on Kuhn poker give player 0 a value within 1e-3 of -1/18", async () => {
    const r = (await cli("games", "solve", "--game", "kuhn_poker", "--algo", "cfr", "--iterations", "300", "--report-every", "100", "--json"))
    expect(r.code, r.stderr).toBe(0)
    const rows = r.json()
    expect(rows.filter((row) => row["kind"] === "report").map((row) => row["iteration"])).toEqual([100, 200, 300])
    const summary = rows.at(-1)!
    expect(summary).toMatchObject({ kind: "summary", game: "kuhn_poker", algo: "cfr", iteration: 300 })
    const value = summary["gameValue"] as Array<number>
    expect(Math.abs(value[0]! + 1 / 18)).toBeLessThan(1e-3)
    expect(value[0]! + value[1]!).toBeCloseTo(0, 12)
    const reports = rows.filter((row) => row["kind"] === "report").map((row) => row["nashConv"] as number)
    expect(reports[2]!).toBeLessThan(reports[0]!)
  })

  it("games solve --target-nashconv stops at the first iteration at or below the target; --save writes a state", async () => {
    const file = path.join(tmp(), "kuhn.json")
    const r = (await cli("games", "solve", "--game", "kuhn_poker", "--algo", "cfr+", "--iterations", "100000", "--target-nashconv", "0.005", "--save", file, "--json"))
    expect(r.code, r.stderr).toBe(0)
    const summary = r.json().at(-1)!
    expect(summary).toMatchObject({ kind: "summary", algo: "cfr+", reachedTarget: true })
    expect(summary["nashConv"] as number).toBeLessThanOrEqual(0.005)
    const n = summary["iteration"] as number
    expect(n).toBeLessThan(100000)
    // the iteration before did not reach it (an independent run of n − 1 iterations)
    const before = (await cli("games", "solve", "--game", "kuhn_poker", "--algo", "cfr+", "--iterations", String(n - 1), "--json")).json().at(-1)!
    expect(before["nashConv"] as number).toBeGreaterThan(0.005)
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({ format: "autodidact.solver-state", iteration: n })
  })

  it("games solve names an unknown game and lists the known ones", async () => {
    const r = (await cli("games", "solve", "--game", "chess", "--json"))
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain("UnknownGameError")
    expect(r.stderr).toContain("leduc_poker")
  })

  it("bench kernels --json prints one row per kernel and backend with a NumPy ratio when python3 has NumPy", async () => {
    const r = (await cli("bench", "kernels", "--quick", "--backends", "typed-array", "--kernels", "gae,returns", "--json"))
    expect(r.code, r.stderr).toBe(0)
    const rows = r.json()
    expect(rows.map((row) => row["kernel"]).sort()).toEqual(["gae", "returns"])
    for (const row of rows) {
      expect(row["backend"]).toBe("typed-array")
      expect(row["isDefault"]).toBe(true) // the typed-array scans are the default engine for returns and GAE
      expect(row["ourMs"]).toBeGreaterThan(0)
      if (row["numpyMs"] !== null) expect(row["ratio"]).toBeCloseTo((row["ourMs"] as number) / (row["numpyMs"] as number), 6)
    }
  })

  it("bench replay --quick --no-numpy --json prints one row per operation at capacity 100k", async () => {
    const r = await cli("bench", "replay", "--quick", "--no-numpy", "--json")
    expect(r.code, r.stderr).toBe(0)
    const rows = r.json()
    expect(rows.map((row) => `${row["capacity"]} ${row["operation"]}`)).toEqual([
      "100000 sample 256", "100000 updatePriorities 256", "100000 updatePriorities 256, one slot at a time (reference)", "100000 tree descent 256",
      "100000 gather 256"
    ])
    for (const row of rows) {
      expect(row["medianUs"]).toBeGreaterThan(0)
      expect([row["numpyMedianUs"], row["ratio"], row["met"]]).toEqual([null, null, null])
      expect(row["loadBefore"]).toHaveLength(3)
    }
  })

  it("train --algo gigpo on the text Sokoban writes evaluation rows with successRate and a policy; eval reads it back", async () => {
    const out = path.join(tmp(), "text")
    const r = (await cli("train", "--env", "Sokoban-6x6-1box-v0", "--algo", "gigpo", "--group-size", "4", "--total-steps", "400", "--eval-episodes", "20", "--seed", "1", "--out", out, "--json"))
    expect(r.code, r.stderr).toBe(0)
    const [summary] = r.json()
    expect(summary).toMatchObject({ env: "Sokoban-6x6-1box-v0", algo: "gigpo", seed: 1 })
    const rows = fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    const evaluations = rows.filter((row) => row.kind === "evaluation")
    expect(evaluations.length).toBeGreaterThan(0)
    // an evaluation's success rate is a share of its 20 evaluation episodes (--eval-episodes): k / 20, k in [0, 20]
    const isShareOf = (rate: number, n: number) => rate >= 0 && rate <= 1 && Math.abs(rate * n - Math.round(rate * n)) < 1e-9
    for (const e of evaluations) expect(isShareOf(e.successRate, 20), String(e.successRate)).toBe(true)
    // the summary reports the final evaluation (the last evaluation row), not a training-batch statistic
    expect(summary!["successRate"]).toBe(evaluations.at(-1).successRate)
    expect(rows.some((row) => row.kind === "episode" && typeof row.success === "boolean")).toBe(true)
    const ev = (await cli("eval", "--run", out, "--episodes", "10", "--json"))
    expect(ev.code, ev.stderr).toBe(0)
    const [report] = ev.json()
    expect(report).toMatchObject({ env: "Sokoban-6x6-1box-v0", episodes: 10 })
    expect(isShareOf(report!["successRate"] as number, 10)).toBe(true)
    expect(isShareOf(report!["randomPolicySuccessRate"] as number, 10)).toBe(true)
    // (whether GiGPO learns is measured in packages/optim/bench/multiturn.ts, not asserted here)
    // eval appends its report to the run's metrics as an evaluation row
    const after = fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    expect(after.at(-1)).toEqual({ kind: "evaluation", ...report, run: "." }) // paths inside the run: relative to it
    // PPO is refused on a text env, naming the algorithm
    const bad = (await cli("train", "--env", "TextHousehold-v0", "--algo", "ppo", "--out", path.join(tmp(), "y"), "--json"))
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("TrainConfigError")
  })

  it("compare writes a Markdown table over seeds and an SVG success curve per env", async () => {
    const out = path.join(tmp(), "cmp")
    const r = (await cli("compare", "--envs", "Sokoban-6x6-1box-v0", "--algos", "grpo,gigpo", "--seeds", "2", "--steps", "300", "--eval-episodes", "10", "--out", out, "--json"))
    expect(r.code, r.stderr).toBe(0)
    const rows = r.json()
    expect(rows.map((row) => row["algo"])).toEqual(["grpo", "gigpo"])
    for (const row of rows) expect(row["seeds"]).toBe(2)
    const md = fs.readFileSync(path.join(out, "compare.md"), "utf8")
    expect(md).toMatch(/\| Sokoban-6x6-1box-v0 \| grpo \| \d\.\d{3} ± \d\.\d{3} \| \d\.\d{3}, \d\.\d{3} \|/)
    const svg = fs.readFileSync(path.join(out, "compare-Sokoban-6x6-1box-v0.svg"), "utf8")
    expect(svg.match(/<polyline /g)).toHaveLength(2)
    expect(svg).toContain("gigpo (n=2)")
    expect(fs.existsSync(path.join(out, "Sokoban-6x6-1box-v0", "gigpo-s2", "checkpoints", "policy.json"))).toBe(true)
  })
})
