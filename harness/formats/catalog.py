"""The formats of the collections and topics a user brings: one table, each format a frozen value.

A :class:`CollectionFormat` knows its name and description (the config schema's choices and
reference, the JSON Schema and the docs read them), the Anserini collection class that reads it,
how its files are found (the files of a folder Anserini reads, a BEIR folder's one corpus file,
an ir_datasets id's files), how its documents are checked (harness.formats.json_docs), how it is
staged for Anserini (:class:`Staging`: read as it is, or converted first) and which runs search it
(``dense``: knn runs; ``weights``: impact runs; ``text``: every other model). A
:class:`TopicFormat` knows its name and description, the Anserini topic reader that reads it (and
so whether reading it starts the JVM), and which runs search it. Code elsewhere asks the value
(``fmt.dense``, ``fmt.reads_without_java``, ``fmt.staging``) and never compares a format's name
(tests/test_structure.py checks it).

A format's text, ``str(fmt)``, is its name: what a config writes, what manifest.json records and
what an index's fingerprint hashes; :func:`collection_format` and :func:`topic_format` read it
back. Two formats take an argument after a colon: ``anserini:<Reader>`` (any topic reader of
Anserini's by name) and ``irds:ID`` (the documents or queries of an ir_datasets id, which a
config names with ``irds:`` and never writes as a format; harness.formats.named).

The layouts of run files (trec, msmarco) are a sibling table, harness.policies.RUN_FORMATS: the
command line's ``--run-format`` reads it without loading formats/, and a run file is no input
Anserini reads. Qrels are TREC's (or BEIR's TSV, told by its header) or an ir_datasets id's
(harness.formats.named). What a file's first lines show, and which of these formats read it, is
harness.formats.layouts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from harness.formats.irds import PREFIX as IRDS_PREFIX
from harness.formats.json_docs import (
    DocumentCheck,
    check_beir_document,
    check_impact_document,
    check_json_document,
)

__all__ = [
    "Staging",
    "CollectionFormat",
    "TopicFormat",
    "COLLECTION_FORMATS",
    "TOPIC_FORMATS",
    "collection_format",
    "topic_format",
    "choices",
    "JSON_NAMES",
    "PARQUET_SUFFIX",
    "BEIR_CORPUS_NAMES",
    "JSONL",
    "TREC",
    "HTML",
    "TEXT_FOLDER",
    "TSV",
    "VECTORS",
    "BEIR",
    "IMPACT",
    "IRDS",
    "TSV_TOPICS",
    "JSONL_TOPICS",
    "TREC_TOPICS",
    "VECTOR_TOPICS",
    "BEIR_TOPICS",
    "IMPACT_TOPICS",
    "ANSERINI_TOPICS",
    "IRDS_TOPICS",
]

# The file names Anserini's JsonCollection reads in a folder (DocumentCollection.discover; its rule
# is case-sensitive); a single JSON file is staged under such a name.
JSON_NAMES = (".json", ".jsonl", ".gz")
PARQUET_SUFFIX = ".parquet"  # a vectors collection's Parquet files (ParquetDenseVectorCollection)
BEIR_CORPUS_NAMES = ("corpus.jsonl", "corpus.jsonl.gz")


class Staging(Enum):
    """How a collection becomes the folder Anserini's IndexCollection reads (harness.engine.staging)."""

    AS_IS = "its folder as it is; a single file linked into a folder of its own"
    TEXT_FILES = "each .txt file written as one JSON document (its id the path in the folder)"
    PASSAGES = "MS MARCO's passages converted to JSON as anserini-tools' convert_collection_to_jsonl.py does"
    DATASET = "the ir_datasets documents streamed into one JSON-lines file"


