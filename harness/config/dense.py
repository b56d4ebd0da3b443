"""The checks across keys of a dense-retrieval config: a `vectors` collection, its index
(`index.vectors`, `quantize`, `M`, `efC`), `vectors` topics and `knn` runs go together, and nothing else
goes with them (harness.engine.dense)."""

from __future__ import annotations

from typing import Any

from harness.config.nodes import INVALID, Ctx
from harness.formats.catalog import CollectionFormat, TopicFormat
from harness.specs.models import IndexKind

__all__ = ["check_dense", "dense_fields"]


def _vectors(v: dict) -> str | None:
    """index.vectors, flat by default for a vectors collection; None for a text collection."""
    index, collection = v["index"], v["collection"]
    given = index.get("vectors") if index is not INVALID else None
    fmt = collection.get("format") if collection and collection is not INVALID else None
    if isinstance(fmt, CollectionFormat) and fmt.dense:
        return given or "flat"
    return given


def dense_fields(v: dict) -> dict[str, Any]:
    """The Config's vectors, M, efC and quantize."""
    return {"vectors": _vectors(v), "M": v["index"]["M"], "efC": v["index"]["efC"], "quantize": v["index"]["quantize"]}


def check_dense(ctx: Ctx, v: dict) -> None:
    collection = v["collection"] if v["collection"] is not INVALID else None
    fmt = collection.get("format") if collection else None  # None: an index named; INVALID: reported
    dense = isinstance(fmt, CollectionFormat) and fmt.dense

    def problem(path: str, message: str) -> None:
        ctx.problem(path, message, ctx.nodes.get(path))

    if "index.vectors" in ctx.present and isinstance(fmt, CollectionFormat) and not fmt.dense:
        problem("index.vectors", f"indexes a `vectors` collection; this collection is {fmt} text")
    for key in ("M", "efC"):
        if f"index.{key}" in ctx.present and _vectors(v) not in ("hnsw", INVALID):
            problem(f"index.{key}", "is a setting of the HNSW graph: set `index.vectors: hnsw` or remove it")
    if fmt is INVALID:  # reported: whether the collection holds vectors is not known
        return
    if "index.quantize" in ctx.present and _vectors(v) is None:
        problem("index.quantize", "quantises the vectors of a `vectors` collection; this index holds text")
    if collection is None:
        return
    topics = v["topics"]["format"] if v["topics"] is not INVALID else INVALID
    if isinstance(topics, TopicFormat) and topics.dense != dense:
        problem(
            "topics.format",
            "must be vectors for a vectors collection (query vectors from the documents' model)"
            if dense
            else "vectors (query vectors) need a `vectors` collection; this one is text",
        )
    if v["runs"] is not INVALID:
        wrong = [str(r) for r in v["runs"] if (r.index is IndexKind.VECTORS) != dense]
        if wrong:
            problem(
                "runs",
                f"a vectors collection is searched with knn runs only (not {', '.join(wrong)})"
                if dense
                else f"knn runs need a `vectors` collection (index.vectors); this one is text ({', '.join(wrong)})",
            )
