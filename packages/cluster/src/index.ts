/**
 * `@autodidact/cluster`: Distributed rollouts on effect/cluster with PostgreSQL: one rollout service, an in-process layer and a cluster layer of runner processes..
 * @since 0.0.0
 */
export const name = "cluster"
