"""The verbs of a study (a config of several collections, harness.config.study): run, index and
search, each collection through the path a config of it alone takes (harness.verbs.run,
harness.experiment.execute.run_experiment), in one process: one JVM, one executor (one Dask
cluster) for all, every index built once and reused through the index cache. A study's validate
and plan (the dry run) are harness.verbs.plan's, beside a config's.

The output is one folder the study owns (its marker, harness.folders): each collection's report
in ``collections/NAME/``, exactly as a config of that collection alone writes it, and the tables
across collections beside them (harness.report.study), published in one atomic step. A
collection that fails while it runs (a bad line met while indexing, a file gone since validation)
is reported by name, in the study's report too, and the others go on; the command line then exits
with that failure's code (:class:`harness.errors.StudyError`)."""

from __future__ import annotations

import errno
import time
from contextlib import ExitStack, closing
from dataclasses import dataclass, replace
from pathlib import Path

from harness.config import Study, is_study
from harness.config.paths import write_target_problems
from harness.engine.index import ensure_index
from harness.errors import DataError, HarnessError
from harness.events import CollectionFailed, CollectionStart, Emit, ignore
from harness.experiment import execute, machine
from harness.experiment.executors import Executor, open_executor
from harness.experiment.explore import attach
from harness.experiment.names import with_names
from harness.experiment.plan import plan
from harness.experiment.study import META_COLUMNS, META_TABLE, CollectionOutcome, Failure, StudyResult, study_result
from harness.folders import check_writable, locked
from harness.policies import DEFAULT_IR_METADATA, DEFAULT_RUN_FORMAT, IR_METADATA, one_of
from harness.publish import publish, runs_output, write_files, write_runs
from harness.report import study as study_report
from harness.verbs import run as single
from harness.verbs.plan import validate

__all__ = [
    "Failure",
    "META_TABLE",
    "META_COLUMNS",
    "is_study",
    "StudyOutcome",
    "run",
    "index",
    "search",
]

# the errors of a file that is gone or was never a file: that collection's data, exit 2
_GONE = (errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.ELOOP)


def _failure(e: BaseException) -> Failure | None:
    """What stops one collection and not the study: a HarnessError (its data, its index, its
    Java), or a file that is gone; None for anything else (a full disk, an interrupt), which
    stops the study."""
    if isinstance(e, HarnessError):
        return Failure(str(e), e.exit_code)
    if isinstance(e, OSError) and e.errno in _GONE:
        return Failure(f"{e.strerror}: {e.filename}" if e.filename else str(e), 2)
    return None


# ------------------------------------------------------------------------------ run
@dataclass(frozen=True)
class StudyOutcome:
    result: StudyResult
    output: Path  # the study's folder
    summary_md: str  # its summary.md as written


def run(study: Study, *, on: Emit = ignore, ir_metadata: str = DEFAULT_IR_METADATA) -> StudyOutcome:
    """Run every collection (index or reuse, search or reuse, evaluate, compare) and write the
    study's folder, holding its lock throughout: each collection's report as `harness run` of it
    alone writes it, in ``collections/NAME/``, and the tables across collections."""
    try:
        ir_metadata = one_of("ir_metadata", ir_metadata, IR_METADATA)
    except ValueError as e:
        raise DataError("--ir-metadata", str(e)) from None
    with locked(study.output, on=on):
        check_writable(study.output.parent, tree=False)  # before anything is searched
        check_writable(study.output)
        _check_output(study)
        outcomes: list[CollectionOutcome] = []
        # every collection's session is held until its cached run files are copied (or the study
        # stopped: their writes are then cancelled or waited for, and the indexes let go)
        with ExitStack() as sessions, closing(open_executor(study.execution, on)) as executor:
            total = len(study.collections)
            for i, (name, cfg) in enumerate(study.collections.items(), start=1):
                on(CollectionStart(name, i, total))
                outcomes.append(_run_collection(name, cfg, on, executor, sessions))
            result = study_result(study, outcomes)
            out = publish(
                study.output, study.experiment, study.replace, lambda tmp: _write(result, tmp, ir_metadata), on
            )
        summary = (out / "summary.md").read_text(encoding="utf-8")
    return StudyOutcome(result, out, summary)


