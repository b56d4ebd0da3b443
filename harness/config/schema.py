"""The config schema as data: ``SCHEMA`` is a tree of :class:`Key` values (type, required or
default, allowed values, doc text), and the validated result types (:class:`Config`,
:class:`CompareSpec`). Validation (``harness.config.load``) and the config reference (docs/config.md)
(``harness.config.reference``) both walk this one tree, so they cannot drift apart."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.config.execution import ENGINES, Execution
from harness.config.keys import Key
from harness.config.limits import MAX_DEPTH, MAX_RESAMPLES, MAX_THREADS
from harness.engine.similarity import Similarity, format_number
from harness.errors import ConfigProblem
from harness.policies import (
    ALIGNMENTS,
    ALL_PAIRS,
    CORRECTIONS,
    DEFAULT_DEPTH,
    DEFAULT_FOLDS,
    DEFAULT_LANGUAGE,
    DEFAULT_MEASURES,
    FAMILIES,
    LANGUAGES,
    MAX_WORKERS,
    MISSING_TOPICS,
    TESTS,
    TIES,
    ComparePolicy,
    EvalPolicy,
    StatsPolicy,
)
from harness.stats import all_pairs, pairs_against

__all__ = [
    "Key",
    "SCHEMA",
    "Config",
    "CompareSpec",
    "LocatedProblem",
    "DEFAULT_MEASURES",
    "TOPIC_FORMATS",
    "ALL_PAIRS",
    "Execution",
]

# --------------------------------------------------------------------------------------------
# The schema


TOPIC_FORMATS = ("tsv", "jsonl", "trec", "vectors", "beir", "impact", "anserini:<Reader>")


_PYSERINI_CACHE = "`$PYSERINI_CACHE` or `~/.cache/pyserini`"


def _named(file: str, what: str, how: str) -> tuple[Key, ...]:  # a file, or data named in a cache (formats.named)
    return (
        Key("path", "path", f"The {file}.", path_kind="file", must_exist=True),
        Key("pyserini", "string", f"Pyserini's {what} by name (`msmarco-passage-dev-subset`) in its cache "
            f"({_PYSERINI_CACHE}), {how}.", pattern=r"\S+"),
        Key("irds", "string", "An ir_datasets id (`msmarco-passage/dev/small`) read through the optional ir_datasets "
            "package from its cache (`$IR_DATASETS_HOME` or `~/.ir_datasets`).", pattern=r"\S+"),
    )  # fmt: skip


_FIELD = Key("field", "string", "With `irds`: the query field to search (`title`, `description`...).",
             default_text="the only text field, else ir_datasets' `default_text()`", pattern=r"[A-Za-z_]\w*")  # fmt: skip
_PREBUILT = Key("prebuilt", "string", "A Pyserini prebuilt index by name (`msmarco-v1-passage`, or an alias Pyserini "
                f"accepts) in Pyserini's cache ({_PYSERINI_CACHE}, `indexes/`), only read, like `path` without "
                "`collection`.", pattern=r"\S+")  # fmt: skip


def _registry(reg: dict[str, str]) -> str:
    return "; ".join(f"`{k}`: {v}" for k, v in reg.items())


SCHEMA = Key(
    "",
    "section",
    "An experiment.",
    required=True,
    keys=(
        Key("name", "string", "Experiment name: the report's title.", required=True, pattern=r"[A-Za-z0-9_.-]+"),
        Key(
            "collection",
            "section",
            "The documents to index. Without it, `index.path` must name an existing index (built by "
            "Anserini's IndexCollection, Pyserini or the harness), which is only read.",
            keys=(
                Key("path", "path", "The collection: a file or a folder (or `irds` instead).", must_exist=True),
                Key(
                    "format",
                    "choice",
                    "How the documents are stored, required with `path` (text-folder: one document per "
                    ".txt file, its id the path relative to `path`; tsv: MS MARCO's passages, `pid<TAB>text` "
                    "per line, indexed as Anserini indexes its JSON conversion; vectors: the user's own vectors, "
                    '`{"docid": ..., "vector": [...]}` per line or Parquet files with those columns, searched by '
                    "`knn` runs; beir: a BEIR dataset folder's corpus.jsonl or corpus.jsonl.gz, or that file, "
                    "indexed as Anserini's BeirFlatCollection: title, a line break, text; impact: the user's own "
                    'term weights, `{"id": ..., "vector": {term: weight}}` (JsonVectorCollection), searched by '
                    "`impact` runs).",
                    choices=("jsonl", "trec", "html", "text-folder", "tsv", "vectors", "beir", "impact"),
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
        ),
        Key(
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
                _PREBUILT,
            ),
        ),
        Key(
            "topics",
            "section",
            "The queries; a plain string is a path to a tsv file. Instead of `path`: `pyserini` or `irds` "
            "(docs/semantics.md, *Named data*).",
            required=True,
            shorthand="path",
            keys=(
                *_named(
                    "topics file",
                    "topic set",
                    "read with the Anserini reader its registry names; the query is "
                    "the `title` field, as Pyserini searches it",
                ),  # fmt: skip
                _FIELD,
                Key(
                    "format",
                    "topic-format",
                    "tsv is `qid<TAB>query` (a further field is ignored, as Anserini's TSV readers ignore it); "
                    "beir is a BEIR queries.jsonl (`_id`, `text`), of which, with `qrels`, only the queries the qrels "
                    "judge are searched (as Pyserini's BEIR topics: those of the test split's qrels); "
                    'impact is query term weights, `{"id": ..., "vector": {term: weight}}` per line (`impact` runs '
                    "also search any text format as pretokenized queries); `anserini:<Reader>` uses one of "
                    "Anserini's topic readers (e.g. `anserini:TsvInt`, `anserini:Trec`).",
                    default="tsv",
                    choices=TOPIC_FORMATS,
                ),
                Key(
                    "remove_query",
                    "bool",
                    "Leave out of each ranking the document whose id is the query's id (Anserini's "
                    "SearchCollection `-removeQuery`, Pyserini's `--remove-query`, BEIR's evaluation "
                    "`ignore_identical_ids`): in ArguAna and Quora a query is also a document. The rest "
                    "keep their scores; a ranking so cut holds one document fewer, as Anserini's.",
                    default_text="true for beir topics (as Anserini's BEIR regressions), else false",
                ),
            ),
        ),
        Key(
            "qrels",
            "section",
            "Relevance judgments: a TREC qrels file or BEIR's qrels TSV, header and all (a plain string is its path), "
            "or `pyserini`/`irds` named ones. "
            "Without them only runs are written, and `measures` and `expect` are errors.",
            shorthand="path",
            keys=(*_named("TREC qrels file", "qrels", "TREC"),),
        ),
        Key(
            "runs",
            "runs",
            "The similarities to run: a list of `{model: {param: value}}`; a list of "
            "values is a sweep, several lists form a grid; `{}` or null means the defaults, and so does a "
            "model's bare name (`runs: [bm25, dirichlet]`). An entry may "
            "carry `name: LABEL`, what tables, plots and run files call it (a sweep's settings add their "
            "values); without one, each run gets a short automatic label (docs/experiments.md: *Run labels*). "
            "Names are unique, at most 64 characters, and name the run's file (`runs/NAME.trec`, spaces "
            "and other characters a shell needs quoted as `_`: docs/experiments.md, *Run labels*): a name may "
            "not be empty, start with `.` (`.`, `..`, `.x`: a hidden file), start or end with a space, or "
            "contain `/`, `\\` or a control character (NUL included). "
            "An entry may also be a run the harness does not search: `file: PATH` (a TREC "
            "run; with `format: msmarco` beside it, MS MARCO's `qid<TAB>pid<TAB>rank`: docs/semantics.md, "
            "*MS MARCO files*) or `fuse: {method, runs: [LABEL, ...], rrf_k, alpha, depth, k, norm, weights}` (a fusion of "
            "other entries; docs/experiments.md: *Runs from files and fusions*); neither is swept or tuned.",
            required=True,
        ),
        Key(
            "depth",
            "int",
            "Documents retrieved per topic (above the number of documents: all of them).",
            default=DEFAULT_DEPTH,
            minimum=1,
            maximum=MAX_DEPTH,
        ),
        Key(
            "measures",
            "measures",
            "Measures to compute (canonical names of harness.metrics).",
            default=DEFAULT_MEASURES,
        ),
        Key(
            "expect",
            "expect",
            "Expected scores, `{run: {measure: value}}`; a mismatch fails the "
            "experiment. A run is named by its label (`bm25`, `dirichlet mu=500`, `dirichlet tuned`, or its `name:`) or by its spec, canonicalised (`bm25(b=0.4,k1=0.9)` = `bm25(k1=0.9,b=0.4)`).",
        ),
        Key(
            "expect_tolerance",
            "number",
            "Largest allowed |actual - expected| (the default means agreement to 4 decimals).",
            default=0.00005,
            minimum=0,
        ),
        Key(
            "evaluation",
            "section",
            "Policies that change numbers; all are echoed in the report.",
            keys=(
                Key(
                    "ties",
                    "choice",
                    "Order of equal scores: trec_eval re-sorts by score then doc id; "
                    "as-ranked keeps the engine's order.",
                    default=EvalPolicy.ties,
                    choices=tuple(TIES),
                ),
                Key(
                    "missing_topics",
                    "choice",
                    "Judged topics a run has no results for: zero counts "
                    "them as 0 (trec_eval -c); drop leaves them out of the mean.",
                    default=EvalPolicy.missing_topics,
                    choices=tuple(MISSING_TOPICS),
                ),
            ),
        ),
        Key(
            "compare",
            "section",
            "Significance tests between runs (needs qrels and two runs or "
            "more); without this key nothing is compared. The policy is written into every report.",
            keys=(
                Key(
                    "baseline",
                    "baseline",
                    "The run every other run is compared with: a run's name, a "
                    f"list of names, or `{ALL_PAIRS}` (every pair once, the earlier run as baseline). "
                    "Runs are named like `expect`'s (label or spec).",
                    default_text="the first run",
                ),
                Key(
                    "measures",
                    "compare-measures",
                    "Measures compared; the first one also drives cross-validation and the per-topic plots.",
                    default_text="all of `measures`",
                ),
                Key(
                    "test",
                    "choice",
                    "Paired test: " + _registry(TESTS) + ".",
                    default=StatsPolicy.test,
                    choices=tuple(TESTS),
                ),
                Key(
                    "permutations",
                    "int",
                    "Resamples of the randomization test.",
                    default=StatsPolicy.permutations,
                    minimum=1,
                    maximum=MAX_RESAMPLES,
                ),
                Key(
                    "bootstrap_samples",
                    "int",
                    "Resamples of the bootstrap test and of every confidence interval.",
                    default=StatsPolicy.bootstrap_samples,
                    minimum=1,
                    maximum=MAX_RESAMPLES,
                ),
                Key(
                    "ci_level",
                    "number",
                    "Level of the percentile bootstrap CI of each difference.",
                    default=StatsPolicy.ci_level,
                    minimum=0,
                    maximum=1,
                    exclusive=True,
                ),
                Key(
                    "seed",
                    "int",
                    "Seed of every resampling (randomization, bootstrap, CI) and of the "
                    "cross-validation folds: the same config gives the same p-values.",
                    default=StatsPolicy.seed,
                    minimum=0,
                ),
                Key(
                    "correction",
                    "choice",
                    "Multiple-comparison correction: " + _registry(CORRECTIONS) + ".",
                    default=StatsPolicy.correction,
                    choices=tuple(CORRECTIONS),
                ),
                Key(
                    "family",
                    "choice",
                    "The p-values corrected together: " + _registry(FAMILIES) + ".",
                    default=StatsPolicy.family,
                    choices=tuple(FAMILIES),
                ),
                Key(
                    "alpha",
                    "number",
                    "Significance level: a difference is significant when its corrected p < alpha.",
                    default=StatsPolicy.alpha,
                    minimum=0,
                    maximum=1,
                    exclusive=True,
                ),
                Key(
                    "align",
                    "choice",
                    "Runs scored on different topics (possible with `evaluation.missing_topics: drop`): "
                    + _registry(ALIGNMENTS)
                    + ". Topics are paired in trec_eval's order (ids sorted as strings).",
                    default=ComparePolicy.align,
                    choices=tuple(ALIGNMENTS),
                ),
                Key(
                    "cross_validation",
                    "section",
                    "Tune each swept model (a model with several "
                    "settings) by k-fold cross-validation over topics on the first compared measure. "
                    "The tuned system is a run of its own, labelled `model tuned` (spec `model(cv:MEASURE,folds=K,seed=S)`): its file, "
                    "per-topic (out-of-fold) values and comparisons are written like any run's, and it "
                    "can be named as a baseline. Without this key nothing is tuned; `cross_validation:` "
                    "alone means 5 folds.",
                    keys=(
                        Key(
                            "folds",
                            "int",
                            "Number of folds, at most the number of judged topics (checked by `validate`); "
                            "topics are assigned by `seed` (docs/experiments.md: *Cross-validation*).",
                            default=DEFAULT_FOLDS,
                            minimum=2,
                        ),
                    ),
                ),
            ),
        ),
        Key(
            "report",
            "section",
            "What report.html shows beyond the tables.",
            keys=(
                Key(
                    "explorer_depth",
                    "int",
                    "Results per run shown for each topic in the report's topic explorer (0: no explorer).",
                    default=20,
                    minimum=0,
                ),
                Key(
                    "explorer_topics",
                    "int",
                    "Topics shown in the topic explorer: beyond this many, those with the largest difference "
                    "between the first two runs shown (either way), else the first ones.",
                    default=250,
                    minimum=1,
                ),
            ),
        ),
        Key("output", "path", "Folder for runs and reports (created if missing).", required=True, path_kind="dir"),
        Key(
            "execution",
            "section",
            "Where indexing and searching run (docs/deployment.md *Clusters*); runs, metrics and caches do not "
            "depend on it. `harness run --scheduler ADDRESS` / `--workers N` override it.",
            keys=(
                Key(
                    "engine",
                    "choice",
                    "`local`: this process; `dask`: Dask workers (a running scheduler, or a "
                    "LocalCluster the harness starts and stops).",
                    default="local",
                    choices=ENGINES,
                ),
                Key(
                    "scheduler",
                    "scheduler",
                    "Address of a running Dask scheduler (dask only; not with `workers`).",
                ),
                Key(
                    "workers",
                    "int",
                    "Start a LocalCluster of this many single-threaded worker processes (dask only; not with "
                    "`scheduler`).",
                    minimum=1,
                    maximum=MAX_WORKERS,
                    default_text="the number of CPU cores, when no `scheduler` is given",
                ),
                Key(
                    "index_shards",
                    "int",
                    "Dask: build the index as this many corpus shards on the workers, merged into one "
                    "(Lucene addIndexes); 1 builds it in one piece on one worker. A vectors index is always "
                    "built in one piece (merging rebuilds an HNSW graph, which would differ from Anserini's).",
                    minimum=1,
                    maximum=MAX_WORKERS,
                    default_text="the workers' thread count",
                ),
                Key(
                    "topics_per_task",
                    "int",
                    "Dask: topics searched by one task (one run setting, one topic shard).",
                    minimum=1,
                    default_text="at least 4 tasks per worker thread over all runs",
                ),
                Key(
                    "timeout",
                    "number",
                    "Dask: seconds to wait for the scheduler, and for its first worker, before failing.",
                    default=10.0,
                    minimum=0,
                    exclusive=True,
                ),
            ),
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# The result


@dataclass(frozen=True)
class CompareSpec:
    """The validated `compare:` block. ``baselines`` is empty when ``all_pairs``."""

    baselines: tuple[str, ...]
    all_pairs: bool
    measures: tuple[str, ...]
    policy: StatsPolicy
    folds: int | None  # cross-validation folds; None: no cross-validation
    align: str = ComparePolicy.align  # how topics are paired (harness.stats.align)

    def pairs(self, runs) -> list[tuple[str, str]]:
        """(baseline, run) pairs over ``runs`` (canonical names, in config order). With several
        baselines, two baselines are compared once (the earlier one as the baseline), so no
        test enters the correction family twice."""
        if self.all_pairs:
            return all_pairs(runs)
        out: list[tuple[str, str]] = []
        for b, r in pairs_against(self.baselines, runs):
            if (r, b) not in out:
                out.append((b, r))
        return out


@dataclass(frozen=True)
class Config:
    """A validated experiment. Paths are absolute; names (runs, measures) are canonical."""

    source: Path
    name: str
    collection_path: Path | None  # None: `index_path` names an existing index, only read
    collection_format: str | None
    index_path: Path | None
    stemmer: str
    stopwords: bool
    index_threads: int
    topics_path: Path
    topics_format: str
    qrels_path: Path | None
    runs: tuple[Similarity, ...]
    depth: int
    measures: tuple[str, ...]
    expect: dict[str, dict[str, float]]
    expect_tolerance: float
    ties: str
    missing_topics: str
    output: Path
    raw: dict = field(compare=False, repr=False)
    compare: CompareSpec | None = None
    explorer_depth: int = 20  # report.explorer_depth
    explorer_topics: int = 250  # report.explorer_topics
    text: str | None = field(default=None, compare=False, repr=False)  # the YAML, when in no file
    execution: Execution = Execution()
    # canonical run name (and cross-validated run's) -> its label (engine.labels.run_labels)
    labels: dict[str, str] = field(default_factory=dict, compare=False)
    language: str = DEFAULT_LANGUAGE  # index.language (harness.policies.LANGUAGES)
    vectors: str | None = None  # index.vectors of a vectors collection: flat | hnsw
    M: int = 16  # index.M, index.efC: the HNSW graph's (engine.index.IndexOptions)
    efC: int = 500
    quantize: str | None = None  # index.quantize of a vectors index: int8
    qrels_format: str = "trec"  # or irds:ID (qrels_path: ir_datasets' folder of it; harness.formats.named)
    # collection.fields of a beir collection: (("contents", w), ("title", w)); (): one field
    search_fields: tuple = ()
    # the qrels (path, format) that choose which queries of `beir` topics are searched
    # (engine.topics.judged_queries): the config's `qrels`, kept when a verb evaluates nothing (harness search)
    topics_split: tuple | None = None
    remove_query: bool = False  # topics.remove_query: a query's own document left out of its ranking

    # runs the harness does not search, each after its parts: FileRun, FusedRun (config.sources)
    sources: tuple = ()
    order: tuple[str, ...] = ()  # every run's spec in config order (empty: the searched runs')
    # the keys replaced on the command line or by the API, as given (--set depth=100, --output out)
    overrides: tuple[str, ...] = ()

    @property
    def run_names(self) -> tuple[str, ...]:
        """Every run's spec (searched, file and fused), in config order."""
        return self.order or tuple(str(r) for r in self.runs)

    def label(self, name: str) -> str:
        """What tables, plots and file names call the run ``name`` (canonical)."""
        return self.labels.get(name, name)


class LocatedProblem(ConfigProblem):
    """A ConfigProblem that also knows where it is: ``configs/x.yaml:12``."""

    __slots__ = ("where",)

    def __init__(self, path: str, message: str, where: str | None = None):
        super().__init__(path, message)
        self.where = where

    def __str__(self) -> str:
        return ": ".join(part for part in (self.where, self.path, self.message) if part)


# Helpers shared by validation and the reference

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def join_path(path: str, key: str) -> str:
    if _IDENT.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"


def range_text(key: Key) -> str:
    """'>= 0', '(0, 1)', '[0, 1]'."""
    if key.maximum is None:
        return f"{'>' if key.exclusive else '>='} {format_number(key.minimum)}"
    lo, hi = "(["[not key.exclusive], ")]"[not key.exclusive]
    return f"{lo}{format_number(key.minimum)}, {format_number(key.maximum)}{hi}"
