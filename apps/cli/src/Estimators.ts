/**
 * The advantage estimators a multi-turn (text) run can use, read from the registry of `@autodidact/optim`
 * (`Advantages.names()`): the built-ins and every estimator registered with `Advantages.register` — among them the
 * ones `nx g @autodidact/tools:estimator` writes into `packages/optim/src/estimators/`, which register themselves
 * when `@autodidact/optim` loads. An estimator that needs critic values (`Advantages.traits(name).needs.values`,
 * e.g. `gae`) is left out: the DRRN text policy has no critic.
 *
 * `train --algo` and `compare --algos` offer these names; `main.ts` reads them (through `Exec.ts`) before parsing a
 * `train` or `compare` command line, so that `--help` lists them and an unknown name is refused while parsing.
 *
 * @example
 * ```ts
 * import { Advantages } from "@autodidact/optim"
 * const undo = Advantages.register("my-est", Advantages.get("dr-grpo"))
 * textEstimators() // ["gigpo", "grpo", "dr-grpo", "rloo", "reinforce++", "my-est"]
 * undo()
 * ```
 * @since 0.2.0
 */
import { Advantages } from "@autodidact/optim"
import { textAlgos } from "./Commands.js"

/** Whether the registered estimator `name` can train the critic-free DRRN policy (it needs no critic values). */
const usableByTextRuns = (name: string): boolean => Advantages.traits(name).needs?.values !== true

/**
 * The registered estimators a text run can use, now: the built-ins in `textAlgos` order (the default `gigpo`
 * first), then the others sorted by name.
 */
export const textEstimators = (): Array<string> => {
  const usable = Advantages.names().filter(usableByTextRuns)
  const builtin: ReadonlyArray<string> = textAlgos
  return [...builtin.filter((n) => usable.includes(n)), ...usable.filter((n) => !builtin.includes(n))]
}
