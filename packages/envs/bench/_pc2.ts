import { CartPoleBatch } from "/work/wt/batch/packages/envs/src/classic/CartPoleBatch.js"
const n = 1024
const env = new CartPoleBatch(n)
env.reset({ seed: 0 })
const a = new Int32Array(n); for (let i = 0; i < n; i++) a[i] = (i * 7919 >> 3) & 1
for (let c = 0; c < 20000; c++) env.step(a)
