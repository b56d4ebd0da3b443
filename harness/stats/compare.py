"""Comparing runs under a declared policy: which test, which correction, which family.

A paired test (t, Wilcoxon, randomization, bootstrap) takes one pair's per-topic vectors; a
many-system test (policies.MANY_SYSTEM_TESTS: the classic and the randomised Tukey HSD) takes the
topics x runs matrix of every compared run at once and gives every pair's family-wise p-value
(:func:`all_pairs_tests`), so it has no per-pair form and no correction applies to it.
:func:`compare_tables` adds, on request, what a comparison of many runs reads beside the pairs:
which runs are indistinguishable from the best, the two-way ANOVA of each measure, the power rows.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from harness.errors import DataError, warn
from harness.policies import MANY_SYSTEM_TESTS, TESTS, PowerPolicy, StatsPolicy, default_correction
from harness.stats import checks
from harness.stats.anova import Anova, two_way_anova
from harness.stats.corrections import correct
from harness.stats.grouping import Grouping, PairsP, grouping_of
from harness.stats.paired import cohens_d_paired, paired_t, wilcoxon
from harness.stats.power import PowerRow, anova_power_row, power_rows
from harness.stats.resampling import bootstrap_ci, bootstrap_test, randomization
from harness.stats.small_n import check_test_for_n, small_sample_note
from harness.stats.tukey import RandomizedTukeyHSD, TukeyHSD, randomized_tukey_hsd, tukey_hsd

AllPairsTest = TukeyHSD | RandomizedTukeyHSD

# Each many-system test (policies.MANY_SYSTEM_TESTS) on a topics x runs matrix and its runs' names.
_MANY: dict[str, Callable[[np.ndarray, Sequence[str], StatsPolicy], AllPairsTest]] = {
    "tukey": lambda x, runs, policy: tukey_hsd(x, runs),
    "randomized-tukey": lambda x, runs, policy: randomized_tukey_hsd(x, runs, policy.permutations, policy.seed),
}


def paired_test(
    a,
    b,
    test: str = StatsPolicy.test,
    *,
    permutations: int = StatsPolicy.permutations,
    samples: int = StatsPolicy.bootstrap_samples,
    seed: int = StatsPolicy.seed,
) -> float:
    """The p-value of the named paired test (a key of TESTS); ``permutations``/``samples``/``seed``
    are used by the randomization and bootstrap tests only. A many-system test has no p-value of
    one pair alone: :func:`compare` or :func:`all_pairs_tests` run it on every run at once."""
    test = checks.one_of("test", test, TESTS)
    if test in MANY_SYSTEM_TESTS:
        raise ValueError(
            f"test {test!r} tests every pair of runs at once, so one pair has no p-value of its own; "
            "give every run's scores to harness.stats.compare (or tukey_hsd, randomized_tukey_hsd)"
        )
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


def with_overrides(policy: StatsPolicy | None, overrides: Mapping[str, Any]) -> StatsPolicy:
    """``policy`` (default StatsPolicy()) with fields replaced; a test given without a correction
    takes its default correction (policies.default_correction: none with a many-system test)."""
    policy = StatsPolicy() if policy is None else policy
    known = {f.name for f in fields(StatsPolicy)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise TypeError(f"unknown statistics option(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
    if "test" in overrides and "correction" not in overrides and overrides["test"] in MANY_SYSTEM_TESTS:
        overrides = {**overrides, "correction": default_correction(str(overrides["test"]))}
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


def family_runs(scores: Mapping[str, object], pairs: Sequence[tuple[str, str]]) -> list[str]:
    """The runs a many-system test takes together: those the pairs name, in ``scores``' order (the
    randomised test's draws follow the columns' order, so the same order gives the same p-values)."""
    named = {name for pair in pairs for name in pair}
    return [r for r in scores if r in named]


def all_pairs_tests(
    scores: Mapping[str, Mapping[str, np.ndarray]],
    pairs: Sequence[tuple[str, str]],
    measures: Sequence[str],
    policy: StatsPolicy,
) -> dict[str, AllPairsTest]:
    """The policy's many-system test of each measure over :func:`family_runs`: every pair's
    family-wise p-value from one topics x runs matrix."""
    if policy.test not in MANY_SYSTEM_TESTS:
        raise ValueError(f"test {policy.test!r} is a paired test; many-system tests: {', '.join(MANY_SYSTEM_TESTS)}")
    runs = family_runs(scores, pairs)
    out = {}
    for m in measures:
        columns = [checks.vector(scores[r][m], f"scores[{r!r}][{m!r}]") for r in runs]
        if len({c.size for c in columns}) > 1:
            raise DataError("scores", f"{m}: runs are paired by topic, so every run needs a score for every topic")
        out[m] = _MANY[policy.test](np.column_stack(columns), runs, policy)
    return out


def compare(
    scores: Mapping[str, Mapping[str, np.ndarray]],
    pairs: Sequence[tuple[str, str]],
    measures: Sequence[str] | None = None,
    policy: StatsPolicy | None = None,
    *,
    tests: Mapping[str, AllPairsTest] | None = None,
    **options,
) -> list[Comparison]:
    """Compare runs pairwise on per-topic scores: ``scores[run][measure]`` is a vector over the
    same topics in the same order for every run. ``pairs`` are (baseline, run); ``measures``
    defaults to the first baseline's measures in their order. ``options`` override fields of
    ``policy`` (e.g. ``test="randomization"``).

    Every comparison uses ``policy.seed`` itself, so any reported p-value is reproduced by calling
    the test alone with that seed, whatever else is in the report. p-values are corrected over the
    policy's family: each measure across all pairs (``per-measure``), or everything at once (``all``).
    With a many-system test, each pair's p is the family-wise p of the test over every run the
    pairs name (:func:`all_pairs_tests`; ``tests``: those results, already computed), and
    ``p_corrected`` repeats it.
    Returns one record per (measure, pair), measures outer, pairs inner.
    """
    policy = with_overrides(policy, options)
    pairs = [(*p,) for p in pairs]  # lists too (JSON), each made a tuple
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

    many = policy.test in MANY_SYSTEM_TESTS
    rows: list[dict[str, Any]] = []  # Comparison's fields but p_corrected and reject
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
                    p=math.nan if many else pvalue(policy, y, x),
                    wins=int(np.count_nonzero(y > x)),
                    ties=int(np.count_nonzero(y == x)),
                    losses=int(np.count_nonzero(y < x)),
                )
            )

    if many:  # every pair's p from one test of all the runs, per measure; family-wise already
        if tests is None:
            tests = all_pairs_tests(scores, pairs, measures, policy)
        tested = {m: ({s: i for i, s in enumerate(tests[m].systems)}, tests[m].p_matrix()) for m in measures}
        for r in rows:
            index, p_matrix = tested[r["measure"]]
            r["p"] = float(p_matrix[index[r["baseline"]], index[r["run"]]])
        return [Comparison(**r, p_corrected=r["p"], reject=bool(r["p"] < policy.alpha)) for r in rows]
    groups: dict[object, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(r["measure"] if policy.family == "per-measure" else None, []).append(i)
    adjusted = [0.0] * len(rows)
    for idx in groups.values():
        for i, q in zip(idx, correct([rows[i]["p"] for i in idx], policy.correction)):
            adjusted[i] = float(q)
    return [Comparison(**r, p_corrected=q, reject=bool(q < policy.alpha)) for r, q in zip(rows, adjusted)]


@dataclass(frozen=True)
class Tables:
    """A comparison of runs on one collection: the pairs' rows (:func:`compare`), and what a
    comparison of many runs reads beside them: each measure's :class:`~harness.stats.grouping.Grouping`
    (when every pair of the runs is tested: a many-system test, or every pair given), its two-way
    ANOVA table (``anova``) and the power rows (``power``: each pair's, then with the ANOVA the
    design's over every run; measures outer)."""

    rows: tuple[Comparison, ...]
    groups: tuple[Grouping, ...] = ()
    anova: Mapping[str, Anova] = field(default_factory=dict)
    power: tuple[PowerRow, ...] = ()


def compare_tables(
    scores: Mapping[str, Mapping[str, np.ndarray]],
    pairs: Sequence[tuple[str, str]],
    measures: Sequence[str],
    policy: StatsPolicy,
    *,
    anova: bool = False,
    power: PowerPolicy | None = None,
) -> Tables:
    """:func:`compare` and, over the runs the pairs name (:func:`family_runs`, in ``scores``'
    order), the groupings, the ANOVA tables (``anova``) and the power rows (``power``). A
    many-system test runs once per measure for all of them."""
    pairs = [(*p,) for p in pairs]  # lists too (JSON), each made a tuple
    measures = list(measures)
    many = policy.test in MANY_SYSTEM_TESTS
    tests = all_pairs_tests(scores, pairs, measures, policy) if many and pairs else None
    rows = compare(scores, pairs, measures, policy, tests=tests)
    runs = family_runs(scores, pairs)
    groups = []
    if tests is not None:
        groups = [grouping_of(m, tests[m], policy.alpha) for m in measures]
    elif {frozenset(p) for p in pairs} >= {frozenset(p) for p in itertools.combinations(runs, 2)}:
        where = {s: i for i, s in enumerate(runs)}
        for m in measures:
            p = np.ones((len(runs), len(runs)))
            for r in rows:
                if r.measure == m:
                    i, j = where[r.baseline], where[r.run]
                    p[i, j] = p[j, i] = r.p_corrected
            means = tuple(float(np.mean(scores[s][m])) for s in runs)
            groups.append(grouping_of(m, PairsP(tuple(runs), means, p), policy.alpha))
    tables = {}
    if anova:
        tables = {m: two_way_anova(np.column_stack([scores[r][m] for r in runs]), runs) for m in measures}
    power_out: list[PowerRow] = []
    if power is not None:
        settings = dict(alpha=policy.alpha, power=power.power, difference=power.difference)
        for m in measures:
            diffs = [np.asarray(scores[r][m], dtype=np.float64) - np.asarray(scores[b][m]) for b, r in pairs]
            power_out += power_rows(m, pairs, diffs, **settings)
            if m in tables:
                try:
                    power_out.append(anova_power_row(m, tables[m], **settings))
                except ValueError as e:  # no variation within any run: no design to compute
                    raise DataError("compare.power", f"{m}: the ANOVA's topic set size: {e}") from None
    return Tables(tuple(rows), tuple(groups), tables, tuple(power_out))
