/**
 * `nx g @autodidact/tools:estimator NAME`: an advantage estimator in packages/optim/src/estimators/<Name>.ts that
 * registers itself with `Advantages.register(NAME, estimator)` when loaded (the package entry exports it, and
 * `package.json` `sideEffects` lists it so bundlers keep the registration), a test running
 * `CheckEstimator.checkEstimator` that fails with "fill in estimator() in packages/optim/src/estimators/<Name>.ts"
 * until it is written, and a changeset.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { generateFiles, updateJson } from "@nx/devkit"
import { addChangeset, addModuleExport, assertAbsent, GeneratorError, nameForms, readText } from "../lib.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const OPTIM = "packages/optim"

/**
 * @param {import("@nx/devkit").Tree} tree
 * @param {{ name: string }} options
 */
export default async function estimatorGenerator(tree, options) {
  const forms = nameForms(options.name, "estimator")
  const name = forms.fileName
  const { className } = forms
  const moduleFile = `${OPTIM}/src/estimators/${className}.ts`
  assertAbsent(tree, moduleFile)
  assertAbsent(tree, `${OPTIM}/test/${className}.test.ts`)
  const builtins = readText(tree, `${OPTIM}/src/Advantages.ts`)
  if (builtins.includes(`["${name}", `)) throw new GeneratorError(`${OPTIM}/src/Advantages.ts already has an estimator named ${name}`)
  addModuleExport(tree, `${OPTIM}/src/index.ts`, className, `./estimators/${className}.js`)
  updateJson(tree, `${OPTIM}/package.json`, (pkg) => {
    const current = Array.isArray(pkg.sideEffects) ? pkg.sideEffects : []
    pkg.sideEffects = [...current, `./src/estimators/${className}.ts`, `./dist/estimators/${className}.js`]
    return pkg
  })
  generateFiles(tree, path.join(here, "files"), OPTIM, { ...forms, name, tmpl: "" })
  addChangeset(tree, "@autodidact/optim", `optim-${name}`, `New advantage estimator \`${name}\` (\`Advantages.get("${name}")\`, \`algo: "${name}"\`).`)
}
