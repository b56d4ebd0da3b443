"""The documents and their index: the `collection:` and `index:` sections of the schema."""

from __future__ import annotations

from harness.config.keys import Key
from harness.config.limits import MAX_THREADS
from harness.formats.catalog import COLLECTION_FORMATS, choices
from harness.policies import DEFAULT_LANGUAGE, LANGUAGES

__all__ = ["COLLECTION", "INDEX"]

COLLECTION = Key(
    "collection",
    "section",
    "The documents to index; a plain string is their path, its format read from the files (see "
    "`format`). Without it, `index.path` must name an existing index (built by Anserini's "
    "IndexCollection, Pyserini or the harness), which is only read.",
    shorthand="path",
    keys=(
        Key("path", "path", "The collection: a file or a folder (or `irds` instead).", must_exist=True),
        Key(
            "format",
            "collection-format",
            "How the documents are stored ("
            + "; ".join(f"`{f.name}`: {f.doc}" for f in COLLECTION_FORMATS.values() if f.written)
            + "). Left out, it is read from the files where they show one format: a BEIR "
            "dataset folder, or a file whose first lines only one format reads (`pid<TAB>text`, JSON "
            "lines of `id` and `contents`, ...); a warning and manifest.json say which. A folder of "
            "another kind, or lines of no one layout, need it.",
            default_text="read from the files: a BEIR folder, `pid<TAB>text` lines (tsv), JSON lines of "
            "`id` and `contents` (jsonl), ...",
            choices=choices(COLLECTION_FORMATS),
        ),
        Key(
            "fields",
            "fields",
            "A `beir` corpus with its title as a field of its own (Anserini's BeirMultifieldCollection, "
            "IndexCollection `-fields title`), searched over both fields as Anserini's SearchCollection "
            "`-fields contents=1.0 title=1.0` (its BEIR multifield regressions): `true` for those weights, "
            "or `{contents: W, title: W}`. Named after Anserini's `-fields`.",
            default_text="false: one field, title and text together",
        ),
        Key(
            "irds",
            "string",
            "Instead of `path`: the documents of an ir_datasets id (`msmarco-passage`) from its cache "
            "(`$IR_DATASETS_HOME` or `~/.ir_datasets`), streamed into the index, never downloaded.",
            pattern=r"\S+",
        ),
        Key(
            "contents",
            "string",
            "With `irds`: the document fields that make the indexed `contents`, comma-separated "
            "(`title,text`), joined by newlines.",
            default_text="title and text when both exist (as BEIR's), else the only text field, else "
            "ir_datasets' `default_text()`",
            pattern=r"[A-Za-z_]\w*(\s*,\s*[A-Za-z_]\w*)*",
        ),
    ),
)

INDEX = Key(
    "index",
    "section",
    "How the collection is indexed; the defaults follow Anserini.",
    keys=(
        Key(
            "path",
            "path",
            "Where the index lives. By default `indexes/<collection name>-<fingerprint>` "
            "in the nearest `indexes/` folder above the config (or `$HARNESS_INDEXES`), so configs "
            "over the same corpus and options share one index. Without `collection`: an existing "
            "index to search (never written to; its run cache goes under `indexes/`).",
            path_kind="dir",
        ),
        Key(
            "language",
            "choice",
            "Language of the documents and queries (ISO 639-1 code): both are analysed with the "
            "analyzer Anserini uses for it (IndexCollection/SearchCollection `-language`; see "
            "docs/config.md, Languages). `stemmer` and `stopwords` apply to `en` alone.",
            default=DEFAULT_LANGUAGE,
            choices=tuple(LANGUAGES),
        ),
        Key(
            "stemmer",
            "choice",
            "Stemmer of the English analyzer.",
            default="porter",
            choices=("porter", "krovetz", "none"),
        ),
        Key("stopwords", "bool", "Remove English stopwords (Lucene's list, as Anserini does).", default=True),
        Key(
            "vectors",
            "choice",
            "How a `vectors` collection is indexed: flat (exact search; Anserini's "
            "IndexFlatDenseVectors) or hnsw (approximate; IndexHnswDenseVectors).",
            choices=("flat", "hnsw"),
            default_text="flat for a vectors collection",
        ),
        Key(
            "quantize",
            "choice",
            "Scalar quantisation of a `vectors` index: int8 stores each number in a byte beside "
            "the floats (Anserini's -quantize.sqv: Lucene's scalar-quantised format, 8 bits), "
            "faster to search, scores approximate. Without it, float32 only.",
            choices=("int8",),
        ),
        Key("M", "int", "HNSW graph degree (Anserini's -M).", default=16, minimum=1, maximum=512),
        Key(
            "efC",
            "int",
            "HNSW beam width at construction (Anserini's -efC).",
            default=500,
            minimum=1,
            maximum=3200,
        ),
        Key(
            "threads",
            "int",
            "Threads for indexing and for searching (one JVM, one index reader; "
            "measured faster than one process per core, see docs/performance.md).",
            minimum=1,
            maximum=MAX_THREADS,
            default_text="the number of CPU cores (at most 4 x cores are used)",
        ),
        Key(
            "prebuilt",
            "string",
            "A Pyserini prebuilt index by name (`msmarco-v1-passage`, or an alias Pyserini accepts) in "
            "Pyserini's cache (`$PYSERINI_CACHE` or `~/.cache/pyserini`, `indexes/`), only read, like "
            "`path` without `collection`.",
            pattern=r"\S+",
        ),
    ),
)
