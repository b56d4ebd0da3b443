"""The tasks Dask workers run: pure functions of their inputs, which Dask pickles by reference
(this module's path and the function's name), so a worker imports them from here.

Searching a topic shard (:func:`search_task`) and reading an index's ids (:func:`ids_task`) go
through one searcher per index fingerprint for the worker process's whole life (``_SEARCHERS``),
opened after the index's manifest at the path the driver gave is checked against the driver's
fingerprint. Indexing is a corpus shard (:func:`build_shard_task`), then their merge
(:func:`merge_task`). Every task's failure names the worker (``_on_worker``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import socket
import threading
import time
from pathlib import Path

from harness import lazy
from harness.engine import lucene
from harness.engine.index import IndexOptions
from harness.engine.indexer import index_stats
from harness.engine.manifest import MANIFEST, open_manifest
from harness.engine.searchers import OpenSearcher, open_searcher
from harness.engine.shards import build_shard, merge_indexes
from harness.errors import EngineError, HarnessError
from harness.folders import remove_tree

distributed = lazy.module("distributed")

__all__ = ["search_task", "ids_task", "build_shard_task", "merge_task", "BUILDING"]

# (path, fingerprint, options) -> (its searcher, the id table's digest), per process
_SEARCHERS: dict[tuple[str, str, IndexOptions], tuple[OpenSearcher, str]] = {}
_LOCK = threading.Lock()


def _where() -> str:
    try:
        name = distributed.get_worker().address
    except (ImportError, ValueError):
        name = f"pid {os.getpid()}"
    return f"Dask worker {name} on host {socket.gethostname()}"


_JAVA_FRAME = re.compile(r"^\s+(at\s+)?[\w$.<>/]+\((.*\.java:\d+|Unknown Source|Native Method)\)\s*$")


def _on_worker(task):
    """A task whose failures name the worker: an EngineError or an exception of Java (which
    reaches the driver as an unpicklable JavaException, or not at all) becomes an EngineError
    saying where it happened, without Java's stack frames; a Java OutOfMemoryError says how to
    give the workers' JVMs more memory. Errors in the user's data (DataError...) are left alone.

    What leaves the worker carries no chain of the exceptions it came from: Dask pickles an
    error with its __cause__ and __context__ (tblib), and a JavaException among them made the
    driver import jnius to unpickle it, which started a JVM there with none of the harness's
    options (no class path, Java's own signal handlers)."""

    @functools.wraps(task)
    def named(*args, **kwargs):
        try:
            return task(*args, **kwargs)
        except HarnessError as e:
            named_already = not isinstance(e, EngineError) or "Dask worker" in str(e)
            error = e if named_already else EngineError(_worker_message(str(e)))
        except Exception as e:
            error = EngineError(_worker_message(f"{type(e).__name__}: {e}"))
        error.__cause__ = error.__context__ = None
        error.__suppress_context__ = True
        raise error

    return named


def _worker_message(text: str) -> str:
    text = "\n".join(line for line in text.splitlines() if not _JAVA_FRAME.match(line)).strip()
    if "OutOfMemoryError" in text:
        if "HARNESS_JAVA_OPTS" not in text:
            text += "; give Java more memory with HARNESS_JAVA_OPTS=-Xmx8g"
        text += " in the environment the workers start in (it is read on the workers, where the JVMs run)"
    return f"{_where()}: {text}"


def _searcher(path: str, fingerprint: str, options):
    key = (path, fingerprint, options)
    with _LOCK:
        s = _SEARCHERS.get(key)
        if s is not None:
            return s
        manifest = open_manifest(Path(path))
        if manifest is None:
            raise EngineError(
                f"{_where()} cannot see the index {path} (no readable {MANIFEST}): workers read the index "
                "from a path they all see; put it on a shared file system mounted at the same path on every "
                "worker (index.path)"
            )
        if manifest.get("fingerprint") != fingerprint:
            raise EngineError(
                f"{_where()} sees another index at {path}: fingerprint {str(manifest.get('fingerprint'))[:12]}, "
                f"the experiment's is {fingerprint[:12]}; every worker must see the driver's index at that path"
            )
        for old in [k for k in _SEARCHERS if k[0] == path]:  # that path now holds another index
            _SEARCHERS.pop(old)[0].close()
        searcher = open_searcher(Path(path), options)  # a vectors index: its DenseSearcher
        digest = hashlib.sha256("\n".join(searcher.ids.tolist()).encode("utf-8", "surrogateescape")).hexdigest()
        s = _SEARCHERS[key] = (searcher, digest)
        return s


@_on_worker
def ids_task(path: str, fingerprint: str, options):
    """The index's external ids, '\n'-joined UTF-8 in Lucene docid order, and their digest."""
    searcher, digest = _searcher(path, fingerprint, options)
    return "\n".join(searcher.ids.tolist()).encode("utf-8", "surrogateescape"), digest


@_on_worker
def search_task(path: str, fingerprint: str, options, sim, queries: list, depth: int):
    """One (run setting, topic shard): hits per topic, Lucene docids, float32 scores, the id
    table's digest, seconds, who searched, and the searcher's times (one batch on one thread:
    harness.engine.latency). ``queries`` are texts, or for a vectors index (qid, vector as JSON)
    pairs, so that a vector of the wrong dimension is named by its topic."""
    searcher, digest = _searcher(path, fingerprint, options)
    t = time.perf_counter()
    (counts, docs, scores), times = searcher.timed_arrays(queries, sim, depth, threads=1)
    return counts, docs, scores, digest, time.perf_counter() - t, _where(), times


# In the folder where the driver has the shards built, for as long as it waits for them
BUILDING = ".harness-building"


def _unless_abandoned(task):
    """A shard task (its ``folder`` in the driver's build folder, which holds :data:`BUILDING`)
    that removes what it wrote when the driver gave up meanwhile (the marker it saw at the start
    has gone with the driver's folder: interrupted, or failed on another shard), so that a task
    no one could stop leaves no hidden folder behind. A marker never seen (a folder this worker
    does not share) changes nothing."""

    @functools.wraps(task)
    def run(collection_class, shard, folder, options):
        folder = Path(folder)
        marker = folder.parent / BUILDING
        seen = marker.exists()
        try:
            return task(collection_class, shard, str(folder), options)
        finally:
            if seen and not marker.exists():
                remove_tree(folder)
                try:
                    folder.parent.rmdir()  # the last one out
                except OSError:
                    pass

    return run


@_on_worker
@_unless_abandoned
def build_shard_task(collection_class: str, shard, folder: str, options) -> dict:
    """One corpus shard indexed into ``folder/index``: Anserini's counters."""
    missing = [p.path for p in shard.pieces if not os.path.exists(p.path)]
    if shard.folder is not None and not os.path.isdir(shard.folder):
        missing.append(shard.folder)
    if missing:
        raise EngineError(
            f"{_where()} cannot see the corpus file {missing[0]}: workers read the corpus from a path they all "
            "see (a shared file system mounted at the same path)"
        )
    try:
        return build_shard(collection_class, shard, Path(folder), options, threads=1)
    except HarnessError:
        raise
    except OSError as e:
        raise EngineError(f"{_where()} cannot write the shard index in {folder}: {e}") from None


@_on_worker
def merge_task(indexes: list[str], target: str):
    """Merge the shard indexes into `target` (nothing to merge for one shard): (stats, versions)."""
    missing = [p for p in indexes if not os.path.isdir(p)]
    if missing:
        raise EngineError(
            f"{_where()} cannot see the shard index {missing[0]} another worker built: the index folder must be "
            "on a file system every worker shares, at the same path"
        )
    if len(indexes) > 1:
        merge_indexes([Path(p) for p in indexes], Path(target))
    return index_stats(Path(target)), lucene.versions()
