#!/usr/bin/env node
// Scaffold a new package: `npm run new-package -- <name> [--description "..."]`.
// Creates packages/<name> with package.json (@autodidact/<name>, version 0.0.0, effect as a peer), the three
// tsconfig files, vitest config, src/index.ts, a first test and a README, then runs `nx sync` so project
// references stay right. Add dependencies to its package.json, then `npm install`.
import { execSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const [name, ...rest] = process.argv.slice(2)
if (!name || !/^[a-z][a-z0-9-]*$/.test(name)) {
  console.error("usage: npm run new-package -- <name> [--description TEXT]   (name: lower-case, digits, dashes)")
  process.exit(2)
}
const di = rest.indexOf("--description")
const description = di >= 0 ? rest[di + 1] ?? "" : `Autodidact ${name}`
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const dir = path.join(root, "packages", name)
if (fs.existsSync(dir)) {
  console.error(`packages/${name} already exists`)
  process.exit(1)
}
const core = path.join(root, "packages", "core")
fs.mkdirSync(path.join(dir, "src"), { recursive: true })
fs.mkdirSync(path.join(dir, "test"), { recursive: true })
for (const f of ["tsconfig.json", "tsconfig.lib.json", "tsconfig.test.json", "vitest.config.ts"]) {
  fs.copyFileSync(path.join(core, f), path.join(dir, f))
}
const pkg = {
  name: `@autodidact/${name}`,
  version: "0.0.0",
  description,
  license: "Apache-2.0",
  type: "module",
  sideEffects: false,
  exports: {
    ".": {
      "@autodidact/source": "./src/index.ts",
      types: "./dist/index.d.ts",
      import: "./dist/index.js",
      default: "./dist/index.js"
    },
    "./package.json": "./package.json"
  },
  files: ["dist", "src", "README.md"],
  dependencies: { "@autodidact/core": JSON.parse(fs.readFileSync(path.join(core, "package.json"), "utf8")).version },
  peerDependencies: { effect: "^4.1.0" },
  engines: { node: ">=20.19" }
}
fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg, null, 2) + "\n")
fs.writeFileSync(
  path.join(dir, "src", "index.ts"),
  `/**\n * \`@autodidact/${name}\`: ${description}.\n * @since 0.0.0\n */\nexport const name = "${name}"\n`
)
fs.writeFileSync(
  path.join(dir, "test", "index.test.ts"),
  `import { describe, expect, it } from "@effect/vitest"\nimport { name } from "@autodidact/${name}"\n\ndescribe("${name}", () => {\n  it("is importable by its package name", () => {\n    expect(name).toBe("${name}")\n  })\n})\n`
)
fs.writeFileSync(
  path.join(dir, "README.md"),
  `# @autodidact/${name}\n\n${description}.\n\n\`\`\`ts\nimport { name } from "@autodidact/${name}"\n\`\`\`\n\nRun the tests: \`npx nx test @autodidact/${name}\`.\n`
)
execSync("npm install --no-audit --no-fund", { cwd: root, stdio: "inherit" })
execSync("npx nx sync", { cwd: root, stdio: "inherit", env: { ...process.env, NX_DAEMON: "false" } })
console.log(`Created packages/${name}. Next: write src/, test/, a changeset (npx changeset).`)
