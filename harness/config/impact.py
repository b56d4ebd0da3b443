"""The checks across keys of a learned-sparse config: an `impact` collection, `impact` topics
(query term weights) and `impact` runs go together (harness.engine.impact). An impact collection
is searched by impact runs only, and impact runs search an impact collection, or an index named
by `index.path` (an Anserini impact index); their topics are term weights, or any text format
read as pretokenized queries. A vectors collection's own rules (config/dense.py) say the rest."""

from __future__ import annotations

from harness.config.nodes import INVALID, Ctx
from harness.formats.catalog import CollectionFormat, TopicFormat
from harness.specs.models import IndexKind

__all__ = ["check_impact"]


def check_impact(ctx: Ctx, v: dict) -> None:
    collection = v["collection"] if v["collection"] is not INVALID else None
    fmt = collection.get("format") if collection else None  # None: an index named; INVALID: reported
    topics = v["topics"]["format"] if v["topics"] is not INVALID else INVALID
    runs = v["runs"] if v["runs"] is not INVALID else []
    impact = [str(r) for r in runs if r.index is IndexKind.IMPACT]
    others = [str(r) for r in runs if r.index is not IndexKind.IMPACT]

    def problem(path: str, message: str) -> None:
        ctx.problem(path, message, ctx.nodes.get(path))

    if isinstance(fmt, CollectionFormat) and fmt.weights:
        for key in ("language", "stemmer", "stopwords"):
            if f"index.{key}" in ctx.present:
                problem(
                    f"index.{key}",
                    "means nothing for an `impact` collection: its terms are indexed as written "
                    "(Anserini's -pretokenized); remove it",
                )
        if others:
            problem("runs", f"an impact collection is searched with impact runs only (not {', '.join(others)})")
    elif isinstance(fmt, CollectionFormat) and fmt.text and impact:  # a vectors collection: config/dense.py says it
        problem(
            "runs",
            f"impact runs search the term weights of an `impact` collection; this one is {fmt} text "
            f"({', '.join(impact)})",
        )
    if isinstance(topics, TopicFormat) and topics.weights:
        if isinstance(fmt, CollectionFormat) and fmt.text:
            problem(
                "topics.format", f"impact (query term weights) needs an `impact` collection; this one is {fmt} text"
            )
        elif others and fmt is None:
            problem(
                "topics.format",
                f"impact (query term weights) is searched by impact runs only (not {', '.join(others)})",
            )
