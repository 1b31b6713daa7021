/**
 * The finiteness check of a model's inputs before the runtime sees them (a NaN feature would silently become a NaN
 * score); their dimensions are checked by kernels' `OrtSession.checkDims` (OnnxRewardModel) before a tensor is built.
 * @internal
 */
import { NonFiniteInputError } from "../RewardError.js"

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
