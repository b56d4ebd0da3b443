"""Data named in local caches, resolved while the config is validated (no Java, no network):
``topics: {pyserini | irds}``, ``qrels: {pyserini | irds}``, ``collection: {irds}`` and
``index: {prebuilt}`` (harness.formats.named, pyserini_cache, irds). Each becomes the path and format the rest of the
harness reads like a file's, so every later step is the one a file takes."""

from __future__ import annotations

from harness.config.nodes import INVALID, Ctx, is_null
from harness.errors import DataError
from harness.formats import irds, named
from harness.formats.catalog import IRDS
from harness.formats.pyserini_cache import prebuilt_index

__all__ = ["resolve_named"]

_SOURCES = ("path", "pyserini", "irds")


def _one(ctx: Ctx, section: str, values: dict, sources: tuple[str, ...] = _SOURCES) -> str | None:
    """Which of ``sources`` (path/pyserini/irds) the section gives (exactly one), or None (reported)."""
    given = [k for k in sources if values.get(k) not in (None, INVALID)]
    if any(values.get(k) is INVALID for k in sources):
        return None
    if len(given) != 1:
        choices = ", ".join(f"`{k}`" for k in sources[:-1]) + f" or `{sources[-1]}`"
        ctx.problem(
            section,
            f"give one of {choices} (got {', '.join(f'`{k}`' for k in given) or 'none'})",
            ctx.nodes.get(section),
        )
        return None
    return given[0]


def _problem(ctx: Ctx, key: str, e: DataError) -> None:
    message = str(e)
    ctx.problem(key, message[len(e.source) + 2 :] if message.startswith(e.source + ": ") else message, ctx.nodes[key])


def resolve_named(ctx: Ctx, v: dict) -> None:
    """Replace the named sources of ``v`` (checked values) by paths and formats, in place:
    ``v["topics"]["path"|"format"]``, ``v["qrels"]`` (a Path or None, its format in
    ``ctx.found["qrels_format"]``), ``v["collection"]`` and ``v["index"]["path"]``."""
    _collection(ctx, v)
    t = v["topics"]
    if isinstance(t, dict) and (kind := _one(ctx, "topics", t)) not in (None, "path"):
        for key in ("format",) if "topics.format" in ctx.present else ():
            ctx.problem(
                "topics.format", f"comes from {kind} with `{kind}`; remove `format`", ctx.nodes[f"topics.{key}"]
            )
        try:
            t["path"], t["format"] = named.resolve_topics(kind, t[kind], t["field"] if kind == "irds" else None)
        except DataError as e:
            _problem(ctx, f"topics.{kind}", e)
            t["path"] = INVALID
    if isinstance(t, dict) and t.get("field") not in (None, INVALID) and t.get("irds") in (None, INVALID):
        ctx.problem("topics.field", "applies to `irds` topics alone; remove it", ctx.nodes["topics.field"])
    q, ctx.found["qrels_format"] = v["qrels"], "trec"
    if isinstance(q, dict):
        kind = _one(ctx, "qrels", q) if any(q.get(k) is not None for k in _SOURCES) else None
        v["qrels"] = q["path"] if kind in (None, "path") else INVALID
        if kind in ("pyserini", "irds"):
            try:
                v["qrels"], ctx.found["qrels_format"] = named.resolve_qrels(kind, q[kind])
            except DataError as e:
                _problem(ctx, f"qrels.{kind}", e)
    i = v["index"]
    if isinstance(i, dict) and i.get("prebuilt") not in (None, INVALID):
        for key in ("collection", "index.path"):
            if key in ctx.present:
                ctx.problem(
                    key, "a prebuilt index is only read: give `index.prebuilt` or this, not both", ctx.nodes[key]
                )
        try:
            i["path"] = prebuilt_index(i["prebuilt"])
        except DataError as e:
            _problem(ctx, "index.prebuilt", e)
            i["path"] = INVALID


def _collection(ctx: Ctx, v: dict) -> None:
    """``collection``: absent or null (None), a path with its format, or an ir_datasets id
    (path: the dataset's folder; format: ``irds:ID`` or ``irds:ID#field,field``)."""
    c = v["collection"]
    if not isinstance(c, dict):
        return
    if "collection" not in ctx.present or is_null(ctx.nodes.get("collection")):
        v["collection"] = None
        return
    kind = _one(ctx, "collection", c, ("path", "irds"))  # a path without `format`: config/layouts.py reads it
    if c.get("contents") not in (None, INVALID) and kind != "irds":
        ctx.problem(
            "collection.contents", "applies to `irds` collections alone; remove it", ctx.nodes["collection.contents"]
        )
    if kind != "irds":
        return
    if "collection.format" in ctx.present:
        ctx.problem(
            "collection.format", "comes from ir_datasets with `irds`; remove `format`", ctx.nodes["collection.format"]
        )
    fields = tuple(f.strip() for f in c["contents"].split(",")) if isinstance(c.get("contents"), str) else ()
    try:
        c["path"] = irds.check_documents(c["irds"], fields)
        c["format"] = IRDS.of(c["irds"] + ("#" + ",".join(fields) if fields else ""))
    except DataError as e:
        _problem(ctx, "collection.irds", e)
        c["path"] = INVALID
