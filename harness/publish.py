"""Publishing an experiment's output folder: its lock, the checks of whose it is, the report
swapped in whole, and the run files placed from the run cache.

``harness run`` and ``harness search`` (and ``harness.run``) write the config's ``output`` only
through here; :mod:`harness.report` renders the files, as ``{file name: text}``, and knows
nothing of the folder. The rules (:mod:`harness.folders`, :mod:`harness.config.paths`):

- **The output's lock for the whole run** (:func:`report_output`, :func:`runs_output`): a second
  run of the same config waits, then reuses. Under it, the folder is checked first (a folder
  the user made read-only, one another experiment wrote, one holding files the harness did not
  write), and again just before it is written: the check at validation may be minutes old.
- **A report is swapped in whole** (:func:`write_report`): built complete in
  ``.<name>.writing-<pid>`` beside the folder, with the marker that lists its files and names
  its experiment, flushed to disk, and swapped with the previous folder in one step
  (:func:`harness.folders.replace_folder`). Its run files are hard links to the run cache's
  text (each hit stored once on disk; a copy where a link cannot be made, and for a user's own
  file), or, with the ir_metadata inline, new files with the document at their top.
- **Runs are placed one by one** (:func:`write_runs`, ``harness search``): the folder keeps its
  other files; its marker lists each run before it is written, and each file is renamed into
  place whole. Another experiment's folder is first swapped for an empty one (``--replace``).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from harness import report
from harness.config import Config, Study
from harness.config.paths import other_experiment_problem, write_target_problems
from harness.errors import DataError
from harness.events import Emit, ignore
from harness.experiment.cache import place_text
from harness.experiment.result import ExperimentResult, RunResult
from harness.files import atomic_writer, fsync_dir, remove_stale_temp_files, write_text_atomic
from harness.folders import (
    OUTPUT_MARKER,
    Experiment,
    check_writable,
    clean_interrupted,
    fsync_tree,
    is_legacy_report,
    listed_entries,
    locked,
    read_marker,
    recorded_experiment,
    remove_tree,
    replace_folder,
    temp_sibling,
    write_marker,
)
from harness.formats.ir_metadata import copy_annotated, write_annotated, yml_name
from harness.formats.run_files import write_run_file
from harness.policies import DEFAULT_IR_METADATA, DEFAULT_RUN_FORMAT, IR_METADATA, RUN_FORMATS

__all__ = ["report_output", "runs_output", "write_report", "publish", "write_files", "write_runs"]


def _refuse(folder: Path, problems: Sequence[tuple[str, str]]) -> None:
    if problems:
        raise DataError(folder, "; ".join(m for _, m in problems))


# ------------------------------------------------------------------------------ the lock
@contextmanager
def report_output(cfg: Config, on: Emit = ignore) -> Iterator[None]:
    """The output's lock, held while ``harness run`` runs and writes its report: a report folder
    the user made read-only is refused before anything is searched, and one that changed since
    the config was validated (another experiment's run, which this one waited for, may have
    written it) is refused by the config's own checks (harness.config.paths)."""
    with locked(cfg.output, on=on):
        check_writable(cfg.output.parent, tree=False)
        check_writable(cfg.output)
        _refuse(
            cfg.output,
            write_target_problems({"output": cfg.output}, {}, experiment=cfg.experiment, replace=cfg.replace),
        )
        yield


@contextmanager
def runs_output(cfg: Config | Study, on: Emit = ignore) -> Iterator[None]:
    """The output's lock, held while ``harness search`` searches and places its runs: an
    interrupted run's leftovers removed, a folder the user made read-only refused before anything
    is searched, and (without ``--replace``) one another experiment wrote while this one waited."""
    with locked(cfg.output, on=on):
        clean_interrupted(cfg.output, on)
        check_writable(cfg.output.parent, tree=False)
        check_writable(cfg.output)
        if not cfg.replace and (why := other_experiment_problem(cfg.output, cfg.experiment)):
            raise DataError(cfg.output, why)
        yield


