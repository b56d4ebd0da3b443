"""The checks of a config without `collection`: `index.path` names an index built elsewhere
(by Anserini, Pyserini or the harness), which must be one, analysed as the config says, holding
what every run needs (expansions: stored document vectors; impact runs: term weights)."""

from __future__ import annotations

from harness.config.nodes import INVALID, Ctx
from harness.engine.existing import NEEDS, is_lucene_index, stored_features
from harness.engine.manifest import open_manifest
from harness.specs.models import IndexKind

__all__ = ["finish_existing_index"]


def finish_existing_index(ctx: Ctx, v: dict) -> None:
    """Without `collection`, `index.path` names an index built elsewhere: it must be one, and
    every run must find in it what it needs (expansion: stored document vectors)."""
    if v["collection"] is not None or v["collection"] is INVALID or v["index"] is INVALID:
        return
    path = v["index"]["path"]
    if path is None:
        ctx.problem(
            "collection",
            "required key is missing: give the documents to index (`collection: {path, format}`), "
            "or name an existing index with `index.path`",
            None,
        )
        return
    if path is INVALID:
        return
    node = ctx.nodes.get("index.path")
    if not path.is_dir() or not is_lucene_index(path):
        ctx.problem(
            "index.path",
            f"{path} is not an existing Lucene index (no segments_N file); to build one, add `collection`",
            node,
        )
        return
    manifest = open_manifest(path)
    if manifest is not None:
        built = manifest.get("options") or {}
        for key in ("stemmer", "stopwords", "language"):
            if f"index.{key}" in ctx.present and key in built and built[key] != v["index"][key]:
                ctx.problem(
                    f"index.{key}",
                    f"the harness built {path} with {key}: {built[key]}; queries must be analysed the same way",
                    ctx.nodes[f"index.{key}"],
                )
            elif key in built:
                v["index"][key] = built[key]
    if v["runs"] is INVALID:
        return
    if manifest is not None:  # an index of term weights the harness built takes impact runs only, and only it does
        impact = bool((manifest.get("options") or {}).get("impact"))
        wrong = [str(sim) for sim in v["runs"] if (sim.index is IndexKind.IMPACT) != impact]
        if wrong:
            kind = "an impact index (term weights): it takes impact runs only" if impact else "a text index"
            ctx.problem("runs", f"{path} is {kind}, which {', '.join(wrong)} cannot search", ctx.nodes.get("runs"))
            return
    stores = stored_features(path)
    for sim in v["runs"]:
        if sim.expansion and stores["docvectors"] is False:
            ctx.problem(
                "runs",
                f"run {sim} expands the query from its feedback documents, which needs "
                f"{NEEDS['docvectors']}; the index {path} has none: rebuild it with them, or drop the expansion",
                ctx.nodes.get("runs"),
            )