def _run_collection(name: str, cfg, on: Emit, executor: Executor, sessions: ExitStack) -> CollectionOutcome:
    """One collection as the run verb runs a config (runs by their names, the explorer's
    documents and the versions gathered, the run cache written); its failure, if it fails. Its
    session joins ``sessions`` when it succeeds (its indexes held until the report is written)."""
    with ExitStack() as mine:
        s = mine.enter_context(execute.session(cfg, on=on, executor=executor))
        try:
            result = attach(with_names(s.run()))
            s.written()
        except BaseException as e:
            outcome = _failed(name, cfg, e, on)  # re-raises what is not a collection's failure
        else:
            outcome = CollectionOutcome(name, cfg, result)
            sessions.push(mine.pop_all())
    return outcome


def _failed(name: str, cfg, e: BaseException, on: Emit) -> CollectionOutcome:
    failure = _failure(e)
    if failure is None:
        raise e
    on(CollectionFailed(name, failure.message))
    return CollectionOutcome(name, cfg, failure=failure)


def _write(result: StudyResult, tmp: Path, ir_metadata: str) -> None:
    """The study's folder: each collection's report, then the study's own files."""
    for name, r in result.results.items():
        write_files(r, tmp / result.study.folder(name), ir_metadata)
    for file, text in study_report.render(result).items():
        (tmp / file).write_text(text, encoding="utf-8")


def _check_output(study: Study) -> None:
    """The output's checks of the config again, under its lock: another experiment may have
    written it since the config was validated."""
    problems = write_target_problems({"output": study.output}, {}, experiment=study.experiment, replace=study.replace)
    if problems:
        raise DataError(study.output, "; ".join(m for _, m in problems))


# ------------------------------------------------------------------------------ index
def index(study: Study, *, on: Emit = ignore) -> list[tuple[str, single.IndexOutcome | None | Failure]]:
    """Build (or reuse) each collection's index; None for a collection that names an existing
    index (only read), a Failure for one that failed."""
    out: list = []
    executor = open_executor(study.execution, on)
    try:
        total = len(study.collections)
        for i, (name, cfg) in enumerate(study.collections.items(), start=1):
            on(CollectionStart(name, i, total))
            p = plan(cfg)
            if p.existing:
                out.append((name, None))
                continue
            assert p.corpus is not None  # only an existing index has none
            try:
                t = time.perf_counter()
                info = ensure_index(
                    p.corpus, p.options, p.index_path, threads=cfg.index_threads, on=on, build=executor.build
                )
                out.append((name, single.IndexOutcome(info, time.perf_counter() - t, p.options)))
            except BaseException as e:
                failure = _failure(e)
                if failure is None:
                    raise
                on(CollectionFailed(name, failure.message))
                out.append((name, failure))
    finally:
        executor.close()
    return out


# ------------------------------------------------------------------------------ search
def search(
    study: Study, *, on: Emit = ignore, run_format: str = DEFAULT_RUN_FORMAT, ir_metadata: str = DEFAULT_IR_METADATA
) -> list[tuple[str, single.SearchOutcome | Failure]]:
    """Index and search each collection (no evaluation), its runs copied to
    ``OUTPUT/collections/NAME/runs/`` as `harness search` of it alone names them; the output's
    marker (the study's) lists them. A Failure for a collection that failed."""
    ir_metadata = single.search_options(run_format, ir_metadata)
    out: list = []
    with runs_output(study, on=on):
        with closing(open_executor(study.execution, on)) as executor:
            total = len(study.collections)
            for i, (name, cfg) in enumerate(study.collections.items(), start=1):
                on(CollectionStart(name, i, total))
                # the collection's indexes are held until its cached run files are copied
                with execute.session(replace(cfg, qrels_path=None, expect={}), on=on, executor=executor) as s:
                    try:
                        validate(cfg)  # topics the qrels cannot judge: refused as `search` refuses them
                        result = with_names(s.run())
                        s.written()
                    except BaseException as e:
                        failure = _failure(e)
                        if failure is None:
                            raise
                        on(CollectionFailed(name, failure.message))
                        out.append((name, failure))
                        continue
                    if IR_METADATA[ir_metadata].written:
                        result = machine.gather(result)
                    folder = f"{study.folder(name)}/"
                    out.append(
                        (name, single.SearchOutcome(write_runs(study, result, on, run_format, ir_metadata, folder)))
                    )
    return out
