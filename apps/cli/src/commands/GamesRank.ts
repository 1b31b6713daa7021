/**
 * `autodidact games rank --population DIR [--alpha A] [--population-size M] [--json]`: rank saved tabular policies of
 * one two-player game with α-Rank (`AlphaRank` of `@autodidact/solvers`; Omidshafiei et al. 2019, arXiv:1903.01373).
 *
 * The policies are `DIR/*.json` and `DIR/<run>/policy.json` files in `TabularPolicy` JSON form (what `games solve
 * --out` and `games psro --out` write; other JSON files there, such as `config.json`, are skipped). Each pair plays
 * both seats: `M[i][j]` is policy i's mean return over the two seats against policy j (exact expected returns on the
 * game tree), a symmetric constant-sum game for a zero-sum game, which single-population α-Rank ranks — in the
 * infinite-α limit unless `--alpha` is given. Printed per policy: rank, stationary mass, mean payoff against the
 * others, and its NashConv in the full game.
 *
 * Bad input fails with a typed error naming the value: `InvalidOptionError` (`population`: no policy found, fewer
 * than two, a policy of another game than the first, a game without two players), `PolicyMissingInfoStateError` (a
 * policy that does not cover the game's information states), `UnknownGameError`.
 * @since 0.2.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { GameRegistry } from "@autodidact/envs"
import { AlphaRank, BestResponse, Exploitability, GameTree, PayoffTensor, TabularPolicy } from "@autodidact/solvers"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Output from "../Output.js"
import type { Configs } from "../Commands.js"

/** One ranked policy. */
export interface RankedPolicy {
  readonly rank: number
  /** The policy file, relative to `--population`. */
  readonly policy: string
  readonly mass: number
  /** Mean return against the other policies, both seats averaged. */
  readonly meanPayoff: number
  readonly nashConv: number
}

/** The policy files of `dir`: `*.json` in it and `policy.json` one level down, sorted. */
const policyFiles = (dir: string): Array<string> => {
  const out: Array<string> = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith(".json")) out.push(entry.name)
    else if (entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, "policy.json"))) out.push(path.join(entry.name, "policy.json"))
  }
  return out.sort()
}

const invalid = (value: string, reason: string) => new InvalidOptionError({ option: "population", value, reason })

/** `autodidact games rank` */
export const handleGamesRank = (config: Configs["games rank"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      const dir = config.population
      if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return yield* Effect.fail(invalid(dir, "is not a directory"))
      const policies: Array<{ readonly name: string; readonly policy: TabularPolicy.TabularPolicy }> = []
      for (const name of policyFiles(dir)) {
        const file = path.join(dir, name)
        const json = yield* Effect.try({ try: () => JSON.parse(fs.readFileSync(file, "utf8")) as unknown, catch: () => invalid(file, "is not JSON") })
        if ((json as { format?: unknown } | null)?.format !== "autodidact.tabular-policy") continue // config.json and the like
        const policy = yield* TabularPolicy.fromJson(json).pipe(Effect.mapError((e) => invalid(file, `is not a valid tabular policy: ${e.message}`)))
        if (policies.length > 0 && policy.game !== policies[0]!.policy.game) {
          return yield* Effect.fail(invalid(file, `is a policy of ${policy.game}, but ${policies[0]!.name} is of ${policies[0]!.policy.game}`))
        }
        policies.push({ name, policy })
      }
      if (policies.length < 2) return yield* Effect.fail(invalid(dir, `holds ${policies.length} tabular policies (*.json or */policy.json); α-Rank needs at least 2`))
      const gameName = policies[0]!.policy.game
      const game = yield* Effect.try({ try: () => GameRegistry.loadGame(gameName), catch: (e) => e as GameRegistry.UnknownGameError })
      const tree = GameTree.compile(game)
      if (tree.numPlayers !== 2) return yield* Effect.fail(invalid(dir, `its policies are of ${gameName}, a ${tree.numPlayers}-player game; games rank takes two-player games`))
      const probs: Array<Float64Array> = []
      for (const p of policies) probs.push(yield* TabularPolicy.toTreeProbabilities(tree, p.policy))
      // returns of policy i in seat 0 against policy j in seat 1
      const n = policies.length
      const seat0 = new Float64Array(n * n)
      const seat1 = new Float64Array(n * n)
      const combined = new Float64Array(tree.numSlots)
      const [zeroStates, oneStates] = [tree.playerInfoStates[0]!, tree.playerInfoStates[1]!]
      const copyStates = (states: Int32Array, from: Float64Array) => {
        for (const s of states) combined.set(from.subarray(tree.infoOffset[s]!, tree.infoOffset[s + 1]!), tree.infoOffset[s]!)
      }
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          copyStates(zeroStates, probs[i]!)
          copyStates(oneStates, probs[j]!)
          const v = BestResponse.expectedReturnsOnTree(tree, combined)
          seat0[i * n + j] = v[0]!
          seat1[i * n + j] = v[1]!
        }
      }
      // M[i][j]: i's mean return over both seats against j (i in seat 0 against j, and j in seat 0 against i)
      const M = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (seat0[i * n + j]! + seat1[j * n + i]!) / 2))
      const symmetric = PayoffTensor.fromMatrices(M, M[0]!.map((_, j) => M.map((row) => row[j]!)))
      const result = AlphaRank.alphaRank(symmetric, {
        populations: "single",
        populationSize: config.populationSize,
        ...(config.alpha._tag === "Some" ? { alpha: config.alpha.value } : { infiniteAlpha: true })
      })
      const ranked: Array<RankedPolicy> = result.ranking.map((r) => {
        const i = r.index
        let sum = 0
        for (let j = 0; j < n; j++) if (j !== i) sum += M[i]![j]!
        return {
          rank: r.rank,
          policy: policies[i]!.name,
          mass: Number(r.mass.toPrecision(6)),
          meanPayoff: Number((sum / (n - 1)).toPrecision(6)),
          nashConv: Number(Exploitability.nashConvOnTree(tree, probs[i]!).toPrecision(6))
        }
      })
      if (config.json) {
        for (const row of ranked) process.stdout.write(JSON.stringify({ kind: "policy", ...row }) + "\n")
        process.stdout.write(JSON.stringify({ kind: "summary", game: gameName, policies: n, alpha: config.alpha._tag === "Some" ? config.alpha.value : "infinite", epsilon: result.epsilon ?? null }) + "\n")
      } else {
        Output.printTable(false, `α-Rank of ${n} ${gameName} policies (${config.alpha._tag === "Some" ? `α ${config.alpha.value}, m ${config.populationSize}` : "infinite α"})`, ranked.map((r) => ({ ...r })))
      }
    })
