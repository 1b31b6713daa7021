/**
 * Which workspace package may import which: the one table behind `.dependency-cruiser.cjs` (checked in CI) and the
 * package table of docs/architecture.md (written by `node tools/architecture.mjs`). A package may import the
 * packages listed for it and nothing above them; apps may import every package.
 *
 * Keys are folder names under packages/; `effect` and third-party packages are not listed.
 */
const mayImport = {
  core: [],
  kernels: ["core"],
  envs: ["core"],
  memory: ["core", "kernels"],
  rewards: ["core", "kernels", "envs"],
  optim: ["core", "kernels", "envs"],
  solvers: ["core", "kernels", "envs"],
  skills: ["core", "kernels", "envs", "memory"],
  llm: ["core", "kernels", "envs", "memory", "optim"],
  cluster: ["core", "kernels", "envs", "optim"],
  dashboard: ["core"],
  search: ["core", "envs", "kernels", "rewards", "optim"]
}

/**
 * What a package's tests and benchmarks may import on top of `mayImport` (as devDependencies): experiments that
 * compose a package with one above it, and test servers a package above owns. None of these may create a circle between packages.
 */
const testsMayAlsoImport = {
  memory: ["envs"],
  // the scripted OpenAI-compatible server of `@autodidact/llm/testing` (LlmJudge's tests); llm does not import rewards
  rewards: ["llm"],
  skills: ["optim"]
}

module.exports = { mayImport, testsMayAlsoImport }
