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

/**
 * The transcript of a text episode: one turn per step (observation text, action text, and a status line with the
 * reward and the terminated/truncated flags), then the final observation when there is one. `current` marks the
 * turn of step `at` (at === steps.length: the final observation).
 */
export function textTurns(ep, at) {
  const turns = ep.steps.map((s, k) => ({
    step: k,
    observation: s.observation,
    action: s.action,
    status: "reward " + s.reward + " · terminated " + (s.terminated === true) + " · truncated " + (s.truncated === true),
    flags: endFlags(s),
    current: k === at
  }))
  if (typeof ep.finalObservation === "string") {
    turns.push({ step: ep.steps.length, observation: ep.finalObservation, action: undefined, status: "end · return " + ep.return, flags: "", current: at === ep.steps.length })
  }
  return turns
}
