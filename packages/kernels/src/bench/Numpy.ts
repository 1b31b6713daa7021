/**
 * The NumPy side of the kernel benchmark: `bench/numpy_kernels.py` run by `python3` with the same kernels and sizes,
 * timed with `timeit` (autorange, best of 5). `OPENBLAS_CORETYPE` / `OPENBLAS_L2_SIZE` are unset for that process only.
 * @since 0.1.0
 */
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

const scriptPath = (): string => fileURLToPath(new URL("../../bench/numpy_kernels.py", import.meta.url))

/** Run the NumPy side; resolves to per-case milliseconds, or a reason when unavailable. */
export const runNumpy = (python: string, spec: ReadonlyArray<{ id: string; kernel: string; params: object }>): Promise<{ readonly results: { readonly [id: string]: number } } | { readonly error: string }> =>
  new Promise((resolve) => {
    const env = { ...process.env }
    delete env.OPENBLAS_CORETYPE // these slow NumPy down on this kind of machine; unset for this process only
    delete env.OPENBLAS_L2_SIZE
    const child = execFile(python, [scriptPath()], { env, maxBuffer: 16 * 1024 * 1024, timeout: 30 * 60 * 1000 }, (error, stdout, stderr) => {
      if (error !== null) {
        resolve({ error: `${python} ${scriptPath()} failed: ${(stderr || error.message).trim().split("\n").slice(-1)[0]}` })
        return
      }
      try {
        resolve({ results: (JSON.parse(stdout) as { results: { [id: string]: number } }).results })
      } catch (e) {
        resolve({ error: `unreadable NumPy output: ${String(e)}` })
      }
    })
    child.stdin?.end(JSON.stringify(spec))
  })

