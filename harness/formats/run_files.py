"""The run files a user names (``harness evaluate``, ``compare``, ``fuse``, ``trec_eval``, a
config's ``file:`` runs, the Python API): regular files only (a folder, FIFO or device is named as
such, not "not found"), each read by the reader of its layout: TREC (:mod:`harness.formats.runs`)
or MS MARCO's (:mod:`harness.formats.msmarco`); and what each is called in a table
(:func:`names_of_run_files`). The verbs import them from here, never from one another (the qrels'
counterpart: harness.formats.named.read_user_qrels)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from harness.errors import DataError
from harness.formats.hygiene import regular_file
from harness.formats.ir_metadata import SUFFIX
from harness.formats.msmarco import read_msmarco_run
from harness.formats.run import Run
from harness.formats.runs import read_run
from harness.policies import ReadPolicy

__all__ = ["read_run_file", "names_of_run_files", "shared_names"]


def read_run_file(path: str | os.PathLike, read: ReadPolicy = ReadPolicy(), ranks: bool = False) -> Run:
    """A run file, read under ``read``'s duplicates rule in the layout ``read.run_format``: TREC
    (:func:`harness.formats.runs.read_run`; ``ranks``: keep the rank column) or MS MARCO's
    (:func:`harness.formats.msmarco.read_msmarco_run`, its ranks always kept)."""
    regular_file(Path(path), "run file")
    if Path(path).name.endswith(SUFFIX):  # runs/* names each run's ir_metadata beside it too
        raise DataError(
            str(path),
            "is a run's ir_metadata (the description harness run and harness search write beside each run "
            "file), not a run: give the run files only, e.g. runs/*.trec",
        )
    if read.run_format == "msmarco":
        return read_msmarco_run(path, duplicates=read.duplicates)
    return read_run(path, duplicates=read.duplicates, ranks=ranks)


def names_of_run_files(paths: Sequence[str | os.PathLike]) -> list[str]:
    """The name of each of the run files ``paths``: what tables and ``--baseline`` call it (one
    name each, in order, all distinct for distinct files):

    - a run's name is its file name without the extension: ``runs/bm25.trec`` is ``bm25``;
    - runs whose files share that name are named by their folders: the folder nearest to the file
      that tells them apart, then ``/`` and the file's name, folders that all of them share being skipped:
      ``a/runs/bm25.trec`` and ``b/runs/bm25.trec`` are ``a/bm25`` and ``b/bm25``. Where one
      folder is not enough for a run, as many as it needs, nearest last: ``x/a/bm25.trec``,
      ``y/a/bm25.trec`` and ``z/b/bm25.trec`` are ``x/a/bm25``, ``y/a/bm25`` and ``b/bm25``.
      Paths count as absolute (``../bm25.trec`` is named by the folder it is in);
    - files of one folder whose names differ only in the extension keep it: ``bm25.trec`` and
      ``bm25.txt`` (with a folder before it when runs of another folder share the name too).

    >>> names_of_run_files(["a/runs/bm25.trec", "b/runs/bm25.trec", "b/runs/ql.trec"])
    ['a/bm25', 'b/bm25', 'ql']
    >>> names_of_run_files(["x/a/bm25.trec", "y/a/bm25.trec", "z/b/bm25.trec", "z/b/bm25.txt"])
    ['x/a/bm25', 'y/a/bm25', 'b/bm25.trec', 'b/bm25.txt']
    """
    files = [Path(os.path.abspath(p)) for p in paths]
    names = [p.stem for p in files]
    groups: dict[str, list[int]] = {}
    for i, stem in enumerate(names):
        groups.setdefault(stem, []).append(i)
    for members in groups.values():
        if len(members) > 1:
            for i, name in _by_folders([files[i] for i in members]).items():
                names[members[i]] = name
    return names


def _by_folders(paths: list[Path]) -> dict[int, str]:
    """The names of runs whose files share a name (names_of_run_files' rule), by their index in ``paths``."""
    # each run's folders, nearest first; None above the root
    folders = [p.parent.parts[:0:-1] for p in paths]
    depth = max(map(len, folders))
    levels = [[f[k] if k < len(f) else None for k in range(depth)] for f in folders]
    telling = [k for k in range(depth) if len({lv[k] for lv in levels}) > 1]  # the folders that differ
    parents = [p.parent for p in paths]
    leaf = [p.name if parents.count(p.parent) > 1 else p.stem for p in paths]
    out = {}
    for i in range(len(paths)):
        for n in range(1 if telling else 0, len(telling) + 1):
            key = [levels[i][k] for k in telling[:n]]
            alike = sum(
                1 for j in range(len(paths)) if leaf[j] == leaf[i] and [levels[j][k] for k in telling[:n]] == key
            )
            if alike == 1 or n == len(telling):  # the same file twice stays alike: its name too
                out[i] = "/".join([*(f for f in reversed(key) if f is not None), leaf[i]])
                break
    return out


def shared_names(paths: Sequence[str | os.PathLike], names: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    """The names several of ``paths`` share (:func:`names_of_run_files`' ``names`` of them):
    {stem: [(name, path as given), ...]}, empty when every run is called by its file's name."""
    out: dict[str, list[tuple[str, str]]] = {}
    for p, name in zip(paths, names):
        stem = Path(p).stem
        if name != stem:
            out.setdefault(stem, []).append((name, str(p)))
    return out
