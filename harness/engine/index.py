"""An index's life: its fingerprint, and its build through Anserini's IndexCollection, reused only
when the fingerprint matches. What changes an index, :class:`IndexOptions`, is
harness.engine.options' (and imported from here by those who build and open indexes).

The fingerprint covers the corpus (every file's path and bytes), the index options, the
document generator and store flags, and the Anserini version. A built index holds a manifest,
``harness-index.json`` (harness.engine.manifest), with the fingerprint, the counters
IndexCollection reported and the index statistics, and is the marker that the harness built the
folder (only such a folder is ever replaced). An index is built in a temporary folder beside its
destination and swapped into place in one step only when complete, so an interrupted build never
leaves a half index that would be reused, and a rebuild keeps the old index until then (see
harness.folders). The build's parts are their own modules: the corpus staged for Anserini
(harness.engine.staging), its documents checked before and after (harness.engine.contents),
IndexCollection run with its arguments (harness.engine.indexer).
"""

from __future__ import annotations

import errno
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.engine import lucene
from harness.engine.contents import check_complete, start_checks
from harness.engine.corpus import Corpus
from harness.engine.indexer import empty_document_ids, index_stats, progress_to, run_index_collection
from harness.engine.manifest import MANIFEST, read_manifest, unusable_index
from harness.engine.options import IndexOptions
from harness.engine.staging import stage
from harness.errors import DataError
from harness.events import Emit, IndexBuild, IndexRebuild, ignore
from harness.files import disk_full, write_json_atomic
from harness.folders import (
    check_writable,
    clean_interrupted,
    fsync_tree,
    in_use,
    locked,
    remove_tree,
    replace_folder,
    sweep_interrupted,
    temp_sibling,
)

__all__ = ["IndexOptions", "IndexInfo", "Built", "Builder", "build_here", "index_fingerprint", "ensure_index"]

INDEX_LAYOUT = 1  # bump when what the harness asks IndexCollection to store changes


@dataclass(frozen=True)
class IndexInfo:
    path: Path
    fingerprint: str
    options: IndexOptions
    manifest: dict[str, Any]  # harness-index.json as read (JSON values; engine.manifest)
    reused: bool


@dataclass(frozen=True)
class Built:
    """What a builder left in its work folder: the index and what the manifest records of it."""

    index: Path
    counters: dict[str, int]  # IndexCollection's, summed over shards
    stats: dict[str, int]  # harness.engine.indexer.index_stats(index)
    built_by: dict[str, str]  # lucene.versions() of the process that built it
    shards: int = 1


# (corpus, options, work folder beside the destination, threads) -> Built. The default builds in
# this process; harness.experiment.executors offers one that builds shards on Dask workers.
Builder = Callable[[Corpus, IndexOptions, Path, int], Built]


def build_here(corpus: Corpus, options: IndexOptions, work: Path, threads: int) -> Built:
    """One IndexCollection run in this process."""
    source = stage(corpus, work / "staged")
    target = work / "index"
    counters = run_index_collection(corpus.anserini_class, source, target, options, threads)
    return Built(target, counters, index_stats(target), lucene.versions())


