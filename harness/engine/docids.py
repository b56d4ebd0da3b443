"""Which document ids an index holds, looked up in Lucene's term dictionary of the ``id`` field
(the field Anserini indexes every document id into), without reading the stored documents.

Used by the sanity checks: qrels whose doc ids are not in the collection (``cats`` judged,
``cats.txt`` indexed) give all-zero tables. At most :data:`SAMPLE` distinct ids are looked up,
chosen deterministically (evenly spaced in sorted order), so the check costs well under a second
whatever the size of the qrels, and gives the same answer every time.
"""

from __future__ import annotations

from pathlib import Path

from harness.engine import lucene
from harness.errors import EngineError

__all__ = ["SAMPLE", "sample_ids", "count_in_index"]

SAMPLE = 5000


def sample_ids(ids) -> list[str]:
    """At most SAMPLE of the distinct ``ids``, evenly spaced in sorted order."""
    distinct = sorted(set(ids))
    if len(distinct) <= SAMPLE:
        return distinct
    step = len(distinct) / SAMPLE
    return [distinct[int(i * step)] for i in range(SAMPLE)]


def count_in_index(index_path: Path, ids: list[str]) -> tuple[int, list[str]]:
    """(how many of ``ids`` the index holds, up to 3 of those it does not); one Java call."""
    try:
        missing = list(lucene.jclass("harness.IndexInfo").missingIds(str(index_path), list(ids)))
    except Exception as e:
        raise EngineError(f"cannot open index {index_path}: {e}") from e
    return len(ids) - len(missing), [ids[i] for i in missing[:3]]
