/**
 * End-to-end tests of `autodidact skills`: the command tree run in process (test/inproc.ts), on a library directory in a temp folder.
 * Each command's `--json` output and the files it leaves are checked; failures must exit 1 with the typed error
 * (naming the offending value) on stderr and leave the library as it was.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cli as inProcess } from "./inproc.js"

/** `autodidact skills ARGS` in `cwd`, in this process (see inproc.ts). */
const cli = (cwd: string, ...args: Array<string>) => inProcess(["skills", ...args], cwd)

// A skill whose own test checks the command it issues: `act` replies "ok" only to "go to fridge 1".
const SPEC = {
  name: "walk-to",
  description: "go to a receptacle and return what the environment replied",
  parameters: { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
  result: { type: "string" },
  tests: [{ input: { target: "fridge 1" }, expected: "arrived at fridge 1", host: { act: ["arrived at fridge 1"] } }],
  provenance: { author: "cli-test" },
  tags: ["household"]
}
const GOOD = `function main(a) { return act("go to " + a.target) }\n`

const workspace = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-skills-"))
  fs.writeFileSync(path.join(dir, "walk.json"), JSON.stringify(SPEC))
  fs.writeFileSync(path.join(dir, "walk.js"), GOOD)
  return dir
}

describe("autodidact skills", () => {
  it("admit writes <name>.js + <name>.json; list, show, call and retrieve read them back", async () => {
    const dir = workspace()
    const admitted = (await cli(dir, "admit", "--spec", "walk.json", "--source", "walk.js", "--library", "lib", "--json"))
    expect(admitted.code, admitted.stderr).toBe(0)
    expect(admitted.json()).toEqual([{ name: "walk-to", version: 1, tests: 1, library: "lib" }])
    expect(fs.readFileSync(path.join(dir, "lib", "walk-to.js"), "utf8")).toBe(GOOD)
    expect(JSON.parse(fs.readFileSync(path.join(dir, "lib", "walk-to.json"), "utf8")).active).toBe(1)

    const list = (await cli(dir, "list", "--library", "lib", "--json")).json()
    expect(list).toEqual([{ name: "walk-to", active: 1, versions: 1, calls: 0, successRate: null, meanReturn: null, tags: "household", description: SPEC.description }])

    const shown = (await cli(dir, "show", "walk-to", "--library", "lib", "--json")).json()[0]!
    expect(shown["version"].spec.source).toBe(GOOD)
    expect(shown["version"].spec.provenance).toEqual({ author: "cli-test" })

    // the host script replies in order; the skill's one `act` call is reported with its argument
    const call = (await cli(dir, "call", "walk-to", "--args", JSON.stringify({ target: "sink 1" }), "--host", JSON.stringify({ act: ["you arrive at sink 1"] }), "--library", "lib", "--json"))
    expect(call.code, call.stderr).toBe(0)
    expect(call.json()).toEqual([{ result: "you arrive at sink 1", hostCalls: 'act("go to sink 1")' }])

    const hits = (await cli(dir, "retrieve", "go to a receptacle", "--k", "3", "--library", "lib", "--json")).json()
    expect(hits.map((h) => h["name"])).toEqual(["walk-to"])
    expect(hits[0]!["score"]).toBeGreaterThan(0)
    expect((await cli(dir, "retrieve", "go to a receptacle", "--tag", "sokoban", "--library", "lib", "--json")).json()).toEqual([])
  })

  it("a version that fails its test is refused with the stage and reason and never replaces the working one; rollback and remove", async () => {
    const dir = workspace()
    expect((await cli(dir, "admit", "--spec", "walk.json", "--source", "walk.js", "--library", "lib")).code).toBe(0)
    fs.writeFileSync(path.join(dir, "typo.js"), `function main(a) { return act("goto " + a.target) + "!" }\n`)
    const refused = (await cli(dir, "admit", "--spec", "walk.json", "--source", "typo.js", "--library", "lib"))
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("AdmissionError")
    expect(refused.stderr).toContain("test stage")
    expect(refused.stderr).toContain('got "arrived at fridge 1!"')
    expect(fs.readFileSync(path.join(dir, "lib", "walk-to.js"), "utf8")).toBe(GOOD)
    expect((await cli(dir, "list", "--library", "lib", "--json")).json()[0]).toMatchObject({ active: 1, versions: 1 })

    // a second working version, then back to the first
    fs.writeFileSync(path.join(dir, "v2.js"), `function main(a) { const r = act("go to " + a.target); return r }\n`)
    expect((await cli(dir, "admit", "--spec", "walk.json", "--source", "v2.js", "--library", "lib", "--json")).json()[0]).toMatchObject({ version: 2 })
    expect((await cli(dir, "rollback", "walk-to", "--version", "1", "--library", "lib", "--json")).json()).toEqual([{ name: "walk-to", from: 2, active: 1 }])
    expect(fs.readFileSync(path.join(dir, "lib", "walk-to.js"), "utf8")).toBe(GOOD)
    const missing = (await cli(dir, "rollback", "walk-to", "--version", "7", "--library", "lib"))
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('SkillNotFoundError: skill "walk-to" has no version 7')

    expect((await cli(dir, "remove", "walk-to", "--library", "lib")).code).toBe(0)
    expect(fs.readdirSync(path.join(dir, "lib"))).toEqual([])
    expect((await cli(dir, "remove", "walk-to", "--library", "lib")).stderr).toContain('no skill named "walk-to"')
  })

  it("check re-runs every skill's tests and names the ones that fail", async () => {
    const dir = workspace()
    expect((await cli(dir, "admit", "--spec", "walk.json", "--source", "walk.js", "--library", "lib")).code).toBe(0)
    fs.writeFileSync(path.join(dir, "other.json"), JSON.stringify({ ...SPEC, name: "shout", description: "upper-case a word", source: "function main(a) { return a.toUpperCase() }", tests: [{ input: "hi", expected: "HI" }] }))
    expect((await cli(dir, "admit", "--spec", "other.json", "--library", "lib")).code).toBe(0)
    expect((await cli(dir, "check", "--library", "lib", "--json")).json().map((r) => [r["name"], r["ok"]])).toEqual([["shout", true], ["walk-to", true]])

    // a reviewer edits the stored test of `shout` so that it no longer holds
    const file = path.join(dir, "lib", "shout.json")
    const record = JSON.parse(fs.readFileSync(file, "utf8"))
    record.versions[0].spec.tests[0].expected = "HELLO"
    fs.writeFileSync(file, JSON.stringify(record))
    const checked = (await cli(dir, "check", "--library", "lib", "--json"))
    expect(checked.code).toBe(1)
    expect(checked.json().map((r) => [r["name"], r["ok"], r["stage"]])).toEqual([["shout", false, "test"], ["walk-to", true, ""]])
    expect(checked.stderr).toContain("SkillCheckError: 1 of 2 skills fail their checks: shout")
  })

  it("bad input is a typed error naming the file or flag, and writes nothing", async () => {
    const dir = workspace()
    fs.writeFileSync(path.join(dir, "bad.json"), JSON.stringify({ ...SPEC, name: 3 }))
    const notSpec = (await cli(dir, "admit", "--spec", "bad.json", "--source", "walk.js", "--library", "lib"))
    expect(notSpec.code).toBe(1)
    expect(notSpec.stderr).toContain("SkillInputError: bad.json: not a skill spec")
    expect((await cli(dir, "admit", "--spec", "nowhere.json", "--library", "lib")).stderr).toContain("SkillInputError: nowhere.json")
    fs.writeFileSync(path.join(dir, "badname.json"), JSON.stringify({ ...SPEC, name: "../escape" }))
    expect((await cli(dir, "admit", "--spec", "badname.json", "--source", "walk.js", "--library", "lib")).stderr).toContain("not admitted at the name stage")
    expect(fs.existsSync(path.join(dir, "lib"))).toBe(false)
    expect(fs.existsSync(path.join(dir, "escape.js"))).toBe(false)

    expect((await cli(dir, "admit", "--spec", "walk.json", "--source", "walk.js", "--library", "lib")).code).toBe(0)
    expect((await cli(dir, "call", "walk-to", "--args", "{oops", "--library", "lib")).stderr).toContain("SkillInputError: --args: not JSON")
    expect((await cli(dir, "call", "walk-to", "--host", "[1]", "--library", "lib")).stderr).toContain("SkillInputError: --host")
    // a skill that calls a host function nobody granted fails in the guest, not in the host
    const ungranted = (await cli(dir, "call", "walk-to", "--args", JSON.stringify({ target: "x" }), "--library", "lib"))
    expect(ungranted.code).toBe(1)
    expect(ungranted.stderr).toContain("SkillRuntimeError")
    // more host calls than scripted replies: the typed host-call error
    const exhausted = (await cli(dir, "call", "walk-to", "--args", JSON.stringify({ target: "x" }), "--host", JSON.stringify({ act: [] }), "--library", "lib"))
    expect(exhausted.code).toBe(1)
    expect(exhausted.stderr).toContain("no more replies")
    // out of its range: refused while parsing, naming flag and value (the shared numeric-flag check)
    expect((await cli(dir, "discover", "--threshold", "1.5", "--library", "lib")).stderr).toContain(`Invalid value for flag --threshold: "1.5". Expected: a number 0 to 1`)
    fs.writeFileSync(path.join(dir, "empty.json"), "\n")
    expect((await cli(dir, "admit", "--spec", "empty.json", "--library", "lib")).stderr).toContain("SkillInputError: empty.json: is empty")
  })

  it("train --skills: the discovered macros become options of TextHousehold-v0; eval reuses them and refuses a changed library", async () => {
    const dir = workspace()
    expect((await cli(dir, "discover", "--train", "40", "--held-out", "15", "--top", "5", "--library", "lib", "--json")).code).toBe(0)
    const macros = fs.readdirSync(path.join(dir, "lib")).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).sort()
    const bin2 = (...args: Array<string>) => inProcess(args, dir)
    const trained = (await bin2("train", "--env", "TextHousehold-v0", "--difficulty", "easy", "--total-steps", "200", "--eval-episodes", "5", "--skills", "lib", "--out", "run", "--json"))
    expect(trained.code, trained.stderr).toBe(0)
    const summary = trained.json().at(-1)!
    // the learner called skills (a random initial policy over 2 skill commands per state among the primitives)
    expect(summary["skillShare"]).toBeGreaterThan(0)
    expect(summary["primitiveSteps"]).toBeGreaterThan(summary["globalStep"])
    const config = JSON.parse(fs.readFileSync(path.join(dir, "run", "config.json"), "utf8"))
    expect(config.skills).toEqual({ library: path.join(fs.realpathSync(dir), "lib"), macros, maxSkillActions: 2 })

    const evaluated = (await bin2("eval", "--run", "run", "--episodes", "10", "--json"))
    expect(evaluated.code, evaluated.stderr).toBe(0)
    expect(evaluated.json()[0]).toMatchObject({ env: "TextHousehold-v0", episodes: 10, skills: config.skills.library })

    // a library whose macros changed since training is refused, naming both sets
    fs.rmSync(path.join(dir, "lib", `${macros[0]}.json`))
    fs.rmSync(path.join(dir, "lib", `${macros[0]}.js`))
    const changed = (await bin2("eval", "--run", "run", "--episodes", "10"))
    expect(changed.code).toBe(1)
    expect(changed.stderr).toContain("SkillOptionsError")
    expect(changed.stderr).toContain("macros changed since training")

    const wrongEnv = (await bin2("train", "--env", "CartPole-v1", "--skills", "lib", "--out", "cp"))
    expect(wrongEnv.stderr).toContain("TrainConfigError: --skills \"lib\": skills as options are for TextHousehold-v0")
    const noMacros = (await bin2("train", "--env", "TextHousehold-v0", "--skills", "empty", "--out", "e"))
    expect(noMacros.stderr).toContain("SkillOptionsError")
  }, 240_000) // a ceiling against a hang: discover, train and eval processes take ~50 s on an idle CI host, 80+ s loaded

  it("discover admits exactly the macros that pass held-out verification, as reviewable files", async () => {
    const dir = workspace()
    const r = (await cli(dir, "discover", "--train", "40", "--held-out", "15", "--top", "5", "--library", "lib", "--json"))
    expect(r.code, r.stderr).toBe(0)
    const rows = r.json()
    expect(rows).toHaveLength(5)
    for (const row of rows) {
      // admitted iff the held-out success rate reaches the threshold and it saves decisions
      expect(row["admitted"]).toBe(row["successRate"] >= 0.8 && row["savedPerEpisode"] > 0)
      expect(String(row["steps"]).split(" ; ").length).toBeGreaterThanOrEqual(2)
    }
    const admitted = rows.filter((x) => x["admitted"]).map((x) => String(x["name"])).sort()
    expect(admitted.length).toBeGreaterThan(0)
    const files = fs.readdirSync(path.join(dir, "lib")).sort()
    expect(files).toEqual(admitted.flatMap((n) => [`${n}.js`, `${n}.json`]).sort())
    // what discovery admitted passes its own checks when re-run from the files
    expect((await cli(dir, "check", "--library", "lib", "--json")).json().every((x) => x["ok"] === true)).toBe(true)
  })
})
