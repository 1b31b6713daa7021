import { paritySuite } from "./parity.js"

// TensorFlow.js backends available here: wasm (the default) and the pure-JavaScript cpu backend.
paritySuite("wasm")
paritySuite("cpu")
