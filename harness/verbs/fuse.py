"""The fuse verb: `harness fuse`, `harness.fuse`: several runs in, one fused run out
(harness.fusion), equal to pyserini.fusion 2.4.0 for its four methods. Run files are read with
the harness's reader (errors name the file and line; a document listed twice in a topic is an
error), with their rank column, which reciprocal rank fusion reads."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import DataError
from harness.policies import FUSE_RUNTAG, FusionPolicy, ReadPolicy

if TYPE_CHECKING:
    from harness.formats.runs import Run

__all__ = ["fusion_policy", "fuse"]

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
    ``output`` as a TREC run tagged ``runtag`` when given; return it."""
    from harness.formats.runs import Run
    from harness.fusion import fuse as fuse_runs
    from harness.verbs.evaluate import read_run_file

    policy = policy or FusionPolicy()
    if len(runs) < 2:
        raise DataError("fuse", f"fusion needs at least two runs (got {len(runs)})")
    loaded = []
    for r in runs:
        run = r if isinstance(r, Run) else read_run_file(r, read, ranks=True)
        if not len(run):
            raise DataError(run.source, "the run has no lines: nothing to fuse")
        loaded.append(run)
    try:
        fused = fuse_runs(loaded, policy)
    except ValueError as e:
        raise DataError("fuse", str(e)) from None
    if output is not None:
        from harness.formats.runs import write_run

        write_run(Path(output), fused, runtag)
    return fused
