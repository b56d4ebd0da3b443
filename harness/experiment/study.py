"""What a study computed: each collection's outcome (its ExperimentResult, or the failure that
stopped it) and the tables across collections, as values the report renders
(:mod:`harness.report.study`) and the Python API turns into DataFrames.

A table across collections is a :class:`StudyTable`: named columns and rows of plain values, read
the same way by every format (summary.md, report.html, report.tex, NAME.csv, the API). Each is
made by one function of :data:`TABLES` from the study's outcomes; one more table is one more
function there (and, where a table needs a picture of its own, a renderer). The tables:
:func:`collections_table` (each run's means, collections.csv) and :func:`meta_table` (each
comparison's meta-analysis across the collections, meta_analysis.csv).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from harness import stats
from harness.errors import warn
from harness.experiment.result import OKISH, Check, ExperimentResult
from harness.policies import STUDY_COLUMNS as TABLE_COLUMNS

if TYPE_CHECKING:  # types only: the report imports this module and must not reach the engine
    from harness.config import Config, Study

__all__ = [
    "Failure",
    "CollectionOutcome",
    "StudyTable",
    "StudyResult",
    "study_result",
    "collections_table",
    "meta_table",
    "META_TABLE",
    "META_COLUMNS",
    "TABLES",
]

# meta_analysis.csv: its name, and its columns (docs/experiments.md, *Meta-analysis in a study*)
META_TABLE = "meta_analysis"
META_COLUMNS = (
    "measure",
    "baseline",
    "run",
    "collection",
    "effect",
    "variance",
    "ci_low",
    "ci_high",
    "Q",
    "I2",
    "tau2",
)


@dataclass(frozen=True)
class Failure:
    """Why a collection of a study has no results: the error's message and exit code (2: its
    data, 3: the environment), as `harness run` of that collection alone would end."""

    message: str
    exit_code: int


@dataclass
class CollectionOutcome:
    name: str
    config: Config
    result: ExperimentResult | None = None  # None: failed
    failure: Failure | None = None

    def value(self, run: str, measure: str) -> float | None:
        """The run's mean of the measure on this collection (its summary.csv), None when it has
        none (the collection failed, has no qrels, or no such run)."""
        if self.result is None or run not in self.result.evaluations:
            return None
        return self.result.evaluations[run].means.get(measure)


@dataclass(frozen=True)
class StudyTable:
    """A table across collections, as NAME.csv holds it: ``columns`` and ``rows`` of plain values
    (text, numbers, None for an empty cell). The documents show it as one table per value of
    ``split_by`` (that column left out), numbers to 4 decimals, with ``title`` and ``note``."""

    name: str  # the file (NAME.csv) and the API's key
    title: str
    note: str  # what the table shows and how its numbers are made, said under its title
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]
    split_by: str | None = None
    # a column's numbers written otherwise than to 4 decimals (a format spec: ".4g" for variances)
    formats: Mapping[str, str] = field(default_factory=dict)
    # what a reader must know of the rows left out (each becomes a warning of the study)
    warnings: tuple[str, ...] = ()
    # what the documents say in its place when it has no rows (its CSV has its columns alone)
    empty: str = ""

    def groups(self) -> list[tuple[str | None, tuple[str, ...], list[tuple]]]:
        """(value of ``split_by``, the other columns, their rows) per group, in row order."""
        if self.split_by is None:
            return [(None, self.columns, list(self.rows))]
        i = self.columns.index(self.split_by)
        rest = self.columns[:i] + self.columns[i + 1 :]
        out: dict = {}
        for row in self.rows:
            out.setdefault(row[i], []).append(row[:i] + row[i + 1 :])
        return [(key, rest, rows) for key, rows in out.items()]


@dataclass
class StudyResult:
    study: Study
    collections: list[CollectionOutcome]
    tables: tuple[StudyTable, ...] = ()
    warnings: list[str] = field(default_factory=list)  # each collection's, "NAME: ..."

    @property
    def failures(self) -> dict[str, Failure]:
        return {o.name: o.failure for o in self.collections if o.failure is not None}

    @property
    def results(self) -> dict[str, ExperimentResult]:
        return {o.name: o.result for o in self.collections if o.result is not None}

    @property
    def checks(self) -> list[tuple[str, Check]]:
        """Every collection's `expect:` checks, by collection."""
        return [(name, c) for name, r in self.results.items() for c in r.checks]

    @property
    def failed_checks(self) -> list[tuple[str, Check]]:
        return [(name, c) for name, c in self.checks if not c.ok]

    @property
    def okish_checks(self) -> list[tuple[str, Check]]:
        return [(name, c) for name, c in self.checks if c.status == OKISH]

    def table(self, name: str) -> StudyTable | None:
        return next((t for t in self.tables if t.name == name), None)


def _runs(result: StudyResult) -> list[str]:
    """The runs by name, in the config's order: the same runs (and names) in every collection."""
    return list(dict.fromkeys(r.name for res in result.results.values() for r in res.runs))


