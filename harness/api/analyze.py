"""``harness.analyze``: the terms Anserini's analyzer for a language makes of a text; the analyze
verb's adapter."""

from __future__ import annotations

from harness.policies import DEFAULT_LANGUAGE
from harness.verbs.analyze import analyze as analyze_verb

__all__ = ["analyze"]


def analyze(text: str, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """The terms Anserini's analyzer for ``language`` makes of ``text``, in order: what an index
    of that language stores and a query of it searches for (``harness analyze``)."""
    return analyze_verb(text, language, flag="language")
