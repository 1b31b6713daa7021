import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Highs } from "../src/normalform/Highs.js"
import * as H from "../src/normalform/HighsRuntime.js"

const solve = (p: H.Problem) => Effect.flatMap(Highs, (h) => h.solve(p))

describe("Highs", () => {
  it.effect("solves the brief's LP: max x + 2y, x + y <= 4, x <= 3, y <= 2 -> 6 at (2, 2)", () =>
    Effect.gen(function* () {
      const s = yield* solve({ sense: "maximize", numVariables: 2, objective: [1, 2], rows: [{ terms: [[0, 1], [1, 1]], sense: "<=", rhs: 4 }], upper: [3, 2] })
      expect(s.objective).toBe(6)
      expect(Array.from(s.primal)).toEqual([2, 2])
      expect(s.rowActivity[0]).toBe(4)
    }).pipe(Effect.provide(H.layer)))

  it.effect("solves a convex QP: min (x-1)^2 + (y-2)^2 with x + y = 1 -> (0, 1)", () =>
    Effect.gen(function* () {
      // x^2 + y^2 - 2x - 4y (+5): Q = 2I
      const s = yield* solve({ sense: "minimize", numVariables: 2, objective: [-2, -4], quadratic: [[0, 0, 2], [1, 1, 2]], rows: [{ terms: [[0, 1], [1, 1]], sense: "=", rhs: 1 }], lower: [-Infinity, -Infinity] })
      expect(s.primal[0]).toBeCloseTo(0, 9)
      expect(s.primal[1]).toBeCloseTo(1, 9)
      expect(s.objective).toBeCloseTo(-3, 9)
    }).pipe(Effect.provide(H.layer)))

  it("writes numbers that round-trip and off-diagonal quadratic terms doubled", () => {
    const xs = [0.1, 1 / 3, -2.5e-17, Math.PI * 1e21, 5e-324]
    const text = H.toLpText({ sense: "minimize", numVariables: 2, objective: [xs[0]!, xs[1]!], quadratic: [[0, 1, 0.5]], rows: [{ terms: [[0, xs[2]!], [1, xs[3]!]], sense: ">=", rhs: xs[4]! }] })
    for (const x of xs) expect(Number(H.formatNumber(Math.abs(x)))).toBe(Math.abs(x))
    expect(text).toContain("0.3333333333333333 x1")
    expect(text).toContain("1 x0 * x1")
    expect(text).toContain("- 2.5e-17 x0")
    expect(text).toContain(">= 5e-324")
  })

  it.effect("infeasible and unbounded problems fail with LpSolveError carrying the status", () =>
    Effect.gen(function* () {
      const inf = yield* Effect.flip(solve({ name: "infeasible one", sense: "minimize", numVariables: 1, objective: [1], rows: [{ terms: [[0, 1]], sense: ">=", rhs: 2 }], upper: [1] }))
      expect(inf._tag).toBe("LpSolveError")
      expect(inf.status).toBe("Infeasible")
      expect(inf.problem).toBe("infeasible one")
      const unb = yield* Effect.flip(solve({ sense: "maximize", numVariables: 1, objective: [1], rows: [{ terms: [[0, 1]], sense: ">=", rhs: 1 }] }))
      expect(["Unbounded", "Primal infeasible or unbounded"]).toContain(unb.status)
    }).pipe(Effect.provide(H.layer)))

  it.effect("invalid input (NaN coefficient, bad variable index) fails before solving", () =>
    Effect.gen(function* () {
      const e1 = yield* Effect.flip(solve({ sense: "minimize", numVariables: 1, objective: [Number.NaN], rows: [] }))
      expect(e1.status).toBe("Invalid input")
      expect(e1.reason).toContain("objective[0]")
      const e2 = yield* Effect.flip(solve({ sense: "minimize", numVariables: 1, rows: [{ terms: [[3, 1]], sense: "<=", rhs: 1 }] }))
      expect(e2.reason).toContain("variable 3")
    }).pipe(Effect.provide(H.layer)))
})

describe("@autodidact/solvers/lp: the optional peer highs", () => {
  it.effect("a missing highs fails with MissingPeerError naming the package to install", () =>
    Effect.gen(function* () {
      // Node's own message for a package that is not installed
      const notInstalled = () =>
        Promise.reject(Object.assign(new Error("Cannot find package 'highs' imported from /app/node_modules/@autodidact/solvers/dist/lp.js"), { code: "ERR_MODULE_NOT_FOUND" }))
      const e = yield* Effect.flip(H.loadRuntimeWith(notInstalled))
      expect(e._tag).toBe("MissingPeerError")
      if (e._tag === "MissingPeerError") {
        expect(e.peer).toBe("highs")
        expect(e.entryPoint).toBe("@autodidact/solvers/lp")
        expect(e.install).toBe("npm install highs@^1.15.3")
      }
    }))

  it.effect("another load failure is an LpSolveError with status Load error; the real module loads", () =>
    Effect.gen(function* () {
      const broken = yield* Effect.flip(H.loadRuntimeWith(() => Promise.resolve({ default: () => Promise.reject(new Error("no WebAssembly")) })))
      expect(broken._tag).toBe("LpSolveError")
      if (broken._tag === "LpSolveError") expect(broken.status).toBe("Load error")
      const runtime = yield* H.loadRuntimeWith(() => import("highs"))
      expect(runtime.version.major).toBe(1)
    }))
})
