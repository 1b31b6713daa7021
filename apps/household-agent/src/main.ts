/**
 * `household-agent`: the command line of the reference app (see README.md).
 *
 * ```sh
 * npm run start -w @autodidact/household-agent -- --out "$PWD/runs/household" --steps 100000 --seed 1 [--no-memory] [--memory-prior W] [--exemplar-line every-step|first-step|none] [--skills] [--no-prm] [--prm-into advantages|rewards] [--stream FILE]
 * ```
 * With `--llm-base-url URL` (any OpenAI-compatible endpoint) it runs the LLM policy instead ({@link LlmAgent}).
 * Prints the summary as one JSON line on stdout, progress on stderr; exits 1 with the error's tag and message.
 * @since 0.0.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Effect } from "effect"
import { parseArgs } from "node:util"
import * as Agent from "./Agent.js"
import * as LlmAgent from "./LlmAgent.js"

/** The options of a command line (throws InvalidOptionError naming a bad flag value). */
export const parse = (argv: ReadonlyArray<string>): Partial<Agent.AgentOptions> & { readonly out: string } => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      out: { type: "string" },
      seed: { type: "string" },
      steps: { type: "string" },
      stream: { type: "string" },
      difficulty: { type: "string" },
      "max-steps": { type: "string" },
      "group-size": { type: "string" },
      "tasks-per-batch": { type: "string" },
      "seen-fraction": { type: "string" },
      "eval-every": { type: "string" },
      "eval-episodes": { type: "string" },
      memory: { type: "boolean" },
      "exemplar-line": { type: "string" },
      "memory-prior": { type: "string" },
      "memory-dir": { type: "string" },
      "memory-prior-match": { type: "string" },
      "no-memory": { type: "boolean" },
      skills: { type: "boolean" },
      "no-skills": { type: "boolean" },
      "no-prm": { type: "boolean" },
      "prm-into": { type: "string" },
      overwrite: { type: "boolean" },
      quiet: { type: "boolean" }
    },
    strict: true
  })
  if (values.out === undefined) throw new InvalidOptionError({ option: "--out", value: "(missing)", reason: "name the run directory to write" })
  const num = (flag: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined
    const n = Number(v)
    if (v.trim() === "" || !Number.isFinite(n)) throw new InvalidOptionError({ option: flag, value: v, reason: "must be a number" })
    return n
  }
  const entries: Array<[string, unknown]> = [
    ["out", values.out],
    ["seed", num("--seed", values.seed)],
    ["steps", num("--steps", values.steps)],
    ["stream", values.stream],
    ["difficulty", values.difficulty],
    ["maxSteps", num("--max-steps", values["max-steps"])],
    ["groupSize", num("--group-size", values["group-size"])],
    ["tasksPerBatch", num("--tasks-per-batch", values["tasks-per-batch"])],
    ["seenFraction", num("--seen-fraction", values["seen-fraction"])],
    ["evalEvery", num("--eval-every", values["eval-every"])],
    ["evalEpisodes", num("--eval-episodes", values["eval-episodes"])],
    ["memory", values["no-memory"] === true ? false : values.memory === true ? true : undefined],
    ["exemplarLine", values["exemplar-line"]],
    ["memoryPrior", num("--memory-prior", values["memory-prior"])],
    ["memoryDir", values["memory-dir"]],
    ["memoryPriorMatch", values["memory-prior-match"]],
    ["skills", values["no-skills"] === true ? false : values.skills === true ? true : undefined],
    ["prm", values["no-prm"] === true ? false : undefined],
    ["prmInto", values["prm-into"]],
    ["overwrite", values.overwrite],
    ["log", values.quiet === true ? undefined : (line: string) => process.stderr.write(`${line}\n`)]
  ]
  return Object.fromEntries(entries.filter(([, v]) => v !== undefined)) as Partial<Agent.AgentOptions> & { readonly out: string }
}

const isMain = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("household-agent/src/main.ts") === true
if (isMain) {
  const argv = process.argv.slice(2)
  const program: Effect.Effect<unknown, Error> = LlmAgent.wanted(argv)
    ? Effect.try({ try: () => LlmAgent.parse(argv), catch: (e) => e as Error }).pipe(Effect.flatMap(LlmAgent.run))
    : Effect.try({ try: () => parse(argv), catch: (e) => e as Error }).pipe(Effect.flatMap(Agent.run))
  Effect.runPromise(program).then(
    (summary) => {
      process.stdout.write(`${JSON.stringify(summary)}\n`)
      // the sandbox's and PGlite's handles are closed; exit without waiting for TF.js timers
      process.exit(0)
    },
    (e: unknown) => {
      const err = e as { _tag?: string; message?: string }
      process.stderr.write(`${err._tag ?? "Error"}: ${err.message ?? String(e)}\n`)
      process.exit(1)
    }
  )
}
