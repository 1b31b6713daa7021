#!/usr/bin/env python3
"""NumPy baselines for `autodidact bench kernels` (packages/kernels/src/bench/Benchmark.ts).

Reads a JSON list of cases on stdin: [{"id": str, "kernel": str, "params": {...}}, ...] and prints one JSON object
{"numpy": version, "results": {id: milliseconds per call}} on stdout. Each kernel is written the way a NumPy user
would write it (vectorized over the batch, a Python loop only over time for the recurrences), on float32 data of
the same shapes as the TypeScript side, and timed with `timeit` (autorange, then the best of 5 repeats).
"""
import json
import sys
import timeit

import numpy as np

rng = np.random.default_rng(0)
np.seterr(invalid="ignore")  # 0 · (−inf) at masked actions, discarded by np.where


def f32(*shape):
    return rng.standard_normal(shape, dtype=np.float32)


def case_returns(p):
    T, N, gamma = p["T"], p["N"], 0.99
    r, d = f32(T, N), (rng.random((T, N)) < 0.02).astype(np.float32)
    nv = f32(N)

    def run():
        out = np.empty((T, N), np.float32)
        acc = nv.copy()
        for t in range(T - 1, -1, -1):
            nnt = 1.0 - d[t + 1] if t < T - 1 else 1.0
            acc = r[t] + gamma * nnt * acc
            out[t] = acc
        return out
    return run


def case_gae(p):
    T, N, gamma, lam = p["T"], p["N"], 0.99, 0.95
    r, v, d = f32(T, N), f32(T, N), (rng.random((T, N)) < 0.02).astype(np.float32)
    nv, nd = f32(N), np.zeros(N, np.float32)

    def run():  # CleanRL ppo.py
        adv = np.zeros((T, N), np.float32)
        last = np.zeros(N, np.float32)
        for t in reversed(range(T)):
            if t == T - 1:
                nnt, nval = 1.0 - nd, nv
            else:
                nnt, nval = 1.0 - d[t + 1], v[t + 1]
            delta = r[t] + gamma * nval * nnt - v[t]
            last = delta + gamma * lam * nnt * last
            adv[t] = last
        return adv, adv + v
    return run


def masked(B, A):
    x = f32(B, A)
    mask = rng.random((B, A)) < 0.75
    mask[:, 0] = True
    return x, mask


def log_softmax(x, mask):
    z = np.where(mask, x, -np.inf)
    m = z.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(z - m).sum(axis=1, keepdims=True))
    return z - lse


def case_logsoftmax(p):
    x, mask = masked(p["B"], p["A"])

    def run():
        lp = log_softmax(x, mask)
        ent = -np.where(mask, np.exp(lp) * lp, 0.0).sum(axis=1)
        return lp, ent
    return run


def case_categorical(p):
    x, mask = masked(p["B"], p["A"])
    g = np.random.default_rng(1)

    def run():
        lp = log_softmax(x, mask)
        u = g.random(x.shape[0])
        cdf = np.cumsum(np.exp(lp), axis=1)
        a = np.minimum((cdf <= u[:, None]).sum(axis=1), x.shape[1] - 1)
        return a, lp[np.arange(x.shape[0]), a]
    return run


def case_kl(p):
    q, o = f32(p["n"]) * 0.1 - 2, f32(p["n"]) * 0.1 - 2

    def run():
        lr = o - q
        v = np.expm1(lr) - lr
        return v, v.mean()
    return run


def case_ppo(p):
    B, A, c, ent, vf = p["B"], p["A"], 0.2, 0.01, 0.5
    x, mask = masked(B, A)
    actions = np.zeros(B, np.int64)
    old_lp = log_softmax(x, mask)[np.arange(B), actions] + f32(B) * 0.1
    adv, val, old_v, ret = f32(B), f32(B), f32(B), f32(B)
    rows = np.arange(B)

    def run():  # forward and closed-form backward, vectorized
        lp = log_softmax(x, mask)
        pr = np.exp(lp)
        h = -np.where(mask, pr * lp, 0.0).sum(axis=1)
        logratio = lp[rows, actions] - old_lp
        ratio = np.exp(logratio)
        pg1, pg2 = -adv * ratio, -adv * np.clip(ratio, 1 - c, 1 + c)
        pg_loss = np.maximum(pg1, pg2).mean()
        g = np.where(pg1 >= pg2, -adv * ratio, 0.0)
        onehot = np.zeros_like(pr)
        onehot[rows, actions] = 1
        plogp = np.where(mask, lp, 0.0)
        d_logits = (g[:, None] * (onehot - pr) + ent * pr * (plogp + h[:, None])) / B
        v_clip = old_v + np.clip(val - old_v, -c, c)
        un, cl = (val - ret) ** 2, (v_clip - ret) ** 2
        v_loss = 0.5 * np.maximum(un, cl).mean()
        dv = np.where(un >= cl, val - ret, np.where(np.abs(val - old_v) <= c, v_clip - ret, 0.0)) * vf / B
        loss = pg_loss - ent * h.mean() + vf * v_loss
        approx_kl = ((ratio - 1) - logratio).mean()
        return loss, d_logits, dv, approx_kl
    return run