def index_fingerprint(corpus: Corpus, options: IndexOptions) -> str:
    parts = {
        "corpus": corpus.fingerprint(),
        "collection": corpus.anserini_class,
        "options": options.anserini(),
        "anserini": lucene.anserini_version(),
        "layout": INDEX_LAYOUT,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def ensure_index(
    corpus: Corpus,
    options: IndexOptions,
    path: Path,
    *,
    threads: int = 2,
    on: Emit = ignore,
    build: Builder = build_here,
) -> IndexInfo:
    """Reuse the index at `path` when its fingerprint matches; otherwise (re)build it there with
    `build` (the fingerprint covers the corpus and options, not how the index was built).

    Under the lock of `path` (a second process building the same index waits, then reuses it).
    Leftovers of interrupted builds beside it are removed first. The old index stays in place,
    usable, until the new one is complete; then one atomic swap (harness.folders)."""
    path = Path(path).resolve()
    with locked(path, on=on):
        clean_interrupted(path, on)
        sweep_interrupted(path.parent, on)  # e.g. a killed build of another fingerprint's index
        manifest, problem = read_manifest(path)
        if problem is not None:
            raise DataError(path / MANIFEST, unusable_index(path, problem))
        # With no index there, nothing waits for the fingerprint: _build hashes the corpus while
        # Anserini reads it (a 768-dimension vectors file of 50,000 lines is 770 MB, 0.56 s of SHA-256)
        fp = None if manifest is None else index_fingerprint(corpus, options)
        if manifest is not None and fp is not None and manifest.get("fingerprint") == fp:
            return IndexInfo(path, fp, options, manifest, reused=True)
        if path.exists() and manifest is None and (not path.is_dir() or any(path.iterdir())):
            raise DataError(
                path,
                f"exists but was not built by the harness (no {MANIFEST}); the harness replaces only "
                "folders it created: remove it yourself or choose another index.path",
            )
        if manifest is not None:
            on(IndexRebuild(str(path)))
        manifest = _build(corpus, options, path, fp, threads, on, build)
        return IndexInfo(path, manifest["fingerprint"], options, manifest, reused=False)


def _build(
    corpus: Corpus, options: IndexOptions, path: Path, fp: str | None, threads: int, on: Emit, build: Builder
) -> dict[str, Any]:
    check_writable(path.parent, tree=False)  # where the new index is built
    check_writable(path)  # the previous index, removed once replaced
    work = temp_sibling(path, "building")
    remove_tree(work)
    target = work / "index"
    previous = None
    try:
        on(IndexBuild(str(corpus.path), str(corpus.format), str(path)))
        # what Anserini would convert or throw on, refused with its line; and the fingerprint
        known = fp  # taken already (a rebuild), else beside the check
        checked = start_checks(corpus, (lambda: known) if known else (lambda: index_fingerprint(corpus, options)))
        t0 = time.perf_counter()
        # the documents the check counted (a vectors collection is checked beside the build)
        total = None if corpus.format.dense else checked()[0]
        try:
            with progress_to(on, total):
                built = build(corpus, options, work, threads)
        except Exception:
            checked()  # a bad vector explains a failed build better than Anserini's error does
            raise
        documents, fp = checked()
        seconds = time.perf_counter() - t0
        target, counters = built.index, built.counters
        check_complete(corpus, counters, documents)
        if counters["indexed"] == 0:
            raise DataError(
                corpus.path, f"Anserini indexed no documents from the {corpus.format} collection ({counters})"
            )
        manifest = {
            "fingerprint": fp,
            "collection": {
                "path": str(corpus.path),
                "format": str(corpus.format),
                "anserini_class": corpus.anserini_class,
            },
            "options": options.recorded(),
            "anserini_args": options.anserini(),
            "counters": counters,
            # which documents the counter "empty" stands for (the first few; tests/test_index.py)
            "empty_ids": empty_document_ids(corpus, options, work, counters.get("empty", 0)),
            "stats": built.stats,
            "built_by": built.built_by,
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "seconds": round(seconds, 3),
            "threads": threads,
        }
        if built.shards > 1:
            manifest["shards"] = built.shards  # merged from shards built apart (harness.engine.shards)
        fsync_tree(target)
        write_json_atomic(target / MANIFEST, manifest)  # last: its presence says the index is complete
        with in_use(path, exclusive=True, on=on):  # not under a run still searching the old index
            previous = replace_folder(target, path)  # the old index (if any) now sits in `work`
        return manifest
    except BaseException as e:
        clean_interrupted(path)  # a swap cut between the two renames of the fallback: the old index back
        if not isinstance(e, (KeyboardInterrupt, OSError)) and disk_full(work):
            # Anserini logs the IOException and Lucene then finds no segments file: say what happened
            raise OSError(
                errno.ENOSPC, "no space left while building the index; the partial index is removed", str(path.parent)
            ) from e
        raise
    finally:
        remove_tree(work)
        if previous is not None and previous != target:
            remove_tree(previous)
