#!/usr/bin/env node
/**
 * Copy-paste check (CI: `npm run check:clones`), with jscpd over every package's and app's `src/`.
 *
 * A clone is a run of at least 6 lines and 50 tokens that appears twice (jscpd's token-based detection, so renamed
 * identifiers still match). The check fails when
 * 1. a clone spans two different packages: the same idea written twice, one of them in the wrong home (import it from
 *    the package that owns it, docs/architecture.md), unless `ALLOWED` below names the pair with the reason; or
 * 2. duplicated lines inside packages exceed `THRESHOLD_PERCENT` of all source lines.
 * Every clone found is printed either way, so a reviewer sees what remains.
 *
 * Usage: `node tools/clones.mjs [--json]`.
 * @see https://github.com/kucherenko/jscpd
 */
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

// jscpd's ESM build imports `colors/safe` without an extension, which Node's ESM resolver refuses; its CommonJS build
// works.
const { detectClonesAndStatistic } = createRequire(import.meta.url)("jscpd")

const MIN_LINES = 6
const MIN_TOKENS = 50
const THRESHOLD_PERCENT = 0.35

/**
 * Cross-package clones kept on purpose, as `"<file A>|<file B>"` (sorted) → reason. Keep this empty unless the two
 * sides are genuinely different ideas that happen to share a shape.
 */
const ALLOWED = {
  "packages/kernels/src/engines/OrtSession.ts|packages/rewards/src/RewardError.ts":
    "rewards' InputMismatchError is the RewardModel contract's error for any scorer (rules, features, ONNX); it has OrtInputError's fields so that an ONNX feed error maps onto it field for field"
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const json = process.argv.includes("--json")

const { clones, statistic } = await detectClonesAndStatistic({
  path: [path.join(root, "packages"), path.join(root, "apps")],
  pattern: "*/src/**/*.ts",
  ignore: ["**/node_modules/**", "**/dist/**", "**/generated/**", "**/*.d.ts"],
  format: ["typescript"],
  minLines: MIN_LINES,
  minTokens: MIN_TOKENS,
  silent: true,
  reporters: [],
  absolute: true,
  gitignore: true
})

const rel = (f) => path.relative(root, f)
const owner = (f) => rel(f).split(path.sep).slice(0, 2).join("/")
const rows = clones.map((c) => {
  const a = rel(c.duplicationA.sourceId)
  const b = rel(c.duplicationB.sourceId)
  const lines = c.duplicationA.end.line - c.duplicationA.start.line + 1
  const key = [a, b].sort().join("|")
  return {
    a: `${a}:${c.duplicationA.start.line}-${c.duplicationA.end.line}`,
    b: `${b}:${c.duplicationB.start.line}-${c.duplicationB.end.line}`,
    lines,
    crossPackage: owner(a) !== owner(b),
    allowed: ALLOWED[key]
  }
})
const total = statistic.total
const crossing = rows.filter((r) => r.crossPackage && r.allowed === undefined)
const failed = crossing.length > 0 || total.percentage > THRESHOLD_PERCENT

if (json) {
  console.log(JSON.stringify({ minLines: MIN_LINES, minTokens: MIN_TOKENS, thresholdPercent: THRESHOLD_PERCENT, percentage: total.percentage, duplicatedLines: total.duplicatedLines, lines: total.lines, clones: rows, failed }))
} else {
  for (const r of rows) console.log(`${r.crossPackage ? (r.allowed ? "allowed cross-package" : "CROSS-PACKAGE") : "within package"}  ${r.lines} lines  ${r.a}  ~  ${r.b}${r.allowed ? `  (${r.allowed})` : ""}`)
  console.log(`clones: ${rows.length} (${crossing.length} across packages), duplicated lines ${total.duplicatedLines} of ${total.lines} (${total.percentage}%, threshold ${THRESHOLD_PERCENT}%), runs of >= ${MIN_LINES} lines and ${MIN_TOKENS} tokens`)
}
if (failed) {
  if (crossing.length > 0) console.error(`clone check failed: ${crossing.length} clone(s) across packages: import the one implementation from the package that owns the idea`)
  if (total.percentage > THRESHOLD_PERCENT) console.error(`clone check failed: ${total.percentage}% duplicated lines > ${THRESHOLD_PERCENT}%`)
  process.exit(1)
}
