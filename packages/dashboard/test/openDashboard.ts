/** The Chromium end-to-end tests' common start: a dashboard server over a runs directory and a page on it. */
import { Effect, Exit, Scope } from "effect"
import type { Browser, Page } from "playwright-core"
import { chromiumArgs } from "../src/Report.js"
import { serve } from "../src/Server.js"

/** A served dashboard open in Chromium. */
export interface OpenDashboard {
  readonly url: string
  readonly browser: Browser
  readonly page: Page
  /** Close the browser, then the server. */
  readonly close: () => Promise<void>
}

/**
 * Serve `runsDir` on a free port (metrics polled every 200 ms), open it in the Chromium at `chromium` with
 * `pageOptions`, push page errors and console errors into `errors`, and wait for the UI's ready flag.
 */
export const openDashboard = async (
  runsDir: string,
  chromium: string,
  errors: Array<string>,
  pageOptions: Parameters<Browser["newPage"]>[0]
): Promise<OpenDashboard> => {
  const scope = await Effect.runPromise(Scope.make())
  const served = await Effect.runPromise(Scope.provide(scope)(serve({ runsDir, port: 0, pollMs: 200 })))
  const { chromium: pw } = await import("playwright-core")
  const browser = await pw.launch({ executablePath: chromium, args: chromiumArgs })
  const close = async () => {
    await browser.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
  try {
    const page = await browser.newPage(pageOptions)
    page.on("pageerror", (e) => errors.push(String(e)))
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text())
    })
    await page.goto(served.url)
    await page.waitForSelector("body[data-ready='1']", { timeout: 20_000 })
    return { url: served.url, browser, page, close }
  } catch (e) {
    await close()
    throw e
  }
}
