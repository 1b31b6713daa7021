import { makeVec } from "@autodidact/envs"
import { Effect } from "effect"
import { Ppo } from "@autodidact/optim"
const engine = process.argv[2] ?? "wasm-simd"
const env = makeVec("CartPole-v1", 4, { autoresetMode: "SameStep" })
const t0 = performance.now()
const r = await Effect.runPromise(Ppo.train(env, { seed: 1, engine, stopWhen: { meanReturn: 475 } }))
console.log(engine, r.stopReason, r.globalStep, ((performance.now() - t0) / 1000).toFixed(2))
