/**
 * Where the static UI and uPlot's distribution files live (no build step: served as they are).
 * @since 0.0.0
 */
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The package's `ui/` folder (the same from `src/` and `dist/`). */
export const uiDir = (): string => fileURLToPath(new URL("../ui/", import.meta.url))

/** `node_modules/uplot/dist`. */
export const uplotDir = (): string => path.join(path.dirname(createRequire(import.meta.url).resolve("uplot/package.json")), "dist")
