"""A similarity parsed from what a user gave (``--similarity`` of ``harness lab`` and ``harness
judge``, ``harness.query``): the grammar of harness.specs.similarity, its mistakes a DataError
naming the flag or argument. Light: the command line's parsers read it without the pipeline."""

from __future__ import annotations

from collections.abc import Mapping

from harness.errors import DataError
from harness.specs.params import Value
from harness.specs.similarity import Similarity

__all__ = ["parse_similarity"]


def parse_similarity(
    spec: str | Similarity, params: Mapping[str, Value] | None = None, *, source: str = "similarity"
) -> Similarity:
    """A Similarity from a spec (``"bm25"``, ``"bm25(k1=1.2,b=0.75)"``, ``"bm25+rm3"``, or a
    Similarity) with ``params`` overriding its model parameters; DataError naming ``source``."""
    try:
        base = spec if isinstance(spec, Similarity) else Similarity.parse(str(spec))
        if not params:
            return base
        return Similarity.of(base.model, {**base.params, **params}, base.expansion, base.expansion_params)
    except ValueError as e:
        raise DataError(source, str(e)) from None
