/**
 * A user's first file, type-checked against the packed `.d.ts` files and run by tools/pack-check.mjs in a fresh
 * project where every @autodidact tarball is installed with default npm settings and no optional peer.
 * Each package: its plain API (no Effect), one call, one check; each heavy subpath: MissingPeerError.
 */
import { MissingPeerError, Rng } from "@autodidact/core"
import { make } from "@autodidact/envs"

const checks: Array<[string, boolean]> = []
const check = (what: string, ok: boolean) => {
  checks.push([what, ok])
  process.stdout.write(`  ${ok ? "ok  " : "FAIL"} ${what}\n`)
}

// core: NumPy-compatible PRNG
const rng = Rng.make(42)
const u = rng.random()
check("core: Rng.make(42).random() in [0, 1)", u >= 0 && u < 1)

// envs: CartPole-v1 for one episode with a fixed policy
const env = make<Float32Array, number>("CartPole-v1")
let { observation } = env.reset({ seed: 42 })
let episodeReturn = 0
for (;;) {
  const step = env.step(observation[2]! + observation[3]! > 0 ? 1 : 0)
  episodeReturn += step.reward
  observation = step.observation
  if (step.terminated || step.truncated) break
}
check(`envs: CartPole-v1 episode return ${episodeReturn} > 0`, episodeReturn > 0)

/** An entry point whose optional peer is absent must fail with MissingPeerError naming the package. */
const expectMissing = async (entry: string, peer: string, load: () => Promise<unknown>) => {
  const error = await load().then(() => undefined, (e: unknown) => e)
  check(`${entry} without ${peer}: MissingPeerError naming it`, error instanceof MissingPeerError && error.peer === peer)
}
void expectMissing

const failed = checks.filter(([, ok]) => !ok)
if (failed.length > 0) {
  process.stdout.write(`${failed.length} of ${checks.length} consumer checks failed\n`)
  process.exit(1)
}
process.stdout.write(`consumer: ${checks.length} checks passed\n`)
