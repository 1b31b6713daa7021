import { InvalidOptionError, Rng } from "@autodidact/core"
import { KuhnPoker } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import * as Highs from "../src/normalform/HighsRuntime.js"
import * as Jpsro from "../src/psro/Jpsro.js"
import * as PayoffTensor from "../src/normalform/PayoffTensor.js"
import * as Psro from "../src/psro/Psro.js"
import * as PsroExtensive from "../src/psro/PsroExtensive.js"
import * as PsroLoop from "../src/psro/PsroLoop.js"

/**
 * A scripted PSRO variant: one player whose population is a list of labels; the meta-game is a 1-player tensor of
 * that size (payoffs 0); iteration `t` reports `gaps[t]` and the responses `script[t]`. Everything the loop calls is
 * logged, so the order of the pieces and the stopping rules can be checked by hand.
 */
const scripted = (gaps: ReadonlyArray<number>, script: ReadonlyArray<ReadonlyArray<string>>, iterations: number, tolerance = 0) => {
  const population: Array<string> = ["a"]
  const log: Array<string> = []
  const spec = {
    iterations,
    tolerance,
    metaGame: () => {
      log.push(`metaGame(${population.length})`)
      return PayoffTensor.unsafeMake([population.length], [new Float64Array(population.length)])
    },
    metaSolver: (g: PayoffTensor.PayoffTensor) =>
      Effect.sync(() => {
        log.push("metaSolver")
        return g.shape[0]!
      }),
    oracle: (_g: PayoffTensor.PayoffTensor, meta: number) =>
      Effect.sync(() => {
        const t = meta - 1 // the iteration: the population grows by one label per iteration here
        log.push("oracle")
        return { gap: gaps[t]!, responses: [script[t] ?? []] }
      }),
    add: (player: number, response: string) => {
      log.push(`add(${player}, ${response})`)
      population.push(response)
    },
    report: (context: PsroLoop.IterationContext<number>, oracle: PsroLoop.OracleResult<string>) => {
      log.push("report")
      return { ...context, gap: oracle.gap, population: [...population] }
    },
    onIteration: (r: { readonly iteration: number }) => {
      log.push(`onIteration(${r.iteration})`)
    }
  }
  return { spec, log, population }
}

describe("PsroLoop", () => {
  it.effect("calls metaGame -> metaSolver -> oracle -> report -> onIteration, then adds; stops on no new response", () =>
    Effect.gen(function*() {
      const { log, population, spec } = scripted([3, 2, 1], [["b"], ["c"], []], 10)
      const r = yield* PsroLoop.run(spec)
      expect(r.stopReason).toBe("converged")
      expect(population).toEqual(["a", "b", "c"])
      expect(log).toEqual([
        "metaGame(1)", "metaSolver", "oracle", "report", "onIteration(0)", "add(0, b)",
        "metaGame(2)", "metaSolver", "oracle", "report", "onIteration(1)", "add(0, c)",
        "metaGame(3)", "metaSolver", "oracle", "report", "onIteration(2)"
      ])
      expect(r.history.map((h) => [h.iteration, h.populationSizes, h.meta, h.gap])).toEqual([[0, [1], 1, 3], [1, [2], 2, 2], [2, [3], 3, 1]])
      expect(r.final).toBe(r.history[2])
      // The report sees the population before this iteration's responses are added.
      expect(r.history.map((h) => h.population)).toEqual([["a"], ["a", "b"], ["a", "b", "c"]])
      for (let i = 1; i < r.history.length; i++) expect(r.history[i]!.elapsedSeconds).toBeGreaterThanOrEqual(r.history[i - 1]!.elapsedSeconds)
    }))

  it.effect("tolerance is tested before convergence; the budget stops with 'iterations' after adding the last responses", () =>
    Effect.gen(function*() {
      // Gap 0.5 <= tolerance 0.5 at iteration 1 although a response is on offer: "tolerance", nothing added.
      const t = scripted([3, 0.5, 0.1], [["b"], ["c"], ["d"]], 10, 0.5)
      const rt = yield* PsroLoop.run(t.spec)
      expect(rt.stopReason).toBe("tolerance")
      expect(rt.history.length).toBe(2)
      expect(t.population).toEqual(["a", "b"])
      // Out of iterations: the last iteration's response is added (the loop only stops early on the two tests).
      const b = scripted([3, 2, 1], [["b"], ["c"], ["d"]], 2)
      const rb = yield* PsroLoop.run(b.spec)
      expect(rb.stopReason).toBe("iterations")
      expect(rb.history.length).toBe(2)
      expect(b.population).toEqual(["a", "b", "c"])
    }))

  it.effect("bad iterations or tolerance fail with InvalidOptionError before any piece runs", () =>
    Effect.gen(function*() {
      for (const [iterations, tolerance, option] of [[0, 0, "iterations"], [1.5, 0, "iterations"], [Number.NaN, 0, "iterations"], [3, -1, "tolerance"], [3, Number.NaN, "tolerance"]] as const) {
        const s = scripted([1], [[]], iterations, tolerance)
        const e = yield* Effect.flip(PsroLoop.run(s.spec))
        expect(e).toBeInstanceOf(InvalidOptionError)
        expect((e as InvalidOptionError).option).toBe(option)
        expect(s.log).toEqual([])
      }
    }))

  it("improves: strictly more than the best member plus the tolerance; ties go to the population", () => {
    expect(PsroLoop.improves(1, [0, 0.5], 0)).toBe(true)
    expect(PsroLoop.improves(1, [0, 1], 0)).toBe(false)
    expect(PsroLoop.improves(1 + 1e-13, [1], 1e-12)).toBe(false)
    expect(PsroLoop.improves(1 + 2e-12, [1], 1e-12)).toBe(true)
    expect(PsroLoop.improves(-5, [], 0)).toBe(true)
  })

  // Psro, PsroExtensive and Jpsro all run on this loop: each sees every iteration and is interruptible between them.
  const runs = [
    ["Psro", (onIteration: (r: { readonly iteration: number }) => Effect.Effect<void>) => {
      const rng = Rng.make(9)
      const g = PayoffTensor.zeroSum(Array.from({ length: 60 }, () => Array.from({ length: 60 }, () => rng.integers(11) - 5)))
      return Psro.run(g, { metaSolver: "nash", onIteration })
    }],
    ["PsroExtensive", (onIteration: (r: { readonly iteration: number }) => Effect.Effect<void>) => PsroExtensive.run(KuhnPoker.make(), { metaSolver: "nash", onIteration })],
    ["Jpsro", (onIteration: (r: { readonly iteration: number }) => Effect.Effect<void>) => Jpsro.run(PayoffTensor.random([5, 5, 5], Rng.make(2), -1, 1), { kind: "ce", onIteration })]
  ] as const
  for (const [name, start] of runs) {
    it.effect(`${name}: the progress callback sees every iteration and the run is interruptible between iterations`, () =>
      Effect.gen(function*() {
        const seen: Array<number> = []
        const reached = yield* Deferred.make<void>()
        const fiber = yield* Effect.forkChild(start((r) => {
          seen.push(r.iteration)
          return r.iteration === 1 ? Effect.andThen(Deferred.succeed(reached, undefined), Effect.never) : Effect.void
        }))
        yield* Deferred.await(reached)
        yield* Fiber.interrupt(fiber)
        expect(seen).toEqual([0, 1])
      }).pipe(Effect.provide(Highs.layer)))
  }
})
