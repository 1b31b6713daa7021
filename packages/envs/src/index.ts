/**
 * `@autodidact/envs`: environments with Gymnasium 1.x semantics: `CartPole-v1`, `FrozenLake-v1`, `Sokoban-v0`
 * (Boxoban loader, generator, push-optimal solver), extensive-form games with OpenSpiel semantics (Kuhn and Leduc
 * poker, tic-tac-toe, Connect Four, Liar's dice, SPIRAL's Simple Negotiation, normal-form games, user trees), the
 * PettingZoo AEC/Parallel APIs and text views of the games behind them (`GameText`), wrappers, vector
 * environments (in-thread here, batched structure-of-arrays ones for CartPole, FrozenLake and Sokoban; on worker threads
 * in `@autodidact/envs/node`), a registry with `make`, conformance
 * checks (`CheckEnv` for Gymnasium envs, `CheckAecEnv` / `CheckParallelEnv` for PettingZoo AEC / Parallel envs,
 * `CheckTextEnv` for text envs, `CheckVectorEnv` for vector envs and their autoreset modes) and a throughput benchmark. This
 * entry has no Node built-in in its import graph (it bundles for browsers); `@autodidact/envs/node` adds
 * `AsyncVectorEnv` and reading Sokoban level files. `src/` is laid out by family
 * (`classic/`, `toytext/`, `sokoban/`, `text/`, `multiagent/`, `vector/`, `wrappers/`, `checks/`); only what this
 * file exports is public (`src/internal/` and the text/vector helpers are not).
 * @since 0.1.0
 */
export * as Env from "./Env.js"
export * as VectorEnv from "./vector/VectorEnv.js"
export * as CartPole from "./classic/CartPole.js"
export * as CartPoleBatch from "./classic/CartPoleBatch.js"
export * as FrozenLake from "./toytext/FrozenLake.js"
export * as FrozenLakeBatch from "./toytext/FrozenLakeBatch.js"
export * as Sokoban from "./sokoban/Sokoban.js"
export * as SokobanBatch from "./sokoban/SokobanBatch.js"
export * as SokobanLevel from "./sokoban/SokobanLevel.js"
export * as SokobanSolver from "./sokoban/SokobanSolver.js"
export * as SokobanGenerator from "./sokoban/SokobanGenerator.js"
export * as Snapshot from "./Snapshot.js"
export * as TextEnv from "./text/TextEnv.js"
export * as TextHousehold from "./text/TextHousehold.js"
export * as TextHouseholdWorld from "./text/TextHouseholdWorld.js"
export * as TextSokoban from "./text/TextSokoban.js"
export * as TextFrozenLake from "./text/TextFrozenLake.js"
export * as TextEnvSpec from "./text/spec/TextEnvSpec.js"
export * as ReferenceSpecs from "./text/spec/ReferenceSpecs.js"
export * as Game from "./multiagent/Game.js"
export * as KuhnPoker from "./multiagent/KuhnPoker.js"
export * as LeducPoker from "./multiagent/LeducPoker.js"
export * as TicTacToe from "./multiagent/TicTacToe.js"
export * as ConnectFour from "./multiagent/ConnectFour.js"
export * as LiarsDice from "./multiagent/LiarsDice.js"
export * as Negotiation from "./multiagent/Negotiation.js"
export * as NormalFormGame from "./multiagent/NormalFormGame.js"
export * as GameRegistry from "./multiagent/GameRegistry.js"
export * as ValidateGame from "./multiagent/ValidateGame.js"
export * as TreeGame from "./multiagent/TreeGame.js"
export * as MultiAgent from "./multiagent/MultiAgent.js"
export * as GameText from "./multiagent/GameText.js"
export * as Wrappers from "./wrappers/Wrappers.js"
export * as Registry from "./Registry.js"
export * as VectorBatch from "./vector/VectorBatch.js"
export * as SyncVectorEnv from "./vector/SyncVectorEnv.js"
export * as BatchedVectorEnv from "./vector/BatchedVectorEnv.js"
export * as CheckEnv from "./checks/CheckEnv.js"
export * as CheckAecEnv from "./checks/CheckAecEnv.js"
export * as CheckParallelEnv from "./checks/CheckParallelEnv.js"
export * as CheckTextEnv from "./checks/CheckTextEnv.js"
export * as CheckVectorEnv from "./checks/CheckVectorEnv.js"
export * as Throughput from "./checks/Throughput.js"
export * as Libm from "./classic/Libm.js"
export { make, makeVec, register, spec, UnknownEnvError } from "./Registry.js"
export { gameNames, loadGame, UnknownGameError } from "./multiagent/GameRegistry.js"
export { fromPayoffs, type PayoffTensor } from "./multiagent/NormalFormGame.js"
export { validateGame } from "./multiagent/ValidateGame.js"
export { IllegalActionError, InvalidGameError, NotToMoveError } from "./multiagent/Game.js"
export { SnapshotMismatchError } from "./Snapshot.js"
