import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { isPlainRelative, realInside } from "../src/Paths.js"
import { tempDir } from "./fixtures.js"

describe("Paths.realInside", () => {
  const root = tempDir()
  fs.mkdirSync(path.join(root, "run", "trajectories"), { recursive: true })
  fs.writeFileSync(path.join(root, "run", "trajectories", "eval.jsonl"), "{}\n")
  const outside = tempDir("outside-")
  fs.writeFileSync(path.join(outside, "secret.txt"), "secret")
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "run", "trajectories", "leak.jsonl"))
  fs.symlinkSync(outside, path.join(root, "run", "elsewhere"))
  fs.symlinkSync(path.join(root, "run", "trajectories", "eval.jsonl"), path.join(root, "run", "alias.jsonl"))

  it("gives the real path of a file inside, also through a symlink that stays inside", () => {
    expect(realInside(root, "run/trajectories/eval.jsonl")).toBe(fs.realpathSync(path.join(root, "run", "trajectories", "eval.jsonl")))
    expect(realInside(root, "run/alias.jsonl")).toBe(fs.realpathSync(path.join(root, "run", "trajectories", "eval.jsonl")))
  })

  it("refuses symlinks leading out, traversal, absolute paths, backslashes, NUL, the base itself and missing files", () => {
    for (const name of [
      "run/trajectories/leak.jsonl",
      "run/elsewhere/secret.txt",
      "../" + path.basename(outside) + "/secret.txt",
      "run/../../" + path.basename(outside) + "/secret.txt",
      path.join(outside, "secret.txt"),
      "run\\..\\..\\etc",
      "run/trajectories/eval.jsonl\0.txt",
      ".",
      "",
      "run//trajectories/eval.jsonl",
      "C:/Windows/win.ini",
      "run/missing.jsonl"
    ]) {
      expect(realInside(root, name), JSON.stringify(name)).toBeUndefined()
    }
    expect(isPlainRelative("run/trajectories/eval.jsonl")).toBe(true)
    expect(isPlainRelative("..foo/bar")).toBe(true) // a name that merely starts with dots is fine
  })
})
