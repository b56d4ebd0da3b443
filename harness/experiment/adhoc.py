"""An index named ad hoc (lab mode, ``harness.query``, lab-style judging): a harness index, any
Anserini index, or a folder of ``.txt`` files, which is indexed once into the default
``indexes/`` folder and reused while its fingerprint matches."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.config.paths import write_target_problems
from harness.engine.analysis import language_problem
from harness.engine.corpus import Corpus
from harness.engine.index import IndexOptions, index_fingerprint
from harness.engine.manifest import MANIFEST, read_manifest, unusable_index
from harness.errors import DataError
from harness.experiment.plan import indexes_root
from harness.formats.catalog import TEXT_FOLDER
from harness.policies import DEFAULT_LANGUAGE

__all__ = ["LabIndex", "resolve_index", "lab_qid"]


@dataclass(frozen=True)
class LabIndex:
    """What an index named ad hoc is: ``kind`` "harness" (an index the harness built), "anserini"
    (any other Lucene index) or "text-folder" (a folder of .txt files, indexed at ``path`` from
    ``corpus``)."""

    path: Path
    options: IndexOptions
    kind: str
    corpus: Corpus | None = None


def lab_qid(query: str) -> str:
    """The topic id of a lab query in a qrels file: its words joined by ``_``.

    >>> lab_qid("vector  space model")
    'vector_space_model'
    """
    return "_".join(query.split())


def resolve_index(given: str, flag: str = "--index", language: str | None = None) -> LabIndex:
    """What ``given`` names; no Java started (a text folder is fingerprinted, not indexed).
    ``flag`` names the argument in errors (``--index`` on the command line, ``index`` in the API).
    ``language`` (None: the index's own, else English): how documents and queries are analysed;
    a harness index records its language, and a different one is refused."""
    lang_flag = "--language" if flag.startswith("--") else "language"
    if language is not None and (why := language_problem(language)) is not None:
        raise DataError(lang_flag, why)

    path = Path(given)
    if not path.exists():
        raise DataError(given, f"{flag}: no such folder")
    if not path.is_dir():
        raise DataError(given, f"{flag}: expected a folder (an index, or a folder of .txt files)")
    manifest, problem = read_manifest(path)
    if problem is not None:
        raise DataError(str(path / MANIFEST), f"{flag}: " + unusable_index(path, problem))
    if manifest is not None:
        options = IndexOptions.from_manifest(manifest.get("options") or {})
        if language is not None and language != options.language:
            raise DataError(
                given,
                f"{lang_flag} {language}: the harness built this index in language {options.language!r}; "
                f"queries must be analysed the same way (leave out {lang_flag}, or give {options.language})",
            )
        return LabIndex(path, options, "harness")
    options = IndexOptions(language=language or DEFAULT_LANGUAGE)
    if any(path.glob("segments_*")):
        return LabIndex(path, options, "anserini")  # Lucene does not record the analyzer: we trust the caller
    corpus = Corpus(path.resolve(), TEXT_FOLDER)
    try:
        fp = index_fingerprint(corpus, options)
    except DataError:
        raise DataError(
            given,
            f"{flag}: neither an index (no harness-index.json, no Lucene segments_N "
            "file) nor a folder of .txt files to index",
        ) from None
    target = indexes_root(path) / f"{corpus.path.stem or 'corpus'}-{fp[:12]}"
    problems = write_target_problems({"index": target}, {f"text folder ({flag})": corpus.path}, {"index": "index"})
    if problems:
        raise DataError(
            given, "; ".join(m for _, m in problems) + " (set $HARNESS_INDEXES to where lab indexes may go)"
        )
    return LabIndex(target, options, str(TEXT_FOLDER), corpus)
