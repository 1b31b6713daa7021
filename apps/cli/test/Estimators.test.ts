/**
 * `train --algo` offers every advantage estimator registered in `@autodidact/optim` (`Advantages.register`: what a
 * module written by `nx g @autodidact/tools:estimator` does when the package loads) for the text envs: an estimator
 * registered in this process trains a tiny TextFrozenLake-v1 run and is recorded in its run directory; `--help`
 * lists it; an unknown name, `gae` (it needs a critic) and a name undone are refused while parsing, naming the valid
 * ones; an estimator on an env that trains with PPO is refused with a typed error. In process (test/inproc.ts).
 */
import { Advantages } from "@autodidact/optim"
import { afterEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { stripVTControlCharacters } from "node:util"
import { textEstimators } from "../src/Estimators.js"
import { cli } from "./inproc.js"

const NAME = "cli-test-baseline"
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-est-"))
const undos: Array<() => void> = []
afterEach(() => {
  for (const undo of undos.splice(0)) undo()
})

/** A group-mean baseline (`A_i = R_i − mean(R)`, 0 for a group of one) that counts its calls. */
const register = () => {
  const calls: Array<number> = [] // trajectories per call
  const estimator: Advantages.Estimator = (batch, options) => {
    Advantages.validate(NAME, batch)
    Advantages.validateOptions(NAME, options)
    calls.push(batch.reduce((n, g) => n + g.length, 0))
    return batch.map((group) => {
      const returns = group.map((t) => Advantages.episodeReturn(t.rewards))
      const mean = returns.reduce((a, b) => a + b, 0) / returns.length
      return group.map((t, i) => new Float64Array(t.rewards.length).fill(group.length === 1 ? 0 : returns[i]! - mean))
    })
  }
  undos.push(Advantages.register(NAME, estimator, { family: "group-centered" }))
  return calls
}

const text = (s: string) => stripVTControlCharacters(s)

describe("train --algo <a registered advantage estimator>", () => {
  it("trains a text env with an estimator registered in process and records it in config.json and the summary", async () => {
    const calls = register()
    const out = path.join(tmp(), "run")
    const r = await cli([
      "train", "--env", "TextFrozenLake-v1", "--algo", NAME, "--total-steps", "60", "--group-size", "2", "--eval-episodes", "2", "--seed", "1", "--out", out, "--json"
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().at(-1)).toMatchObject({ env: "TextFrozenLake-v1", algo: NAME, seed: 1 })
    const config = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
    expect(config.algo).toBe(NAME)
    expect(config.multiTurn.algo).toBe(NAME)
    const rows = fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    const updates = rows.filter((row) => row.kind === "update")
    // the run's advantages came from this estimator: one call per update, on groups of 2 trajectories
    expect(updates.length).toBeGreaterThan(0)
    expect(calls).toHaveLength(updates.length)
    for (const n of calls) expect(n % 2).toBe(0)
    expect(rows.at(-1)).toMatchObject({ kind: "summary", algo: NAME })
  }, 60_000)

  it("--help lists the registered estimators (and no longer one that was undone)", async () => {
    const before = text((await cli(["train", "--help"])).stdout)
    expect(before).not.toContain(NAME)
    register()
    const help = text((await cli(["train", "--help"])).stdout)
    const algoLine = help.split("\n").filter((l) => l.includes("--algo")).join(" ")
    for (const name of ["ppo", ...textEstimators()]) expect(algoLine).toContain(name)
    expect(algoLine).toContain(NAME)
    expect(algoLine).not.toMatch(/\bgae\b/) // needs a critic: not offered
    expect(text((await cli(["compare", "--help"])).stdout)).toContain(NAME)
    undos.pop()!()
    expect(text((await cli(["train", "--help"])).stdout)).not.toContain(NAME)
  })

  it("refuses an unknown name, gae and an undone estimator while parsing, listing the valid names", async () => {
    register()
    const valid = textEstimators()
    expect(valid).toContain(NAME)
    for (const bad of ["no-such-estimator", "gae"]) {
      const out = path.join(tmp(), "run")
      const r = await cli(["train", "--env", "TextFrozenLake-v1", "--algo", bad, "--out", out])
      expect(r.code, bad).toBe(1)
      const err = text(r.stderr)
      expect(err).toContain(`--algo`)
      expect(err).toContain(bad)
      for (const name of valid) expect(err, bad).toContain(name)
      expect(fs.existsSync(out), bad).toBe(false) // refused before any command ran
    }
    const compare = await cli(["compare", "--algos", `grpo,no-such-estimator`, "--out", path.join(tmp(), "cmp")])
    expect(compare.code).toBe(1)
    expect(text(compare.stderr)).toContain("Invalid value for flag --algos")
    expect(text(compare.stderr)).toContain(NAME)
    undos.pop()!()
    const out = path.join(tmp(), "run")
    const r = await cli(["train", "--env", "TextFrozenLake-v1", "--algo", NAME, "--out", out])
    expect(r.code).toBe(1)
    expect(text(r.stderr)).toContain(NAME)
    expect(fs.existsSync(out)).toBe(false)
  })

  it("an estimator where the run uses none (PPO on CartPole-v1), or with --cluster, fails with a typed error", async () => {
    register()
    const out = path.join(tmp(), "run")
    const ppoEnv = await cli(["train", "--env", "CartPole-v1", "--algo", NAME, "--total-steps", "100", "--out", out])
    expect(ppoEnv.code).toBe(1)
    expect(ppoEnv.stderr).toContain(`error: TrainConfigError: --algo "${NAME}": is an advantage estimator`)
    expect(ppoEnv.stderr).toContain("CartPole-v1 trains with ppo")
    expect(fs.existsSync(out)).toBe(false)
    // the cluster's TextTrainer offers the built-ins only
    const cluster = await cli(["train", "--env", "TextFrozenLake-v1", "--algo", NAME, "--cluster", "postgres://u@127.0.0.1:1/db", "--out", out])
    expect(cluster.code).toBe(1)
    expect(cluster.stderr).toContain(`error: TrainConfigError: --algo "${NAME}": --cluster trains the text environments with`)
    expect(fs.existsSync(out)).toBe(false)
  })
})
