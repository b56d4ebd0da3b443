#!/usr/bin/env python3
"""Many-systems benchmark: the randomised Tukey HSD against a plain numpy loop, and the two-way
ANOVA against statsmodels' OLS.

In one run, on a seeded synthetic topics x systems matrix (1,000 topics, 50 systems, 10,000
permutations by default), the wall time of:

  harness      harness.stats.randomized_tukey_hsd: every topic's permutation from one in-place
               sort of packed random keys, the scores by one take, streams of 1,000
               permutations on HARNESS_THREADS threads (default 2)
  plain loop   per permutation, Generator.permuted(x, axis=1) (each topic's scores shuffled
               across the systems), the system means, their range; then the same p-values.
               Its p must agree with harness's within Monte Carlo error before anything is
               printed (different draws, same test)

and, for scale: harness's classic Tukey HSD (its p-values by scipy's studentized_range, about
15 ms a pair) and two-way ANOVA, and with --ols statsmodels' ols("score ~ C(system) +
C(topic)").fit() and anova_lm on the same matrix (minutes: a dummy column per topic), checked
equal to harness's table.

    .venv/bin/python bench/bench_tukey.py [--topics 1000] [--systems 50] [--permutations 10000] [--ols]
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from harness import stats  # noqa: E402


def plain_loop(x: np.ndarray, permutations: int, seed: int) -> list[float]:
    n, m = x.shape
    rng = np.random.default_rng(seed)
    largest = np.empty(permutations)
    for b in range(permutations):
        means = rng.permuted(x, axis=1).mean(axis=0)
        largest[b] = means.max() - means.min()
    means = x.mean(axis=0)
    tol = 1e-9 * float(np.mean(x.max(axis=1) - x.min(axis=1)))
    return [
        (int(np.count_nonzero(largest >= abs(means[i] - means[j]) - tol)) + 1) / (permutations + 1)
        for i, j in itertools.combinations(range(m), 2)
    ]


def timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=1000)
    ap.add_argument("--systems", type=int, default=50)
    ap.add_argument("--permutations", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--ols", action="store_true", help="also time statsmodels' OLS ANOVA (minutes)")
    args = ap.parse_args(argv)
    n, m, B = args.topics, args.systems, args.permutations

    rng = np.random.default_rng(2024)  # topic difficulty, small system effects, noise
    x = np.clip(rng.beta(2, 3, (n, 1)) + 0.0004 * np.arange(m) + rng.normal(0, 0.1, (n, m)), 0, 1)
    names = [f"run{i}" for i in range(m)]
    load = os.getloadavg()[0]
    print(
        f"randomised Tukey HSD, {n} topics x {m} systems, {B} permutations; numpy {np.__version__}, "
        f"{os.cpu_count()} CPUs, HARNESS_THREADS={os.environ.get('HARNESS_THREADS', '2')}, load {load:.1f}"
    )
    t_h, res = timed(stats.randomized_tukey_hsd, x, names, permutations=B, seed=args.seed)
    t_p, p_plain = timed(plain_loop, x, B, args.seed)
    p_h = np.array([p.p for p in res.pairs])
    se = np.sqrt(2 * p_h * (1 - p_h) / B)
    worst = np.max(np.abs(np.array(p_plain) - p_h) - 5 * se - 2 / B)
    if worst > 0:
        print(f"[FAIL] the plain loop's p-values and harness's differ by more than Monte Carlo error ({worst:.4f})")
        return 1
    print(f"  {'tool':<12} {'seconds':>9} {'x harness':>10}  smallest p")
    print(f"  {'harness':<12} {t_h:9.2f} {1.0:10.1f}  {p_h.min():.5f}")
    print(f"  {'plain loop':<12} {t_p:9.2f} {t_p / t_h:10.1f}  {min(p_plain):.5f}")

    print("for scale (harness only):")
    stats.two_way_anova(x[:3, :3], names[:3])  # scipy.stats' import, once, outside the timings
    t, anova = timed(stats.two_way_anova, x, names)
    print(f"  two_way_anova, {n} x {m}:                 {t:8.4f} s  system p={anova.system.p:.4g}")
    t, classic = timed(stats.tukey_hsd, x, names)
    print(f"  tukey_hsd (classic), {len(classic.pairs)} pairs:        {t:8.2f} s  (scipy's studentized_range)")
    if args.ols:
        import pandas as pd
        from statsmodels.formula.api import ols
        from statsmodels.stats.anova import anova_lm

        frame = pd.DataFrame({"score": x.ravel(), "topic": np.repeat(np.arange(n), m), "system": np.tile(names, n)})
        c = time.process_time()
        t, table = timed(lambda: anova_lm(ols("score ~ C(system) + C(topic)", frame).fit()))
        cpu = time.process_time() - c
        if not np.isclose(table.loc["C(system)", "sum_sq"], anova.system.sum_sq, rtol=1e-9):
            print("[FAIL] statsmodels' ANOVA table differs from harness's")
            return 1
        print(f"  statsmodels ols + anova_lm:              {t:8.2f} s  ({cpu:.1f} s of CPU; the same table)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
