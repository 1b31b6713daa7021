/**
 * The {@link Embedder} service: what the experience store (and the skill library) needs from a text embedder.
 *
 * **Details**: the service lives in its own module so that every implementation (`Embedder.layerHashed`,
 * `Embedder.layerOpenAi`, `OnnxEmbedder.layerOnnx`) imports it without importing the others (`OnnxEmbedder` lives in its own
 * entry point). Users reach it as `Embedder.Embedder`.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect } from "effect"
import type { EmbedderError } from "../store/StoreErrors.js"

/**
 * Turns texts into fixed-dimension vectors.
 *
 * **Contract**: `embed(texts)` returns one `Float32Array` of length `dimension` per text, in order, with finite values
 * (implementations L2-normalize unless told otherwise); a failure is an `EmbedderError` naming the model.
 *
 * @category services
 * @since 0.1.0
 */
export class Embedder extends Context.Service<
  Embedder,
  {
    /** Length of every vector `embed` returns. */
    readonly dimension: number
    /** Model name (stored with the store's metadata for information). */
    readonly model: string
    readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>, EmbedderError>
  }
>()("@autodidact/memory/Embedder") {}