# ------------------------------------------------------------------------------ a report
def write_report(
    result: ExperimentResult, out_dir: Path, on: Emit = ignore, ir_metadata: str = DEFAULT_IR_METADATA
) -> Path:
    """Write every report file (:data:`harness.report.REPORT_FILES`) into ``out_dir``, replacing
    it atomically (:func:`publish`). ``ir_metadata`` (a key of policies.IR_METADATA): each run's
    ir_metadata beside it (``runs/NAME.ir-metadata.yml``), in it, or nowhere
    (:mod:`harness.report.ir_metadata`). The marker names the result's experiment
    (:attr:`harness.config.Config.experiment`)."""
    cfg = result.config
    return publish(out_dir, cfg.experiment, cfg.replace, lambda tmp: write_files(result, tmp, ir_metadata), on=on)


def publish(
    out_dir: Path, experiment: Experiment, replace: bool, write: Callable[[Path], None], on: Emit = ignore
) -> Path:
    """Make ``out_dir`` anew with what ``write(folder)`` puts in a new folder, replacing it
    atomically, and return it (resolved): a report, or a study's folder of reports.
    ``experiment``: whose folder it is (recorded in the marker); ``replace`` (``--replace``): it
    may replace another experiment's folder.

    The folder is built complete in ``.<name>.writing-<pid>`` beside ``out_dir``, with the marker
    that lists its files, flushed to disk, and swapped with the previous folder in one step
    (:func:`harness.folders.replace_folder`), under the folder's lock. A folder the harness did
    not write, or (without ``--replace``) another experiment's, is never replaced (checked again
    here: the config check may be minutes old, and another experiment may have written since)."""
    out_dir = Path(out_dir).resolve()
    with locked(out_dir, on=on):
        clean_interrupted(out_dir, on)
        _refuse(out_dir, write_target_problems({"output": out_dir}, {}, experiment=experiment, replace=replace))
        check_writable(out_dir.parent, tree=False)  # where the new report is built
        check_writable(out_dir)  # the previous report, removed once replaced
        tmp = temp_sibling(out_dir, "writing")
        remove_tree(tmp)
        try:
            tmp.mkdir(parents=True)
            write(tmp)
            written = [str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file() and p != tmp / OUTPUT_MARKER]
            write_marker(tmp, "report", written, experiment.record(out_dir))
            fsync_tree(tmp)
            previous = replace_folder(tmp, out_dir)
        except OSError as e:
            remove_tree(tmp)
            clean_interrupted(out_dir)
            if e.errno in (errno.ENOSPC, errno.EDQUOT):  # name the report, not a file of the hidden temp
                raise OSError(e.errno, f"{e.strerror}; the new report is removed", str(out_dir)) from e
            raise
        except BaseException:
            remove_tree(tmp)
            clean_interrupted(out_dir)  # cut between the two renames of the fallback: previous back
            raise
        if previous is not None:
            remove_tree(previous)
    return out_dir


def write_files(result: ExperimentResult, folder: Path, ir_metadata: str = DEFAULT_IR_METADATA) -> None:
    """The report's files in ``folder`` (made if missing), not its marker: what
    :func:`write_report` publishes, and a study's ``collections/NAME``. The run files first
    (their hashes go into the manifest), then what :func:`harness.report.render` makes."""
    runs = folder / "runs"
    runs.mkdir(parents=True)
    files = result.run_files()
    hashes = {}
    if IR_METADATA[ir_metadata].inline:  # each run file written with its document on top, and hashed as it is
        documents = report.run_metadata(result)
        for r in result.runs:
            hashes[r.name] = copy_annotated(r.path, runs / files[r.name], documents[r.name])
    else:  # the run cache's text hard-linked (each hit stored once), a user's file copied
        for r in result.runs:
            place_text(r.path, runs / files[r.name], r.run)
    for name, text in report.render(result, ir_metadata, hashes).items():
        (folder / name).write_text(text, encoding="utf-8")


