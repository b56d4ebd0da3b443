"""The config schema as data: ``SCHEMA`` is a tree of :class:`~harness.config.keys.Key` values
(type, required or default, allowed values, doc text). Validation (``harness.config.load``), the
config reference of docs/config.md (``harness.config.reference``) and the JSON Schema
(``harness.config.json_schema``) all walk this one tree, so they cannot drift apart.

Its sections are defined by concept, each in a module of its own; ``SCHEMA`` lists them in the
order a config's reference does:

- ``schema.corpus``: `collection` and `index` (the documents and how they are indexed);
- ``schema.topics``: `topics` and `qrels` (the queries and their judgments);
- ``schema.study``: `collections` (a study: several collections, each with those keys);
- ``schema.runs``: `runs`, `depth`, `measures`, `expect`, `expect_tolerance`,
  `expect_okish_tolerance` and `evaluation`
  (what is searched and how it is scored);
- ``schema.compare``: `compare` (the significance tests);
- ``schema.output``: `report`, `ir_metadata`, `output` and `execution` (what is written, and where it is
  computed).
"""

from __future__ import annotations

from harness.config.keys import Key
from harness.config.schema.compare import COMPARE
from harness.config.schema.corpus import COLLECTION, INDEX
from harness.config.schema.output import EXECUTION, IR_METADATA, OUTPUT, REPORT
from harness.config.schema.runs import (
    DEPTH,
    EVALUATION,
    EXPECT,
    EXPECT_OKISH_TOLERANCE,
    EXPECT_TOLERANCE,
    MEASURES,
    RUNS,
)
from harness.config.schema.study import COLLECTIONS
from harness.config.schema.topics import QRELS, TOPICS

__all__ = ["SCHEMA"]

NAME = Key("name", "string", "Experiment name: the report's title.", required=True, pattern=r"[A-Za-z0-9_.-]+")

SCHEMA = Key(
    "",
    "section",
    "An experiment.",
    required=True,
    keys=(
        NAME,
        COLLECTION,
        INDEX,
        TOPICS,
        QRELS,
        COLLECTIONS,
        RUNS,
        DEPTH,
        MEASURES,
        EXPECT,
        EXPECT_TOLERANCE,
        EXPECT_OKISH_TOLERANCE,
        EVALUATION,
        COMPARE,
        REPORT,
        IR_METADATA,
        OUTPUT,
        EXECUTION,
    ),
)
