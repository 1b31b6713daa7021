/**
 * Linear and convex quadratic programs solved by HiGHS (compiled to WebAssembly), as an Effect service.
 *
 * Huangfu and Hall, "Parallelizing the dual revised simplex method", Mathematical Programming Computation 10,
 * 2018 (the HiGHS simplex solver); the `highs` npm package (1.15) wraps HiGHS in WebAssembly.
 *
 * **When to use**: the meta-solvers in `MetaSolvers` use it for zero-sum Nash (LP), (coarse) correlated equilibria
 * (LP) and Maximum Gini (C)CE (QP). Build a {@link Problem} and call `solve`; provide the layer of
 * `@autodidact/solvers/lp` (`Highs.layer` there), which loads the optional peer `highs`.
 *
 * **Details**
 * - Problems are written as CPLEX-LP text ({@link toLpText}) with every number in JavaScript's shortest
 *   round-trip form (`String(x)`), so HiGHS parses back exactly the doubles it was given. Variables are named
 *   `x0..x{n-1}`, rows `r0..`; quadratic objectives are written `[ ... ] / 2` (objective = c'x + ½ x'Qx).
 * - This module (in the main entry) holds the service, the problem types and the LP writer only: it never loads
 *   `highs`, whose module reaches Node built-ins. `@autodidact/solvers/lp` loads the WebAssembly module once per
 *   process (a cached promise) when its layer is built; without `highs` installed that fails with
 *   `MissingPeerError` (`npm install highs`). Each solve uses
 *   HiGHS's one-shot API, which creates a fresh native solver and frees it before returning, so no persistent
 *   model is left for the garbage collector.
 * - Only an `Optimal` status yields a {@link Solution}; infeasible, unbounded, time/iteration limits and solver
 *   errors fail with {@link LpSolveError} carrying the HiGHS status, so no caller ever reads a non-solution.
 *
 * **Gotchas**: HiGHS solves convex QPs only: a quadratic objective must be positive semidefinite when minimizing.
 * A solve is synchronous WebAssembly and cannot be interrupted midway; set `time_limit` for long ones.
 *
 * @example
 * ```ts
 * import { Highs } from "@autodidact/solvers/lp" // the same namespace, plus `layer`
 * import { Effect } from "effect"
 * const program = Effect.gen(function* () {
 *   const highs = yield* Highs.Highs
 *   return yield* highs.solve({
 *     sense: "maximize", numVariables: 2, objective: [1, 2],
 *     rows: [{ terms: [[0, 1], [1, 1]], sense: "<=", rhs: 4 }], upper: [3, 2]
 *   })
 * })
 * Effect.runPromise(program.pipe(Effect.provide(Highs.layer))) // objective 6, primal [2, 2]
 * ```
 * @see https://highs.dev
 * @see https://www.npmjs.com/package/highs
 * @since 0.1.0
 */
import type { Highs as HighsRuntime, LegacyHighsOptions } from "highs"
import { Context, Effect, Schema } from "effect"

/**
 * A linear or quadratic program could not be solved to optimality: HiGHS reported `status` (e.g. `Infeasible`,
 * `Unbounded`, `Time limit reached`, `Load error`), or the input itself was invalid (`status: "Invalid input"`),
 * or a solution failed its verification (`status: "Verification failed"`).
 * @category errors
 */