@dataclass(frozen=True)
class CollectionFormat:
    """A collection format: see the module's docstring. ``suffixes`` None: every file of a folder
    is read."""

    name: str
    doc: str
    anserini: str  # the Anserini collection class (IndexCollection -collection)
    anserini_parquet: str | None = None  # the class for Parquet files (vectors)
    anserini_fields: str | None = None  # the class with collection.fields: the title a field of its own (beir)
    # The files a folder holds that are read, and how they are found. Anserini walks the folder
    # itself: hidden files and folders are read too (but by a text folder, which we convert).
    suffixes: tuple[str, ...] | None = None  # names ending so (matched in any case but with exact_names)
    exact_names: bool = False  # names matched as Anserini matches them, case-sensitively
    skipped_names: tuple[str, ...] = ()  # names starting so are not read (Anserini's TrecCollection: readme)
    skipped_folders: frozenset[str] = frozenset()  # folders not entered (the TREC disks' cr, dtd, dtds)
    hidden_read: bool = True
    corpus_names: tuple[str, ...] = ()  # a folder's one corpus file, by name (a BEIR dataset folder)
    anserini_names: tuple[str, ...] | None = None  # a single file is staged under a name ending so
    # How the documents are checked before Anserini reads them (harness.engine.contents): each one
    # parsed and checked, or (scanned) a scan of the bytes first, every line parsed only when it
    # finds a doubtful one; <DOCNO> ids checked when Anserini's counters show errors.
    documents: DocumentCheck | None = None
    scanned: bool = False
    docno_ids: bool = False
    staging: Staging = Staging.AS_IS
    line_shards: bool = False  # its JSON lines may be cut into shards at line boundaries (harness.engine.shards)
    ids_from_paths: bool = False  # Anserini takes each id from its file's path: indexed in one piece
    dense: bool = False  # document vectors: a dense index, searched by knn runs
    weights: bool = False  # term weights: an impact index, searched by impact runs
    plain_text: bool = False  # its lines are read from an uncompressed file (a .gz is refused)
    written: bool = True  # a config's collection.format may name it (irds: comes from collection.irds)
    argument: str = ""  # what follows the colon in its text (irds:ID)
    arg: str = ""  # that argument, in a format that has one

    def __str__(self) -> str:
        return f"{self.name}:{self.arg}" if self.argument else self.name

    @property
    def choice(self) -> str:
        """How the schema lists it: its name, or ``name:<argument>``."""
        return f"{self.name}:{self.argument}" if self.argument else self.name

    @property
    def text(self) -> bool:
        """Text documents: an inverted index, searched by every model but knn and impact."""
        return not (self.dense or self.weights)

    @property
    def dataset(self) -> tuple[str, tuple[str, ...]] | None:
        """An ir_datasets collection's id and the fields its documents are indexed with
        (``irds:ID#title,text``); None for files."""
        if self.staging is not Staging.DATASET:
            return None
        dataset_id, _, fields = self.arg.partition("#")
        return dataset_id, tuple(f for f in fields.split(",") if f)

    def of(self, arg: str) -> CollectionFormat:
        """This format with its argument: ``IRDS.of("beir/scifact#title,text")``."""
        return replace(self, arg=arg)


@dataclass(frozen=True)
class TopicFormat:
    """A topics format: see the module's docstring."""

    name: str
    doc: str
    reader: str | None = None  # the Anserini topic reader (TrecTopicReader's "Trec"); None: read in Python
    names_reader: bool = False  # its argument names the Anserini topic reader (anserini:<Reader>)
    dense: bool = False  # query vectors: searched by knn runs on a vectors collection
    weights: bool = False  # query term weights: searched by impact runs
    # BEIR's queries.jsonl: with qrels, only the queries they judge are searched (the split), and
    # by default each query's own document is left out of its ranking (topics.remove_query)
    judged_split: bool = False
    ir_datasets: bool = False  # the queries of an ir_datasets id (irds:ID#FIELD)
    plain_text: bool = False  # read from an uncompressed file (a .gz is refused)
    written: bool = True  # a config's topics.format may name it (irds: comes from topics.irds)
    argument: str = ""  # what follows the colon in its text: <Reader> (anserini:), ID (irds:)
    arg: str = ""

    def __str__(self) -> str:
        return f"{self.name}:{self.arg}" if self.argument else self.name

    @property
    def choice(self) -> str:
        return f"{self.name}:{self.argument}" if self.argument else self.name

    @property
    def reads_without_java(self) -> bool:
        """Read in Python, so ``harness validate`` checks its ids against the qrels: every format
        but those an Anserini topic reader reads (trec, ``anserini:<Reader>``)."""
        return self.reader is None and not self.names_reader

    @property
    def dataset(self) -> tuple[str, str | None] | None:
        """An ir_datasets topic set's id and the query field named (``irds:ID#FIELD``); None for files."""
        if not self.ir_datasets:
            return None
        dataset_id, _, field = self.arg.partition("#")
        return dataset_id, field or None

    def of(self, arg: str) -> TopicFormat:
        """This format with its argument: ``ANSERINI_TOPICS.of("TsvInt")``."""
        return replace(self, arg=arg, reader=arg if self.names_reader else self.reader)


