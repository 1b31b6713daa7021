import { describe, expect, it } from "@effect/vitest"
import { Policy } from "@autodidact/cluster"
import { Rng } from "@autodidact/core"
import { ActorCritic, DrrnPolicy } from "@autodidact/optim"

const net = ActorCritic.make({ obsDim: 4, numActions: 2, hidden: 8, rng: Rng.make(1) })

describe("Policy", () => {
  it("round-trips actor-critic weights bit for bit, with the documented layout", () => {
    const w = Policy.ofActorCritic(net)
    const bytes = Policy.encode(w)
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const headerLength = view.getUint32(0, true)
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength)))
    expect(header).toEqual({ format: Policy.FORMAT, kind: "actor-critic", sizes: { obsDim: 4, numActions: 2, hidden: 8 }, numParams: net.params.length })
    expect(bytes.length).toBe(4 + headerLength + 4 * net.params.length)
    expect(view.getFloat32(4 + headerLength + 4 * 3, true)).toBe(net.params[3])
    const back = Policy.decode(bytes)
    expect(back.kind).toBe("actor-critic")
    expect(Array.from(back.params)).toEqual(Array.from(net.params))
  })

  it("round-trips a DRRN policy", () => {
    const p = DrrnPolicy.make({ buckets: 64, hidden: 8, embed: 4, rng: Rng.make(2) })
    const back = Policy.decode(Policy.encode(Policy.ofDrrn(p)))
    expect(back.kind === "drrn" && back.config).toEqual(p.config)
    expect(Array.from(back.params)).toEqual(Array.from(p.params))
  })

  it("addresses content: equal weights share a hash, one changed parameter changes it", () => {
    const a = Policy.hashOf(Policy.encode(Policy.ofActorCritic(net)))
    expect(a).toMatch(/^[0-9a-f]{64}$/)
    expect(Policy.hashOf(Policy.encode(Policy.ofActorCritic(net)))).toBe(a)
    const changed = Policy.ofActorCritic(net)
    changed.params[0] = Math.fround(changed.params[0]! + 1e-3)
    expect(Policy.hashOf(Policy.encode(changed))).not.toBe(a)
  })

  it("rejects bytes that are not a policy with a typed error naming the problem", () => {
    const bytes = Policy.encode(Policy.ofActorCritic(net))
    const decodeError = (b: Uint8Array) => {
      try {
        Policy.decode(b)
      } catch (e) {
        return e
      }
      return undefined
    }
    const truncated = decodeError(bytes.subarray(0, bytes.length - 4))
    expect(truncated).toBeInstanceOf(Policy.PolicyDecodeError)
    expect((truncated as Policy.PolicyDecodeError).reason).toContain("bytes for")
    expect((decodeError(new Uint8Array([1, 0])) as Policy.PolicyDecodeError).reason).toContain("shorter")
    const wrongCount = Policy.encode({ kind: "actor-critic", sizes: { obsDim: 4, numActions: 2, hidden: 8 }, params: new Float32Array(5) })
    expect((decodeError(wrongCount) as Policy.PolicyDecodeError).reason).toContain("parameters, not 5")
    const garbage = new Uint8Array(12)
    new DataView(garbage.buffer).setUint32(0, 8, true)
    expect(decodeError(garbage)).toBeInstanceOf(Policy.PolicyDecodeError)
  })
})
