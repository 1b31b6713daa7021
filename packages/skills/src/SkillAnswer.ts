/**
 * Parsing and decoding of a skill writer's answer: the model's text → the JSON object of the skill (fenced or bare,
 * with an optional separate ```js block) → a `Skill.SkillSpec` decoded with `Schema`, carrying the writer's
 * provenance. The first two checks of a `SkillWriter` attempt (stages `"parse"` and `"decode"`).
 *
 * **When to use**: `SkillWriter.write` calls these; use them directly to accept skills from another source of model
 * answers (a recorded transcript, a batch API).
 *
 * @see Wang et al., "Voyager: An Open-Ended Embodied Agent with Large Language Models", arXiv:2305.16291
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import * as Skill from "./Skill.js"
import type { AttemptError } from "./SkillPrompt.js"

/**
 * A parsed answer: the JSON object and a separate ```js block if there was one, or the reason none was found
 * (`"the answer is empty"`, `"invalid JSON: ..."`, `"the JSON value is not an object"`,
 * `"the answer contains no JSON object"`).
 */
export type Parsed =
  | { readonly ok: true; readonly value: Record<string, unknown>; readonly code?: string }
  | { readonly ok: false; readonly reason: string }

const FENCE = /```([A-Za-z]*)[^\n]*\n([\s\S]*?)```/g

/**
 * Extract the skill object from an answer: the first fenced block (```json or unlabeled) that parses as a JSON
 * object, else the text from the first `{` to the last `}`. A ```js/```javascript block is returned as `code`.
 */
export const parseAnswer = (answer: string): Parsed => {
  const fences = [...answer.matchAll(FENCE)].map((m) => ({ lang: (m[1] ?? "").toLowerCase(), body: m[2] ?? "" }))
  const code = fences.find((f) => f.lang === "js" || f.lang === "javascript")?.body.trim()
  const withCode = (value: Record<string, unknown>): Parsed => (code !== undefined ? { ok: true, value, code } : { ok: true, value })
  let lastError: string | undefined
  const tryParse = (text: string): Record<string, unknown> | undefined => {
    try {
      const v: unknown = JSON.parse(text)
      if (v !== null && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>
      lastError = "the JSON value is not an object"
    } catch (e) {
      lastError = `invalid JSON: ${e instanceof Error ? e.message : String(e)}`
    }
    return undefined
  }
  for (const f of fences) {
    if (f.lang !== "" && f.lang !== "json") continue
    const v = tryParse(f.body.trim())
    if (v !== undefined) return withCode(v)
  }
  // bare: the balanced object from the first "{" (quotes respected), then the text up to the last "}"
  const start = answer.indexOf("{")
  if (start >= 0) {
    const end = balancedEnd(answer, start)
    const v = end !== undefined ? tryParse(answer.slice(start, end + 1)) : undefined
    if (v !== undefined) return withCode(v)
    const last = answer.lastIndexOf("}")
    const w = last > start && last !== end ? tryParse(answer.slice(start, last + 1)) : undefined
    if (w !== undefined) return withCode(w)
  }
  if (answer.trim() === "") return { ok: false, reason: "the answer is empty" }
  return { ok: false, reason: lastError ?? "the answer contains no JSON object" }
}

/** Index of the `}` closing the `{` at `start` (JSON strings skipped), or undefined. */
const balancedEnd = (text: string, start: number): number | undefined => {
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === "\\") i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === "{") depth++
    else if (c === "}" && --depth === 0) return i
  }
  return undefined
}

const decodeSpec = Schema.decodeUnknownEffect(Skill.SkillSpec)

/**
 * Decode a parsed answer into a spec with the writer's provenance (any provenance in the answer is replaced; `name`
 * forced when given; tags merged: the answer's then `extra.tags`, de-duplicated). Fails with an
 * {@link AttemptError} at stage `"decode"` whose message is the schema's (which field is missing or of the wrong type).
 */
export const decodeAnswer = (
  parsed: { readonly value: Record<string, unknown>; readonly code?: string },
  provenance: Skill.Provenance,
  extra: { readonly name?: string | undefined; readonly tags?: ReadonlyArray<string> | undefined } = {}
): Effect.Effect<Skill.SkillSpec, AttemptError> => {
  const v = parsed.value
  const candidate: Record<string, unknown> = {
    name: extra.name ?? v["name"],
    description: v["description"],
    parameters: v["parameters"],
    result: v["result"],
    source: v["source"] ?? parsed.code,
    tests: v["tests"],
    provenance
  }
  if (v["entry"] !== undefined) candidate["entry"] = v["entry"]
  const tags = [...(Array.isArray(v["tags"]) ? v["tags"] : []), ...(extra.tags ?? [])]
  if (tags.length > 0) candidate["tags"] = [...new Set(tags)]
  return decodeSpec(candidate).pipe(
    Effect.mapError((e): AttemptError => ({ stage: "decode", message: e.message }))
  )
}