# ------------------------------------------------------------------------------ runs alone
def write_runs(
    cfg: Config | Study,
    result: ExperimentResult,
    on: Emit = ignore,
    run_format: str = DEFAULT_RUN_FORMAT,
    ir_metadata: str = DEFAULT_IR_METADATA,
    folder: str = "",
) -> tuple[tuple[str, bool, Path], ...]:
    """The runs' cached files into OUTPUT/runs, under the output's lock (:func:`runs_output`),
    each named as the report names it (:meth:`harness.experiment.result.ExperimentResult.run_files`)
    or, in MS MARCO's layout, ``<name>.tsv``, with its ir_metadata beside it, in it, or none.
    ``cfg``: whose output folder it is (its ``output``, ``experiment`` and ``replace``: a
    Config, or a study's); ``folder``: where in it the runs go (``collections/NAME/``: a
    study's collection), the output's marker listing them there.
    ``(run, reused, file written)`` per run."""
    out = cfg.output / folder / "runs"
    if read_marker(cfg.output) is None and not (cfg.output / OUTPUT_MARKER).exists():
        _refuse(cfg.output, write_target_problems({"output": cfg.output}, {}))
    if recorded_experiment(cfg.output) not in (None, cfg.experiment):
        _replace_other_experiment(cfg)
    marker = read_marker(cfg.output) or {
        # a report of an earlier version: its files become the harness's in the new marker
        "files": listed_entries(cfg.output) if is_legacy_report(cfg.output) else []
    }
    layout = RUN_FORMATS[run_format]
    # as the report names them (harness.specs.names.run_file_names), in the layout's extension
    files = {name: layout.file_name(f) for name, f in result.run_files().items()}
    names = [f"{folder}runs/{files[r.name]}" for r in result.runs]
    place = IR_METADATA[ir_metadata]
    if place.beside:
        names += [f"{folder}runs/{yml_name(files[r.name])}" for r in result.runs]
    # this experiment's from now on: a marker of an earlier version named none
    write_marker(
        cfg.output, marker.get("kind", "runs"), [*marker["files"], *names], cfg.experiment.record(cfg.output.resolve())
    )
    remove_stale_temp_files(out, on)
    documents = report.run_metadata(result, verb="search") if place.written else {}
    written = []
    for r in result.runs:
        dst = out / files[r.name]
        if not layout.cached:
            write_run_file(dst, r.run, layout, r.name)  # the run as searched (or read, or fused), in its order
        elif place.inline:
            with atomic_writer(dst, "wb", None) as f:
                write_annotated(f, r.path, documents[r.name])
        else:
            _place_atomic(r, dst)
        beside = out / yml_name(files[r.name])
        if place.beside:
            write_text_atomic(beside, documents[r.name])
        elif (
            f"{folder}runs/{beside.name}" in marker["files"]
        ):  # a description of this file written before: no longer its
            beside.unlink(missing_ok=True)
        written.append((r.name, r.reused, dst))
    return tuple(written)


def _place_atomic(r: RunResult, dst: Path) -> None:
    """The run's text at ``dst`` in one step: the run cache's text hard-linked (or copied, see
    harness.experiment.cache.place_text) under a temporary name that an interrupted run's sweep
    removes, then renamed over the previous file."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name[:128]}.{os.getpid()}.place.tmp")
    tmp.unlink(missing_ok=True)
    try:
        place_text(r.path, tmp, r.run)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)  # a copy's bytes on disk before the rename (a link's are already)
        finally:
            os.close(fd)
        os.replace(tmp, dst)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(dst.parent)


def _replace_other_experiment(cfg: Config | Study) -> None:
    """Under the output's lock, the folder another experiment wrote there: refused without
    ``--replace`` (config.paths, as at validation); with it, swapped in one step for an empty
    folder marked as this experiment's, so that the runs copied next lie beside nothing of the
    other's (``harness run --replace`` replaces it whole with the report). A file there that the
    harness did not write is refused either way: nothing of the user's is removed."""
    _refuse(
        cfg.output, write_target_problems({"output": cfg.output}, {}, experiment=cfg.experiment, replace=cfg.replace)
    )
    out = cfg.output.resolve()  # the folder itself, not a link to it (as write_report replaces it)
    with locked(out):  # the output's own lock, unless `output` is a link
        tmp = temp_sibling(out, "writing")
        remove_tree(tmp)
        try:
            tmp.mkdir()
            write_marker(tmp, "runs", [], cfg.experiment.record(out))
            fsync_tree(tmp)
            previous = replace_folder(tmp, out)
        except BaseException:
            remove_tree(tmp)
            clean_interrupted(out)  # cut between the two renames of the fallback: previous back
            raise
        if previous is not None:
            remove_tree(previous)
