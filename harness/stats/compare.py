"""Comparing runs under a declared policy: which test, which correction, which family."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace

import numpy as np

from harness.errors import DataError, warn
from harness.policies import TESTS, StatsPolicy
from harness.stats import checks
from harness.stats.corrections import correct
from harness.stats.paired import cohens_d_paired, paired_t, wilcoxon
from harness.stats.resampling import bootstrap_ci, bootstrap_test, randomization
from harness.stats.small_n import check_test_for_n, small_sample_note


def paired_test(
    a,
    b,
    test: str = StatsPolicy.test,
    *,
    permutations: int = StatsPolicy.permutations,
    samples: int = StatsPolicy.bootstrap_samples,
    seed: int = StatsPolicy.seed,
) -> float:
    """The p-value of the named test (a key of TESTS); ``permutations``/``samples``/``seed`` are
    used by the randomization and bootstrap tests only."""
    test = checks.one_of("test", test, TESTS)
    if test == "t":
        return paired_t(a, b)
    if test == "wilcoxon":
        return wilcoxon(a, b)
    if test == "randomization":
        return randomization(a, b, permutations=permutations, seed=seed)
    return bootstrap_test(a, b, samples=samples, seed=seed)


def pvalue(policy: StatsPolicy, a, b) -> float:
    """The p-value of ``a`` against ``b`` under ``policy``'s test and resampling settings."""
    return paired_test(
        a, b, policy.test, permutations=policy.permutations, samples=policy.bootstrap_samples, seed=policy.seed
    )


def with_overrides(policy: StatsPolicy | None, overrides: Mapping[str, object]) -> StatsPolicy:
    policy = StatsPolicy() if policy is None else policy
    known = {f.name for f in fields(StatsPolicy)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise TypeError(f"unknown statistics option(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
    return replace(policy, **overrides) if overrides else policy


@dataclass(frozen=True)
class Comparison:
    """One run against one baseline on one measure. ``diff = mean_run - mean_baseline``; the CI,
    the effect size and the test are all of ``run - baseline`` per topic."""

    measure: str
    baseline: str
    run: str
    topics: int
    mean_baseline: float
    mean_run: float
    diff: float
    ci_low: float
    ci_high: float
    effect_size: float  # paired Cohen's d (d_z), see cohens_d_paired
    p: float
    p_corrected: float
    reject: bool  # p_corrected < alpha
    wins: int  # topics where run > baseline
    ties: int
    losses: int


# The columns of comparisons.csv and of the API's comparison tables, in Comparison's order.
COMPARISON_FIELDS = tuple(f.name for f in fields(Comparison))


def pairs_against(baselines: str | Sequence[str], runs: Sequence[str]) -> list[tuple[str, str]]:
    """(baseline, run) for every baseline and every other run, in the given orders.

    >>> pairs_against("bm25", ["bm25", "ql", "rm3"])
    [('bm25', 'ql'), ('bm25', 'rm3')]
    """
    baselines = [baselines] if isinstance(baselines, str) else list(baselines)
    return [(b, r) for b in baselines for r in runs if r != b]


def all_pairs(runs: Sequence[str]) -> list[tuple[str, str]]:
    """Every unordered pair once, earlier run as the baseline.

    >>> all_pairs(["a", "b", "c"])
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    """
    runs = list(runs)
    return [(runs[i], runs[j]) for i in range(len(runs)) for j in range(i + 1, len(runs))]


def compare(
    scores: Mapping[str, Mapping[str, np.ndarray]],
    pairs: Sequence[tuple[str, str]],
    measures: Sequence[str] | None = None,
    policy: StatsPolicy | None = None,
    **options,
) -> list[Comparison]:
    """Compare runs pairwise on per-topic scores: ``scores[run][measure]`` is a vector over the
    same topics in the same order for every run. ``pairs`` are (baseline, run); ``measures``
    defaults to the first baseline's measures in their order. ``options`` override fields of
    ``policy`` (e.g. ``test="randomization"``).

    Every comparison uses ``policy.seed`` itself, so any reported p-value is reproduced by calling
    the test alone with that seed, whatever else is in the report. p-values are corrected over the
    policy's family: each measure across all pairs (``per-measure``), or everything at once (``all``).
    Returns one record per (measure, pair), measures outer, pairs inner.
    """
    policy = with_overrides(policy, options)
    pairs = [tuple(p) for p in pairs]
    if not pairs:
        raise ValueError("pairs must name at least one (baseline, run) pair")
    for p in pairs:
        if len(p) != 2:
            raise ValueError(f"each pair must be (baseline, run) (got {p!r})")
        for name in p:
            if name not in scores:
                raise DataError(
                    "scores", f"run {name!r} has no scores; runs with scores: {', '.join(map(repr, scores))}"
                )
    if measures is None:
        measures = list(scores[pairs[0][0]])
    measures = list(measures)
    sizes = {np.size(v) for m in measures for b, r in pairs for v in (scores[b].get(m, ()), scores[r].get(m, ()))}
    n = min(sizes) if sizes else 0
    if n:  # 0: a run lacks the measure, reported below with its name
        check_test_for_n(policy.test, n)
        if (note := small_sample_note(n, policy.alpha)) is not None:
            warn(note)

    rows = []
    for measure in measures:
        for base, run in pairs:
            where_b, where_r = f"scores[{base!r}][{measure!r}]", f"scores[{run!r}][{measure!r}]"
            for name, where in ((base, where_b), (run, where_r)):
                if measure not in scores[name]:
                    raise DataError(
                        where,
                        f"run {name!r} has no scores for {measure!r}; it has: "
                        f"{', '.join(map(repr, scores[name])) or 'none'}",
                    )
            x = checks.vector(scores[base][measure], where_b)
            y = checks.vector(scores[run][measure], where_r)
            if x.size != y.size:
                raise DataError(
                    where_r,
                    f"{y.size} topics, but {where_b} has {x.size}; runs are paired "
                    "by topic, so every run needs a score for every topic",
                )
            lo, hi = bootstrap_ci(y, x, policy.ci_level, policy.bootstrap_samples, policy.seed)
            rows.append(
                dict(
                    measure=measure,
                    baseline=base,
                    run=run,
                    topics=int(x.size),
                    mean_baseline=float(x.mean()),
                    mean_run=float(y.mean()),
                    diff=float((y - x).mean()),
                    ci_low=lo,
                    ci_high=hi,
                    effect_size=cohens_d_paired(y, x),
                    p=pvalue(policy, y, x),
                    wins=int(np.count_nonzero(y > x)),
                    ties=int(np.count_nonzero(y == x)),
                    losses=int(np.count_nonzero(y < x)),
                )
            )

    groups: dict[object, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(r["measure"] if policy.family == "per-measure" else None, []).append(i)
    adjusted = [0.0] * len(rows)
    for idx in groups.values():
        for i, q in zip(idx, correct([rows[i]["p"] for i in idx], policy.correction)):
            adjusted[i] = float(q)
    return [Comparison(**r, p_corrected=q, reject=bool(q < policy.alpha)) for r, q in zip(rows, adjusted)]
