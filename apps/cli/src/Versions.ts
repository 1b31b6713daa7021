/** Versions of the Autodidact packages and the runtime, recorded in every run's `config.json`. */
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

/** `{ "@autodidact/core": "0.1.0", ..., node: "v20.20.2" }` */
export const versions = (): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name of ["@autodidact/core", "@autodidact/envs", "@autodidact/kernels", "@autodidact/optim", "@autodidact/solvers"]) {
    try {
      out[name] = (require(`${name}/package.json`) as { version: string }).version
    } catch {
      out[name] = "unknown"
    }
  }
  out["effect"] = (require("effect/package.json") as { version: string }).version
  out["node"] = process.version
  return out
}
