/**
 * `@autodidact/kernels/tfjs`: the TensorFlow.js engine. Importing it loads `@tensorflow/tfjs-core` (an optional peer
 * dependency: when it is missing the import fails with `MissingPeerError`, naming the package to install) and offers
 * every kernel's TensorFlow.js implementation to the dispatch of the main entry (`KernelRegistry`), which runs it on
 * the {@link Backend} service's backend: the default on native `tensorflow` (`@tensorflow/tfjs-node`), and with
 * `{ engine: "tfjs" }` everywhere. The backends are optional peers too: `@tensorflow/tfjs-backend-wasm` (preferred;
 * brings `-cpu`) or `@tensorflow/tfjs-backend-cpu`.
 *
 * The `*Tf` namespaces hold the tensor-level variants (`SoftmaxTf.logSoftmaxTf(tf, input)`, `GaeTf.computeTf`, ...):
 * they take the `tf` module as an argument (read it from the {@link Backend} service or `await Backend.load()`).
 * `MlpTf` is the TF.js twin of `MlpSimd`'s single MLP with kernels' `Adam` (weighted-MSE training on the backend).
 * @since 0.2.0
 */
import * as KernelRegistry from "./engines/KernelRegistry.js"
import * as Categorical from "./policy/Categorical.js"
import * as Gae from "./advantages/Gae.js"
import * as GroupNorm from "./advantages/GroupNorm.js"
import * as Kl from "./policy/Kl.js"
import * as PpoLoss from "./policy/PpoLoss.js"
import * as Returns from "./advantages/Returns.js"
import * as Softmax from "./policy/Softmax.js"
import * as TopK from "./retrieval/TopK.js"
import * as CategoricalTf from "./tfjs/CategoricalTf.js"
import * as GaeTf from "./tfjs/GaeTf.js"
import * as GroupNormTf from "./tfjs/GroupNormTf.js"
import * as KlTf from "./tfjs/KlTf.js"
import * as PpoLossTf from "./tfjs/PpoLossTf.js"
import * as ReturnsTf from "./tfjs/ReturnsTf.js"
import * as SoftmaxTf from "./tfjs/SoftmaxTf.js"
import * as TopKTf from "./tfjs/TopKTf.js"

export * as Backend from "./engines/Backend.js"
export { BackendUnavailableError } from "./engines/BackendTag.js"
export { CategoricalTf, GaeTf, GroupNormTf, KlTf, PpoLossTf, ReturnsTf, SoftmaxTf, TopKTf }
export * as SumTreeTf from "./tfjs/SumTreeTf.js"
export * as MlpTf from "./tfjs/MlpTf.js"

KernelRegistry.provideTfjsKernel(Returns.kernelName, ReturnsTf.discountedReturnsTf)
KernelRegistry.provideTfjsKernel(Gae.kernelName, GaeTf.computeTf)
KernelRegistry.provideTfjsKernel(GroupNorm.kernelName, GroupNormTf.groupNormalizeTf)
KernelRegistry.provideTfjsKernel(GroupNorm.rlooKernelName, GroupNormTf.rlooTf)
KernelRegistry.provideTfjsKernel(Softmax.kernelName, SoftmaxTf.logSoftmaxTf)
KernelRegistry.provideTfjsKernel(Categorical.kernelName, CategoricalTf.fromUniformsTf)
KernelRegistry.provideTfjsKernel(Kl.kernelName, KlTf.estimateTf)
KernelRegistry.provideTfjsKernel(PpoLoss.kernelName, PpoLossTf.lossAndGradientTf)
KernelRegistry.provideTfjsKernel(TopK.kernelName, TopKTf.topKTf)
