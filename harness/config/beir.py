"""The BEIR keys of a config: `collection.fields` (a `beir` collection indexed as Anserini's
BeirMultifieldCollection, searched over its fields with weights) and the checks across keys
that go with it (harness.engine.beir)."""

from __future__ import annotations

import math
from typing import Any

from yaml import MappingNode, Node, ScalarNode

from harness.config.keys import Key
from harness.config.nodes import INVALID, Ctx, describe, mapping_items, read_number
from harness.engine.beir import DEFAULT_FIELDS
from harness.formats.catalog import CollectionFormat, TopicFormat

__all__ = ["check_fields", "check_beir", "beir_fields"]

_FIELD_NAMES = tuple(name for name, _ in DEFAULT_FIELDS)


def check_fields(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    """``true`` (Anserini's weights: contents 1.0, title 1.0), ``false``, or a mapping of both
    fields' weights, ``{contents: 1.0, title: 0.5}``. Returns the weights, () for false."""
    if isinstance(node, ScalarNode):
        v = ctx.value(node, path)
        if isinstance(v, bool):
            return DEFAULT_FIELDS if v else ()
    if not isinstance(node, MappingNode):
        return ctx.problem(
            path,
            f"expected true, false or a mapping of weights {{contents: 1.0, title: 1.0}}, got {describe(ctx, node)}",
            node,
        )
    weights: dict[str, float] = {}
    ok = True
    for name, knode, vnode in mapping_items(node):
        if name not in _FIELD_NAMES:
            ctx.problem(
                f"{path}.{name}", f"a BEIR index has the fields {' and '.join(_FIELD_NAMES)} (got {name!r})", knode
            )
            ok = False
            continue
        value = read_number(ctx, vnode, f"{path}.{name}") if isinstance(vnode, ScalarNode) else None
        if value is INVALID:
            ok = False
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            ctx.problem(f"{path}.{name}", f"a field's weight is a number >= 0, got {describe(ctx, vnode)}", vnode)
            ok = False
            continue
        weights[name] = float(value)
    if not ok:
        return INVALID
    missing = [n for n in _FIELD_NAMES if n not in weights]
    if missing:
        return ctx.problem(
            path, f"give the weight of every field ({', '.join(missing)} missing; 0 leaves a field out)", node
        )
    return tuple((n, weights[n]) for n in _FIELD_NAMES)


def beir_fields(v: dict, qrels_format: str = "trec") -> dict[str, Any]:
    """The Config's search_fields (the weights of a multifield beir collection, else ()),
    topics_split (the qrels that choose the queries of `beir` topics: the config's qrels, as
    (path, format)) and
    remove_query (topics.remove_query; by default, true for `beir` topics)."""
    collection, topics = v["collection"], v["topics"]
    remove = topics.get("remove_query") if topics and topics is not INVALID else None
    if remove is None or remove is INVALID:  # by default, for BEIR's queries (whose ids are documents' too)
        fmt = topics.get("format") if topics and topics is not INVALID else None
        remove = isinstance(fmt, TopicFormat) and fmt.judged_split
    split = {"topics_split": None if v["qrels"] is None else (v["qrels"], qrels_format), "remove_query": remove}
    if not collection or collection is INVALID or collection.get("fields") in (None, INVALID):
        return {"search_fields": (), **split}
    return {"search_fields": collection["fields"], **split}


def check_beir(ctx: Ctx, v: dict) -> None:
    collection = v["collection"] if v["collection"] is not INVALID else None
    if not collection or "collection.fields" not in ctx.present:
        return
    fields, fmt = collection.get("fields"), collection.get("format")
    if fmt is not INVALID and not (isinstance(fmt, CollectionFormat) and fmt.anserini_fields):  # no multifield class
        ctx.problem(
            "collection.fields",
            "indexes a BEIR corpus's title as a field of its own: it needs `format: beir`",
            ctx.nodes.get("collection.fields"),
        )
    elif fields and v["runs"] is not INVALID:
        indri = [str(r) for r in v["runs"] if r.entry.indri_query]
        if indri:  # Lucene's IndriAndQuery takes term clauses; Anserini has no multifield Indri either
            ctx.problem(
                "runs",
                f"indri runs search one field; this collection is searched over fields ({', '.join(indri)})",
                ctx.nodes.get("runs"),
            )
