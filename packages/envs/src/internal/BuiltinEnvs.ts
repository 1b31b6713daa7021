/**
 * The built-in registrations (`CartPole-v1`, `FrozenLake-v1`, `FrozenLake8x8-v1`, `Sokoban-v0`, `TextHousehold-v0`,
 * `Sokoban-6x6-1box-v0`, `TextFrozenLake-v1`; and the multi-agent text views of the games, `<game>-text-v0`), with
 * Gymnasium's `max_episode_steps` and `reward_threshold` where Gymnasium has the env (`gymnasium/envs/__init__.py`). Internal: `Registry` and the `AsyncVectorEnv` worker call
 * {@link registerBuiltins} before they look an id up.
 * @internal
 * @since 0.2.0
 */
import * as CartPole from "../classic/CartPole.js"
import * as CartPoleBatch from "../classic/CartPoleBatch.js"
import * as Sokoban from "../sokoban/Sokoban.js"
import * as SokobanBatch from "../sokoban/SokobanBatch.js"
import * as TextFrozenLake from "../text/TextFrozenLake.js"
import * as TextHousehold from "../text/TextHousehold.js"
import * as TextSokoban from "../text/TextSokoban.js"
import * as FrozenLake from "../toytext/FrozenLake.js"
import * as FrozenLakeBatch from "../toytext/FrozenLakeBatch.js"
import { loadGame, type Params } from "../multiagent/GameRegistry.js"
import { gameToTextAec, TEXT_GAMES, textEnvId } from "../multiagent/GameText.js"
import { has, hasAec, register, registerAec } from "./Registrations.js"

let registered = false

/**
 * Register the built-in ids once per thread (idempotent; an id the user re-registered first is left alone).
 * A function rather than top-level statements so that bundlers honouring `"sideEffects": false` keep it.
 */
export const registerBuiltins = (): void => {
  if (registered) return
  registered = true
  const add: typeof register = (r) => {
    if (!has(r.id)) register(r)
  }
  add({
    id: "CartPole-v1",
    entryPoint: (kwargs) => new CartPole.CartPoleEnv(kwargs as CartPole.CartPoleOptions),
    vectorEntryPoint: (n, kwargs, o) => new CartPoleBatch.CartPoleBatch(n, { ...kwargs as CartPole.CartPoleOptions, ...o }),
    maxEpisodeSteps: 500,
    rewardThreshold: 475.0
  })
  add({
    id: "FrozenLake-v1",
    entryPoint: (kwargs) => new FrozenLake.FrozenLakeEnv(kwargs as FrozenLake.FrozenLakeOptions),
    vectorEntryPoint: (n, kwargs, o) => new FrozenLakeBatch.FrozenLakeBatch(n, { ...kwargs as FrozenLake.FrozenLakeOptions, ...o }),
    kwargs: { mapName: "4x4" },
    maxEpisodeSteps: 100,
    rewardThreshold: 0.7
  })
  add({
    id: "FrozenLake8x8-v1",
    entryPoint: (kwargs) => new FrozenLake.FrozenLakeEnv(kwargs as FrozenLake.FrozenLakeOptions),
    vectorEntryPoint: (n, kwargs, o) => new FrozenLakeBatch.FrozenLakeBatch(n, { ...kwargs as FrozenLake.FrozenLakeOptions, ...o }),
    kwargs: { mapName: "8x8" },
    maxEpisodeSteps: 200,
    rewardThreshold: 0.85
  })

  add({
    id: "Sokoban-v0",
    entryPoint: (kwargs) => new Sokoban.Sokoban(kwargs as Sokoban.SokobanOptions),
    vectorEntryPoint: (n, kwargs, o) => new SokobanBatch.SokobanBatch(n, { ...kwargs as Sokoban.SokobanOptions, ...o }),
    maxEpisodeSteps: 120
  })

  add({
    id: "TextHousehold-v0",
    entryPoint: (kwargs) => new TextHousehold.TextHousehold(kwargs as TextHousehold.TextHouseholdOptions),
    maxEpisodeSteps: 50
  })

  add({
    id: "Sokoban-6x6-1box-v0",
    entryPoint: (kwargs) => new TextSokoban.TextSokoban(kwargs as TextSokoban.TextSokobanOptions),
    maxEpisodeSteps: 100
  })

  add({
    id: "TextFrozenLake-v1",
    entryPoint: (kwargs) => new TextFrozenLake.TextFrozenLake(kwargs as TextFrozenLake.TextFrozenLakeOptions),
    maxEpisodeSteps: 100
  })

  for (const name of TEXT_GAMES) {
    const id = textEnvId(name)
    if (!hasAec(id)) registerAec({ id, entryPoint: (kwargs) => gameToTextAec(loadGame(name, kwargs as Params)) })
  }
}
