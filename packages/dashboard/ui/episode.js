// Pure helpers of the episode viewer (no DOM), imported by app.js and by the unit tests.
// A text episode is core's TextEpisode schema (packages/core/src/TextEpisode.ts): a core Trajectory whose steps carry the
// observation and the action as strings.

/** Whether a parsed episode is a text episode: every step's observation and action are strings (and there is text to show). */
export function isTextEpisode(ep) {
  if (ep === null || typeof ep !== "object" || !Array.isArray(ep.steps)) return false
  if (ep.steps.length === 0) return typeof ep.finalObservation === "string"
  return ep.steps.every((s) => s !== null && typeof s === "object" && typeof s.observation === "string" && typeof s.action === "string")
}

/** The end flags of a step as words: "terminated", "truncated", both, or "". */
export function endFlags(step) {
  return [step.terminated === true ? "terminated" : "", step.truncated === true ? "truncated" : ""].filter((s) => s !== "").join(", ")
}

/** One retrieved exemplar as text: a string as is, else its `task`, `text` or `id` (the first present), else JSON. */
function exemplarText(e) {
  if (typeof e === "string") return e
  if (e !== null && typeof e === "object") for (const k of ["task", "text", "id"]) if (typeof e[k] === "string" || typeof e[k] === "number") return String(e[k])
  return JSON.stringify(e)
}

/**
 * What an agent drew on at a step, from the step's `info` (the dashboard's `Runs.StepExtras`): `exemplars` (or
 * `retrieved`, or one `exemplar`: past episodes retrieved from memory, strings or objects with a `task`, `text` or
 * `id`), `skill` (or `skills`: the skill(s) used as options, with `primitiveSteps`, the env steps the call took) and
 * `notes` (free text), as `{ kind: "exemplars" | "skill" | "note", text }` notes; [] when the step's info has none.
 */
export function stepNotes(step) {
  const info = step && step.info && typeof step.info === "object" ? step.info : undefined
  if (info === undefined) return []
  const notes = []
  const ex = info.exemplars !== undefined ? info.exemplars : info.retrieved !== undefined ? info.retrieved : info.exemplar
  if (ex !== undefined) {
    const list = Array.isArray(ex) ? ex : [ex]
    if (list.length > 0) notes.push({ kind: "exemplars", text: "exemplars (" + list.length + "): " + list.map(exemplarText).join(" · ") })
  }
  const sk = info.skill !== undefined ? info.skill : info.skills
  if (sk !== undefined && sk !== null) {
    const list = Array.isArray(sk) ? sk : [sk]
    const took = typeof info.primitiveSteps === "number" ? " (" + info.primitiveSteps + " env step" + (info.primitiveSteps === 1 ? "" : "s") + ")" : ""
    if (list.length > 0) notes.push({ kind: "skill", text: "skill: " + list.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join(", ") + took })
  }
  if (info.notes !== undefined && info.notes !== null) {
    for (const n of Array.isArray(info.notes) ? info.notes : [info.notes]) notes.push({ kind: "note", text: typeof n === "string" ? n : JSON.stringify(n) })
  }
  return notes
}

/**
 * The transcript of a text episode: one turn per step (observation text, action text, and a status line with the
 * reward and the terminated/truncated flags, and the exemplars and skills of {@link stepNotes}), then the final
 * observation when there is one. `current` marks the
 * turn of step `at` (at === steps.length: the final observation).
 */
export function textTurns(ep, at) {
  const turns = ep.steps.map((s, k) => ({
    step: k,
    observation: s.observation,
    action: s.action,
    status: "reward " + s.reward + " · terminated " + (s.terminated === true) + " · truncated " + (s.truncated === true),
    flags: endFlags(s),
    notes: stepNotes(s),
    current: k === at
  }))
  if (typeof ep.finalObservation === "string") {
    turns.push({ step: ep.steps.length, observation: ep.finalObservation, action: undefined, status: "end · return " + ep.return, flags: "", notes: [], current: at === ep.steps.length })
  }
  return turns
}
