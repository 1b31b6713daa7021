#!/usr/bin/env python3
"""NumPy baseline for `autodidact bench replay` (packages/memory/src/replay/ReplayBenchmark.ts).

A TRANSCRIPTION, vectorised with NumPy, of proportional prioritized replay as in OpenAI baselines
(`baselines/deepq/replay_buffer.py` `PrioritizedReplayBuffer` and `baselines/common/segment_tree.py`
`SumSegmentTree` / `MinSegmentTree`, commit ea25b9e, 2020; Schaul et al. 2016, arXiv:1511.05952): the same flat
binary heap layout (root at 1, leaf j at C + j), stratified proportional sampling, importance weights
`(p_min / p_i)^beta` (the baselines normalisation), priorities `(|delta| + eps)^alpha`. Baselines loops in Python
once per sampled index; here every loop over the batch is a NumPy vector operation (the descent walks all 256 prefixes
level by level, the update recomputes the touched ancestors of both trees level by level over `np.unique` nodes), which
is what a careful NumPy user writes and what cpprb-style C++ buffers are compared with. Storage: one array per column
(obs and next obs float32 [C, obsDim], action int32, reward float32, terminated/truncated uint8, discount float32),
gathered by fancy indexing.

Reads {"capacities": [...], "batch": B, "obsDim": D, "iters": N, "rounds": R} as JSON on stdin and prints
{"numpy": version, "results": {"<op>-<capacity>:median": µs, "<op>-<capacity>:p99": µs, ...}} on stdout, each call
timed alone with `time.perf_counter_ns` (warm-up calls first), median and 99th percentile over R rounds of N calls.
Ops: sample (indices, weights and the gathered batch), descent (the tree walk alone from stratified prefixes),
gather (the fancy-index copy alone), update (updatePriorities of the sampled indices). Gather and update cycle
through 1024 earlier samples' indices (as the TypeScript side does), so their rows are not cached from the last call.
"""
import json
import sys
import time

import numpy as np


class Per:
    def __init__(self, capacity, obs_dim, rng, alpha=0.6, eps=1e-6):
        C = 1
        while C < capacity:
            C *= 2
        self.C, self.n, self.alpha, self.eps = C, capacity, alpha, eps
        self.sum = np.zeros(2 * C)
        self.min = np.full(2 * C, np.inf)
        self.obs = rng.random((capacity, obs_dim), dtype=np.float32)
        self.next_obs = rng.random((capacity, obs_dim), dtype=np.float32)
        self.act = rng.integers(0, 2, capacity, dtype=np.int32)
        self.rew = rng.random(capacity, dtype=np.float32)
        self.term = (rng.random(capacity) < 0.01).astype(np.uint8)
        self.trunc = np.zeros(capacity, np.uint8)
        self.disc = np.full(capacity, 0.99, np.float32)
        p = (np.abs(rng.standard_normal(capacity) * 2) + eps) ** alpha
        self.sum[C:C + capacity] = p
        self.min[C:C + capacity] = p
        self.max_priority = float(p.max())
        lvl = C >> 1
        while lvl >= 1:  # build every level from the one below
            self.sum[lvl:2 * lvl] = self.sum[2 * lvl:4 * lvl:2] + self.sum[2 * lvl + 1:4 * lvl:2]
            self.min[lvl:2 * lvl] = np.minimum(self.min[2 * lvl:4 * lvl:2], self.min[2 * lvl + 1:4 * lvl:2])
            lvl >>= 1

    def descend(self, u):
        """Leaf nodes for prefixes u (all at the same depth): right only if u >= left sum and the right has mass."""
        t, C = self.sum, self.C
        i = np.ones(len(u), np.int64)
        while i[0] < C:
            left = t[2 * i]
            right = (u >= left) & (t[2 * i + 1] > 0)
            u = u - left * right
            i = 2 * i + right
        return i

    def prefixes(self, g, B):
        total = self.sum[1]
        u = (np.arange(B) + g.random(B)) * (total / B)  # one uniform per stratum
        return np.minimum(u, np.nextafter(total, 0))

    def gather(self, idx):
        return (self.obs[idx], self.act[idx], self.rew[idx], self.next_obs[idx], self.term[idx], self.trunc[idx],
                self.disc[idx])

    def sample(self, g, B, beta):
        i = self.descend(self.prefixes(g, B))
        idx = i - self.C
        weights = ((self.min[1] / self.sum[i]) ** beta).astype(np.float32)
        return self.gather(idx), idx, weights

    def update(self, idx, td):
        p = (np.abs(td) + self.eps) ** self.alpha
        self.max_priority = max(self.max_priority, float(p.max()))
        leaf = idx + self.C
        self.sum[leaf] = p
        self.min[leaf] = p
        nodes = np.unique(leaf >> 1)
        while True:
            self.sum[nodes] = self.sum[2 * nodes] + self.sum[2 * nodes + 1]
            self.min[nodes] = np.minimum(self.min[2 * nodes], self.min[2 * nodes + 1])
            if nodes[0] == 1:
                break
            nodes = np.unique(nodes >> 1)


POOL = 1024


def timed(fn, iters, rounds, warm=100):
    for _ in range(warm):
        fn()
    t = np.empty(iters * rounds)
    k = 0
    for _ in range(rounds):
        for _ in range(iters):
            a = time.perf_counter_ns()
            fn()
            t[k] = (time.perf_counter_ns() - a) / 1000.0
            k += 1
    return float(np.median(t)), float(np.percentile(t, 99))


def main():
    spec = json.load(sys.stdin)
    B, D, iters, rounds = spec["batch"], spec["obsDim"], spec["iters"], spec["rounds"]
    results = {}
    for cap in spec["capacities"]:
        rng = np.random.default_rng(0)
        per = Per(cap, D, rng)
        g = np.random.default_rng(1)
        td = (rng.standard_normal(B) * 2).astype(np.float32)
        # gather and update take the indices of earlier samples (sorted, as a stratified sample's are), cycling through
        # POOL of them so that the rows are not in cache from the previous call
        pool = [per.sample(g, B, 0.4)[1] for _ in range(POOL)]
        k = {"i": 0}

        def next_indices():
            k["i"] = (k["i"] + 1) % POOL
            return pool[k["i"]]

        def sample():
            per.sample(g, B, 0.4)

        def descent():
            per.descend(per.prefixes(g, B))

        def gather():
            per.gather(next_indices())

        def update():
            per.update(next_indices(), td)

        for name, fn in (("sample", sample), ("descent", descent), ("gather", gather), ("update", update)):
            med, p99 = timed(fn, iters, rounds)
            results[f"{name}-{cap}:median"] = med
            results[f"{name}-{cap}:p99"] = p99
    json.dump({"numpy": np.__version__, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
