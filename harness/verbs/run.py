"""The verbs that take a config and run it: run (index, search, evaluate, compare, report), index,
and search (a config's runs into its output folder). What comes before them, load (validate) and
plan_run (the dry run), is harness.verbs.plan's, named here too: each verb here takes what load
gives.

``harness run`` and ``harness.run`` both call :func:`run`, so both hold the output's lock for the
whole run, run the same checks and write the same report."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

from harness import publish
from harness.engine.index import IndexInfo, IndexOptions, ensure_index
from harness.engine.topics import read_topics
from harness.errors import DataError
from harness.events import Emit, ignore
from harness.experiment import execute, machine
from harness.experiment.executors import open_executor
from harness.experiment.explore import attach
from harness.experiment.names import with_names
from harness.experiment.plan import plan
from harness.experiment.result import ExperimentResult
from harness.policies import DEFAULT_IR_METADATA, DEFAULT_RUN_FORMAT, IR_METADATA, RUN_FORMATS, one_of
from harness.verbs.plan import (
    IN_MEMORY,
    PlanReport,
    check_topic_ids,
    load,
    parse_set,
    plan_run,
    scheduler_problem,
    validate,
)

__all__ = [
    "IN_MEMORY",
    "parse_set",
    "load",
    "validate",
    "PlanReport",
    "plan_run",
    "RunOutcome",
    "run",
    "IndexOutcome",
    "index",
    "SearchOutcome",
    "search",
    "search_options",
    "scheduler_problem",
]


# ------------------------------------------------------------------------------ run
@dataclass(frozen=True)
class RunOutcome:
    result: ExperimentResult
    output: Path  # the report folder
    summary_md: str  # summary.md as written


def _ir_metadata_choice(ir_metadata: str) -> str:
    try:
        return one_of("ir_metadata", ir_metadata, IR_METADATA)
    except ValueError as e:
        raise DataError("--ir-metadata", str(e)) from None


def run(cfg, *, on: Emit = ignore, ir_metadata: str = DEFAULT_IR_METADATA) -> RunOutcome:
    """Index (or reuse), search (or reuse the cached runs), evaluate, compare and write the
    report, holding the output's lock throughout: a second run of the same config waits, then
    reuses. Progress is reported through ``on`` (harness.events). ``ir_metadata`` (a key of
    policies.IR_METADATA): where each run's ir_metadata goes (harness.report.ir_metadata)."""
    ir_metadata = _ir_metadata_choice(ir_metadata)
    with publish.report_output(cfg, on=on):
        # read from the module: tests/test_verbs.py patches it to probe the output's lock
        with execute.session(cfg, on=on) as s:
            # runs by their names, then the explorer's documents and the engine's versions, while
            # the searched runs are still being written to the run cache
            result = attach(with_names(s.run()))
            s.written()
            out = publish.write_report(result, cfg.output, on=on, ir_metadata=ir_metadata)  # links the cached runs
        # the summary just written, read back under the lock: rendering it again would hash
        # every run file a second time for its provenance (0.1 s per 2M-line run)
        summary = (out / "summary.md").read_text(encoding="utf-8")
    return RunOutcome(result, out, summary)


# ------------------------------------------------------------------------------ index
@dataclass(frozen=True)
class IndexOutcome:
    info: IndexInfo
    seconds: float
    options: IndexOptions


def index(cfg, *, on: Emit = ignore) -> IndexOutcome:
    """Build the config's index, or reuse it when its fingerprint matches."""
    p = plan(cfg)
    if p.existing:
        raise DataError("collection", f"the config names an existing index ({p.index_path}) and no collection to index")
    assert p.corpus is not None  # only an existing index has none
    t = time.perf_counter()
    executor = open_executor(cfg.execution, on)
    try:
        info = ensure_index(p.corpus, p.options, p.index_path, threads=cfg.index_threads, on=on, build=executor.build)
    finally:
        executor.close()
    return IndexOutcome(info, time.perf_counter() - t, p.options)


# ------------------------------------------------------------------------------ search
@dataclass(frozen=True)
class SearchOutcome:
    runs: tuple[tuple[str, bool, Path], ...]  # (run, reused, file written)


def search(
    cfg, *, on: Emit = ignore, run_format: str = DEFAULT_RUN_FORMAT, ir_metadata: str = DEFAULT_IR_METADATA
) -> SearchOutcome:
    """Index and search (no evaluation); each run is copied to ``OUTPUT/runs/<file>``, named as
    the report names it (:meth:`ExperimentResult.run_files`), or with ``run_format="msmarco"``
    written there in MS MARCO's layout as ``<name>.tsv`` (harness.formats.msmarco). The
    output folder keeps its other files: its marker lists each run before it is written, so the
    folder stays one the harness may replace. ``ir_metadata``: each run's ir_metadata beside it
    (``runs/<name>.ir-metadata.yml``), at the top of its TREC file, or nowhere, as ``run``
    writes it (an MS MARCO run has no place for comment lines: ``inline`` is refused with it)."""
    ir_metadata = search_options(run_format, ir_metadata)
    if cfg.qrels_path is not None:  # topics the config's qrels cannot judge: refused as `run` refuses them
        check_topic_ids(cfg, read_topics(cfg.topics_path, cfg.topics_format, cfg.topics_split))
    with publish.runs_output(cfg, on=on):
        # no qrels: the experiment then searches (or reuses) and evaluates nothing; its indexes
        # are held until the cached run files are copied
        with execute.session(replace(cfg, qrels_path=None, expect={}), on=on) as s:
            result = with_names(s.run())
            s.written()
            if IR_METADATA[ir_metadata].written:
                result = machine.gather(result)  # versions, machine, checkout: as the run verb's report has them
            return SearchOutcome(publish.write_runs(cfg, result, on, run_format, ir_metadata))


def search_options(run_format: str, ir_metadata: str) -> str:
    """``harness search``'s --run-format and --ir-metadata checked together; the ir_metadata choice."""
    try:
        one_of("run_format", run_format, RUN_FORMATS)
    except ValueError as e:
        raise DataError("--run-format", str(e)) from None
    ir_metadata = _ir_metadata_choice(ir_metadata)
    layout = RUN_FORMATS[run_format]
    if IR_METADATA[ir_metadata].inline and not layout.comments:
        raise DataError(
            "--ir-metadata",
            f"inline writes the ir_metadata into a TREC run's top lines; {layout.title} runs have no comment "
            "lines (their readers take every line as a result): write it beside the run (--ir-metadata yml)",
        )
    return ir_metadata
