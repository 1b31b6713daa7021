/**
 * The skill model: a named JavaScript function with JSON-Schema parameters and result (for LLM tool calling), its own
 * tests, provenance, version history and usage statistics — Voyager's skill library entries, made checkable.
 *
 * **Details**: a skill's `source` is a script that defines a global function named `entry` (default `"main"`) taking
 * one JSON argument (see `Sandbox`). `tests` are `input → expected` examples, run in the sandbox at admission; a test
 * may also grant scripted host responses (`host`: a list of values each host function returns in order).
 *
 * @see Wang et al., "Voyager: An Open-Ended Embodied Agent with Large Language Models", arXiv:2305.16291
 * @since 0.1.0
 */
import type { TextEnv } from "@autodidact/envs"
import { Schema } from "effect"

/** A JSON Schema object (kept as plain JSON). */
export const JsonSchema = Schema.Record(Schema.String, Schema.Unknown)

/** One example: calling the skill with `input` must return `expected` (deep equality of JSON). */
export const SkillTest = Schema.Struct({
  name: Schema.optional(Schema.String),
  input: Schema.Unknown,
  expected: Schema.Unknown,
  /** Scripted host functions: each name maps to the values returned by successive calls. */
  host: Schema.optional(Schema.Record(Schema.String, Schema.Array(Schema.Unknown)))
})
export type SkillTest = typeof SkillTest.Type

/** Where a skill came from. */
export const Provenance = Schema.Struct({
  author: Schema.String,
  episodeId: Schema.optional(Schema.String),
  note: Schema.optional(Schema.String)
})
export type Provenance = typeof Provenance.Type

/** What an author submits. */
export const SkillSpec = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  parameters: JsonSchema,
  result: JsonSchema,
  source: Schema.String,
  entry: Schema.optional(Schema.String),
  tests: Schema.Array(SkillTest),
  provenance: Provenance,
  /** Free labels for retrieval filters (e.g. the env id). */
  tags: Schema.optional(Schema.Array(Schema.String))
})
export type SkillSpec = typeof SkillSpec.Type

/** One admitted version. */
export const SkillVersion = Schema.Struct({
  version: Schema.Number,
  spec: SkillSpec,
  admittedAt: Schema.String,
  verifierScore: Schema.optional(Schema.Number)
})
export type SkillVersion = typeof SkillVersion.Type

/** Usage statistics of a skill (all versions). */
export const SkillStats = Schema.Struct({
  calls: Schema.Number,
  successes: Schema.Number,
  meanReturn: Schema.Number
})
export type SkillStats = typeof SkillStats.Type

/** A stored skill: its admitted versions, the active one, and usage statistics (the metadata file). */
export const SkillRecord = Schema.Struct({
  name: Schema.String,
  active: Schema.Number,
  versions: Schema.Array(SkillVersion),
  stats: SkillStats
})
export type SkillRecord = typeof SkillRecord.Type

/** A tool description for LLM function calling (OpenAI-style `{ type: "function", function: {...} }`). */
export const toTool = (spec: SkillSpec) => ({
  type: "function" as const,
  function: { name: spec.name, description: spec.description, parameters: spec.parameters }
})

/** Valid skill names: identifiers with dashes, so they are file names and guest strings at once. */
export const isValidName = (name: string): boolean => /^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(name)

/**
 * A library skill offered as an option (Sutton, Precup & Singh 1999: a temporally extended action), with the argument
 * names in command order and a grounding; `SkillOptions.SkillOptionsEnv` turns options into `skill NAME ARG...`
 * commands of a text environment.
 * @since 0.1.0
 */
export interface SkillOption {
  readonly name: string
  /** Parameter names, in the order the command spells them (`skill put-in apple fridge` → `["object", "receptacle"]`). */
  readonly params: ReadonlyArray<string>
  /**
   * Argument tuples offered in the current state (each one becomes an admissible `skill NAME a b` command). An
   * argument may contain spaces (an instance such as `cabinet 2`); the offered command is then parsed by lookup.
   */
  readonly ground: (env: TextEnv.TextEnv) => ReadonlyArray<ReadonlyArray<string>>
  /**
   * Optional: the primitive commands a call with these arguments expands to (first step exact, later steps may name
   * types), for featurizers; see `SkillOptions.OptionsEnvBase.describeAction`. A macro knows it; an arbitrary skill need not.
   */
  readonly expand?: (args: ReadonlyArray<string>) => ReadonlyArray<string>
}
