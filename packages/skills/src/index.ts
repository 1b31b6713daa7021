/**
 * @autodidact/skills — a Voyager-style skill library (Wang et al. 2023, arXiv:2305.16291): sandboxed skills with
 * schemas, tests and provenance; admission, versions and rollback; retrieval; skills as options; discovery.
 *
 * @since 0.1.0
 */
export * as CheckSkill from "./CheckSkill.js"
export * as Discovery from "./Discovery.js"
export * as EpisodeCheck from "./EpisodeCheck.js"
export * as HouseholdSkills from "./HouseholdSkills.js"
export * as Sandbox from "./Sandbox.js"
export * as Skill from "./Skill.js"
export * as SkillAnswer from "./SkillAnswer.js"
export * as SkillIndex from "./SkillIndex.js"
export * as SkillLibrary from "./SkillLibrary.js"
export * as SkillOptions from "./SkillOptions.js"
export * as SkillPrompt from "./SkillPrompt.js"
export * as SkillWriter from "./SkillWriter.js"
export * as SokobanSkills from "./SokobanSkills.js"
export * as SyncSandbox from "./SyncSandbox.js"
