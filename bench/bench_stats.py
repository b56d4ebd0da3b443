#!/usr/bin/env python3
"""Statistics benchmark: the paired randomization test, harness vs a naive loop vs ranx.

In one run, on seeded synthetic per-topic differences (10,000 topics, 10,000 permutations by
default), the wall time of one two-sided sign-flip randomization test by:

  harness      harness.stats.randomization (packed random bits, a 256-entry table per byte of
               topics: n/8 look-ups per permutation, no n-by-B sign matrix)
  naive        one numpy sign vector and one mean per permutation, in a Python loop
  scipy        scipy.stats.permutation_test (one sample, permutation_type="samples": sign flips;
               vectorized, in batches of 200 permutations), the library the harness would use
               if it were fast enough; its p must agree within Monte Carlo error too
  ranx         ranx.statistical_tests.fisher_randomization_test (numba), when importable; it is
               not a dependency: `.venv/bin/pip install ranx` to include it. Timed after a warm-up
               call, so numba's compilation is not counted. Its p is b/B rather than (b+1)/(B+1)
               and its seeding is per numba thread, so its p is not compared.

Each time is the best of --repeat runs; ratios are relative to harness. The naive loop's p must
agree with harness's within Monte Carlo error before anything is printed. Also timed, for scale:
the bootstrap test and CI at the same size, and exact_randomization at n = 20 (2**20 patterns).

    .venv/bin/python bench/bench_stats.py [--topics 10000] [--permutations 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from harness import stats  # noqa: E402


def naive_randomization(a: np.ndarray, b: np.ndarray, permutations: int, seed: int) -> float:
    d = a - b
    observed = abs(d.mean())
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(permutations):
        signs = rng.integers(0, 2, d.size) * 2 - 1
        if abs((signs * d).mean()) >= observed - 1e-12:
            hits += 1
    return (hits + 1) / (permutations + 1)


def best_of(repeat: int, fn, *args, **kwargs) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t)
    return best, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=10_000)
    ap.add_argument("--permutations", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args(argv)
    n, B = args.topics, args.permutations

    rng = np.random.default_rng(2024)
    b = rng.uniform(0, 1, n)
    a = np.clip(b + rng.normal(0.002, 0.15, n), 0, 1)  # a small effect: p neither 0 nor 1

    print(
        f"paired randomization test, {n} topics, {B} permutations, best of {args.repeat}; "
        f"numpy {np.__version__}, {os.cpu_count()} CPUs"
    )
    rows = []
    t_h, p_h = best_of(args.repeat, stats.randomization, a, b, permutations=B, seed=args.seed)
    rows.append(("harness", t_h, p_h))
    t_n, p_n = best_of(1, naive_randomization, a, b, B, args.seed)
    se = np.sqrt(2 * p_h * (1 - p_h) / B)
    if abs(p_n - p_h) > 5 * se + 2 / B:
        print(f"[FAIL] naive p {p_n:.4f} and harness p {p_h:.4f} differ by more than Monte Carlo error")
        return 1
    rows.append(("naive loop", t_n, p_n))
    import scipy.stats

    def scipy_randomization(d):
        res = scipy.stats.permutation_test(
            (d,),
            lambda x, axis: np.mean(x, axis=axis),
            permutation_type="samples",
            n_resamples=B,
            vectorized=True,
            batch=200,
            rng=args.seed,
        )
        return float(res.pvalue)

    t_s, p_s = best_of(1, scipy_randomization, a - b)
    if abs(p_s - p_h) > 5 * se + 2 / B:
        print(f"[FAIL] scipy p {p_s:.4f} and harness p {p_h:.4f} differ by more than Monte Carlo error")
        return 1
    rows.append(("scipy", t_s, p_s))
    try:
        from ranx.statistical_tests import fisher_randomization_test
    except ImportError:
        rows.append(("ranx", None, "not installed: `.venv/bin/pip install ranx` (not a dependency) to include it"))
    else:
        fisher_randomization_test(a[:100], b[:100], 10, 0.05, args.seed)  # numba compilation
        t_r, (p_r, _) = best_of(args.repeat, fisher_randomization_test, a, b, B, 0.05, args.seed)
        rows.append(("ranx", t_r, float(p_r)))

    print(f"  {'tool':<12} {'seconds':>9} {'x harness':>10}  p")
    for name, t, p in rows:
        if t is None:
            print(f"  {name:<12} {'-':>9} {'-':>10}  {p}")
        else:
            print(f"  {name:<12} {t:9.4f} {t / t_h:10.1f}  {p:.5f}")

    print("for scale (harness only; the bootstrap resamples are scipy.stats.bootstrap's):")
    t, p = best_of(1, stats.bootstrap_test, a, b, samples=B, seed=args.seed)
    print(f"  bootstrap_test, {n} topics x {B} samples:      {t:8.4f} s  p={p:.5f}")
    t, ci = best_of(1, stats.bootstrap_ci, a, b, samples=B, seed=args.seed)
    print(f"  bootstrap_ci,   {n} topics x {B} samples:      {t:8.4f} s  [{ci[0]:.5f}, {ci[1]:.5f}]")
    t, p = best_of(1, stats.exact_randomization, a[:20], b[:20])
    print(f"  exact_randomization, 20 topics (2**20 patterns): {t:8.4f} s  p={p:.5f}")
    t, p = best_of(args.repeat, stats.paired_t, a, b)
    print(f"  paired_t, {n} topics:                           {t:8.4f} s  p={p:.5f}")
    t, p = best_of(args.repeat, stats.wilcoxon, a, b)
    print(f"  wilcoxon, {n} topics:                           {t:8.4f} s  p={p:.5f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