export class LpSolveError extends Schema.TaggedError<LpSolveError>()("LpSolveError", {
  status: Schema.String,
  problem: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.problem}: ${this.status}${this.reason === "" ? "" : ` (${this.reason})`}`
  }
}

/** One linear constraint `sum coefficient * x[variable] (sense) rhs`. */
export interface Row {
  readonly terms: ReadonlyArray<readonly [variable: number, coefficient: number]>
  readonly sense: "<=" | ">=" | "="
  readonly rhs: number
}

/** A linear (or convex quadratic) program over `numVariables` continuous variables. */
export interface Problem {
  /** What the solution is used for, quoted in errors (e.g. `"CCE of 3x3x3 game"`). */
  readonly name?: string | undefined
  readonly sense: "minimize" | "maximize"
  readonly numVariables: number
  /** Linear objective coefficients (default all 0). */
  readonly objective?: ArrayLike<number> | undefined
  /** Entries `[i, j, q]` (i <= j) of the symmetric matrix Q in the objective term ½ x'Qx. */
  readonly quadratic?: ReadonlyArray<readonly [number, number, number]> | undefined
  readonly rows: ReadonlyArray<Row>
  /** Lower bounds (default 0; `-Infinity` for none). */
  readonly lower?: ArrayLike<number> | undefined
  /** Upper bounds (default `Infinity`). */
  readonly upper?: ArrayLike<number> | undefined
}

/** An optimal solution. */
export interface Solution {
  readonly status: "Optimal"
  readonly objective: number
  /** Variable values, in variable order. */
  readonly primal: Float64Array
  /** Row activities (left-hand sides), in row order. */
  readonly rowActivity: Float64Array
  /** Row duals (shadow prices), in row order (NaN where HiGHS reports none). */
  readonly rowDual: Float64Array
}

/** HiGHS options passed to a solve (the `highs` package's option names, e.g. `time_limit`, `solver`). */
export type Options = LegacyHighsOptions

/** What the {@link Highs} service offers. */
export interface HighsShape {
  /** Solve a problem to optimality or fail with {@link LpSolveError}. */
  readonly solve: (problem: Problem, options?: Options) => Effect.Effect<Solution, LpSolveError>
  /** The HiGHS version string of the loaded WebAssembly build. */
  readonly version: string
}

/**
 * The HiGHS solver service.
 * @category services
 */
export class Highs extends Context.Service<Highs, HighsShape>()("@autodidact/solvers/Highs") {}

/** Shortest round-trip decimal form of a finite double (JavaScript's `Number#toString`), `-0` as `0`. */
export const formatNumber = (x: number): string => (x === 0 ? "0" : String(x))

const invalid = (problem: Problem, reason: string) =>
  new LpSolveError({ status: "Invalid input", problem: problem.name ?? "LP", reason })

const checkProblem = (p: Problem): LpSolveError | undefined => {
  const n = p.numVariables
  if (!Number.isSafeInteger(n) || n <= 0) return invalid(p, `numVariables must be a positive integer, got ${n}`)
  const finite = (what: string, a: ArrayLike<number> | undefined, allowInf: boolean) => {
    if (a === undefined) return undefined
    if (a.length !== n) return invalid(p, `${what} has length ${a.length}, expected ${n}`)
    for (let i = 0; i < n; i++) {
      const v = a[i]!
      if (Number.isNaN(v) || (!allowInf && !Number.isFinite(v))) return invalid(p, `${what}[${i}] = ${v} is not finite`)
    }
    return undefined
  }
  const e = finite("objective", p.objective, false) ?? finite("lower", p.lower, true) ?? finite("upper", p.upper, true)
  if (e !== undefined) return e
  for (const [k, [i, j, q]] of (p.quadratic ?? []).entries()) {
    if (!Number.isInteger(i) || !Number.isInteger(j) || i < 0 || j < i || j >= n || !Number.isFinite(q)) {
      return invalid(p, `quadratic entry ${k} = [${i}, ${j}, ${q}] must have 0 <= i <= j < ${n} and a finite value`)
    }
  }
  for (const [r, row] of p.rows.entries()) {
    if (!Number.isFinite(row.rhs)) return invalid(p, `row ${r} has non-finite right-hand side ${row.rhs}`)
    for (const [v, c] of row.terms) {
      if (!Number.isInteger(v) || v < 0 || v >= n) return invalid(p, `row ${r} refers to variable ${v} outside [0, ${n})`)
      if (!Number.isFinite(c)) return invalid(p, `row ${r} has non-finite coefficient ${c} for variable ${v}`)
    }
  }
  return undefined
}

/** Append `+ c name` / `- |c| name` terms, ten per line (LP-format lines stay short). */
const writeTerms = (out: Array<string>, terms: ReadonlyArray<readonly [string, number]>): void => {
  let line = ""
  let count = 0
  for (const [name, c] of terms) {
    if (c === 0) continue
    const sign = c < 0 ? "-" : "+"
    line += ` ${count === 0 && sign === "+" ? "" : `${sign} `}${formatNumber(Math.abs(c))} ${name}`
    count++
    if (count % 10 === 0) {
      out.push(line)
      line = ""
    }
  }
  if (line !== "") out.push(line)
  if (count === 0) out.push(" 0 x0")
}

/** The CPLEX-LP text of a problem (what {@link Highs} parses). Assumes a valid problem. */
export const toLpText = (p: Problem): string => {
  const n = p.numVariables
  const out: Array<string> = [p.sense === "maximize" ? "Maximize" : "Minimize", " obj:"]
  const linear: Array<readonly [string, number]> = []
  if (p.objective !== undefined) for (let i = 0; i < n; i++) linear.push([`x${i}`, p.objective[i]!])
  const quad = (p.quadratic ?? []).filter(([, , q]) => q !== 0)
  if (quad.length > 0) {
    if (linear.some(([, c]) => c !== 0)) writeTerms(out, linear)
    out.push(" + [")
    writeTerms(out, quad.map(([i, j, q]) => (i === j ? [`x${i}^2`, q] : [`x${i} * x${j}`, 2 * q])))
    out.push(" ] / 2")
  } else {
    writeTerms(out, linear)
  }
  out.push("Subject To")
  for (const [r, row] of p.rows.entries()) {
    out.push(` r${r}:`)
    writeTerms(out, row.terms.map(([v, c]) => [`x${v}`, c]))
    out.push(` ${row.sense} ${formatNumber(row.rhs)}`)
  }
  out.push("Bounds")
  for (let i = 0; i < n; i++) {
    const lo = p.lower === undefined ? 0 : p.lower[i]!
    const hi = p.upper === undefined ? Infinity : p.upper[i]!
    if (lo === -Infinity && hi === Infinity) out.push(` x${i} free`)
    else out.push(` ${lo === -Infinity ? "-inf" : formatNumber(lo)} <= x${i} <= ${hi === Infinity ? "+inf" : formatNumber(hi)}`)
  }
  out.push("End")
  return out.join("\n")
}

/**
 * The {@link HighsShape} `solve` over a loaded HiGHS runtime (what `@autodidact/solvers/lp`'s layer provides).
 * Validates the problem, solves it with HiGHS's one-shot API and reads back an optimal solution.
 */
export const solveWith = (runtime: HighsRuntime) => (problem: Problem, options?: Options): Effect.Effect<Solution, LpSolveError> =>
  Effect.suspend(() => {
    const err = checkProblem(problem)
    if (err !== undefined) return Effect.fail(err)
    const name = problem.name ?? "LP"
    let result: ReturnType<HighsRuntime["solve"]>
    try {
      result = runtime.solve(toLpText(problem), { output_flag: false, ...options })
    } catch (e) {
      return Effect.fail(new LpSolveError({ status: "Solve error", problem: name, reason: e instanceof Error ? e.message : String(e) }))
    }
    if (result.Status !== "Optimal") {
      return Effect.fail(new LpSolveError({ status: result.Status, problem: name, reason: "HiGHS did not prove an optimal solution" }))
    }
    const primal = new Float64Array(problem.numVariables)
    const columns = result.Columns as Record<string, { readonly Primal: number }>
    for (let i = 0; i < primal.length; i++) {
      const v = columns[`x${i}`]
      primal[i] = v === undefined ? 0 : v.Primal
    }
    const rows = result.Rows as ReadonlyArray<{ readonly Primal: number; readonly Dual?: number }>
    const rowActivity = new Float64Array(problem.rows.length)
    const rowDual = new Float64Array(problem.rows.length).fill(Number.NaN)
    for (let r = 0; r < rows.length && r < rowActivity.length; r++) {
      rowActivity[r] = rows[r]!.Primal
      rowDual[r] = rows[r]!.Dual ?? Number.NaN
    }
    for (let i = 0; i < primal.length; i++) {
      if (!Number.isFinite(primal[i])) {
        return Effect.fail(new LpSolveError({ status: "Solve error", problem: name, reason: `variable x${i} = ${primal[i]}` }))
      }
    }
    return Effect.succeed({ status: "Optimal" as const, objective: result.ObjectiveValue, primal, rowActivity, rowDual })
  })
