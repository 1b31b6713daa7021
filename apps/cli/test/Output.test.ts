/**
 * The progress bar on a terminal: its first frame, drawn before any update, shows `-` for the payload fields instead
 * of the literal template token (`{meanReturn}`).
 */
import { describe, expect, it } from "@effect/vitest"
import { PassThrough } from "node:stream"
import * as Output from "../src/Output.js"

/** A fake terminal capturing what is drawn. */
const fakeTty = () => {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream & { isTTY: boolean; columns: number }
  stream.isTTY = true
  stream.columns = 200
  let text = ""
  ;(stream as unknown as PassThrough).on("data", (chunk: Buffer) => (text += chunk.toString()))
  return { stream, text: () => text }
}

describe("Output.progress", () => {
  it("the first frame fills payload tokens with '-', later frames with the values", async () => {
    const tty = fakeTty()
    const format = "{bar} {percentage}% | {value}/{total} steps | mean return (last 100) {meanReturn} | {eta_formatted} left"
    const bar = Output.progress(false, 1000, format, tty.stream)
    await new Promise((r) => setImmediate(r))
    const first = tty.text()
    expect(first).toContain("0/1000 steps | mean return (last 100) - |")
    expect(first).not.toContain("{meanReturn}")
    bar.update(500, { meanReturn: "21.5" })
    bar.stop()
    await new Promise((r) => setImmediate(r))
    expect(tty.text()).toContain("500/1000 steps | mean return (last 100) 21.5")
    expect(tty.text()).not.toContain("{")
  })

  it("complete ends the bar at 100% of the step where a run stopped early", async () => {
    const tty = fakeTty()
    const bar = Output.progress(false, 500_000, "{bar} {percentage}% | {value}/{total} steps | mean return (last 100) {meanReturn}", tty.stream)
    bar.update(260_000, { meanReturn: "470.2" })
    bar.complete(261_120, { meanReturn: "475.3" })
    bar.stop()
    await new Promise((r) => setImmediate(r))
    expect(tty.text()).toContain("100% | 261120/261120 steps | mean return (last 100) 475.3")
  })

  it("initialPayload names only the payload tokens", () => {
    expect(Output.initialPayload("{bar} {percentage}% | {value}/{total} | success {success} | {eta_formatted}")).toEqual({ success: "-" })
  })
})
