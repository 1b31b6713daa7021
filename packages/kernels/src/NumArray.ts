/**
 * The numeric array type every kernel accepts, and the float32 view TensorFlow.js and WebAssembly inputs need.
 *
 * **Details**: a kernel reads its inputs (never writes them); typed arrays are read in place, plain arrays
 * (`number[]`) work everywhere but are slower. Shared by every kernel module (so that no kernel module imports another
 * one for a type).
 *
 * @since 0.1.0
 */

/** Numeric array accepted as input (read only): `Float32Array`, `Float64Array` or any `ArrayLike<number>`. */
export type NumArray = Float32Array | Float64Array | ArrayLike<number>

/** `x` itself when it is a `Float32Array`, else a float32 copy (rounded to nearest). */
export const f32 = (x: NumArray): Float32Array => (x instanceof Float32Array ? x : Float32Array.from(x as ArrayLike<number>))
