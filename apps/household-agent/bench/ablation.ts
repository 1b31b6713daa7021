/**
 * The ablation of the household agent: the full agent, each component removed, and plain GiGPO (all three removed),
 * at equal primitive env steps on the same seeded stream; prints a markdown table (and `--json` rows) with the
 * stream metrics of each run and the final evaluation on the unseen split, plus the machine's load.
 *
 * After the per-run table it prints, per variant, the mean over seeds of stream, unseen and eval success with the 95%
 * Student-t interval (core `Statistics.tInterval`, n − 1 degrees of freedom), and the paired difference from plain
 * GiGPO (same seed, same stream) with its interval and the count of seeds on which the variant is ahead.
 *
 * Run: `cd apps/household-agent && nice -n 15 npx tsx --conditions=@autodidact/source bench/ablation.ts [--json]`
 * (env: STEPS (default 12000), SEEDS (comma list, default 1), DIFFICULTY (easy), MAX_STEPS (25), OUT (tmp dir),
 * VARIANTS (comma list of variant names, which hold no comma; default all: the five of the issue and each component alone on GiGPO),
 * ROWS (a file of `--json` rows from an earlier run: print its tables without running)).
 */
import { Statistics } from "@autodidact/core"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Agent from "../src/Agent.js"

const env = (k: string, d: string) => process.env[k] ?? d
const steps = Number(env("STEPS", "12000"))
const seeds = env("SEEDS", "1").split(",").map(Number)
const out = env("OUT", fs.mkdtempSync(path.join(os.tmpdir(), "household-ablation-")))
const json = process.argv.includes("--json")
const variants = [
  { name: "full", memory: true, skills: true, prm: true },
  { name: "no-memory", memory: false, skills: true, prm: true },
  { name: "no-skills", memory: true, skills: false, prm: true },
  { name: "no-prm", memory: true, skills: true, prm: false },
  { name: "plain GiGPO", memory: false, skills: false, prm: false },
  { name: "GiGPO + skills", memory: false, skills: true, prm: false },
  { name: "GiGPO + PRM", memory: false, skills: false, prm: true },
  { name: "GiGPO + memory", memory: true, skills: false, prm: false },
  { name: "full (exemplar on first step)", memory: true, skills: true, prm: true, exemplarLine: "first-step" as const },
  { name: "full (exemplars not shown)", memory: true, skills: true, prm: true, exemplarLine: "none" as const },
  { name: "skills + PRM in rewards", memory: false, skills: true, prm: true, prmInto: "rewards" as const },
  { name: "GiGPO + PRM in rewards", memory: false, skills: false, prm: true, prmInto: "rewards" as const },
  { name: "skills + PRM + memory prior (command match)", memory: true, skills: true, prm: true, memoryPrior: 1, memoryPriorMatch: "command" as const, exemplarLine: "none" as const },
  { name: "skills + PRM + memory prior (role match)", memory: true, skills: true, prm: true, memoryPrior: 1, memoryPriorMatch: "roles" as const, exemplarLine: "none" as const },
  { name: "GiGPO + memory prior", memory: true, skills: false, prm: false, memoryPrior: 1, exemplarLine: "none" as const },
  { name: "PRM + memory prior", memory: true, skills: false, prm: true, memoryPrior: 1, exemplarLine: "none" as const }
].filter((v) => process.env["VARIANTS"] === undefined || process.env["VARIANTS"].split(",").includes(v.name))
const f = (v: number | null) => (v === null ? "-" : v.toFixed(3))
const rows: Array<Record<string, unknown>> = []
const loadBefore = fs.readFileSync("/proc/loadavg", "utf8").trim()
const saved = process.env["ROWS"]
if (saved !== undefined) {
  for (const line of fs.readFileSync(saved, "utf8").split("\n")) if (line.trim() !== "") rows.push(JSON.parse(line) as Record<string, unknown>)
}
for (const seed of saved === undefined ? seeds : []) {
  for (const v of variants) {
    const s = await Effect.runPromise(Agent.run({
      out: path.join(out, `${v.name.replace(/ /g, "-")}-s${seed}`),
      overwrite: true,
      seed,
      steps,
      difficulty: env("DIFFICULTY", "easy"),
      maxSteps: Number(env("MAX_STEPS", "25")),
      evalEvery: 0,
      evalEpisodes: 50,
      memory: v.memory,
      exemplarLine: "exemplarLine" in v ? v.exemplarLine : "every-step",
      memoryPrior: "memoryPrior" in v ? v.memoryPrior : 0, // the older variants: the observation line only, as measured
      ...("memoryPriorMatch" in v ? { memoryPriorMatch: v.memoryPriorMatch } : {}),
      skills: v.skills,
      prm: v.prm,
      ...("prmInto" in v ? { prmInto: v.prmInto } : {})
    }))
    const row = { variant: v.name, ...s, components: undefined, run: undefined }
    rows.push(row)
    process.stderr.write(`${v.name} seed ${seed}: stream ${f(s.streamSuccess)}, unseen ${f(s.unseenSuccess)}, eval ${f(s.evalSuccess)} (${s.wallSeconds.toFixed(0)} s)\n`)
    if (json) process.stdout.write(`${JSON.stringify(row)}\n`)
  }
}
const lines = [
  `household-agent ablation: ${steps} env steps per run, seeds ${seeds.join(",")}, difficulty ${env("DIFFICULTY", "easy")}, max steps ${env("MAX_STEPS", "25")}; loadavg before: ${loadBefore}, after: ${fs.readFileSync("/proc/loadavg", "utf8").trim()}`,
  "",
  "| variant | seed | stream success | seen success | unseen success (first encounter) | forward transfer | forgetting | eval success (unseen split, 50 tasks) | skills admitted / calls | PRM fits | exemplar hits | wall s |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|"
]
for (const r of rows as Array<Record<string, never>>) {
  lines.push(`| ${r["variant"]} | ${r["seed"]} | ${f(r["streamSuccess"])} | ${f(r["seenSuccess"])} | ${f(r["unseenSuccess"])} | ${f(r["forwardTransfer"])} | ${f(r["forgetting"])} | ${f(r["evalSuccess"])} | ${(r["admittedSkills"] as Array<string>).length} / ${r["skillCalls"]} | ${r["prmFits"]} | ${r["exemplarHits"]} | ${(r["wallSeconds"] as number).toFixed(0)} |`)
}

