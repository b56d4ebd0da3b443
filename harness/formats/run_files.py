"""The run files a user names (``harness evaluate``, ``compare``, ``fuse``, ``trec_eval``, a
config's ``file:`` runs, the Python API): regular files only (a folder, FIFO or device is named as
such, not "not found"), each read by the reader of its layout: TREC (:mod:`harness.formats.runs`)
or MS MARCO's (:mod:`harness.formats.msmarco`). The verbs import it from here, never from one
another (the qrels' counterpart: harness.formats.named.read_user_qrels)."""

from __future__ import annotations

import os
from pathlib import Path

from harness.formats.hygiene import regular_file
from harness.formats.msmarco import read_msmarco_run
from harness.formats.runs import Run, read_run
from harness.policies import ReadPolicy

__all__ = ["read_run_file"]


def read_run_file(path: str | os.PathLike, read: ReadPolicy = ReadPolicy(), ranks: bool = False) -> Run:
    """A run file, read under ``read``'s duplicates rule in the layout ``read.run_format``: TREC
    (:func:`harness.formats.runs.read_run`; ``ranks``: keep the rank column) or MS MARCO's
    (:func:`harness.formats.msmarco.read_msmarco_run`, its ranks always kept)."""
    regular_file(Path(path), "run file")
    if read.run_format == "msmarco":
        return read_msmarco_run(path, duplicates=read.duplicates)
    return read_run(path, duplicates=read.duplicates, ranks=ranks)
