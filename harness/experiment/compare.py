"""The `compare:` block computed: tests between runs, sweeps, cross-validated tuning (the tuning
itself: :mod:`harness.experiment.tuning`), and on request the ANOVA and power tables.

Pure computation over the evaluations of an experiment (no I/O, no Java); the numbers come from
:mod:`harness.stats`, and rendering lives in :mod:`harness.report`. Runs are paired by topic: every
run must have been evaluated on the same topics (the default ``missing_topics: zero`` scores a
judged topic a run did not answer as 0, so all runs share the judged topics), and the vectors
handed to the tests follow one topic order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from harness import stats
from harness.config import CompareSpec
from harness.errors import DataError
from harness.metrics import Evaluation
from harness.specs.similarity import Similarity
from harness.specs.sweeps import sweeps
from harness.stats.align import align

__all__ = ["Sweep", "Tuning", "Comparisons", "aligned_scores", "compare_runs"]


@dataclass(frozen=True)
class Sweep:
    """The runs of one model with several settings, and which of them are not significantly
    worse than the best (``stats.not_worse_than_best``, per compared measure)."""

    model: str
    runs: tuple[str, ...]  # config order
    varying: tuple[str, ...]  # parameters whose value differs between runs
    not_worse: dict[str, tuple[str, ...]]  # measure -> runs


@dataclass(frozen=True)
class Tuning:
    """A sweep tuned by k-fold cross-validation over topics (``stats.cross_validate``)."""

    model: str
    measure: str
    folds: tuple[stats.Fold, ...]
    heldout_mean: float  # mean over all topics of the held-out scores
    best_fixed: str  # the best setting on all topics (chosen by peeking), for reference
    best_fixed_mean: float
    run: str = ""  # the name of the tuned run (harness.experiment.tuning), a run of the experiment


@dataclass(frozen=True)
class Comparisons:
    policy: stats.StatsPolicy
    measures: tuple[str, ...]
    baselines: tuple[str, ...]  # empty when all_pairs
    all_pairs: bool
    pairs: tuple[tuple[str, str], ...]
    topics: tuple[str, ...]  # the topic order of every per-topic vector
    rows: tuple[stats.Comparison, ...]  # measures outer, pairs inner (stats.compare's order)
    sweeps: tuple[Sweep, ...]
    tuning: tuple[Tuning, ...]
    dropped: tuple[str, ...] = ()  # topics left out by `compare.align: common`
    # when every pair is tested (all-pairs, or a many-system test): each measure's runs
    # indistinguishable from the best and its letters (stats.Grouping), in `measures`' order
    groups: tuple[stats.Grouping, ...] = ()
    anova: Mapping[str, stats.Anova] = field(default_factory=dict)  # measure -> table (`compare.anova`)
    power: tuple[stats.PowerRow, ...] = ()  # `compare.power`: each pair's, then the ANOVA design's

    def row(self, measure: str, baseline: str, run: str) -> stats.Comparison | None:
        return next((c for c in self.rows if (c.measure, c.baseline, c.run) == (measure, baseline, run)), None)


CONFIG_HINT = (
    "`compare.align: common` compares on the topics every run is scored on; "
    "`evaluation.missing_topics: zero` (the default) scores a judged topic a run did not answer as 0"
)


def aligned_scores(
    evaluations: Mapping[str, Evaluation], measures: Sequence[str], mode: str = "strict"
) -> tuple[list[str], dict[str, dict[str, np.ndarray]], tuple[str, ...]]:
    """(topics, scores[run][measure], dropped topics), paired by :func:`harness.stats.align.align`."""
    if not evaluations:
        raise DataError("evaluations", "no evaluated runs to compare")
    per_topic = {name: ev.per_topic for name, ev in evaluations.items()}
    a = align(per_topic, list(measures), mode, where="compare", hint=CONFIG_HINT)
    return list(a.topics), a.scores, a.dropped


def compare_runs(
    spec: CompareSpec,
    runs: Sequence[Similarity],
    evaluations: Mapping[str, Evaluation],
    tuned: Sequence = (),
    order: Sequence[str] | None = None,
) -> Comparisons:
    """Everything the `compare:` block asks for, on the evaluations of ``runs`` and of the
    cross-validated runs ``tuned`` (harness.experiment.tuning.TunedRun values, already tuned and
    evaluated), which are compared like any other run. ``order`` is the runs' order in tables
    (default: ``runs`` then ``tuned``)."""
    names = list(order) if order is not None else [str(r) for r in runs] + [t.name for t in tuned]
    measures = spec.measure_names  # as evaluations key their values
    topics, scores, dropped = aligned_scores({n: evaluations[n] for n in names}, measures, spec.align)
    pairs = spec.pairs(names)
    policy = spec.policy
    tables = (
        stats.compare_tables(scores, pairs, measures, policy, anova=spec.anova, power=spec.power)
        if pairs
        else stats.Tables(())
    )

    sweep_rows = []
    for model, group, varying in sweeps(runs):
        group_names = [str(r) for r in group]
        not_worse = {
            m: tuple(stats.not_worse_than_best({n: scores[n][m] for n in group_names}, policy)) for m in measures
        }
        sweep_rows.append(Sweep(model, tuple(group_names), tuple(varying), not_worse))
    tuning = []
    for t in tuned:
        m = t.spec.measure
        means = {n: float(scores[n][m].mean()) for n in t.settings}
        best = max(means, key=means.__getitem__)  # first of the tied maxima, as cross_validate
        tuning.append(Tuning(t.spec.family, m, t.cv.folds, t.cv.heldout_mean, best, means[best], t.name))
    return Comparisons(
        policy,
        measures,
        spec.baselines,
        spec.all_pairs,
        tuple(pairs),
        tuple(topics),
        tables.rows,
        tuple(sweep_rows),
        tuple(tuning),
        dropped,
        tables.groups,
        dict(tables.anova),
        tables.power,
    )
