import { describe, expect, it } from "@effect/vitest"
import { name } from "@autodidact/cluster"

describe("cluster", () => {
  it("is importable by its package name", () => {
    expect(name).toBe("cluster")
  })
})
