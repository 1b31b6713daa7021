/**
 * A Hugging Face `tokenizer.json` loaded from a local file (no network) with `@huggingface/tokenizers`, the pure-JS
 * tokenizer library of Transformers.js, plus batch encoding into the `input_ids`/`attention_mask` int64 layout.
 *
 * **Details**
 * - `load(path)` reads `tokenizer.json` (and `tokenizer_config.json` beside it when present). WordLevel models read
 *   their `unk_token` from `model.unk_token` when the config does not name one.
 * - `vocabSize` is the largest id + 1 over the model vocabulary and the added tokens.
 * - `encodeBatch(texts)` right-pads with `padId` (the `[PAD]`/`<pad>` token, else 0) to the longest text (or
 *   truncates to `maxLength`), mask 1 on real tokens.
 * - A token the tokenizer cannot map (a WordLevel vocabulary without `unk_token`) fails with
 *   {@link TokenizerMismatchError}.
 * @see https://huggingface.co/docs/tokenizers/components
 * @since 0.1.0
 */
import { readFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import type { Tokenizer } from "@huggingface/tokenizers"
import { Effect } from "effect"
import { loadTokenizers } from "./internal/peers.js"
import { messageOf, ModelLoadError, TokenizerMismatchError } from "./RewardError.js"

// `@huggingface/tokenizers` is an optional peer of `@autodidact/rewards/onnx`: missing, importing this module fails with MissingPeerError
const tokenizers = await loadTokenizers()

/** A loaded tokenizer. */
export interface TextTokenizer {
  readonly name: string
  readonly vocabSize: number
  readonly padId: number
  readonly tokenizer: Tokenizer
}

/** A padded batch in the Hugging Face layout. */
export interface EncodedBatch {
  readonly batch: number
  readonly length: number
  readonly inputIds: BigInt64Array
  readonly attentionMask: BigInt64Array
}

/**
 * Build from parsed `tokenizer.json` (and optional `tokenizer_config.json`) objects with `@huggingface/tokenizers`
 * (pure JS, no network). `vocabSize` is the largest id + 1 (added tokens included); the padding id is the config's
 * `pad_token`, else `[PAD]`, else `<pad>`, else 0.
 * @returns fails with ModelLoadError naming `name` when the JSON is not a usable tokenizer.
 */
export const fromJson = (json: unknown, config: Record<string, unknown> = {}, name = "<tokenizer.json>"): Effect.Effect<TextTokenizer, ModelLoadError> =>
  Effect.try({
    try: () => {
      const j = json as { model?: { vocab?: unknown; unk_token?: unknown }; added_tokens?: ReadonlyArray<{ id: number; content: string }> }
      if (typeof j !== "object" || j === null || typeof j.model !== "object" || j.model === null) throw new Error("no \"model\" section")
      const cfg: Record<string, unknown> = { ...config }
      if (cfg["unk_token"] === undefined && typeof j.model.unk_token === "string") cfg["unk_token"] = j.model.unk_token
      const tokenizer = new tokenizers.Tokenizer(json as object, cfg)
      let maxId = -1
      for (const id of tokenizer.get_vocab(true).values()) if (id > maxId) maxId = id
      if (maxId < 0) throw new Error("empty vocabulary")
      const pad = (typeof cfg["pad_token"] === "string" ? tokenizer.token_to_id(cfg["pad_token"]) : undefined) ??
        tokenizer.token_to_id("[PAD]") ?? tokenizer.token_to_id("<pad>") ?? 0
      return { name, vocabSize: maxId + 1, padId: pad, tokenizer }
    },
    catch: (e) => new ModelLoadError({ model: name, reason: `not a usable tokenizer.json (${messageOf(e)})` })
  })

/**
 * Load `tokenizer.json` from a local path (and a `tokenizer_config.json` beside it when present); see {@link fromJson}.
 * @returns fails with ModelLoadError (file not found, invalid JSON, not a tokenizer).
 * @category constructors
 */
export const load = (path: string): Effect.Effect<TextTokenizer, ModelLoadError> =>
  Effect.gen(function* () {
    const text = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: (e) => new ModelLoadError({ model: path, reason: (e as NodeJS.ErrnoException).code === "ENOENT" ? `file not found: ${path}` : messageOf(e) })
    })
    const json = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: (e) => new ModelLoadError({ model: path, reason: `invalid JSON (${messageOf(e)})` }) })
    const config = yield* Effect.promise(() =>
      readFile(join(dirname(path), "tokenizer_config.json"), "utf8").then((t) => JSON.parse(t) as Record<string, unknown>, () => ({}))
    )
    return yield* fromJson(json, config, path)
  })

/**
 * Encode `texts` and right-pad them with the padding id to the longest (at most `maxLength` tokens each, cut at the
 * end): `inputIds` and `attentionMask` int64 `[batch, length]` row-major (the Hugging Face layout), `length ≥ 1`.
 * @returns fails with TokenizerMismatchError when a token has no id and the tokenizer has no `unk_token`.
 */
export const encodeBatch = (
  t: TextTokenizer,
  texts: ReadonlyArray<string>,
  options: { readonly maxLength?: number | undefined } = {}
): Effect.Effect<EncodedBatch, TokenizerMismatchError> =>
  Effect.suspend(() => {
    const rows: Array<ReadonlyArray<number>> = []
    let length = 1
    for (let i = 0; i < texts.length; i++) {
      const enc = t.tokenizer.encode(texts[i]!)
      let ids = enc.ids
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k]
        if (typeof id !== "number" || !Number.isInteger(id)) {
          return Effect.fail(new TokenizerMismatchError({
            tokenizer: t.name,
            tokenizerVocabSize: t.vocabSize,
            modelVocabSize: t.vocabSize,
            reason: `text ${i}: token "${enc.tokens[k]}" has no id and the tokenizer has no unk_token`
          }))
        }
      }
      if (options.maxLength !== undefined) ids = ids.slice(0, options.maxLength)
      rows.push(ids)
      if (ids.length > length) length = ids.length
    }
    const inputIds = new BigInt64Array(rows.length * length).fill(BigInt(t.padId))
    const attentionMask = new BigInt64Array(rows.length * length)
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!
      for (let k = 0; k < r.length; k++) {
        inputIds[i * length + k] = BigInt(r[k]!)
        attentionMask[i * length + k] = 1n
      }
    }
    return Effect.succeed({ batch: rows.length, length, inputIds, attentionMask })
  })

/**
 * Load `tokenizer.json` from a local path as a plain Promise (see {@link load}); rejects with `ModelLoadError`.
 * @category plain
 * @since 0.2.0
 */
export const loadTokenizer = (path: string): Promise<TextTokenizer> => Effect.runPromise(load(path))