def segments(n, G, lo):
    sizes = rng.integers(lo, 2 * (n // G) - lo + 1, G)
    ids = np.repeat(np.arange(G), sizes)[:n]
    if len(ids) < n:
        ids = np.concatenate([ids, rng.integers(0, G, n - len(ids))])
    return rng.permutation(ids)


def case_groupnorm(p):
    n, G = p["n"], p["G"]
    x, ids = f32(n), segments(n, G, 1)

    def run():  # GRPO group-relative normalization
        cnt = np.bincount(ids, minlength=G)
        mean = np.bincount(ids, weights=x, minlength=G) / cnt
        dev = x - mean[ids]
        std = np.sqrt(np.bincount(ids, weights=dev * dev, minlength=G) / np.maximum(cnt - 1, 1))
        return dev / (std[ids] + 1e-4)
    return run


def case_rloo(p):
    n, G = p["n"], p["G"]
    x, ids = f32(n), segments(n, G, 2)

    def run():
        cnt = np.bincount(ids, minlength=G)
        s = np.bincount(ids, weights=x, minlength=G)
        b = (s[ids] - x) / (cnt[ids] - 1)
        return b, x - b
    return run


def case_topk(p):
    Q, M, D, k = p["Q"], p["M"], p["D"], p["k"]
    q, m = f32(Q, D), f32(M, D)
    cosine = p["metric"] == "cosine"
    inv_rn = (1.0 / np.linalg.norm(m, axis=1)).astype(np.float32)

    def run():  # matmul + argpartition, then sort the k
        s = q @ m.T
        if cosine:
            s *= inv_rn[None, :]
            s /= np.linalg.norm(q, axis=1, keepdims=True)
        part = np.argpartition(-s, k - 1, axis=1)[:, :k]
        top = np.take_along_axis(s, part, axis=1)
        order = np.argsort(-top, axis=1, kind="stable")
        return np.take_along_axis(part, order, axis=1), np.take_along_axis(top, order, axis=1)
    return run


def sumtree_setup(p):
    C, B = p["C"], p["B"]
    tree = np.zeros(2 * C)
    tree[C:] = rng.random(C)
    for lvl in range(int(np.log2(C)) - 1, -1, -1):
        a = 1 << lvl
        tree[a:2 * a] = tree[2 * a:4 * a:2] + tree[2 * a + 1:4 * a:2]
    return tree, C, B


def case_sumtree_update(p):
    tree, C, B = sumtree_setup(p)
    g = np.random.default_rng(2)

    def run():  # vectorized level-by-level recompute of the touched ancestors
        idx = g.integers(0, C, B)
        tree[C + idx] = g.random(B)
        nodes = np.unique((C + idx) >> 1)
        while nodes[0] >= 1:
            tree[nodes] = tree[2 * nodes] + tree[2 * nodes + 1]
            if nodes[0] == 1:
                break
            nodes = np.unique(nodes >> 1)
    return run


def case_sumtree_sample(p):
    tree, C, B = sumtree_setup(p)
    g = np.random.default_rng(3)

    pool = [(np.arange(B) + g.random(B)) * tree[1] / B for _ in range(64)]  # stratified prefixes, drawn beforehand
    nxt = [0]

    def run():  # vectorized descent alone, as the TypeScript case times it
        nxt[0] = (nxt[0] + 1) % 64
        u = pool[nxt[0]]
        i = np.ones(B, np.int64)
        while i[0] < C:
            left = tree[2 * i]
            right = u >= left
            u = u - left * right
            i = 2 * i + right
        return i - C, tree[i]
    return run


CASES = {
    "returns": case_returns, "gae": case_gae, "logsoftmax": case_logsoftmax, "categorical": case_categorical,
    "kl": case_kl, "ppo": case_ppo, "groupnorm": case_groupnorm, "rloo": case_rloo, "topk": case_topk,
    "sumtree.update": case_sumtree_update, "sumtree.sample": case_sumtree_sample,
}


def measure(fn):
    fn()
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number * 1000.0


def main():
    cases = json.load(sys.stdin)
    results = {}
    for c in cases:
        results[c["id"]] = measure(CASES[c["kernel"]](c["params"]))
    json.dump({"numpy": np.__version__, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
