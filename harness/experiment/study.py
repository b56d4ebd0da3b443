"""What a study computed: each collection's outcome (its ExperimentResult, or the failure that
stopped it) and the tables across collections, as values the report renders
(:mod:`harness.report.study`) and the Python API turns into DataFrames.

A table across collections is a :class:`StudyTable`: named columns and rows of plain values, read
the same way by every format (summary.md, report.html, report.tex, NAME.csv, the API). Each is
made by one function of :data:`TABLES` from the study's outcomes; one more table is one more
function there (and, where a table needs a picture of its own, a renderer).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from harness.experiment.result import OKISH, Check, ExperimentResult
from harness.policies import STUDY_COLUMNS as TABLE_COLUMNS

if TYPE_CHECKING:  # types only: the report imports this module and must not reach the engine
    from harness.config import Config, Study

__all__ = ["Failure", "CollectionOutcome", "StudyTable", "StudyResult", "study_result", "collections_table", "TABLES"]


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
    """The runs by label, in the config's order: the same runs (and labels) in every collection."""
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
            mean = None if None in values else math.fsum(values) / len(values)
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


# The tables across collections, in the order the report shows them: each a function of the
# study's outcomes, None when it has nothing to show.
TABLES: tuple[Callable[[StudyResult], StudyTable | None], ...] = (collections_table,)


def study_result(study: Study, outcomes: list[CollectionOutcome]) -> StudyResult:
    """The study's result: its collections' outcomes and every table of :data:`TABLES`."""
    result = StudyResult(study, outcomes)
    result.tables = tuple(t for make in TABLES if (t := make(result)) is not None)
    # each collection's warnings (in its own report too), named by it
    result.warnings = [f"{name}: {w}" for name, r in result.results.items() for w in r.warnings]
    return result
