"""The run files a user names (``harness evaluate``, ``compare``, ``fuse``, ``trec_eval``, a
config's ``file:`` runs, the Python API): regular files only (a folder, FIFO or device is named as
such, not "not found"), each read by the reader of its layout (a value of
policies.RUN_FORMATS): TREC (:mod:`harness.formats.runs`) or MS MARCO's
(:mod:`harness.formats.msmarco`), and written by its writer (:func:`write_run_file`); what each is called in a table
(:func:`names_of_run_files`); and which of the files a user names together are runs
(:func:`runs_and_descriptions`: a run's ir_metadata file beside it is not). The verbs import them
from here, never from one another (the qrels' counterpart: harness.formats.named.read_user_qrels)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from harness.errors import DataError
from harness.formats.hygiene import regular_file
from harness.formats.ir_metadata import SUFFIX, yml_name
from harness.formats.msmarco import read_msmarco_run, write_msmarco_run
from harness.formats.run import Run
from harness.formats.runs import read_run, write_run
from harness.policies import MSMARCO_RUNS, TREC_RUNS, ReadPolicy, RunFormat

__all__ = ["read_run_file", "write_run_file", "runs_and_descriptions", "names_of_run_files", "shared_names"]

# Each layout's reader (path, duplicates, ranks) and writer (path, run, tag); what else the
# harness knows of a layout is its value's (policies.RUN_FORMATS)
_READERS: dict[RunFormat, Callable[[str | os.PathLike, str, bool], Run]] = {
    TREC_RUNS: lambda path, duplicates, ranks: read_run(path, duplicates=duplicates, ranks=ranks),
    MSMARCO_RUNS: lambda path, duplicates, ranks: read_msmarco_run(path, duplicates=duplicates),  # ranks kept
}
_WRITERS: dict[RunFormat, Callable[[str | os.PathLike, Run, str], None]] = {
    TREC_RUNS: write_run,
    MSMARCO_RUNS: lambda path, run, tag: write_msmarco_run(path, run),  # no tag column
}


def read_run_file(path: str | os.PathLike, read: ReadPolicy = ReadPolicy(), ranks: bool = False) -> Run:
    """A run file, read under ``read``'s duplicates rule in the layout ``read.run_format``: TREC
    (:func:`harness.formats.runs.read_run`; ``ranks``: keep the rank column) or MS MARCO's
    (:func:`harness.formats.msmarco.read_msmarco_run`, its ranks always kept)."""
    regular_file(Path(path), "run file")
    if _is_description(path):
        raise _not_a_run(path)
    return _READERS[read.layout](path, read.duplicates, ranks)


def write_run_file(path: str | os.PathLike, run: Run, layout: RunFormat, tag: str) -> None:
    """``run`` written to ``path`` (atomically) in ``layout``, by its writer: TREC's
    (:func:`harness.formats.runs.write_run`, each line tagged ``tag``) or MS MARCO's
    (:func:`harness.formats.msmarco.write_msmarco_run`, which has no tag column)."""
    _WRITERS[layout](path, run, tag)


def runs_and_descriptions[T](given: Sequence[T]) -> tuple[list[T], list[T]]:
    """The runs among the files ``given`` together (a list of run files: ``harness compare``'s,
    ``fuse``'s, ``harness.fuse``'s), in order, and the ir_metadata files left out.

    ``harness run`` writes each run's ir_metadata beside it (``runs/bm25.trec``,
    ``runs/bm25.ir-metadata.yml``), so ``runs/*`` names both: an ir_metadata file given with the
    run file it describes (the one whose :func:`~harness.formats.ir_metadata.yml_name` it is, in
    its folder) is that run's description, not a run, and is left out. One given without its run
    is a mistake (runs/*.yml for runs/*.trec?): a :class:`DataError` naming it, before any file
    is read. Anything else (a :class:`~harness.formats.run.Run`, a file that is no ir_metadata)
    is kept as it is; its reader says what is wrong with it.

    >>> runs_and_descriptions(["runs/bm25.trec", "runs/bm25.ir-metadata.yml", "runs/ql.trec"])
    (['runs/bm25.trec', 'runs/ql.trec'], ['runs/bm25.ir-metadata.yml'])
    """
    paths = [p for p in given if isinstance(p, (str, os.PathLike))]
    described = {_where(Path(p).with_name(yml_name(Path(p).name))) for p in paths if not _is_description(p)}
    runs: list[T] = []
    descriptions: list[T] = []
    for item in given:
        if not isinstance(item, (str, os.PathLike)) or not _is_description(item):
            runs.append(item)
        elif _where(item) in described:
            descriptions.append(item)
        else:
            raise _not_a_run(item)
    return runs, descriptions


def _is_description(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a run's ir_metadata file (``NAME.ir-metadata.yml``)."""
    return Path(path).name.endswith(SUFFIX)


def _where(path: str | os.PathLike) -> str:
    """``path`` as a key: absolute, normalised (``./runs/a`` is ``runs/a``), its case as the system compares it."""
    return os.path.normcase(os.path.abspath(path))


def _not_a_run(path: str | os.PathLike) -> DataError:
    return DataError(
        str(path),
        "is a run's ir_metadata (the description harness run and harness search write beside each run "
        "file), not a run: give the run files, e.g. runs/*.trec (one given with the run file it describes, "
        "as runs/* gives it, is left out)",
    )


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
