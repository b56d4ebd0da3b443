"""The fuse verb: `harness fuse`, `harness.fuse`: several runs in, one fused run out
(harness.fusion), equal to pyserini.fusion 2.4.0 for its four methods. Run files are read with
the harness's reader (errors name the file and line; a document listed twice in a topic is an
error), with their rank column when the method reads it (reciprocal rank fusion); ``read.run_format``
is the layout of the run files read and of the one written (TREC or MS MARCO)."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import DataError
from harness.formats.run import Run
from harness.formats.run_files import read_run_file, runs_and_descriptions, write_run_file
from harness.fusion import fuse as fuse_runs
from harness.policies import FUSE_RUNTAG, TREC_RUNS, FusionPolicy, ReadPolicy, RunFormat

if TYPE_CHECKING:
    from harness.formats.run import Run

__all__ = ["fusion_policy", "fuse", "runs_and_descriptions"]  # the last: fuse's rule, for the CLI's note

PathLike = str | os.PathLike


def fusion_policy(**options) -> FusionPolicy:
    """A FusionPolicy from keyword options; a bad value is a DataError naming the option."""
    try:
        return FusionPolicy(**options)
    except ValueError as e:
        raise DataError("fuse", str(e)) from None


def fuse(
    runs: Sequence[Run | PathLike],
    policy: FusionPolicy | None = None,
    output: PathLike | None = None,
    runtag: str = FUSE_RUNTAG,
    read: ReadPolicy = ReadPolicy(),
) -> Run:
    """Fuse ``runs`` (run files or Runs, at least two) under ``policy``; write the result to
    ``output`` as a TREC run tagged ``runtag`` when given; return it. A run's ir_metadata file
    given with it (``runs/*``) is left out (harness.formats.run_files.runs_and_descriptions)."""
    policy = policy or FusionPolicy()
    runs = runs_and_descriptions(runs)[0]  # before the runs are counted: --weights has one per run
    problem = policy.runs_problem(len(runs))
    if problem is not None:  # before any file is read
        key, message = problem
        raise DataError("fuse", message if key == "runs" else f"{key}: {message}")
    if output is not None:
        _check_output(output, [r for r in runs if not isinstance(r, Run)], runtag, read.layout)
    loaded = []
    for r in runs:
        # the rank column is read (and checked) only for a method that reads it, as a config's
        # `fuse:` entry reads its files (harness.experiment.sources)
        run = r if isinstance(r, Run) else read_run_file(r, read, ranks=policy.reads_ranks)
        if not len(run):
            raise DataError(run.source, "the run has no lines: nothing to fuse")
        loaded.append(run)
    try:
        fused = fuse_runs(loaded, policy)
    except ValueError as e:
        raise DataError("fuse", str(e)) from None
    if output is not None:
        write_run_file(Path(output), fused, read.layout, runtag)
    return fused


def _check_output(output: PathLike, inputs: list, runtag: str, layout: RunFormat = TREC_RUNS) -> None:
    """Before anything is read: the fused run may replace only a regular file the harness wrote
    (a run whose first line carries ``runtag``), never an input run, a folder or a device (the
    rename that writes it atomically would put a regular file in the device's place). A run in
    a ``layout`` without a tag column (MS MARCO's) has no tag to tell: a non-empty file there is
    never replaced."""
    if not str(output):
        raise DataError("--output", "an empty path: give the file to write the fused run to")
    path = Path(output)
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    except OSError as e:
        raise DataError(path, f"cannot write the fused run there: {e.strerror or e}") from None
    for r in inputs:
        try:
            same = os.path.samefile(r, path)
        except OSError:
            continue
        if same:
            raise DataError(path, f"is also an input run ({r}): writing the fused run there would replace it")
    if stat.S_ISDIR(st.st_mode):
        raise DataError(path, f"is a folder: give the fused run a file name, e.g. {path / 'fused.trec'}")
    if not stat.S_ISREG(st.st_mode):
        raise DataError(path, "is not a regular file (a device, FIFO or socket): the harness writes only regular files")
    if st.st_size and not layout.tagged:
        raise DataError(
            path,
            f"exists, and {layout.title} runs have no tag column to tell a run the harness fused from any "
            "other file: it is left as it is; remove it or write to another file",
        )
    if st.st_size and _first_tag(path) != runtag:
        raise DataError(
            path,
            f"exists and is not a run the harness fused (its first line is not tagged {runtag!r}): "
            "it is left as it is; remove it or write to another file",
        )


def _first_tag(path: Path) -> str | None:
    """The sixth field of the file's first line (a TREC run's tag), None when there is none."""
    try:
        with open(path, "rb") as f:
            fields = f.readline(1 << 16).split()
    except OSError:
        return None
    return fields[5].decode("utf-8", "replace") if len(fields) >= 6 else None
