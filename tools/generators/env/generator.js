/**
 * `nx g @autodidact/tools:env NAME --kind single|multi|text`: an environment module in packages/envs, registered where
 * its kind is, exported from the package, with a conformance test that fails with "fill in step() in
 * packages/envs/src/<folder>/<Name>.ts" until the logic is written, and a changeset.
 *
 * - `single` (folder `classic`, or `--folder toytext`): `Env<number, number>` registered as `<Name>-v0` in
 *   `src/internal/BuiltinEnvs.ts` (what `Registry.make` reads); test: `CheckEnv.checkEnv`.
 * - `multi`: an OpenSpiel-style `Game` in `src/multiagent/`, registered as `<name_snake>` in
 *   `src/multiagent/GameRegistry.ts`; test: `CheckAecEnv.checkAecEnv(gameToAec(loadGame(...)))`.
 * - `text`: a `TextEnv` on the grid-text base in `src/text/`, registered as `<Name>-v0`; test:
 *   `CheckTextEnv.checkTextEnv`.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { generateFiles } from "@nx/devkit"
import { addChangeset, addImport, addModuleExport, addToFunctionBody, assertAbsent, GeneratorError, nameForms, readText } from "../lib.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const ENVS = "packages/envs"
const BUILTINS = `${ENVS}/src/internal/BuiltinEnvs.ts`
const GAMES = `${ENVS}/src/multiagent/GameRegistry.ts`

/**
 * @param {import("@nx/devkit").Tree} tree
 * @param {{ name: string, kind?: "single" | "multi" | "text", folder?: "classic" | "toytext", players?: number, maxEpisodeSteps?: number }} options
 */
export default async function envGenerator(tree, options) {
  const kind = options.kind ?? "single"
  if (!["single", "multi", "text"].includes(kind)) throw new GeneratorError(`--kind ${JSON.stringify(kind)}: expected single, multi or text`)
  const folder = kind === "single" ? (options.folder ?? "classic") : kind === "multi" ? "multiagent" : "text"
  if (!["classic", "toytext", "multiagent", "text"].includes(folder)) throw new GeneratorError(`--folder ${JSON.stringify(folder)}: expected classic or toytext`)
  const maxEpisodeSteps = options.maxEpisodeSteps ?? 100
  if (!Number.isInteger(maxEpisodeSteps) || maxEpisodeSteps <= 0) throw new GeneratorError(`--maxEpisodeSteps ${maxEpisodeSteps}: expected a positive integer`)
  const numPlayers = options.players ?? 2
  if (!Number.isInteger(numPlayers) || numPlayers < 1) throw new GeneratorError(`--players ${numPlayers}: expected an integer >= 1`)
  const forms = nameForms(options.name, "env")
  const { className } = forms
  const moduleFile = `${ENVS}/src/${folder}/${className}.ts`
  assertAbsent(tree, moduleFile)
  assertAbsent(tree, `${ENVS}/test/${className}.test.ts`)
  const envId = `${className}-v0`
  const gameName = forms.snakeName
  const envClass = className.endsWith("Env") ? className : `${className}Env`

  if (kind === "multi") {
    let games = readText(tree, GAMES)
    if (games.includes(`registerGame("${gameName}"`)) throw new GeneratorError(`${GAMES} already registers a game named ${gameName}`)
    games = addImport(games, `import * as ${className} from "./${className}.js"`, GAMES)
    tree.write(GAMES, games.replace(/\n*$/, "\n") + `registerGame("${gameName}", () => ${className}.make())\n`)
  } else {
    let builtins = readText(tree, BUILTINS)
    if (builtins.includes(`id: "${envId}"`)) throw new GeneratorError(`${BUILTINS} already registers ${envId}`)
    const cls = kind === "single" ? envClass : className
    builtins = addImport(builtins, `import * as ${className} from "../${folder}/${className}.js"`, BUILTINS)
    builtins = addToFunctionBody(builtins, "registerBuiltins", `
  add({
    id: "${envId}",
    entryPoint: (kwargs) => new ${className}.${cls}(kwargs as ${className}.${className}Options),
    maxEpisodeSteps: ${maxEpisodeSteps}
  })
`, BUILTINS)
    tree.write(BUILTINS, builtins)
  }
  addModuleExport(tree, `${ENVS}/src/index.ts`, className, `./${folder}/${className}.js`)
  generateFiles(tree, path.join(here, "files", kind), ENVS, { ...forms, folder, envId, envClass, gameName, numPlayers, maxEpisodeSteps, tmpl: "" })
  const what = kind === "multi" ? `game \`${gameName}\` (GameRegistry)` : `environment \`${envId}\``
  addChangeset(tree, "@autodidact/envs", `envs-${forms.fileName}`, `New ${what}: \`${className}\`.`)
}
