"""The analyze verb: the terms Anserini's analyzer for a language makes of a text, the terms an
index of that language stores and a query of it searches for (harness.engine.analysis)."""

from __future__ import annotations

from harness.engine.analysis import analyze as run_analyzer
from harness.engine.analysis import language_problem
from harness.engine.index import IndexOptions
from harness.errors import DataError
from harness.policies import DEFAULT_LANGUAGE

__all__ = ["analyze"]


def analyze(text: str, language: str = DEFAULT_LANGUAGE, *, flag: str = "--language") -> list[str]:
    """The analyzed terms of ``text``, in order (repeats kept), as Anserini's
    ``AnalyzerUtils.analyze`` returns them; English is Anserini's default analyzer (Porter
    stemmer, stopwords removed). ``flag`` names the argument in errors."""
    if not isinstance(text, str):
        raise DataError("text", f"must be a string (got {type(text).__name__})")
    if (why := language_problem(language)) is not None:
        raise DataError(flag, why)
    return run_analyzer(text, IndexOptions(language=language))
