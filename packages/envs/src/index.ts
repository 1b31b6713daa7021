/**
 * `@autodidact/envs`: environments with Gymnasium 1.x semantics: `CartPole-v1`, `FrozenLake-v1`, `Sokoban-v0`
 * (Boxoban loader, generator, push-optimal solver), extensive-form games with OpenSpiel semantics (Kuhn and Leduc
 * poker, tic-tac-toe, Liar's dice, normal-form games, user trees) and the PettingZoo AEC/Parallel APIs, wrappers, vector
 * environments (in-thread and on worker threads), a registry with `make`, a conformance checker and a throughput
 * benchmark.
 * @since 0.1.0
 */
export * as Env from "./Env.js"
export * as VectorEnv from "./VectorEnv.js"
export * as CartPole from "./CartPole.js"
export * as FrozenLake from "./FrozenLake.js"
export * as Sokoban from "./Sokoban.js"
export * as SokobanLevel from "./SokobanLevel.js"
export * as SokobanSolver from "./SokobanSolver.js"
export * as SokobanGenerator from "./SokobanGenerator.js"
export * as TextEnv from "./TextEnv.js"
export * as TextHousehold from "./TextHousehold.js"
export * as TextHouseholdWorld from "./TextHouseholdWorld.js"
export * as TextSokoban from "./TextSokoban.js"
export * as TextFrozenLake from "./TextFrozenLake.js"
export * as Game from "./Game.js"
export * as KuhnPoker from "./KuhnPoker.js"
export * as LeducPoker from "./LeducPoker.js"
export * as TicTacToe from "./TicTacToe.js"
export * as LiarsDice from "./LiarsDice.js"
export * as NormalFormGame from "./NormalFormGame.js"
export * as GameRegistry from "./GameRegistry.js"
export * as ValidateGame from "./ValidateGame.js"
export * as TreeGame from "./TreeGame.js"
export * as MultiAgent from "./MultiAgent.js"
export * as Wrappers from "./Wrappers.js"
export * as Registry from "./Registry.js"
export * as VectorBatch from "./VectorBatch.js"
export * as SyncVectorEnv from "./SyncVectorEnv.js"
export * as AsyncVectorEnv from "./AsyncVectorEnv.js"
export * as CheckEnv from "./CheckEnv.js"
export * as Throughput from "./Throughput.js"
export * as Libm from "./Libm.js"
export { make, makeVec, register, spec, UnknownEnvError } from "./Registry.js"
export { gameNames, loadGame, UnknownGameError } from "./GameRegistry.js"
export { fromPayoffs, type PayoffTensor } from "./NormalFormGame.js"
export { validateGame } from "./ValidateGame.js"
export { IllegalActionError, InvalidGameError } from "./Game.js"
