#!/usr/bin/env python3
"""Power benchmark: harness.stats.power against statsmodels' TTestPower, the reason it is own code.

For every pair of --systems runs (1,225 pairs for 50) on seeded synthetic per-topic scores,
the detectable difference at the collection's topics and the topics needed to detect
--difference, by:

  harness      harness.stats.power: the detectable standardised effect solved once for the number
               of topics (it depends on nothing else), the topics needed by one integer
               bisection over every pair at once (scipy.special's noncentral t, vectorised)
  statsmodels  TTestPower().solve_power per pair, for the topics needed (the detectable effect,
               also once); its answers checked equal to harness's (the ceiling of its nobs)

and the import time of statsmodels.stats.power in a fresh process (it loads pandas and
statsmodels' core). Also the meta-analysis of one pair over 13 collections, harness's against
statsmodels' combine_effects, for scale.

    .venv/bin/python bench/bench_power.py [--systems 50] [--topics 225] [--difference 0.05]
"""

from __future__ import annotations

import argparse
import itertools
import math
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from harness.stats import meta, power  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=50)
    ap.add_argument("--topics", type=int, default=225)
    ap.add_argument("--difference", type=float, default=0.05)
    args = ap.parse_args(argv)
    m, n, diff = args.systems, args.topics, args.difference

    rng = np.random.default_rng(7)
    x = np.clip(rng.beta(2, 3, (n, 1)) + rng.normal(0, rng.uniform(0.02, 0.15, m), (n, m)), 0, 1)
    pairs = list(itertools.combinations(range(m), 2))
    sds = np.array([np.std(x[:, j] - x[:, i], ddof=1) for i, j in pairs])
    print(f"paired t-test power, {len(pairs)} pairs of {m} runs, {n} topics, difference {diff}")

    power.topics_needed(diff / sds[:2])  # scipy's import, which the harness's statistics pay once anyway
    t = time.perf_counter()
    d_min = power.detectable_effect(n)
    needed = power.topics_needed(diff / sds)
    t_h = time.perf_counter() - t

    from statsmodels.stats.power import TTestPower

    tt = TTestPower()
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sm_d = tt.solve_power(nobs=n, alpha=0.05, power=0.8)
        sm_needed = [math.ceil(tt.solve_power(effect_size=diff / s, alpha=0.05, power=0.8)) for s in sds]
    t_s = time.perf_counter() - t
    if abs(sm_d / d_min - 1) > 1e-4 or any(a != b for a, b in zip(needed, sm_needed) if b > 2):
        print("[FAIL] statsmodels and harness disagree")
        return 1
    print(f"  {'tool':<12} {'seconds':>9} {'x harness':>10}  ms a pair")
    print(f"  {'harness':<12} {t_h:9.3f} {1.0:10.1f}  {t_h / len(pairs) * 1000:.3f}")
    print(f"  {'statsmodels':<12} {t_s:9.3f} {t_s / t_h:10.1f}  {t_s / len(pairs) * 1000:.3f}")

    code = "import time; t = time.perf_counter(); import statsmodels.stats.power; print(time.perf_counter() - t)"
    imports = sorted(float(subprocess.check_output([sys.executable, "-c", code], text=True)) for _ in range(3))
    print(f"  import statsmodels.stats.power (fresh process, median of 3): {imports[1]:.2f} s")

    from statsmodels.stats.meta_analysis import combine_effects

    y, v = rng.normal(0.02, 0.02, 13), rng.uniform(1e-4, 4e-4, 13)
    reps = 200
    t = time.perf_counter()
    for _ in range(reps):
        meta.combine(y, v)
    t_m = (time.perf_counter() - t) / reps
    t = time.perf_counter()
    for _ in range(reps):
        combine_effects(y, v, method_re="dl")
    t_c = (time.perf_counter() - t) / reps
    print(
        f"  meta-analysis of one pair over 13 collections: harness {t_m * 1e3:.3f} ms, combine_effects {t_c * 1e3:.3f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
