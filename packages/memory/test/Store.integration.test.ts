/**
 * The experience-store suite against a PostgreSQL server. Start one with `tools/postgres-test-server.sh start` and
 * export the `AUTODIDACT_PG_URL` line it prints. Without the variable the suite is skipped locally and FAILS in CI
 * (`CI=true`), so CI can never pass without running it.
 */
import { describe, it as vitestIt } from "@effect/vitest"
import * as SqlBackend from "../src/store/SqlBackend.js"
import { ExperienceStore } from "../src/store/Store.js"
import { DIM, mergeRule, storeSuite, suiteLayer } from "./StoreSuite.js"

const url = process.env.AUTODIDACT_PG_URL
const inCi = process.env.CI === "true" || process.env.CI === "1"

if (url === undefined || url === "") {
  if (inCi) {
    describe("ExperienceStore on PostgreSQL", () => {
      vitestIt("needs AUTODIDACT_PG_URL in CI", () => {
        throw new Error(
          "AUTODIDACT_PG_URL is not set but CI=true: start a server with `tools/postgres-test-server.sh start` " +
            "and export the AUTODIDACT_PG_URL line it prints"
        )
      })
    })
  } else {
    describe.skip("ExperienceStore on PostgreSQL (skipped: set AUTODIDACT_PG_URL, see tools/postgres-test-server.sh)", () => {
      vitestIt("needs a server", () => {})
    })
  }
} else {
  storeSuite("ExperienceStore on PostgreSQL", suiteLayer(SqlBackend.pg({ url })))
  describe("ExperienceStore.open on PostgreSQL (plain)", () => {
    vitestIt("put, putMany and duplicates within a batch follow one merge rule (plain face)", async () => {
      const store = await ExperienceStore.open({ url, dimension: DIM })
      try {
        await mergeRule(store)
      } finally {
        await store.close()
      }
    }, 180_000)
  })
}
