"""The execution of a plan: its stages run in order, by a session that owns what they leave behind.

An experiment's stages (:mod:`harness.experiment.stages`) read its inputs, build or reuse its
indexes, search its runs (or read them from the run cache), add the runs from files and the
fusions, evaluate (tuning the cross-validated runs), compare and check. Two things outlive a
stage: the searched runs still being written to the run cache (a thread of the
:class:`~harness.experiment.store.RunStore` writes each while the next is searched), and the
indexes held in use (:func:`harness.folders.in_use`) so that another config's rebuild at the
same path waits instead of swapping an index, and its run cache, away under this one.
A :class:`Session` owns both: on leaving it every file is written (the first error of writing
one raised) and the indexes are let go; on an error or an interruption, the writes not yet
begun are cancelled and the one under way is waited for. So the :class:`ExperimentResult` a
session returns is a value, and no caller settles anything by hand.

Everything here is phased and idempotent (see :mod:`harness.experiment.plan` for what is reused
and when). Rendering lives in ``harness.report``; this module only computes.
"""

from __future__ import annotations

import time
import warnings
from contextlib import ExitStack, closing, nullcontext
from dataclasses import replace

from harness.config import Config
from harness.engine.index import IndexInfo
from harness.engine.manifest import open_manifest
from harness.errors import EngineError, HarnessWarning, warn
from harness.events import Emit, RunsPlanned, ignore
from harness.experiment import stages
from harness.experiment.executors import Executor, open_executor
from harness.experiment.plan import plan
from harness.experiment.result import ExperimentResult
from harness.experiment.sources import add_source_runs
from harness.experiment.store import RunStore
from harness.folders import in_use

__all__ = ["Session", "session", "run_experiment"]


def run_experiment(cfg: Config, on: Emit = ignore, executor: Executor | None = None) -> ExperimentResult:
    """Run ``cfg`` in a :class:`Session` of its own: every run file is written and the indexes
    are let go before it returns. A verb that reads the cached run files while they are still
    being written (the report's, after gathering the explorer's documents) holds the session
    itself."""
    with session(cfg, on, executor) as s:
        return s.run()


def session(cfg: Config, on: Emit = ignore, executor: Executor | None = None) -> Session:
    """A :class:`Session` running ``cfg``, to be used as a context manager.

    ``executor``: one opened by the caller for several experiments (a study's collections: one
    Dask cluster for all), used and left open; by default one is opened for ``cfg.execution``
    and closed once the searches are done."""
    return Session(cfg, on, executor)


class Session:
    """One run of an experiment and what it holds until the ``with`` block ends: the run cache
    files being written (its run store's) and the indexes in use.

    ``with session(cfg, on) as s: result = s.run()`` runs the stages; the searched runs are
    written behind, so the caller may go on (gather the explorer's documents) while they are;
    :meth:`written` waits for them before their files are read (copied into a report). Leaving
    the block waits for the writes too (or, after an error or an interruption, cancels those not
    begun and waits for the one under way), then lets the indexes go."""

    def __init__(self, cfg: Config, on: Emit = ignore, executor: Executor | None = None):
        self.config = cfg
        self._on = on
        self._executor = executor
        self._held = ExitStack()
        self._store: RunStore | None = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, kind, error, trace) -> None:
        try:
            if self._store is not None:
                if kind is None:
                    self._store.settle()
                else:
                    self._store.abandon()  # nothing is left writing behind an error
        finally:
            self._held.close()

    def written(self) -> None:
        """Wait until every searched run's file is in the run cache; raise the first error of
        writing one (a full disk, a permission)."""
        if self._store is not None:
            self._store.settle()

    def run(self) -> ExperimentResult:
        """The experiment's result; every HarnessWarning raised on the way (readers, sanity
        checks) is kept in ``result.warnings`` and emitted again once the result is complete."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", HarnessWarning)
            result = self._stages()
        kept = []
        for w in caught:
            if issubclass(w.category, HarnessWarning):
                kept.append(str(w.message))
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        result = replace(result, warnings=[*result.warnings, *kept])
        for message in result.warnings:
            warn(message)
        return result

    def hold(self, info: IndexInfo) -> IndexInfo:
        """Hold ``info``'s index in use (harness.folders.in_use) while this run searches it and
        caches its runs beside it, until the session ends: another config's rebuild at the same
        path waits instead of swapping the index (and its run cache) away. Taken after the index
        lock was let go, so the index is checked to be the one just built or reused."""
        self._held.enter_context(in_use(info.path))
        manifest = open_manifest(info.path)
        if manifest is None or manifest.get("fingerprint") != info.fingerprint:
            raise EngineError(
                f"the index {info.path} was replaced by another harness process (a config with other index options "
                "and the same index.path) as this one was about to search it; give each config its own index.path, "
                "or run them one after the other"
            )
        return info

    def _stages(self) -> ExperimentResult:
        cfg, on = self.config, self._on
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        p = plan(cfg)
        inputs = stages.read_inputs(cfg)
        timings["read_inputs"] = time.perf_counter() - t0
        store = self._store = RunStore(p, inputs.topics)

        on(RunsPlanned(stages.planned_runs(cfg)))
        # connects (or starts a cluster) only when needed; closed before the fusions (unless the
        # caller gave one: it closes it)
        with (
            nullcontext(self._executor)
            if self._executor is not None
            else closing(open_executor(cfg.execution, on)) as executor
        ):
            t = time.perf_counter()
            indexes = stages.open_indexes(p, executor, self.hold, on)
            timings["index"] = time.perf_counter() - t
            t = time.perf_counter()
            runs = stages.search(p, indexes, inputs.topics, executor, store, on)
            timings["search"] = time.perf_counter() - t
        if cfg.sources:  # runs from files and fusions, in config order among the searched ones
            t = time.perf_counter()
            runs = add_source_runs(cfg, runs, inputs.files, inputs.topics, store, on)
            timings["files_and_fusions"] = time.perf_counter() - t

        evaluated = stages.Evaluated(runs, {}, {}, [])
        comparisons = None
        checks = []
        if inputs.qrels is not None:
            t = time.perf_counter()
            evaluated = stages.evaluate_runs(cfg, runs, inputs.qrels, inputs.topics, store, on)
            timings["evaluate"] = time.perf_counter() - t
            if cfg.compare is not None:
                t = time.perf_counter()
                comparisons = stages.compare(cfg, evaluated, on)
                timings["compare"] = time.perf_counter() - t
            checks = stages.expectations(cfg, evaluated.evaluations)
        timings["total"] = time.perf_counter() - t0
        if not evaluated.runs:
            raise EngineError("the config produced no runs")
        index = indexes[p.index_path]
        if inputs.qrels is not None:
            stages.sanity_notes(cfg, index, inputs.topics, inputs.qrels, evaluated.runs, evaluated.evaluations)
        return ExperimentResult(
            cfg,
            index,
            inputs.topics,
            evaluated.runs,
            evaluated.evaluations,
            checks,
            timings,
            comparisons,
            evaluated.curves,
            qrels=inputs.qrels,
        )