JSONL = CollectionFormat(
    "jsonl",
    'documents as JSON lines, `{"id": ..., "contents": ...}` (a file, or a folder\'s .json, .jsonl and .gz '
    "files), Anserini's JsonCollection",
    "JsonCollection",
    suffixes=JSON_NAMES,
    exact_names=True,
    anserini_names=JSON_NAMES,
    documents=check_json_document,
    scanned=True,
    line_shards=True,
)
TREC = CollectionFormat(
    "trec",
    "TREC documents, `<DOC><DOCNO>` (a file or a folder, .gz too), Anserini's TrecCollection",
    "TrecCollection",
    skipped_names=("readme", "README"),
    skipped_folders=frozenset({"cr", "CR", "dtd", "DTD", "dtds", "DTDS"}),
    docno_ids=True,
)
HTML = CollectionFormat(
    "html",
    "HTML files, each a document named by its file, Anserini's HtmlCollection",
    "HtmlCollection",
    ids_from_paths=True,
)
TEXT_FOLDER = CollectionFormat(
    "text-folder",
    "one document per .txt file, its id the path relative to `path`",
    "JsonCollection",
    suffixes=(".txt",),
    hidden_read=False,
    staging=Staging.TEXT_FILES,
    line_shards=True,
)
TSV = CollectionFormat(
    "tsv",
    "MS MARCO's passages, `pid<TAB>text` per line, indexed as Anserini indexes its JSON conversion",
    "JsonCollection",  # converted first, as Anserini's convert_collection_to_jsonl.py does
    suffixes=(".tsv",),
    staging=Staging.PASSAGES,
    line_shards=True,
    plain_text=True,
)
VECTORS = CollectionFormat(
    "vectors",
    'the user\'s own vectors, `{"docid": ..., "vector": [...]}` per line or Parquet files with those '
    "columns, searched by `knn` runs",
    "JsonDenseVectorCollection",  # indexed by IndexFlat/HnswDenseVectors (engine.index)
    anserini_parquet="ParquetDenseVectorCollection",
    suffixes=(".jsonl", ".json", ".jsonl.gz", ".json.gz", PARQUET_SUFFIX),
    dense=True,
)
BEIR = CollectionFormat(
    "beir",
    "a BEIR dataset folder's corpus.jsonl or corpus.jsonl.gz, or that file, indexed as Anserini's "
    "BeirFlatCollection: title, a line break, text",
    "BeirFlatCollection",
    anserini_fields="BeirMultifieldCollection",
    corpus_names=BEIR_CORPUS_NAMES,
    anserini_names=JSON_NAMES,
    documents=check_beir_document,
)
IMPACT = CollectionFormat(
    "impact",
    'the user\'s own term weights, `{"id": ..., "vector": {term: weight}}` (JsonVectorCollection), '
    "searched by `impact` runs",
    "JsonVectorCollection",  # indexed -impact -pretokenized (engine.index); it reads every file of a folder
    documents=check_impact_document,
    weights=True,
)
IRDS = CollectionFormat(
    IRDS_PREFIX.removesuffix(":"),
    "the documents of an ir_datasets id, streamed from its cache into one JSON-lines file",
    "JsonCollection",
    staging=Staging.DATASET,
    line_shards=True,
    written=False,
    argument="ID",
)

