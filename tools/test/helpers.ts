/** Shared by the generator tests: the repository root and a tree holding copies of chosen repository files. */
import type { Tree } from "@nx/devkit"
import { createTree } from "@nx/devkit/testing"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root (tools/test/../..). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/** An in-memory tree holding the repository's current `files` (relative paths), as a generator reads them. */
export const treeWith = (files: ReadonlyArray<string>): Tree => {
  const tree = createTree()
  for (const f of files) tree.write(f, fs.readFileSync(path.join(repoRoot, f), "utf8"))
  return tree
}

/** The text of `file` in `tree`; fails the test when it is missing. */
export const text = (tree: Tree, file: string): string => {
  const t = tree.read(file, "utf-8")
  if (t === null) throw new Error(`${file} was not generated`)
  return t
}

/** Every generated file still holding template syntax (`<%`) or an unsubstituted `__name__` path part. */
export const leftovers = (tree: Tree): Array<string> =>
  tree.listChanges().filter((c) => c.type !== "DELETE" && (/__\w+__/.test(c.path) || (c.content?.toString("utf8") ?? "").includes("<%"))).map((c) => c.path)
