import { InvalidOptionError } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { Search } from "@autodidact/search"

describe("Search", () => {
  it("greets by name (plain API)", () => {
    expect(Search.greet("world")).toBe("hello, world")
  })

  it("rejects an empty name with InvalidOptionError naming the value", () => {
    expect(() => Search.greet("")).toThrow(InvalidOptionError)
  })

  it.effect("greetEffect succeeds, and fails with the typed error (Effect API)", () =>
    Effect.gen(function* () {
      expect(yield* Search.greetEffect("world")).toBe("hello, world")
      const exit = yield* Effect.exit(Search.greetEffect(""))
      expect(Exit.isFailure(exit)).toBe(true)
    }))
})
