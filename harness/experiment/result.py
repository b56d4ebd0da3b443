"""What an experiment computed: its runs, evaluations, checks and comparisons, as values the
report renders (:mod:`harness.report`) and the Python API turns into tables."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.policies import OKISH_FACTOR
from harness.specs.identity import RunSpec
from harness.specs.names import run_file_names

if TYPE_CHECKING:  # types only: the report imports this module and must not reach the engine
    from harness.config import Config
    from harness.engine.index import IndexInfo
    from harness.engine.latency import SearchTimes
    from harness.experiment.compare import Comparisons
    from harness.formats.qrels import Qrels
    from harness.formats.run import Run
    from harness.metrics import Evaluation

__all__ = [
    "RunResult",
    "Check",
    "OK",
    "OKISH",
    "FAIL",
    "ExperimentResult",
    "ExplorerData",
    "TopicView",
    "Hit",
    "RECALL_LEVELS",
]

# Recall levels of the interpolated precision-recall curves in reports (trec_eval's 11 points).
RECALL_LEVELS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class RunResult:
    spec: RunSpec  # what the run is: searched, tuned (harness.experiment.tuning), from a file or fused
    name: str  # its spec's text (str(spec)), or its name once named (harness.experiment.names)
    run: Run
    path: Path  # the cached run file
    # what this experiment spent on the run: reading it (from the cache or a file), fusing or
    # assembling it, or searching it (the driver's wall time; under Dask the workers' tasks summed)
    seconds: float
    reused: bool
    empty_topics: list[str]  # topics for which the run returned nothing
    index: Path | None = None  # the index it was searched on, when not the experiment's (exact lengths)
    # what the searcher measured when it searched the run (harness.engine.latency), a reused run's
    # from the cache; None: not searched (a file, a fusion, a cross-validated run), or cached
    # before the harness kept the times
    latency: SearchTimes | None = None


# What an `expect:` check found (Check.status): within the tolerance, within the wider OK-ish one
# (a warning: Anserini's regressions' "OKish"), or beyond both (a failure, exit 1)
OK, OKISH, FAIL = "OK", "OK-ish", "FAIL"


@dataclass(frozen=True)
class Check:
    run: str
    measure: str
    expected: float
    actual: float | None
    tolerance: float
    okish_tolerance: float | None = None  # None: policies.OKISH_FACTOR times the tolerance

    @property
    def okish_margin(self) -> float:
        """The largest |actual - expected| that is OK-ish."""
        return OKISH_FACTOR * self.tolerance if self.okish_tolerance is None else self.okish_tolerance

    @property
    def status(self) -> str:
        """OK, OK-ish or FAIL (a missing value fails)."""
        if self.actual is None:
            return FAIL
        delta = abs(self.actual - self.expected)
        return OK if delta <= self.tolerance else OKISH if delta <= self.okish_margin else FAIL

    @property
    def ok(self) -> bool:
        """Not a failure: OK or OK-ish."""
        return self.status != FAIL

    def __str__(self) -> str:
        actual = "missing" if self.actual is None else f"{self.actual:.6f}"
        delta = "" if self.actual is None else f" delta={self.actual - self.expected:+.6f}"
        return (
            f"[{self.status}] {self.run} {self.measure}: expected={self.expected} actual={actual}{delta} "
            f"(tolerance {self.tolerance:g}, OK-ish within {self.okish_margin:g})"
        )


# The topic explorer's data (harness.experiment.explore gathers it, harness.report.explorer encodes it)
@dataclass(frozen=True)
class Hit:
    rank: int
    doc: str
    score: float
    label: int | None  # the judgment, None: unjudged
    move: tuple[str, str] | None  # (css class, text) against the first shown run; None in the first column
    snippet: tuple[tuple[str, bool], ...] | None  # (text, highlighted) pieces; None: not in the index
    cut_before: bool = False  # the snippet starts inside the text
    cut_after: bool = False


@dataclass(frozen=True)
class TopicView:
    qid: str
    text: str
    judged: int
    relevant: int
    diff: float | None  # the largest difference among the shown runs (the order's key), None: no value
    terms: tuple[str, ...]  # the analyzed query terms, sorted
    values: dict[str, float]  # shown run -> the measure's value on this topic (absent: none)
    hits: dict[str, tuple[Hit, ...]]  # shown run -> its hits (empty: no results)
    diffs: dict[str, float] = field(default_factory=dict)  # each later shown run -> its value minus the first run's
    diff_run: str | None = None  # the run whose difference is ``diff``


@dataclass(frozen=True)
class ExplorerData:
    depth: int
    measure: str | None
    shown: tuple[str, ...]
    runs: int  # all runs of the experiment
    topics_total: int  # all topics; ``topics`` holds the shown ones, in the shown order
    by_difference: bool  # sorted by the largest difference among the shown runs (TopicView.diff)
    topics: tuple[TopicView, ...]
    # the qrels judge only relevant documents (no label <= 0, as Cranfield's): every other
    # document is "unjudged", and the page says why
    only_relevant_judged: bool = False


@dataclass(frozen=True)
class ExperimentResult:
    """What an experiment computed, a value: the files of its runs are written (or being
    written, inside the session that ran it: harness.experiment.execute.Session)."""

    config: Config
    index: IndexInfo
    topics: list[tuple[str, str]]
    runs: list[RunResult]
    evaluations: dict[str, Evaluation]  # by run name (empty without qrels)
    checks: list[Check]
    timings: dict[str, float] = field(default_factory=dict)
    comparisons: Comparisons | None = None  # when the config has `compare:`
    # run name -> mean interpolated precision at recall 0.0, 0.1, ..., 1.0 (IPrec@r, 11 points)
    pr_curves: dict[str, tuple[float, ...]] = field(default_factory=dict)
    # what a user should know before trusting the tables (harness.experiment.sanity, readers)
    warnings: list[str] = field(default_factory=list)
    # the judgments the runs were evaluated with (None without qrels), for the report's explorer
    qrels: Qrels | None = field(default=None, compare=False, repr=False)
    # what the report shows from Lucene, gathered before rendering (harness.experiment.explore.attach):
    # the topic explorer's data (None: not shown) and the versions of the engine
    explorer: ExplorerData | None = field(default=None, compare=False, repr=False)
    versions: dict | None = None
    # the machine and the harness's source (harness.experiment.machine.gather): {"machine", "source"}
    platform: dict | None = None

    def run_files(self) -> dict[str, str]:
        """Each run's file name in a report's ``runs/`` folder, by run name (its name once
        named): :func:`harness.specs.names.run_file_names` over every name of the config,
        so ``harness search`` and ``harness run`` name a run's file alike."""
        files = run_file_names([*self.config.names.values(), *(r.name for r in self.runs)])
        return {r.name: files[r.name] for r in self.runs}

    @property
    def failed_checks(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    @property
    def okish_checks(self) -> list[Check]:
        """The checks met only within the OK-ish tolerance (a warning each, not a failure)."""
        return [c for c in self.checks if c.status == OKISH]
