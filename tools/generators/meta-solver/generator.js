/**
 * `nx g @autodidact/tools:meta-solver NAME`: a PSRO meta-solver in packages/solvers/src/normalform/<Name>.ts (a
 * `MetaSolvers.MetaSolver` with its declaration), exported from the package, with a test running
 * `CheckMetaSolver.checkMetaSolver` that fails with "fill in metaSolver() in ..." until it is written, and a changeset.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { moduleGenerator } from "../lib.js"

export default moduleGenerator({
  here: path.dirname(fileURLToPath(import.meta.url)),
  pkgDir: "packages/solvers",
  pkg: "@autodidact/solvers",
  folder: "normalform",
  what: "meta-solver",
  summary: (name) => `New PSRO meta-solver \`${name}\`.`
})
