// Vitest globalSetup: bundles of the child-process scripts the store tests start (test/ChildScripts.ts, see
// ../../vitest.worker-bundle.ts), so that each child runs plain JavaScript instead of the sources through tsx.
import { scriptBundles } from "../../vitest.worker-bundle.js"
import { scripts, variable } from "./test/ChildScripts.js"

export default scriptBundles(new URL(".", import.meta.url).pathname, scripts, variable)
