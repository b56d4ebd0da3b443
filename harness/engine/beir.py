"""BEIR dataset folders, as Anserini 2.3.0 reads them.

A BEIR dataset is a folder with ``corpus.jsonl`` (one ``{"_id", "title", "text"}`` object per
line; ``corpus.jsonl.gz`` too), ``queries.jsonl`` (``{"_id", "text"}``) and ``qrels/<split>.tsv``.
The corpus is indexed by Anserini's own collection classes (read in its 2.3.0 bytecode):

- ``BeirFlatCollection``: "contents" is ``title + "\\n" + text`` (an empty title leaves the
  newline, which the analyzer drops); no other field is indexed; "raw" is the document's JSON
  pretty-printed by Jackson. Other keys (``metadata``) are ignored.
- ``BeirMultifieldCollection``: "contents" is ``text`` alone and ``title`` a field of its own
  (indexed when IndexCollection gets ``-fields title``); a document whose text is empty is
  counted empty and not indexed at all, its title included (DefaultLuceneDocumentGenerator
  trims "contents" only), as in Anserini.

Both call ``asText()`` on ``_id``, ``title`` and ``text``: a missing key is a Java
NullPointerException, a null is the text "null", an array or object no text, a number its JSON
text. None of these is what the file meant, so each is refused with its file and line
(harness.formats.json_docs.check_beir_document).
Only the corpus file is handed to Anserini (staged alone), never the folder's queries.jsonl,
which its JsonCollection discovery would index too.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from harness.errors import DataError
from harness.formats.catalog import BEIR_CORPUS_NAMES
from harness.formats.run import Run

__all__ = ["corpus_file", "DEFAULT_FIELDS", "without_query"]

# The weights of Anserini's BEIR multifield regressions (SearchCollection
# `-fields contents=1.0 title=1.0`): "contents" holds the text, "title" the title.
DEFAULT_FIELDS = (("contents", 1.0), ("title", 1.0))


def corpus_file(path: Path) -> Path:
    """The corpus of a BEIR folder (corpus.jsonl or corpus.jsonl.gz, not both), or ``path``
    itself when it is a file."""
    if not path.is_dir():
        return path
    found = [path / n for n in BEIR_CORPUS_NAMES if (path / n).exists()]
    if not found:
        raise DataError(path, f"a BEIR dataset folder holds {' or '.join(BEIR_CORPUS_NAMES)}; this one has neither")
    if len(found) > 1:
        raise DataError(
            path, f"holds both {' and '.join(BEIR_CORPUS_NAMES)}: which one is the corpus? Remove one, or name the file"
        )
    return found[0]


def without_query(run: Run) -> Run:
    """``run`` without the document whose id is its topic's id, as Anserini's -removeQuery does
    (BaseSearcher.processScoredDocs, read in 2.3.0's bytecode): after the search and the tie
    adjustment, so every other hit keeps its score and order, and a ranking loses one hit
    (none is searched in its place). A topic left without hits is left out, as a search leaves
    out a topic that finds nothing. The same run when nothing is removed."""
    topics = run.topics()
    seg = np.repeat(np.arange(len(topics)), np.diff(run.offsets))
    own = np.array([t.encode("utf-8", "surrogateescape") for t in topics] or [b""], dtype="S")
    keep = run.docids != own[seg]
    if keep.all():
        return run
    counts = np.bincount(seg[keep], minlength=len(topics))
    kept = [t for t, c in zip(topics, counts.tolist(), strict=True) if c]
    offsets = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(counts[counts > 0], out=offsets[1:])
    return Run(kept, offsets, run.docids[keep], run.scores[keep], run.source)
