/**
 * `@autodidact/core`: the shared vocabulary of Autodidact: spaces, a NumPy-compatible seeded PRNG, summary statistics, step and
 * trajectory records, metric names and tagged errors, and the loader of optional peer dependencies. Atomic files (Node only) are in
 * `@autodidact/core/node`.
 * @since 0.1.0
 */
export * as Space from "./Space.js"
export * as Trajectory from "./Trajectory.js"
export * as TextEpisode from "./TextEpisode.js"
export * as Metrics from "./Metrics.js"
export * as Errors from "./Errors.js"
export * as OptionalPeer from "./OptionalPeer.js"
export * as Statistics from "./Statistics.js"
export { Rng, InvalidSeedError, RngState, type Seed } from "./Rng.js"
export { MissingPeerError } from "./OptionalPeer.js"
export { InvalidActionError, InvalidOptionError, NonFiniteValueError, NotImplementedError, ResetNeededError } from "./Errors.js"
