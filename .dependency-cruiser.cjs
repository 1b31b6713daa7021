/**
 * The architecture, as rules that CI checks (`npm run check:architecture`, run by `.ci/run` after lint):
 *
 * 1. No import circle anywhere in packages/ or apps/ (type-only imports count: a circle of types is still a circle
 *    for a reader and for the build order).
 * 2. Each package imports only the packages below it, as docs/architecture.md's table says. The table is `mayImport`
 *    here; the doc is generated from the same table (`node tools/architecture.mjs`), so the two cannot drift.
 *
 * The rules cover src/, test/ and bench/: tests and benchmarks may also import what `testsMayAlsoImport` lists.
 *
 * @see https://github.com/sverweij/dependency-cruiser/blob/main/doc/rules-reference.md
 */
const { mayImport, testsMayAlsoImport } = require("./tools/layers.cjs")

const others = (pkg, allowed) => `^packages/(?!(?:${[pkg, ...allowed].join("|")})/)[^/]+/`
const packageRules = Object.entries(mayImport).flatMap(([pkg, allowed]) => [
  {
    name: `layers: ${pkg}`,
    comment: `${pkg} may import only ${allowed.length === 0 ? "effect and third-party packages" : allowed.join(", ")} (docs/architecture.md)`,
    severity: "error",
    from: { path: `^packages/${pkg}/`, pathNot: `^packages/${pkg}/(test|bench)/` },
    to: { path: others(pkg, allowed) }
  },
  {
    name: `layers: ${pkg} (tests and benchmarks)`,
    comment: `${pkg}'s tests and benchmarks may import only ${[...allowed, ...(testsMayAlsoImport[pkg] ?? [])].join(", ") || "effect and third-party packages"} (tools/layers.cjs)`,
    severity: "error",
    from: { path: `^packages/${pkg}/(test|bench)/` },
    to: { path: others(pkg, [...allowed, ...(testsMayAlsoImport[pkg] ?? [])]) }
  }
])

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "An import circle: split the shared part into its own module that both sides import.",
      severity: "error",
      from: { path: "^(packages|apps)/" },
      to: { circular: true }
    },
    ...packageRules
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|out-tsc|node_modules|\\.nx)/|\\.d\\.ts$" },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@autodidact/source", "import", "types", "default", "node"],
      mainFields: ["module", "main", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json"]
    },
    reporterOptions: {
      archi: { collapsePattern: "^(packages|apps)/[^/]+" }
    }
  }
}
