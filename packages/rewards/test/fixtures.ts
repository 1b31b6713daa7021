import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** `../shared/data/onnx` relative to the repository root (never copied into the project). */
export const ONNX_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../shared/data/onnx")
export const hasSharedOnnx = existsSync(join(ONNX_DIR, "reference_outputs.json"))
export const SKIP_MESSAGE = `shared ONNX fixtures not found at ${ONNX_DIR}: skipping the PyTorch-exported model checks`

export interface RefTensor {
  readonly dims: ReadonlyArray<number>
  readonly type: string
  readonly data: ReadonlyArray<number>
}
export type Reference = Record<string, { readonly inputs: Record<string, RefTensor>; readonly outputs: Record<string, RefTensor> }>
export const reference = (): Reference => JSON.parse(readFileSync(join(ONNX_DIR, "reference_outputs.json"), "utf8")) as Reference

/** A WordLevel tokenizer.json whose vocabulary is `tok0`..`tok{size-1}` (tok0 is the padding token). */
export const wordLevelTokenizer = (size: number, unk?: string): object => {
  const vocab: Record<string, number> = {}
  for (let i = 0; i < size; i++) vocab[`tok${i}`] = i
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: [{ id: 0, content: "tok0", single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: { type: "Lowercase" },
    pre_tokenizer: { type: "Whitespace" },
    post_processor: null,
    decoder: null,
    model: unk === undefined ? { type: "WordLevel", vocab } : { type: "WordLevel", vocab, unk_token: unk }
  }
}

/** Write a tokenizer.json (and a tokenizer_config.json naming tok0 as padding) into a fresh temp dir; returns the path. */
export const writeTokenizer = (json: object): string => {
  const dir = mkdtempSync(join(tmpdir(), "rewards-tok-"))
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(json))
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify({ pad_token: "tok0" }))
  return join(dir, "tokenizer.json")
}

export const tempFile = (name: string, bytes: Uint8Array | string): string => {
  const dir = mkdtempSync(join(tmpdir(), "rewards-"))
  writeFileSync(join(dir, name), bytes)
  return join(dir, name)
}
