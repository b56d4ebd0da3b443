"""The similarities as every door reads them: the models with their parameters, Anserini's and
Pyserini's names for them, and a similarity parsed from what a user gave (``--similarity`` of
``harness lab`` and ``harness judge``, ``harness.search``, ``harness.similarities()``).

The engine's registry is plain Python, so the command line builds its parsers from it (the lab's
``--similarity`` choices and parameter flags) without loading numpy or the pipeline."""

from __future__ import annotations

from harness.engine.similarity import ALIASES, MODELS, Similarity
from harness.errors import DataError

__all__ = ["similarity_models", "similarity_aliases", "parse_similarity"]


def similarity_models() -> dict:
    """model -> its parameter specs (the engine's registry)."""
    return MODELS


def similarity_aliases() -> dict:
    """Anserini's and Pyserini's model names -> the model each is (``qld`` -> ``dirichlet``)."""
    return ALIASES


def parse_similarity(spec, params=None, *, source: str = "similarity"):
    """A Similarity from a spec (``"bm25"``, ``"bm25(k1=1.2,b=0.75)"``, ``"bm25+rm3"``, or a
    Similarity) with ``params`` overriding its model parameters; DataError naming ``source``."""
    try:
        base = spec if isinstance(spec, Similarity) else Similarity.parse(str(spec))
        if not params:
            return base
        return Similarity.of(base.model, {**base.params, **params}, base.expansion, base.expansion_params)
    except ValueError as e:
        raise DataError(source, str(e)) from None
