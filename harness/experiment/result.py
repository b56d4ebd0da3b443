"""What an experiment computed: its runs, evaluations, checks and comparisons, as values the
report renders (:mod:`harness.report`) and the Python API turns into tables."""

from __future__ import annotations

from concurrent.futures import wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.policies import OKISH_FACTOR
from harness.specs.identity import RunSpec
from harness.specs.labels import run_file_names

if TYPE_CHECKING:  # types only: the report imports this module and must not reach the engine
    from harness.config import Config
    from harness.engine.index import IndexInfo
    from harness.engine.latency import SearchTimes
    from harness.experiment.compare import Comparisons
    from harness.formats.run import Run

__all__ = ["RunResult", "Check", "OK", "OKISH", "FAIL", "ExperimentResult", "RECALL_LEVELS"]

# Recall levels of the interpolated precision-recall curves in reports (trec_eval's 11 points).
RECALL_LEVELS = tuple(i / 10 for i in range(11))


@dataclass
class RunResult:
    spec: RunSpec  # what the run is: searched, tuned (harness.experiment.tuning), from a file or fused
    name: str  # its canonical text (str(spec)), or its label once relabelled (harness.experiment.labels)
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


@dataclass
class ExperimentResult:
    config: Config
    index: IndexInfo
    topics: list[tuple[str, str]]
    runs: list[RunResult]
    evaluations: dict  # run name -> harness.metrics.Evaluation (empty without qrels)
    checks: list[Check]
    timings: dict[str, float] = field(default_factory=dict)
    comparisons: Comparisons | None = None  # when the config has `compare:`
    # run name -> mean interpolated precision at recall 0.0, 0.1, ..., 1.0 (IPrec@r, 11 points)
    pr_curves: dict[str, tuple[float, ...]] = field(default_factory=dict)
    # what a user should know before trusting the tables (harness.experiment.sanity, readers)
    warnings: list[str] = field(default_factory=list)
    # the judgments the runs were evaluated with (None without qrels), for the report's explorer
    qrels: object = field(default=None, compare=False, repr=False)
    # what the report shows from Lucene, gathered before rendering (harness.experiment.explore.attach):
    # the topic explorer's data (None: not shown) and the versions of the engine
    explorer: object = field(default=None, compare=False, repr=False)
    versions: dict | None = None
    # the machine and the harness's source (harness.experiment.machine.gather): {"machine", "source"}
    platform: dict | None = None
    # the run cache files still being written (harness.experiment.execute); see settle()
    writes: tuple = field(default=(), compare=False, repr=False)
    # lets go of the indexes held in use (harness.folders.in_use) while the run cache beside them
    # is written and read: see release_indexes()
    release: object = field(default=None, compare=False, repr=False)

    def release_indexes(self) -> None:
        """Let another config's rebuild replace the indexes (and their run caches) this result
        was searched on: called by run_experiment when it settles, or else by its caller once it
        has copied the cached run files it needs (and by abandon). Idempotent."""
        release, self.release = self.release, None
        if release is not None:
            release()

    def settle(self) -> ExperimentResult:
        """Wait until every searched run's cache file is written; raise the first error of
        writing one (a full disk, a permission). The same result, for chaining.

        After an error the writes not yet begun are cancelled and the one under way is waited
        for, so nothing is still writing into the cache once the error reaches the caller."""
        pending, self.writes = self.writes, ()
        for i, f in enumerate(pending):
            try:
                f.result()
            except BaseException:
                _stop(pending[i + 1 :])
                raise
        return self

    def abandon(self) -> None:
        """On the way out of an error or an interruption: cancel the cache writes not yet begun
        and wait for the one under way (each is atomic: a run file is whole or absent)."""
        pending, self.writes = self.writes, ()
        try:
            _stop(pending)
        finally:
            self.release_indexes()

    def run_files(self) -> dict[str, str]:
        """Each run's file name in a report's ``runs/`` folder, by run name (its label once
        relabelled): :func:`harness.specs.labels.run_file_names` over every label of the config,
        so ``harness search`` and ``harness run`` name a run's file alike."""
        files = run_file_names([*self.config.labels.values(), *(r.name for r in self.runs)])
        return {r.name: files[r.name] for r in self.runs}

    @property
    def failed_checks(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    @property
    def okish_checks(self) -> list[Check]:
        """The checks met only within the OK-ish tolerance (a warning each, not a failure)."""
        return [c for c in self.checks if c.status == OKISH]


def _stop(writes) -> None:
    for f in writes:
        f.cancel()
    wait(writes)
