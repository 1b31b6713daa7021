/**
 * The NumPy side of the kernel benchmark: `bench/numpy_kernels.py` run by `python3` with the same kernels and sizes,
 * timed with `timeit` (autorange, best of 5). `OPENBLAS_CORETYPE` / `OPENBLAS_L2_SIZE` are unset for that process only.
 *
 * *Gotchas*: the child may exit before it reads the case spec from stdin (no NumPy, a wrapper that exits, a crash);
 * writing to its closed stdin then fails with `EPIPE`. That error is caught on the stdin stream and the baseline is
 * reported as unavailable with the reason, never thrown (an unhandled `EPIPE` would end the whole process).
 * @since 0.1.0
 */
import { execFile, execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

/**
 * Whether `python` (default `python3` on PATH) imports NumPy: what the benchmarks' tests check before expecting NumPy
 * rows (CI installs Debian's python3-numpy, so there it must be true). Synchronous; never throws.
 */
export const available = (python = "python3"): boolean => {
  try {
    execFileSync(python, ["-c", "import numpy"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/** The default NumPy script, `bench/numpy_kernels.py` of this package. */
export const scriptPath = (): string => fileURLToPath(new URL("../../bench/numpy_kernels.py", import.meta.url))

/**
 * Run the NumPy side: `python script` with the JSON `spec` on stdin; resolves to the script's `results` (numbers by
 * id: per-case milliseconds for `bench/numpy_kernels.py`) and its `numpy` version (null when it prints none), or
 * `{ error }` with the reason when the baseline is unavailable (the command is missing, fails, exits before reading
 * its input, or prints something that is not the expected JSON). Never rejects. Any script printing
 * `{"numpy": version, "results": {id: number}}` works (e.g. `@autodidact/memory`'s `bench/numpy_replay.py`).
 */
export const runNumpy = (
  python: string,
  spec: ReadonlyArray<{ id: string; kernel: string; params: object }> | object,
  script: string = scriptPath()
): Promise<{ readonly results: { readonly [id: string]: number }; readonly version: string | null } | { readonly error: string }> =>
  new Promise((resolve) => {
    const env = { ...process.env }
    delete env.OPENBLAS_CORETYPE // these slow NumPy down on this kind of machine; unset for this process only
    delete env.OPENBLAS_L2_SIZE
    let stdinError: string | undefined
    const child = execFile(python, [script], { env, maxBuffer: 16 * 1024 * 1024, timeout: 30 * 60 * 1000 }, (error, stdout, stderr) => {
      if (error !== null) {
        resolve({ error: `${python} ${script} failed: ${(stderr || error.message).trim().split("\n").slice(-1)[0]}` })
        return
      }
      try {
        const parsed = JSON.parse(stdout) as { results?: { [id: string]: number }; numpy?: unknown }
        if (typeof parsed.results !== "object" || parsed.results === null) throw new Error("no \"results\" object")
        resolve({ results: parsed.results, version: typeof parsed.numpy === "string" ? parsed.numpy : null })
      } catch (e) {
        const why = stdinError === undefined ? "" : ` (it exited before reading its input: ${stdinError})`
        resolve({ error: `unreadable NumPy output from ${python} ${script}${why}: ${String(e)}` })
      }
    })
    // EPIPE / ECONNRESET when the child has already exited: the exit callback above reports the outcome
    child.stdin?.on("error", (e: NodeJS.ErrnoException) => {
      stdinError = e.code ?? e.message
    })
    child.stdin?.end(JSON.stringify(spec))
  })
