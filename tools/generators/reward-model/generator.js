/**
 * `nx g @autodidact/tools:reward-model NAME`: a rule-based reward model in packages/rewards/src/<Name>.ts (on
 * `RewardModel.rules`), exported from the package, with a test running `CheckRewardModel.checkRewardModel` that fails
 * with "fill in outcome() in packages/rewards/src/<Name>.ts" until the scoring is written, and a changeset.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { moduleGenerator } from "../lib.js"

export default moduleGenerator({
  here: path.dirname(fileURLToPath(import.meta.url)),
  pkgDir: "packages/rewards",
  pkg: "@autodidact/rewards",
  folder: "",
  what: "reward-model",
  summary: (name) => `New reward model \`${name}\`.`
})
