"""Anserini's indexers run from Python: IndexCollection (IndexFlatDenseVectors and
IndexHnswDenseVectors for vectors) given its Args from the index options (harness.engine.index:
``IndexOptions.anserini()``), its progress reported while it runs, its counters read after, and
what the manifest records of the index it built: the statistics of its "contents" field and the
ids of the documents it counted empty.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from harness.engine import lucene
from harness.engine.analysis import analyzer as make_analyzer
from harness.engine.corpus import Corpus
from harness.engine.options import IndexOptions
from harness.engine.staging import stage
from harness.errors import EngineError
from harness.events import Emit, Progress, ignore

__all__ = [
    "run_index_collection",
    "progress_to",
    "indexer_args",
    "index_stats",
    "empty_document_ids",
    "EMPTY_IDS_KEPT",
]

# Where a build in this process reports its progress: (emit, the documents the check counted or
# None), set by progress_to around the build, read by run_index_collection (a Builder's signature
# is the executors' too, and a Dask worker's build reports nothing).
_PROGRESS: ContextVar[tuple[Emit, int | None] | None] = ContextVar("harness_index_progress", default=None)


def run_index_collection(
    collection_class: str, source: Path, target: Path, options: IndexOptions, threads: int
) -> dict[str, int]:
    # IndexCollection builds its analyzer itself and, when that fails (Thai on a Java without
    # Thai segmentation), logs it and indexes nothing: build ours first, which says why.
    if options.vectors is None:
        make_analyzer(options)
    IndexCollection = lucene.jclass(f"io.anserini.index.{options.indexer}")
    args = indexer_args(collection_class, source, target, options, threads)
    try:
        indexer = IndexCollection(args)
        with lucene.java_output_hidden():
            # Ctrl-C acts at once, not when the build ends; the documents indexed so far, as progress
            lucene.interruptible(indexer.run, poll=_index_progress(indexer))
        c = indexer.getCounters()
    except Exception as e:
        raise EngineError(f"Anserini {options.indexer} failed on {source}: {e}") from e
    return {k: int(getattr(c, k).get()) for k in ("indexed", "empty", "unindexable", "skipped", "errors")}


@contextmanager
def progress_to(on: Emit, total: int | None) -> Iterator[None]:
    """Within it, a build in this thread reports its progress to ``on``: the documents indexed of
    ``total`` (those the check counted, or None)."""
    token = _PROGRESS.set((on, total))
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def _index_progress(indexer: Any) -> Callable[[], None] | None:
    """A poll that emits the documents IndexCollection has indexed so far (its counters), or None
    when nobody listens (harness.events.Progress)."""
    sink = _PROGRESS.get()
    if sink is None or sink[0] is ignore:
        return None
    on, total = sink
    t0 = time.perf_counter()

    def poll() -> None:
        try:
            done = int(indexer.getCounters().indexed.get())
        except Exception:  # no counters yet
            return
        on(Progress("indexing", done, total, time.perf_counter() - t0, "documents"))

    return poll


def indexer_args(collection_class: str, source: Path, target: Path, options: IndexOptions, threads: int) -> Any:
    """The Args of the indexer class (IndexCollection's for text) the harness builds with."""
    args = lucene.jclass(f"io.anserini.index.{options.indexer}$Args")()
    args.collectionClass = collection_class
    args.input = str(source)
    args.index = str(target)
    args.threads = int(threads)
    args.quiet = True
    for key, value in options.anserini().items():
        if isinstance(value, list):  # a String[] (-fields title), which pyjnius cannot assign
            lucene.jclass("harness.IndexerArgs").setStrings(args, key, value)
        elif key != "indexer":  # the class itself (part of the fingerprint), not one of its Args
            setattr(args, key, value)
    return args


# How many of the documents IndexCollection counted as empty the manifest names (the rest counted)
EMPTY_IDS_KEPT = 5


def empty_document_ids(corpus: Corpus, options: IndexOptions, work: Path, count: int) -> list[str]:
    """The ids of the first empty documents (at most :data:`EMPTY_IDS_KEPT` of ``count``, the
    counter IndexCollection reported), in collection order: harness.EmptyDocs reads the collection
    again with IndexCollection's own collection and generator classes, only when the counter is
    not 0, and stops at the last id kept (Cranfield's 1,400 documents: ~0.1 s)."""
    if count <= 0 or options.vectors is not None:
        return []
    staged = work / "staged"  # an ir_datasets collection, streamed once for the build: read again
    reuse = corpus.dataset is not None and (staged / "docs.jsonl").is_file()
    source = staged if reuse else stage(corpus, work / "empty-scan")
    args = indexer_args(corpus.anserini_class, source, work / "empty-scan-index", options, 1)
    try:
        found = lucene.jclass("harness.EmptyDocs").find(
            corpus.anserini_class, str(source), args, min(count, EMPTY_IDS_KEPT)
        )
    except Exception as e:
        raise EngineError(f"cannot name the empty documents of {corpus.path}: {e}") from e
    return [str(d) for d in found]


def index_stats(path: Path) -> dict[str, int]:
    """Documents and terms of the "contents" field (IndexInfo.indexStats: one Java call;
    the same numbers as Anserini's IndexReaderUtils.getIndexStats)."""
    try:
        docs, non_empty, total, unique = lucene.jclass("harness.IndexInfo").indexStats(str(path))
    except Exception as e:
        raise EngineError(f"cannot read the statistics of index {path}: {e}") from e
    return {"documents": docs, "non_empty_documents": non_empty, "total_terms": total, "unique_terms": unique}