TSV_TOPICS = TopicFormat(
    "tsv",
    "`qid<TAB>query` (a further field is ignored, as Anserini's TSV readers ignore it)",
    plain_text=True,
)
JSONL_TOPICS = TopicFormat(
    "jsonl",
    "JSON lines, the id `qid`, `id`, `query_id` or `_id`, the text `query`, `text` or `title`",
)
TREC_TOPICS = TopicFormat(
    "trec", "TREC topics (`<top>`), read by Anserini's TrecTopicReader, the query its `<title>`", reader="Trec"
)
VECTOR_TOPICS = TopicFormat(
    "vectors",
    'query vectors, `{"qid": ..., "vector": [...]}` per line or Parquet (`knn` runs)',
    dense=True,
)
BEIR_TOPICS = TopicFormat(
    "beir",
    "a BEIR queries.jsonl (`_id`, `text`), of which, with `qrels`, only the queries the qrels judge are "
    "searched (as Pyserini's BEIR topics: those of the test split's qrels)",
    judged_split=True,
)
IMPACT_TOPICS = TopicFormat(
    "impact",
    'query term weights, `{"id": ..., "vector": {term: weight}}` per line (`impact` runs also search any '
    "text format as pretokenized queries)",
    weights=True,
)
ANSERINI_TOPICS = TopicFormat(
    "anserini",
    "one of Anserini's topic readers by name (e.g. `anserini:TsvInt`, `anserini:Trec`)",
    names_reader=True,
    argument="<Reader>",
)
IRDS_TOPICS = TopicFormat(
    IRDS_PREFIX.removesuffix(":"),
    "the queries of an ir_datasets id (`irds:ID#FIELD`: a named query field)",
    ir_datasets=True,
    written=False,
    argument="ID",
)

COLLECTION_FORMATS: dict[str, CollectionFormat] = {
    f.name: f for f in (JSONL, TREC, HTML, TEXT_FOLDER, TSV, VECTORS, BEIR, IMPACT, IRDS)
}
TOPIC_FORMATS: dict[str, TopicFormat] = {
    f.name: f
    for f in (
        TSV_TOPICS,
        JSONL_TOPICS,
        TREC_TOPICS,
        VECTOR_TOPICS,
        BEIR_TOPICS,
        IMPACT_TOPICS,
        ANSERINI_TOPICS,
        IRDS_TOPICS,
    )
}


def choices(table: dict[str, CollectionFormat] | dict[str, TopicFormat]) -> tuple[str, ...]:
    """What a config may write, in the table's order: ``('tsv', ..., 'anserini:<Reader>')``.

    >>> choices(COLLECTION_FORMATS)
    ('jsonl', 'trec', 'html', 'text-folder', 'tsv', 'vectors', 'beir', 'impact')
    """
    return tuple(f.choice for f in table.values() if f.written)


def collection_format(text: str) -> CollectionFormat | None:
    """The collection format ``text`` names (``jsonl``, ``irds:beir/scifact#title,text``), or None.

    >>> str(collection_format("irds:beir/scifact")), collection_format("irds:beir/scifact").dataset
    ('irds:beir/scifact', ('beir/scifact', ()))
    """
    return _parse(COLLECTION_FORMATS, text)


def topic_format(text: str) -> TopicFormat | None:
    """The topics format ``text`` names (``tsv``, ``anserini:TsvInt``, ``irds:ID#title``), or None.

    >>> topic_format("anserini:TsvInt").reader, topic_format("trec").reads_without_java
    ('TsvInt', False)
    """
    return _parse(TOPIC_FORMATS, text)


def _parse(table, text):
    fmt = table.get(text)
    if fmt is not None:
        return None if fmt.argument else fmt
    name, colon, arg = text.partition(":")
    fmt = table.get(name)
    if colon and fmt is not None and fmt.argument:
        return fmt.of(arg)
    return None
