"""``harness.cache``: the run cache as a table, and pruning it (the cache verb)."""

from __future__ import annotations

import datetime as dt
import os
from typing import TYPE_CHECKING

from harness import lazy
from harness.verbs.cache import cache as cache_verb
from harness.verbs.cache import parse_since

pd = lazy.module("pandas")

if TYPE_CHECKING:  # the annotations' type; pandas itself is imported on first use
    from pandas import DataFrame

__all__ = ["cache"]

COLUMNS = ["index", "run", "key", "bytes", "last_used", "linked", "removed"]


def cache(
    path: str | os.PathLike | None = None,
    *,
    unused_since: dt.datetime | str | None = None,
    dry_run: bool = False,
) -> DataFrame:
    """The cached runs under ``path`` (a config, an index folder or a folder of indexes; default
    the indexes folder a config in the current directory would use), one row each: ``index``,
    ``run``, ``key``, ``bytes`` on disk, ``last_used`` (a Timestamp), ``linked`` (report files
    holding its text) and ``removed``. With ``unused_since`` (a datetime, or ``"2026-11-01"`` /
    ``"30d"`` as ``harness cache --unused-since`` takes), the runs not used since then are
    removed (only marked with ``dry_run``), as ``harness cache`` does."""
    since = parse_since(unused_since) if isinstance(unused_since, str) else unused_since
    out = cache_verb(path, unused_since=since, dry_run=dry_run)
    gone = {(index, r.key, r.name) for index, r in out.removed}
    rows = [
        (
            str(ix.path),
            r.name,
            r.key,
            r.bytes,
            pd.Timestamp(r.last_used, unit="s"),
            r.linked,
            (ix.path, r.key, r.name) in gone,
        )
        for ix in out.indexes
        for r in ix.runs
    ]
    return pd.DataFrame(rows, columns=COLUMNS)
