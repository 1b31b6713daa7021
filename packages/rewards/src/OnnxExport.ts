/**
 * An ONNX exporter for {@link Mlp} reward heads, built on `onnx-proto`: `features float32 [batch, dim]` →
 * `reward float32 [batch]`, opset 17, IR version 8, a dynamic batch axis, so a model trained in TF.js runs in
 * onnxruntime-node (and anywhere else ONNX runs) through the same `OnnxRewardModel` service.
 *
 * **Details**
 * - Each dense layer is a `Gemm` (`x W + b`, `transB = 0`), or `MatMul` + `Add` with `{ dense: "matmul" }`;
 *   `Relu` or `Tanh` between layers; a final `Squeeze(axes = [1])` gives `[batch]`.
 * - Weights are stored as float32 initializers (`raw_data`, little-endian).
 * @see https://onnx.ai/onnx/operators/ (Gemm, MatMul, Add, Relu, Tanh, Squeeze at opset 17)
 * @since 0.1.0
 */
import { loadOnnxProto } from "./internal/peers.js"
import type { DenseWeights, MlpSpec } from "./Mlp.js"

// `onnx-proto` is an optional peer of `@autodidact/rewards/train`: missing, importing this module fails with MissingPeerError
const onnxProto = await loadOnnxProto()
// a CommonJS module: Node's ESM loader gives its exports as `default`
const { onnx } = (onnxProto as { readonly default?: typeof onnxProto }).default ?? onnxProto

/** Options. */
export interface ExportOptions {
  readonly activation: MlpSpec["activation"]
  readonly dense?: "gemm" | "matmul" | undefined
  readonly inputName?: string | undefined
  readonly outputName?: string | undefined
  readonly graphName?: string | undefined
}

const f32 = (name: string, dims: ReadonlyArray<number>, data: Float32Array) =>
  onnx.TensorProto.create({
    name,
    dims: [...dims],
    dataType: onnx.TensorProto.DataType.FLOAT,
    rawData: new Uint8Array(Float32Array.from(data).buffer)
  })

const valueInfo = (name: string, dims: ReadonlyArray<number | string>) =>
  onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType: onnx.TensorProto.DataType.FLOAT,
        shape: onnx.TensorShapeProto.create({
          dim: dims.map((d) => (typeof d === "number" ? onnx.TensorShapeProto.Dimension.create({ dimValue: d }) : onnx.TensorShapeProto.Dimension.create({ dimParam: d })))
        })
      })
    })
  })

/**
 * Serialize dense layers (from `Mlp.weights`) as an ONNX model: input `features` float32 `[batch, layers[0].rows]`
 * (name: `inputName`), output `reward` float32 `[batch]` (name: `outputName`), `options.activation` between layers,
 * opset 17, IR version 8. Returns the model bytes (write them to a `.onnx` file, or open them with
 * `OnnxRewardModel.openFeature`).
 */
export const exportMlp = (layers: ReadonlyArray<DenseWeights>, options: ExportOptions): Uint8Array => {
  const input = options.inputName ?? "features"
  const output = options.outputName ?? "reward"
  const nodes: Array<ReturnType<typeof onnx.NodeProto.create>> = []
  const inits: Array<ReturnType<typeof onnx.TensorProto.create>> = []
  let h = input
  layers.forEach((d, l) => {
    inits.push(f32(`dense${l}.weight`, [d.rows, d.cols], d.w), f32(`dense${l}.bias`, [d.cols], d.b))
    const z = `dense${l}.out`
    if ((options.dense ?? "gemm") === "gemm") {
      nodes.push(onnx.NodeProto.create({
        opType: "Gemm",
        name: `dense${l}`,
        input: [h, `dense${l}.weight`, `dense${l}.bias`],
        output: [z],
        attribute: [onnx.AttributeProto.create({ name: "transB", type: onnx.AttributeProto.AttributeType.INT, i: 0 })]
      }))
    } else {
      nodes.push(
        onnx.NodeProto.create({ opType: "MatMul", name: `dense${l}.matmul`, input: [h, `dense${l}.weight`], output: [`${z}.mm`] }),
        onnx.NodeProto.create({ opType: "Add", name: `dense${l}.add`, input: [`${z}.mm`, `dense${l}.bias`], output: [z] })
      )
    }
    h = z
    if (l + 1 < layers.length) {
      const a = `act${l}.out`
      nodes.push(onnx.NodeProto.create({ opType: options.activation === "relu" ? "Relu" : "Tanh", name: `act${l}`, input: [h], output: [a] }))
      h = a
    }
  })
  inits.push(onnx.TensorProto.create({ name: "squeeze.axes", dims: [1], dataType: onnx.TensorProto.DataType.INT64, int64Data: [1] }))
  nodes.push(onnx.NodeProto.create({ opType: "Squeeze", name: "squeeze", input: [h, "squeeze.axes"], output: [output] }))
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: "@autodidact/rewards",
    producerVersion: "0.1.0",
    opsetImport: [onnx.OperatorSetIdProto.create({ domain: "", version: 17 })],
    graph: onnx.GraphProto.create({
      name: options.graphName ?? "reward_mlp",
      node: nodes,
      initializer: inits,
      input: [valueInfo(input, ["batch", layers[0]!.rows])],
      output: [valueInfo(output, ["batch"])]
    })
  })
  return onnx.ModelProto.encode(model).finish()
}
