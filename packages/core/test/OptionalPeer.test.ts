import { describe, expect, it } from "vitest"
import { MissingPeerError, OptionalPeer } from "@autodidact/core"

describe("OptionalPeer.load", () => {
  it("loads an installed peer", async () => {
    const effect = await OptionalPeer.load("effect", "@autodidact/core (test)", () => import("effect"))
    expect(typeof effect.Effect.succeed).toBe("function")
  })

  it("fails with MissingPeerError naming the package and the install command when the peer is absent", async () => {
    const specifier = "autodidact-no-such-peer-" + "x".repeat(3)
    const error = await OptionalPeer.load(specifier, "@autodidact/core/test", () => import(/* @vite-ignore */ specifier), "^1.2").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MissingPeerError)
    const e = error as MissingPeerError
    expect(e._tag).toBe("MissingPeerError")
    expect(e.peer).toBe(specifier)
    expect(e.entryPoint).toBe("@autodidact/core/test")
    expect(e.install).toBe(`npm install ${specifier}@^1.2`)
    expect(e.message).toContain(specifier)
  })

  it("rethrows an error raised while an installed peer loads (it is not a missing peer)", async () => {
    const boom = new Error("init failed")
    await expect(OptionalPeer.load("effect", "x", () => Promise.reject(boom))).rejects.toBe(boom)
  })

  it("does not mistake another missing module inside the peer for the peer itself", () => {
    const inner = Object.assign(new Error("Cannot find package 'some-transitive-dep' imported from /x/node_modules/peer/index.js"), { code: "ERR_MODULE_NOT_FOUND" })
    expect(OptionalPeer.isNotFound(inner, "peer")).toBe(false)
    expect(OptionalPeer.isNotFound(inner, "some-transitive-dep")).toBe(true)
  })
})
