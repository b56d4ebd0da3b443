"""The run store: each run an experiment keeps in the run cache, under a key of what made it, and
the reading and writing of it.

A cached run is a file ``<name>.<key>.trec`` (the key's first 16 hex digits) with its binary
copy beside it (:mod:`harness.experiment.cache`: the text, the Parquet copy and the search's
times), in the run cache folder of the index it belongs to (:attr:`harness.experiment.plan.Plan.runs_folder`).
Four kinds of run are kept, each named and keyed by what determines it:

- a searched run: its spec, keyed by the index's fingerprint, the similarity, the topics, the
  depth and the search's semantics (:func:`run_key`), beside the index it was searched on (the
  experiment's, or the one with exact document lengths);
- a cross-validated run: its spec, keyed by the runs it draws from and each topic's choice
  (:func:`tuned_key`);
- a fused run (``fuse``) and a run from a file in another layout than TREC's (``file``, its TREC
  text for the report), keyed by the spec and the run's content (:func:`content_key`).

The names and keys are those every earlier version gave, so the caches users have are reused.
This module is the only one that makes a cache file's name or calls a key function; the rest
of the harness asks a :class:`RunStore` for a run's file, and reads and writes runs through it.
A searched run is written behind (on a thread of the store's while the next run is searched):
the store keeps those writes until :meth:`RunStore.settle` or :meth:`RunStore.abandon`, which
the experiment's session calls on its way out (:mod:`harness.experiment.execute`)."""

from __future__ import annotations

import errno
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path

from harness.engine.latency import SearchTimes
from harness.events import Emit, ignore
from harness.experiment import cache
from harness.experiment.plan import Plan
from harness.files import remove_stale_temp_files
from harness.folders import check_writable
from harness.formats.run import Run
from harness.specs.similarity import Similarity

__all__ = ["RunStore", "run_key", "tuned_key", "content_key", "cache_entry", "SEARCH_SEMANTICS"]

# Changes whenever the search path could produce a different run; part of every run's cache key.
SEARCH_SEMANTICS = "anserini-bow+sort(score,id)+ties-adjusted+strict/1"
# A cache file's name: the run's name, its key's first 16 hex digits, the file's kind (the text,
# its binary copy, or the binary copy of harness-run-cache/1)
_ENTRY = re.compile(r"^(?P<name>.+)\.(?P<key>[0-9a-f]{16})\.(?P<kind>trec|parquet|npz)$")


