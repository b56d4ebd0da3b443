"""The query verb: open an index named ad hoc and search it with one or more similarities.
Lab mode, ``harness.query`` and lab-style judging all search through it; the rankings are a
harness run's (Anserini's exact semantics)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.engine.documents import stored_texts
from harness.engine.index import IndexOptions, ensure_index
from harness.engine.searchers import open_searcher
from harness.errors import DataError
from harness.events import Emit, ignore
from harness.experiment.adhoc import LabIndex, resolve_index
from harness.specs.models import IndexKind

__all__ = ["OpenIndex", "open_index", "query", "Rankings", "texts"]


@dataclass(frozen=True)
class OpenIndex:
    """An index ready to search: where it is, what it is, and whether it was built just now
    (a folder of .txt files; None for an index given as such)."""

    where: LabIndex
    built: bool | None

    @property
    def path(self) -> Path:
        return self.where.path

    @property
    def options(self) -> IndexOptions:
        return self.where.options


def open_index(given, *, flag: str = "--index", on: Emit = ignore, language: str | None = None) -> OpenIndex:
    """The index ``given`` names (see :mod:`harness.experiment.adhoc`); a folder of .txt files
    is indexed now (in ``language``, default English), or its index reused while the fingerprint
    matches. ``language`` None: a harness index's own; an Anserini index is taken as English."""
    where = resolve_index(str(given), flag, language)
    if where.corpus is None:  # an index: nothing to build
        return OpenIndex(where, None)
    info = ensure_index(where.corpus, where.options, where.path, on=on)
    return OpenIndex(where, not info.reused)


@dataclass(frozen=True)
class Rankings:
    """``by_similarity[str(sim)][i]``: (doc ids, scores) of query i; ``ids``: every doc id of
    the index when asked for (to check judgments against), else None."""

    by_similarity: dict[str, list]
    ids: set | None = None


def query(
    index: OpenIndex,
    queries: Sequence[str | Mapping[str, float]],
    similarities: Sequence,
    k: int,
    *,
    threads: int = 2,
    ids: bool = False,
    qids: Sequence[str] | None = None,
) -> Rankings:
    """The top ``k`` of each query under each similarity (one searcher, opened once). On a vectors
    index each query is a vector as JSON text; ``qids`` name them in errors (default 1, 2, ...).
    An impact run's query is a pretokenized text or a ``{term: weight}`` mapping (harness.engine.impact)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise DataError("k", f"must be an integer >= 1 (got {k!r})")
    for sim in similarities:
        if (sim.index is IndexKind.VECTORS) != bool(index.options.vectors):
            need, have = ("vectors", "text") if sim.index is IndexKind.VECTORS else ("text", "vectors")
            raise DataError(
                "similarity",
                f"{sim} needs a {need} index; {index.path} is a {have} index (knn searches the vectors of a "
                "`vectors` collection, every other model the terms of a text collection)",
            )
        impact_index = bool(getattr(index.options, "impact", False))
        if impact_index != (sim.index is IndexKind.IMPACT) and (impact_index or index.where.kind != "anserini"):
            raise DataError(
                "similarity",
                f"{sim} needs {'an impact' if sim.index is IndexKind.IMPACT else 'a text'} index; {index.path} is "
                f"{'an impact' if impact_index else 'a text'} index the harness built (impact searches the term "
                "weights of an `impact` collection, or any Anserini index; every other model analysed text)",
            )
    searcher = open_searcher(index.path, index.options)  # a DenseSearcher for a vectors index
    try:
        more = {"qids": qids, "source": "queries"} if index.options.vectors else {}
        out = {
            str(sim): searcher.search(list(queries), sim, k, threads=threads, **more)
            for sim in dict.fromkeys(similarities)
        }
        known = set(searcher.ids.tolist()) if ids else None
    finally:
        searcher.close()
    return Rankings(out, known)


def texts(index: OpenIndex, docids: list[str]) -> dict[str, str | None]:
    """The stored text of each document id (as the index keeps it; None: no such document, or no
    text stored)."""
    return stored_texts(index.path, docids)