def collections_table(result: StudyResult) -> StudyTable | None:
    """Runs x collections for each measure, and their mean over the collections: what BEIR's and
    Pyserini's tables show. None when no collection evaluates a measure."""
    measures = result.study.measure_names
    if not measures:
        return None
    names = [o.name for o in result.collections]
    rows = []
    for m in measures:
        for run in _runs(result):
            values = [o.value(run, m) for o in result.collections]
            # every collection counts once, whatever its number of topics; math.fsum: the mean of
            # these numbers correctly rounded, whatever their order
            mean = None if None in values else math.fsum(v for v in values if v is not None) / len(values)
            rows.append((m, run, *values, mean))
    return StudyTable(
        "collections",
        "Means across collections",
        "Each cell is the run's mean of the measure over that collection's topics (its own summary.csv); the "
        "last column, mean, is the unweighted mean of the per-collection means (each collection counts once, "
        "whatever its number of topics), as BEIR's and Pyserini's tables average them. A cell is empty where "
        "the collection has no value (it failed, or has no qrels), and the mean then too.",
        (TABLE_COLUMNS[0], TABLE_COLUMNS[1], *names, TABLE_COLUMNS[2]),
        tuple(rows),
        split_by=TABLE_COLUMNS[0],
    )


def meta_table(result: StudyResult) -> StudyTable | None:
    """Each compared pair's meta-analysis across the collections (``compare.meta``,
    harness.stats.meta), for each compared measure: one row per collection (its effect of run −
    baseline, its variance and interval), then the pooled rows, ``fixed`` and ``random``, with Q,
    I2 and tau2. A collection's effect is of the per-topic scores its own comparison paired (its
    ``Comparisons.topics``: every judged topic, or under ``compare.align: common`` those every run
    is scored on). A collection that failed is left out; so is one whose differences have no
    spread (or are fewer than two), whose variance is 0 and weight infinite, with a warning; a
    pair left with fewer than two collections has no rows, with a warning. None without
    ``compare.meta`` or with fewer than two compared collections."""
    policy = result.study.meta
    compared = {n: r for n, r in result.results.items() if r.comparisons is not None and r.comparisons.pairs}
    if policy is None or len(compared) < 2:
        return None
    first = next(iter(compared.values())).comparisons
    assert first is not None  # compared: the collections with comparisons
    level = first.policy.ci_level

    def paired(r: ExperimentResult, run: str, m: str) -> list[float]:
        # on the topics its comparison paired, in its order (compare.align's: all, or the common ones)
        assert r.comparisons is not None  # one of the compared collections
        return [r.evaluations[run].per_topic[m][t] for t in r.comparisons.topics]

    rows: list[tuple] = []
    warnings: list[str] = []
    for m in first.measures:
        for baseline, run in first.pairs:
            what = f"meta-analysis of {m}, {run} − {baseline}"
            effects, names = [], []
            left: dict[str, list[str]] = {}  # why -> the collections left out for it
            for name, r in compared.items():
                x, base = paired(r, run, m), paired(r, baseline, m)
                why = stats.no_effect(x, base)
                if why is None:
                    effects.append(stats.paired_effect(x, base, policy.effect))
                    names.append(name)
                else:
                    left.setdefault(why, []).append(name)
            out = "; ".join(f"{', '.join(ns)} left out ({why})" for why, ns in left.items())
            if len(names) < 2:
                has = f"only {names[0]} has an effect" if names else "no collection has an effect"
                warnings.append(f"{what}: no rows, as {has} and a meta-analysis combines two or more; {out}")
                continue
            if left:
                warnings.append(f"{what}: {out}")
            a = stats.combine([e for e, _ in effects], [v for _, v in effects], names, policy.method, level)
            rows += [
                (m, baseline, run, c.collection, c.effect, c.variance, c.ci_low, c.ci_high, None, None, None)
                for c in a.collections
            ]
            rows += [
                (m, baseline, run, p.model, p.effect, p.variance, p.ci_low, p.ci_high, a.Q, a.I2, a.tau2)
                for p in (a.fixed, a.random)
            ]
    if not rows and not warnings:
        return None
    # plain ASCII: the note is also report.tex's caption
    effect = policy.meta_effect.note
    return StudyTable(
        META_TABLE,
        "Meta-analysis across collections",
        f"For each compared pair and measure, each collection's effect of run - baseline over its n topics "
        f"(d = run - baseline per topic, paired as its own comparison pairs them): {effect}, and its "
        f"{level * 100:g}% interval (effect +/- z sqrt(variance)). The rows fixed and random combine the "
        "collections by inverse-variance weights: fixed assumes one true difference; random lets each "
        "collection's true difference vary around the estimate with variance tau2, estimated by "
        f"{policy.method_name}. Q is Cochran's heterogeneity statistic on k - 1 degrees of freedom (k "
        "collections), I2 the share of the variation between collections beyond chance. A collection that "
        "failed, or whose differences are all equal (variance 0), is left out of a pair, with a warning.",
        META_COLUMNS,
        tuple(rows),
        split_by=META_COLUMNS[0],
        formats={"variance": ".4g", "tau2": ".4g"},
        warnings=tuple(warnings),
        empty="No compared pair has an effect on two collections or more: the warnings say why.",
    )


# The tables across collections, in the order the report shows them: each a function of the
# study's outcomes, None when it has nothing to show.
TABLES: tuple[Callable[[StudyResult], StudyTable | None], ...] = (collections_table, meta_table)


def study_result(study: Study, outcomes: list[CollectionOutcome]) -> StudyResult:
    """The study's result: its collections' outcomes and every table of :data:`TABLES`."""
    result = StudyResult(study, outcomes)
    result.tables = tuple(t for make in TABLES if (t := make(result)) is not None)
    # each collection's warnings (in its own report too), named by it; then the tables', said here
    result.warnings = [f"{name}: {w}" for name, r in result.results.items() for w in r.warnings]
    for t in result.tables:
        for w in t.warnings:
            warn(w)
            result.warnings.append(w)
    return result