// Over seeds: the mean with its 95% t interval, and the paired difference from plain GiGPO on the same seed.
const metrics = [["streamSuccess", "stream success"], ["unseenSuccess", "unseen success"], ["evalSuccess", "eval success"]] as const
const interval = (xs: Array<number>) => {
  if (xs.length === 0) return "-"
  const i = Statistics.tInterval(xs)
  return xs.length === 1 ? i.estimate.toFixed(3) : `${i.estimate.toFixed(3)} [${i.low.toFixed(3)}, ${i.high.toFixed(3)}]`
}
const value = (r: Record<string, unknown> | undefined, k: string) => (typeof r?.[k] === "number" ? r[k] : undefined)
const names = [...new Set(rows.map((r) => r["variant"] as string))]
const plain = (seed: unknown) => rows.find((r) => r["variant"] === "plain GiGPO" && r["seed"] === seed)
lines.push("", "Over seeds: mean [95% Student-t interval, n − 1 df]; Δ = the variant minus plain GiGPO on the same seed (paired), with the seeds on which the variant is ahead.", "")
lines.push(`| variant | seeds | ${metrics.map(([, l]) => l).join(" | ")} | ${metrics.map(([, l]) => `Δ ${l}`).join(" | ")} |`)
lines.push(`|---|---|${metrics.map(() => "---|").join("")}${metrics.map(() => "---|").join("")}`)
for (const name of names) {
  const mine = rows.filter((r) => r["variant"] === name)
  const cells = metrics.map(([k]) => interval(mine.map((r) => value(r, k)).filter((v): v is number => v !== undefined)))
  const deltas = metrics.map(([k]) => {
    if (name === "plain GiGPO") return "-"
    const d = mine.flatMap((r) => {
      const a = value(r, k)
      const b = value(plain(r["seed"]), k)
      return a === undefined || b === undefined ? [] : [a - b]
    })
    return d.length === 0 ? "-" : `${interval(d)}, ahead ${d.filter((x) => x > 0).length}/${d.length}`
  })
  lines.push(`| ${name} | ${mine.map((r) => r["seed"]).join(",")} | ${cells.join(" | ")} | ${deltas.join(" | ")} |`)
}
if (!json) process.stdout.write(`${lines.join("\n")}\n`)
else process.stderr.write(`${lines.join("\n")}\n`)
process.exit(0)
