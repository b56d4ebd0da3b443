"""Indexing through Anserini's IndexCollection, reused only when a fingerprint matches.

The fingerprint covers the corpus (every file's path and bytes), the index options, the
document generator and store flags, and the Anserini version. A built index holds a manifest,
``harness-index.json``, with the fingerprint, the counters IndexCollection reported and the
index statistics, and is the marker that the harness built the folder (only such a folder is
ever replaced). An index is built in a temporary folder beside its destination and swapped into
place in one step only when complete, so an interrupted build never leaves a half index that
would be reused, and a rebuild keeps the old index until then (see harness.folders).
"""

from __future__ import annotations

import errno
import hashlib
import json
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from pathlib import Path

from harness.engine import lucene
from harness.engine.analysis import analyzer as make_analyzer
from harness.engine.corpus import Corpus, VectorScan
from harness.errors import DataError, EngineError
from harness.events import Emit, IndexBuild, IndexRebuild, Progress, ignore
from harness.files import disk_full, write_json_atomic
from harness.folders import (
    INDEX_MANIFEST,
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
from harness.policies import DEFAULT_LANGUAGE, LANGUAGES

__all__ = [
    "IndexOptions",
    "IndexInfo",
    "Built",
    "Builder",
    "build_here",
    "index_fingerprint",
    "ensure_index",
    "open_manifest",
    "read_manifest",
    "unusable_index",
    "empty_document_ids",
    "MANIFEST",
]

MANIFEST = INDEX_MANIFEST
INDEX_LAYOUT = 1  # bump when what the harness asks IndexCollection to store changes
# Where a build in this process reports its progress: (emit, the documents the check counted or
# None), set by ensure_index around the Builder, read by run_index_collection (a Builder's
# signature is the executors' too, and a Dask worker's build reports nothing).
_PROGRESS: ContextVar[tuple[Emit, int | None] | None] = ContextVar("harness_index_progress", default=None)


@dataclass(frozen=True)
class IndexOptions:
    """What changes the index. Defaults are Anserini's: Porter stemming, English stopwords removed."""

    stemmer: str = "porter"  # porter | krovetz | none
    stopwords: bool = True  # True: remove Anserini's English stopwords
    # How document lengths are stored: "lucene", Lucene's one-byte norms, which every similarity
    # but accurate BM25 decodes; "exact", the exact number of terms (IndexCollection
    # -bm25.accurate), which only Anserini's AccurateBM25Similarity reads. The experiment builds
    # an "exact" index beside the ordinary one for the runs that need it (harness.experiment.plan).
    lengths: str = "lucene"
    # The analyzer's language (harness.policies.LANGUAGES): "en" is DefaultEnglishAnalyzer with
    # the two options above; any other code is the analyzer Anserini picks for it (IndexCollection
    # -language), and the stemmer and stopword options mean nothing there.
    language: str = DEFAULT_LANGUAGE
    # A dense index of the user's vectors (a "vectors" collection): "flat" (Anserini's
    # IndexFlatDenseVectors, exact search) or "hnsw" (IndexHnswDenseVectors with M and efC,
    # Anserini's defaults); None for the inverted index of text. The analyzer options mean nothing then.
    vectors: str | None = None
    M: int = 16
    efC: int = 500
    # "int8": the vectors also stored scalar-quantised to a byte each (Anserini's -quantize.sqv,
    # Lucene's scalar-quantised formats); None: float32 only.
    quantize: str | None = None
    # An index of the user's term weights (an "impact" collection, Anserini's JsonVectorCollection):
    # IndexCollection -impact -pretokenized, so each term is indexed as written (Lucene's
    # WhitespaceAnalyzer) with its weight as its frequency, and ImpactSimilarity's norms. No
    # positions or document vectors (nothing the harness searches reads them; Anserini's own
    # impact indexes store neither); the raw document is kept for the report. The analyzer options
    # mean nothing then.
    impact: bool = False
    # A multifield index (a beir collection with fields): the fields searched and their weights,
    # ("contents", w), ("title", w)...; the fields besides "contents" are indexed apart
    # (IndexCollection -fields). The weights change runs, not the index: they are not in anserini().
    fields: tuple[tuple[str, float], ...] = ()

    @property
    def indexer(self) -> str:
        """The Anserini indexer class that builds the index (its Args take anserini()'s keys)."""
        return {None: "IndexCollection", "flat": "IndexFlatDenseVectors", "hnsw": "IndexHnswDenseVectors"}[self.vectors]

    def anserini(self) -> dict:
        if self.impact:
            return {
                "generatorClass": "DefaultLuceneDocumentGenerator",
                "impact": True,
                "pretokenized": True,
                "storePositions": False,
                "storeDocvectors": False,
                "storeRaw": True,
            }
        if self.vectors is not None:
            args = {"indexer": self.indexer, "generatorClass": "DenseVectorDocumentGenerator"}
            if self.vectors == "hnsw":
                args.update(M=self.M, efC=self.efC)
            if self.quantize == "int8":  # only then: unquantised indexes keep their fingerprints
                args["quantizeSQV"] = True
            return args
        args = {
            "generatorClass": "DefaultLuceneDocumentGenerator",
            "stemmer": self.stemmer,
            "keepStopwords": not self.stopwords,
            "storePositions": True,
            "storeDocvectors": True,
            "storeRaw": True,
        }
        if self.lengths == "exact":  # only then: the fingerprints of ordinary indexes stay as they were
            args["bm25Accurate"] = True
        if self.language != DEFAULT_LANGUAGE:
            # Only then: English indexes keep the fingerprints they had before languages existed.
            args["language"] = self.language
        if self.fields:  # only then, likewise
            args["fields"] = [name for name, _ in self.fields if name != "contents"]
        return args

    def recorded(self) -> dict:
        """The options as a manifest records them: ``language`` only when it is not English, so
        an English index's manifest reads as it did before languages existed."""
        out = asdict(self)
        if self.language == DEFAULT_LANGUAGE:
            del out["language"]
        if self.quantize is None:
            del out["quantize"]
        if not self.impact:  # only then: the other indexes' manifests read as before
            del out["impact"]
        else:
            for key in ("stemmer", "stopwords", "language"):
                out.pop(key, None)  # no analyzer options in an impact index
        if not self.fields:
            del out["fields"]
        else:
            out["fields"] = dict(self.fields)
        if self.vectors is None:  # a text index's manifest reads as before dense indexes existed
            del out["vectors"], out["M"], out["efC"]
            return out
        for key in ("stemmer", "stopwords", "lengths", "language", *(("M", "efC") if self.vectors == "flat" else ())):
            out.pop(key, None)  # no analyzer, no lengths in a vectors index
        return out

    @classmethod
    def from_manifest(cls, opts: dict) -> IndexOptions:
        """The options a harness-index.json records (keys of older manifests default)."""
        keys = ("stemmer", "stopwords", "lengths", "language", "vectors", "M", "efC", "quantize", "impact")
        return cls(**{k: v for k, v in opts.items() if k in keys})


@dataclass(frozen=True)
class IndexInfo:
    path: Path
    fingerprint: str
    options: IndexOptions
    manifest: dict
    reused: bool


@dataclass(frozen=True)
class Built:
    """What a builder left in its work folder: the index and what the manifest records of it."""

    index: Path
    counters: dict  # IndexCollection's, summed over shards
    stats: dict  # index_stats(index)
    built_by: dict  # lucene.versions() of the process that built it
    shards: int = 1


# (corpus, options, work folder beside the destination, threads) -> Built. The default builds in
# this process; harness.experiment.executors offers one that builds shards on Dask workers.
Builder = Callable[[Corpus, IndexOptions, Path, int], Built]


def build_here(corpus: Corpus, options: IndexOptions, work: Path, threads: int) -> Built:
    """One IndexCollection run in this process."""
    source = corpus.stage(work / "staged")
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


# The manifest's keys a reader relies on, and their types (anything else is kept as written).
_MANIFEST_TYPES = {"fingerprint": str, "options": dict, "stats": dict, "counters": dict}
_STEMMERS = ("porter", "krovetz", "none")
LENGTHS = ("lucene", "exact")
VECTOR_INDEXES = (None, "flat", "hnsw")


def read_manifest(path: Path) -> tuple[dict | None, str | None]:
    """(manifest, None) for a usable ``harness-index.json`` in ``path``; (None, None) when there is
    none; (None, what is wrong) when it is there but unreadable, empty, not JSON, or not of the
    shape the harness writes. Never raises."""
    file = Path(path) / MANIFEST
    try:
        if not file.exists():
            return None, None
        if not file.is_file():
            return None, "is not a regular file"
        raw = file.read_bytes()
    except OSError as e:
        return None, f"cannot be read ({e.strerror or e})"
    if not raw.strip():
        return None, "is empty"
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        return None, f"is not JSON ({str(e).splitlines()[0][:120]})"
    if not isinstance(manifest, dict):
        return None, f"holds a JSON {type(manifest).__name__}, not the object the harness writes"
    for key, kind in _MANIFEST_TYPES.items():
        if key not in manifest:
            return None, f"has no {key!r}"
        if not isinstance(manifest[key], kind) or (key == "fingerprint" and not manifest[key]):
            return None, f"has a {key!r} that is not a {'non-empty string' if kind is str else 'mapping'}"
    opts = manifest["options"]
    if (
        opts.get("stemmer", "porter") not in _STEMMERS
        or not isinstance(opts.get("stopwords", True), bool)
        or opts.get("lengths", "lucene") not in LENGTHS
        or opts.get("language", DEFAULT_LANGUAGE) not in LANGUAGES
        or opts.get("vectors") not in VECTOR_INDEXES
        or opts.get("quantize") not in (None, "int8")
        or not isinstance(opts.get("impact", False), bool)
        or any(not isinstance(opts.get(k, 1), int) or isinstance(opts.get(k), bool) for k in ("M", "efC"))
    ):
        return None, "has index options the harness does not write (stemmer, stopwords, lengths, language, vectors)"
    return manifest, None


def open_manifest(path: Path) -> dict | None:
    """The manifest when it is usable, else None (see :func:`read_manifest` for why not)."""
    return read_manifest(path)[0]


def unusable_index(path: Path, why: str) -> str:
    """The message for an index folder whose manifest is unusable, with the one command that fixes it."""
    return (
        f"{MANIFEST} {why}: {path} is not a usable harness index. Remove the folder "
        f"(rm -r '{path}') and run again: the harness builds it anew"
    )


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
        if manifest is not None and manifest.get("fingerprint") == fp:
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
) -> dict:
    check_writable(path.parent, tree=False)  # where the new index is built
    check_writable(path)  # the previous index, removed once replaced
    work = temp_sibling(path, "building")
    remove_tree(work)
    target = work / "index"
    previous = None
    try:
        on(IndexBuild(str(corpus.path), corpus.format, str(path)))
        # what Anserini would convert or throw on, refused with its line; and the fingerprint
        checked = _check_contents(corpus, (lambda: fp) if fp else (lambda: index_fingerprint(corpus, options)))
        t0 = time.perf_counter()
        # the documents the check counted (a vectors collection is checked beside the build)
        total = checked()[0] if corpus.format != "vectors" else None
        token = _PROGRESS.set((on, total))
        try:
            built = build(corpus, options, work, threads)
        except Exception:
            checked()  # a bad vector explains a failed build better than Anserini's error does
            raise
        finally:
            _PROGRESS.reset(token)
        documents, fp = checked()
        seconds = time.perf_counter() - t0
        target, counters = built.index, built.counters
        corpus.check_complete(counters, documents)
        if counters["indexed"] == 0:
            raise DataError(
                corpus.path, f"Anserini indexed no documents from the {corpus.format} collection ({counters})"
            )
        manifest = {
            "fingerprint": fp,
            "collection": {"path": str(corpus.path), "format": corpus.format, "anserini_class": corpus.anserini_class},
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


def _check_contents(corpus: Corpus, fingerprint: Callable[[], str]) -> Callable[[], tuple[int | None, str]]:
    """Check the corpus (Corpus.check_contents) and take its fingerprint; the function returned
    raises what the check found, or gives the documents it counted and the fingerprint.

    A vectors collection is checked on a thread of its own while Anserini indexes it: the
    check parses every number (orjson, then numpy: 70-100 us per 768-number line, about half
    of what IndexFlatDenseVectors takes to index it), and the fingerprint reads every byte again,
    while Anserini reads one file on one thread, so the check takes the other core instead of
    adding its time. Nothing of the build is kept before the check has passed (it is built in
    `work`, swapped in only after), so a bad vector still fails the build with the file, line
    and problem, and leaves no index."""
    if corpus.format != "vectors":
        documents = corpus.check_contents()
        fp = fingerprint()
        return lambda: (documents, fp)
    box: dict = {}
    scan = _vector_scan(corpus)

    def work():
        try:
            box["fingerprint"] = fingerprint()
            box["documents"] = corpus.check_contents(scan)
        except BaseException as e:  # handed to the building thread
            box["error"] = e
        finally:
            if scan is not None:
                lucene.detach()  # this thread called Java

    thread = threading.Thread(target=work, name="harness-vector-check", daemon=True)
    thread.start()

    def checked() -> tuple[int | None, str]:
        thread.join()
        if "error" in box:
            raise box["error"]
        return box["documents"], box["fingerprint"]

    return checked


# Collections smaller than this are checked by Python alone: 1,000 lines of 768 numbers, ~0.1 s
_SCAN_FROM_BYTES = 8 << 20


def _vector_scan(corpus: Corpus) -> VectorScan | None:
    """The Java first pass of the vectors' check (harness.VectorLines; Corpus.check_vectors) for a
    large JSON-lines collection, None otherwise. It scans about 3 ns a byte (1.2 s for the dense
    bench's 366 MB) where the Python check takes 90-120 us per 768-number line (6-8 s there),
    which competed with Anserini's indexer and the JIT for the second core. Its class is resolved here, on the building thread, so that the JVM
    (which the build starts anyway) is never started from the check's thread (the JVM's start
    takes the signal handlers, which only the main thread puts back: lucene._start)."""
    if corpus.parquet:
        return None
    try:
        size = sum(f.stat().st_size for f in corpus.files() if not f.name.endswith(".gz"))
    except (OSError, DataError):
        return None  # the check names it
    if size < _SCAN_FROM_BYTES:
        return None
    scanner = lucene.jclass("harness.VectorLines")

    def scan(f: Path, limit: int, dims: int) -> tuple[int, int, int, int]:
        try:
            doubtful, recognised, dim, first = scanner.scan(str(f), limit, dims)
        except Exception:  # unreadable, vanished...: the Python check reads it and says what is wrong
            return 1, 0, 0, 0
        return int(doubtful), int(recognised), int(dim), int(first)

    return scan


def run_index_collection(
    collection_class: str, source: Path, target: Path, options: IndexOptions, threads: int
) -> dict:
    # IndexCollection builds its analyzer itself and, when that fails (Thai on a Java without
    # Thai segmentation), logs it and indexes nothing: build ours first, which says why.
    if options.vectors is None:
        make_analyzer(options)
    IndexCollection = lucene.jclass(f"io.anserini.index.{options.indexer}")
    args = _indexer_args(collection_class, source, target, options, threads)
    try:
        indexer = IndexCollection(args)
        with lucene.java_output_hidden():
            # Ctrl-C acts at once, not when the build ends; the documents indexed so far, as progress
            lucene.interruptible(indexer.run, poll=_index_progress(indexer))
        c = indexer.getCounters()
    except Exception as e:
        raise EngineError(f"Anserini {options.indexer} failed on {source}: {e}") from e
    return {k: int(getattr(c, k).get()) for k in ("indexed", "empty", "unindexable", "skipped", "errors")}


def _index_progress(indexer):
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


def _indexer_args(collection_class: str, source: Path, target: Path, options: IndexOptions, threads: int):
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
    source = staged if reuse else corpus.stage(work / "empty-scan")
    args = _indexer_args(corpus.anserini_class, source, work / "empty-scan-index", options, 1)
    try:
        found = lucene.jclass("harness.EmptyDocs").find(
            corpus.anserini_class, str(source), args, min(count, EMPTY_IDS_KEPT)
        )
    except Exception as e:
        raise EngineError(f"cannot name the empty documents of {corpus.path}: {e}") from e
    return [str(d) for d in found]


def index_stats(path: Path) -> dict:
    """Documents and terms of the "contents" field (IndexInfo.indexStats: one Java call;
    the same numbers as Anserini's IndexReaderUtils.getIndexStats)."""
    try:
        docs, non_empty, total, unique = lucene.jclass("harness.IndexInfo").indexStats(str(path))
    except Exception as e:
        raise EngineError(f"cannot read the statistics of index {path}: {e}") from e
    return {"documents": docs, "non_empty_documents": non_empty, "total_terms": total, "unique_terms": unique}
