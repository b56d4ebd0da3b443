"""The queries and their relevance judgments: the `topics:` and `qrels:` sections of the schema,
each a file or data named in a local cache (harness.formats.named)."""

from __future__ import annotations

from harness.config.keys import Key
from harness.formats.catalog import TOPIC_FORMATS, TSV_TOPICS, choices

__all__ = ["TOPICS", "QRELS"]

# topics and qrels alike: an ir_datasets id
IRDS = Key(
    "irds",
    "string",
    "An ir_datasets id (`msmarco-passage/dev/small`) read through the optional ir_datasets "
    "package from its cache (`$IR_DATASETS_HOME` or `~/.ir_datasets`).",
    pattern=r"\S+",
)

TOPICS = Key(
    "topics",
    "section",
    "The queries; a plain string is a path to a tsv file (one whose first lines show another layout, "
    "BEIR's queries.jsonl or JSON lines, is refused with the format to write). Instead of `path`: "
    "`pyserini` or `irds` (docs/semantics.md, *Named data*).",
    required=True,
    shorthand="path",
    keys=(
        Key("path", "path", "The topics file.", path_kind="file", must_exist=True),
        Key(
            "pyserini",
            "string",
            "Pyserini's topic set by name (`msmarco-passage-dev-subset`) in its cache "
            "(`$PYSERINI_CACHE` or `~/.cache/pyserini`), read with the Anserini reader its registry "
            "names; the query is the `title` field, as Pyserini searches it.",
            pattern=r"\S+",
        ),
        IRDS,
        Key(
            "field",
            "string",
            "With `irds`: the query field to search (`title`, `description`...).",
            default_text="the only text field, else ir_datasets' `default_text()`",
            pattern=r"[A-Za-z_]\w*",
        ),
        Key(
            "format",
            "topic-format",
            "; ".join(f"`{f.choice}` is {f.doc}" for f in TOPIC_FORMATS.values() if f.written) + ".",
            default=TSV_TOPICS,
            choices=choices(TOPIC_FORMATS),
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
)

QRELS = Key(
    "qrels",
    "section",
    "Relevance judgments: a TREC qrels file or BEIR's qrels TSV, header and all (a plain string is its "
    "path), or `pyserini`/`irds` named ones. Without them only runs are written, and `measures` and "
    "`expect` are errors.",
    shorthand="path",
    keys=(
        Key("path", "path", "The TREC qrels file.", path_kind="file", must_exist=True),
        Key(
            "pyserini",
            "string",
            "Pyserini's qrels by name (`msmarco-passage-dev-subset`) in its cache "
            "(`$PYSERINI_CACHE` or `~/.cache/pyserini`), read as TREC qrels.",
            pattern=r"\S+",
        ),
        IRDS,
    ),
)
