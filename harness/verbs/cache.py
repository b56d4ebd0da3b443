"""The cache verb: what the run cache holds, per index, and the pruning of runs not used since a
date (``harness cache``, ``harness.cache``).

The harness caches each searched run beside its index (``<index>/harness-runs``, or
``indexes/existing-<fingerprint>/harness-runs`` for an index built elsewhere; see
harness.experiment.cache): ``<run>.<key>.trec`` and ``<run>.<key>.parquet``. Only files of that
form, in such a folder of an index the harness built (its ``harness-index.json``) or of an
``existing-*`` cache folder, are listed or removed: nothing the harness did not create. A run is
*used* when a run reuses it (its binary copy's time is set then) or writes it.

A report's ``runs/`` holds a hard link to the cached text: removing the run from the cache
leaves every report whole, and frees the text's space only once no report holds it any more
(``linked`` counts those reports' links).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass
from pathlib import Path

from harness.engine.manifest import MANIFEST
from harness.errors import DataError
from harness.experiment.plan import RUN_CACHE, indexes_root, plan
from harness.experiment.store import cache_entry
from harness.verbs.plan import load

__all__ = ["CachedRun", "CachedIndex", "CacheOutcome", "cache", "parse_since"]


@dataclass(frozen=True)
class CachedRun:
    name: str  # the run's canonical name (its cache file's stem, before the key)
    key: str  # the first 16 hex digits of its cache key
    files: tuple[Path, ...]
    bytes: int  # on disk, each file once
    last_used: float  # seconds since the epoch
    linked: int  # other links to its text (reports' runs/ files)

    @property
    def freed(self) -> int:
        """What removing it frees: nothing of a text that reports still hold."""
        return sum(_blocks(f) for f in self.files if f.suffix != ".trec" or self.linked == 0)


@dataclass(frozen=True)
class CachedIndex:
    path: Path  # the index (or the existing-* folder that holds the runs of an index built elsewhere)
    index_bytes: int  # the index without its run cache
    runs: tuple[CachedRun, ...]

    @property
    def run_bytes(self) -> int:
        return sum(r.bytes for r in self.runs)


@dataclass(frozen=True)
class CacheOutcome:
    root: Path  # what was looked at
    indexes: tuple[CachedIndex, ...]  # as found (before any removal)
    removed: tuple[tuple[Path, CachedRun], ...]  # (index, run) removed, or to remove on a dry run
    dry_run: bool


def parse_since(text: str) -> dt.datetime:
    """A date (2026-11-01, local midnight), a date and time (2026-11-01T12:00), or N days ago
    (30d)."""
    m = re.fullmatch(r"(\d+)d", text.strip())
    if m:
        return dt.datetime.now() - dt.timedelta(days=int(m.group(1)))
    try:
        return dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise DataError("--unused-since", f"{text!r} is not a date: give 2026-11-01, 2026-11-01T12:00 or 30d") from None


def cache(target=None, *, unused_since: dt.datetime | None = None, dry_run: bool = False) -> CacheOutcome:
    """The run caches under ``target`` (a config: its index and the one beside it with exact
    lengths; an index folder; a folder of indexes; default: the indexes folder a config in the
    current directory would use), and, with ``unused_since``, its runs not used since then
    removed (only listed with ``dry_run``)."""
    root = Path(target) if target is not None else indexes_root(Path.cwd() / "harness.yaml")
    if target is not None and not root.exists():
        raise DataError(root, "not found: give a config, an index folder or a folder of indexes")
    folders = _config_indexes(root) if root.is_file() else _index_folders(root)
    indexes = tuple(_scan(f) for f in folders)
    removed = []
    if unused_since is not None:
        limit = unused_since.timestamp()
        for ix in indexes:
            for run in ix.runs:
                if run.last_used < limit:
                    if not dry_run:
                        _remove(run)
                    removed.append((ix.path, run))
    return CacheOutcome(root.resolve(), indexes, tuple(removed), dry_run)


def _config_indexes(path: Path) -> list[Path]:
    p = plan(load(path))
    folders = [p.runs_folder.parent]
    if p.exact is not None:
        folders.append(p.exact.runs_folder.parent)
    return [f for f in folders if _ours(f)]


def _ours(folder: Path) -> bool:
    """An index the harness built, or the folder where it caches the runs of one built elsewhere."""
    return (folder / MANIFEST).is_file() or (folder.name.startswith("existing-") and (folder / _runs()).is_dir())


def _runs() -> str:
    return RUN_CACHE


def _index_folders(root: Path) -> list[Path]:
    if _ours(root):
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink() and _ours(p))


def _blocks(path: Path) -> int:
    try:
        return os.lstat(path).st_blocks * 512
    except OSError:
        return 0


def _tree_bytes(folder: Path, skip: str) -> int:
    total = 0
    for base, dirs, files in os.walk(folder):
        if Path(base) == folder and skip in dirs:
            dirs.remove(skip)
        total += sum(_blocks(Path(base) / f) for f in files)
    return total


def _scan(folder: Path) -> CachedIndex:
    runs_dir = folder / _runs()
    groups: dict[tuple[str, str], list[Path]] = {}
    try:
        names = sorted(os.listdir(runs_dir))
    except OSError:
        names = []
    for n in names:
        entry = cache_entry(n)
        if entry is not None and (runs_dir / n).is_file() and not (runs_dir / n).is_symlink():
            groups.setdefault(entry, []).append(runs_dir / n)
    runs = []
    for (name, key), files in groups.items():
        stats = {f: os.lstat(f) for f in files}
        text = next((s for f, s in stats.items() if f.suffix == ".trec"), None)
        runs.append(
            CachedRun(
                name,
                key,
                tuple(files),
                sum(s.st_blocks * 512 for s in stats.values()),
                # the binary copy's time (set on each reuse), else the text's (an earlier version's cache)
                next(
                    (s.st_mtime for f, s in stats.items() if f.suffix == ".parquet"),
                    max(s.st_mtime for s in stats.values()),
                ),
                (text.st_nlink - 1) if text is not None else 0,
            )
        )
    runs.sort(key=lambda r: (-r.last_used, r.name))
    return CachedIndex(folder.resolve(), _tree_bytes(folder, _runs()), tuple(runs))


def _remove(run: CachedRun) -> None:
    # The binary copy first: a removal cut off halfway leaves the text, which the cache reads
    # as it reads a cache of an earlier version (harness.experiment.cache: still the same run).
    for f in sorted(run.files, key=lambda f: f.suffix == ".trec"):
        try:
            f.unlink()
        except FileNotFoundError:
            pass
