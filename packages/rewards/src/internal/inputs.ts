/**
 * Checks of a model's inputs before the runtime sees them: the tensor's dimensions against the shape the model
 * declares (ONNX Runtime's `inputMetadata`, as `OrtSession.inputs`) and against the data's length, and the values
 * finite. The runtime's own failures for these cases are untyped (`Tensor's size(16) does not match data
 * length(15)`, thrown while the tensor is built) or silent (a NaN feature becomes a NaN score), so every scorer that
 * builds a tensor calls these first.
 * @internal
 */
import { InputMismatchError, NonFiniteInputError } from "../RewardError.js"

/** A declared input: its name and shape (numbers fixed, strings symbolic such as `batch`). */
export interface DeclaredInput {
  readonly name: string
  readonly shape: ReadonlyArray<number | string>
}

const show = (shape: ReadonlyArray<number | string>): string => `[${shape.join(", ")}]`

/**
 * The first way `dims` and `length` (the data's element count) fail to fit `spec`: dimensions that are not
 * non-negative integers, another rank, a fixed dimension of another size, or a data length other than the product
 * of `dims`. The error names the input, the expected shape (with the declared one) and the received one.
 */
export const checkShape = (model: string, spec: DeclaredInput, dims: ReadonlyArray<number>, length: number): InputMismatchError | undefined => {
  const declared = `declared ${show(spec.shape)}`
  if (!dims.every((d) => Number.isInteger(d) && d >= 0)) {
    return new InputMismatchError({ model, input: spec.name, expected: `non-negative integer dimensions (${declared})`, actual: show(dims) })
  }
  if (dims.length !== spec.shape.length) {
    return new InputMismatchError({ model, input: spec.name, expected: `rank ${spec.shape.length} (${declared})`, actual: `rank ${dims.length} ${show(dims)}` })
  }
  const want = spec.shape.map((d, i) => (typeof d === "number" ? d : dims[i]!))
  for (let i = 0; i < want.length; i++) {
    if (want[i] !== dims[i]) return new InputMismatchError({ model, input: spec.name, expected: `${show(want)} (${declared})`, actual: show(dims) })
  }
  const size = dims.reduce((a, b) => a * b, 1)
  if (size !== length) {
    // the shape the data would have with the same leading dimensions, when it divides evenly
    const lead = dims.slice(0, -1).reduce((a, b) => a * b, 1)
    const got = dims.length >= 1 && lead > 0 && length % lead === 0 ? `${show([...dims.slice(0, -1), length / lead])} (${length} values)` : `${length} values`
    return new InputMismatchError({ model, input: spec.name, expected: `${show(dims)} (${size} values; ${declared})`, actual: got })
  }
  return undefined
}

/**
 * The first NaN or ±Infinity in a row-major `[rows, width]` matrix as a {@link NonFiniteInputError} naming its row
 * and column, or undefined when every value is finite.
 */
export const checkFinite = (model: string, input: string, data: ArrayLike<number>, width: number): NonFiniteInputError | undefined => {
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!
    if (!Number.isFinite(v)) {
      return new NonFiniteInputError({ model, input, row: width > 0 ? Math.floor(i / width) : 0, column: width > 0 ? i % width : i, value: String(v) })
    }
  }
  return undefined
}
