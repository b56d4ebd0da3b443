"""A study: several collections in one config, the `collections:` key of the schema.

Each entry names a collection and gives what a config of that collection alone would give at its
top level: the documents (`collection`, or an existing `index`), the `topics`, the `qrels` and the
`expect`ed scores (:data:`ENTRY_KEYS`). Everything else (`runs`, `measures`, `compare`, `depth`,
`evaluation`, `report`, `output`, `execution`, ...) is given once, at the top, and applies to every
collection; the top-level `collection`, `index`, `topics`, `qrels` and `expect` are then refused
(harness.config.study)."""

from __future__ import annotations

from harness.config.keys import Key
from harness.config.schema.corpus import COLLECTION, INDEX
from harness.config.schema.runs import EXPECT
from harness.config.schema.topics import QRELS, TOPICS
from harness.policies import META_POOLED, STUDY_COLUMNS

__all__ = ["COLLECTIONS", "STUDY_KEY", "ENTRY_KEYS", "TABLE_COLUMNS", "RESERVED_NAMES", "COLLECTIONS_FOLDER"]

STUDY_KEY = "collections"
TABLE_COLUMNS = STUDY_COLUMNS  # collections.csv's columns besides one per collection
# no collection's name: collections.csv's other columns, meta_analysis.csv's pooled rows
RESERVED_NAMES = (*TABLE_COLUMNS, *META_POOLED)
# where each collection's report goes: OUTPUT/collections/NAME
COLLECTIONS_FOLDER = "collections"

ENTRY_NAME = Key(
    "name",
    "string",
    "The collection's name: its column in the tables across collections and its report's folder, "
    "`OUTPUT/collections/NAME`. Unique (also ignoring case), at most 64 characters, not "
    f"{', '.join(f'`{c}`' for c in RESERVED_NAMES)}.",
    required=True,
    pattern=r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}",
)

COLLECTIONS = Key(
    STUDY_KEY,
    "collections",
    "A study: a list of collections, each `{name, collection or index, topics, qrels, expect}` in any "
    "layout the top-level keys of the same names take (BEIR folders, TREC or MS MARCO files, "
    "`irds:` and `pyserini:` names, `index.language`...). The config's other keys (`runs`, `measures`, "
    "`compare`, `depth`, `evaluation`, `report`, `execution`) apply to each; every collection's results "
    "are those of a config of it alone, written under `OUTPUT/collections/NAME/`, and the tables across "
    "collections (`collections.csv`; with `compare:`, `meta_analysis.csv`) in `OUTPUT`. Not with the top-level `collection`, `index`, `topics`, "
    "`qrels` or `expect` (docs/experiments.md, *Studies*).",
    keys=(ENTRY_NAME, COLLECTION, INDEX, TOPICS, QRELS, EXPECT),
)

# the keys an entry of `collections` may give (each as at the top level of a config)
ENTRY_KEYS = tuple(k.name for k in COLLECTIONS.keys)