def run_key(
    fingerprint: str,
    sim: Similarity,
    topics: Sequence[tuple[str, str]],
    depth: int,
    fields: tuple = (),
    remove_query: bool = False,
) -> str:
    """The key of a searched run. ``fields``: the weights of a multifield index's fields
    (IndexOptions.fields); ``remove_query``: the query's own document left out
    (topics.remove_query). Each is keyed only when given, so every other run keeps the key it had."""
    key = {"index": fingerprint, "similarity": str(sim), "topics": topics, "depth": depth, "search": SEARCH_SEMANTICS}
    if fields:
        key["fields"] = [list(f) for f in fields]
    if remove_query:
        key["remove_query"] = True
    blob = json.dumps(key, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


def tuned_key(name: str, settings: Mapping[str, str], chosen: Mapping[str, str]) -> str:
    """The key of a cross-validated run: the file names (keys included) of the runs it draws
    from and each topic's choice (which already reflect the qrels, the measure, the folds and
    the seed)."""
    blob = json.dumps(
        {"name": name, "runs": dict(settings), "chosen": dict(chosen)}, sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def content_key(spec: str, run: Run) -> str:
    """The key of a run kept for its content (a fusion, a file's run): its spec and its rows, so
    an edited part or file gives another file."""
    h = hashlib.sha256(spec.encode())
    h.update("\0".join(run.topics()).encode())
    for a in (run.offsets, run.docids, run.scores):
        h.update(a.tobytes())
    return h.hexdigest()


def cache_entry(file_name: str) -> tuple[str, str] | None:
    """(run name, key) of a run cache file's name (its text, its binary copy, or an earlier
    version's), or None for any other file."""
    m = _ENTRY.match(file_name)
    return None if m is None else (m["name"], m["key"])


def _file(folder: Path, name: str, key: str) -> Path:
    return folder / f"{name}.{key[:16]}.trec"


class RunStore:
    """The run cache of one experiment's runs (the plan ``p``'s folders; ``topics``: what the
    searched runs answer): where each run is kept, and its reading and writing."""

    def __init__(self, p: Plan, topics: Sequence[tuple[str, str]]):
        self._plan = p
        self._topics = topics
        self._writer: ThreadPoolExecutor | None = None
        self._writes: list[Future] = []

    # ------------------------------------------------------------------------ where
    def searched(self, sim: Similarity, fingerprint: str) -> Path:
        """The file of ``sim``'s run on the index of ``fingerprint`` (its own: the experiment's,
        or the one with exact document lengths)."""
        cfg = self._plan.config
        key = run_key(fingerprint, sim, self._topics, cfg.depth, cfg.search_fields, cfg.remove_query)
        return _file(self._plan.for_run(sim).runs_folder, str(sim), key)

    def tuned(self, name: str, settings: Mapping[str, Path], chosen: Mapping[str, str]) -> Path:
        """The file of the cross-validated run ``name``: drawn from the runs cached at
        ``settings`` (by name), ``chosen``: each topic's setting."""
        key = tuned_key(name, {n: path.name for n, path in settings.items()}, chosen)
        return _file(self._plan.runs_folder, name, key)

    def fused(self, spec: str, run: Run) -> Path:
        """The file of the fused run ``run`` of ``spec``."""
        return _file(self._plan.runs_folder, "fuse", content_key(spec, run))

    def converted(self, spec: str, run: Run) -> Path:
        """The file of a run read from a file in another layout (``spec``), kept as TREC text for
        the report's ``runs/`` and the explorer."""
        return _file(self._plan.runs_folder, "file", content_key(spec, run))

    def folders(self, sims: Iterable[Similarity] = ()) -> list[Path]:
        """The run cache folders of the experiment's index and of those ``sims`` are searched on."""
        return list(dict.fromkeys([*(self._plan.for_run(sim).runs_folder for sim in sims), self._plan.runs_folder]))

    def prepare(self, sims: Iterable[Similarity], on: Emit = ignore) -> None:
        """Make the folders (:meth:`folders`) and remove the run files a killed process was
        writing there."""
        for folder in set(self.folders(sims)):
            folder.mkdir(parents=True, exist_ok=True)
            remove_stale_temp_files(folder, on)

    def check_writable(self, sims: Iterable[Similarity]) -> None:
        """Before searching ``sims``: their runs could not be cached (a read-only folder)."""
        for folder in {self._plan.for_run(sim).runs_folder for sim in sims}:
            check_writable(folder, tree=False)

    # ------------------------------------------------------------------------ reading
    def read(self, path: Path) -> tuple[Run, SearchTimes | None] | None:
        """The run cached at ``path`` with the times of the search that made it (None: cached
        before they were kept, or not searched), or None when it is not cached."""
        if not cache.cached(path):
            return None
        run, times = cache.load_timed_run(path)
        return None if run is None else (run, times)

    # ------------------------------------------------------------------------ writing
    def has(self, path: Path) -> bool:
        """Whether the cache holds a run at ``path`` (its text or its binary copy)."""
        return cache.cached(path)

    def write(self, path: Path, run: Run, tag: str, times: SearchTimes | None = None) -> None:
        """Write a run to the cache now (with the times of its search, when searched); a full
        disk names the cache folder (the file is not there)."""
        try:
            cache.store_run(path, run, tag=tag, times=times)  # read from the module: tests/test_verbs.py patches it
        except OSError as e:
            if e.errno in (errno.ENOSPC, errno.EDQUOT):
                raise OSError(
                    e.errno, f"{e.strerror} writing the run cache; no run file is left half-written", str(path.parent)
                ) from e
            raise

    def write_behind(self, path: Path, run: Run, tag: str, times: SearchTimes | None = None) -> None:
        """:meth:`write` on the store's thread, while the caller goes on (Arrow assembles the
        text without the GIL); :meth:`settle` waits for it."""
        if self._writer is None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="harness-run-cache")
        self._writes.append(self._writer.submit(self.write, path, run, tag, times))

    def settle(self) -> None:
        """Wait until every run written behind is in the cache; raise the first error of
        writing one (a full disk, a permission). After an error (or an interruption) the writes
        not yet begun are cancelled and the one under way is waited for, so nothing is still
        writing into the cache once it reaches the caller."""
        pending, self._writes = self._writes, []
        for i, f in enumerate(pending):
            try:
                f.result()
            except BaseException:
                _stop(pending[i:])
                self._close()
                raise
        self._close()

    def abandon(self) -> None:
        """On the way out of an error or an interruption: cancel the writes not yet begun and
        wait for the one under way (each is atomic: a run file is whole or absent)."""
        pending, self._writes = self._writes, []
        try:
            _stop(pending)
        finally:
            self._close()

    def _close(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.shutdown(wait=False)  # nothing is left in it: every write is done or cancelled


def _stop(writes: list[Future]) -> None:
    for f in writes:
        f.cancel()
    wait(writes)
