import * as SqlBackend from "../src/store/SqlBackend.js"
import { storeSuite, suiteLayer } from "./StoreSuite.js"

// One in-memory PGlite per layer (~3 s to create): the default resident index, pgvector HNSW and the exact JS scorer
// on the same suite.
storeSuite("ExperienceStore on PGlite (resident index, the default)", suiteLayer(SqlBackend.pglite({})))
storeSuite("ExperienceStore on PGlite (pgvector HNSW)", suiteLayer(SqlBackend.pglite({}), { vectorIndex: "hnsw" }))
storeSuite(
  "ExperienceStore on PGlite (exact scoring)",
  suiteLayer(SqlBackend.pglite({ pgvector: false }), { vectorIndex: "exact" })
)
