import { describe, expect, it } from "@effect/vitest"
import { name } from "@autodidact/llm"

describe("llm", () => {
  it("is importable by its package name", () => {
    expect(name).toBe("llm")
  })
})
