/**
 * `nx g @autodidact/tools:skill NAME`: a skill (sandboxed JavaScript with scripted-host tests) in
 * packages/skills/src/<Name>.ts, exported from the package, with a test running `CheckSkill.checkSkill` that fails
 * with "fill in main() in packages/skills/src/<Name>.ts" until its source is written, and a changeset.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { moduleGenerator } from "../lib.js"

export default moduleGenerator({
  here: path.dirname(fileURLToPath(import.meta.url)),
  pkgDir: "packages/skills",
  pkg: "@autodidact/skills",
  folder: "",
  what: "skill",
  summary: (name) => `New skill \`${name}\`.`
})
