import * as Llm from "@autodidact/llm"
import { describe, expect, it } from "@effect/vitest"

describe("@autodidact/llm", () => {
  it("exports its modules as namespaces and its errors by name", () => {
    expect(Object.keys(Llm)).toEqual(expect.arrayContaining([
      "EnvServer", "Export", "Gateway", "HttpListen", "LlmErrors", "OpenAiCompat", "Recorder", "Sse",
      "ExportInputError", "LlmConfigError", "RecordError", "ServerStartError"
    ]))
    expect(typeof Llm.Gateway.start).toBe("function")
    expect(new Llm.LlmConfigError({ option: "model", value: null, reason: "missing" }).message).toBe("model = null: missing")
  })
})
