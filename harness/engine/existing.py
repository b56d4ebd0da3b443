"""Indexes built elsewhere (Anserini's IndexCollection, Pyserini, an earlier harness run), named by
a config instead of a collection. They are only read: nothing is ever written into them (the
run cache of such an index lives under ``indexes/``, see ``harness.experiment.plan``).

Without Java (validation and plans) we read the folder's file names: the latest commit point
``segments_N``, and for each segment whether it has term vectors (``.tvd``: Anserini's
``-storeDocvectors``) and positions (``.pos``). A compound segment (``.cfs``) hides its parts;
then :func:`describe` asks Lucene (Java) before any search. The fingerprint hashes the commit
point's bytes (which name every segment by its unique id) and the names and sizes of the
segment files: an index changed in any way gets a new fingerprint, an unchanged one the same.

    >>> is_lucene_index(Path("/nonexistent"))
    False
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from harness.engine import lucene
from harness.errors import DataError, EngineError

__all__ = ["is_lucene_index", "segment_fingerprint", "stored_features", "describe", "NEEDS"]

_SEGMENTS = re.compile(r"segments_([0-9a-z]+)\Z")

# What a run needs from an index, and the Anserini flag that stores it.
NEEDS = {"docvectors": "stored document vectors (Anserini IndexCollection -storeDocvectors)"}


def _commit(path: Path) -> Path | None:
    """The latest commit point: segments_N with the largest N (base 36, as Lucene writes it)."""
    best = None
    for f in path.iterdir() if path.is_dir() else ():
        m = _SEGMENTS.match(f.name)
        if m and (best is None or int(m.group(1), 36) > best[0]):
            best = (int(m.group(1), 36), f)
    return best[1] if best else None


def is_lucene_index(path: Path) -> bool:
    return _commit(Path(path)) is not None


def _segment_files(path: Path) -> list[Path]:
    return sorted(f for f in path.iterdir() if f.is_file() and f.name.startswith("_"))


def segment_fingerprint(path: Path) -> str:
    """sha256 of the commit point's bytes and of every segment file's name and size."""
    path = Path(path)
    commit = _commit(path)
    if commit is None:
        raise DataError(path, "is not a Lucene index (no segments_N file)")
    h = hashlib.sha256(b"lucene-index/1\0")
    h.update(commit.name.encode() + b"\0" + commit.read_bytes())
    for f in _segment_files(path):
        h.update(f"{f.name}\0{f.stat().st_size}\0".encode())
    return h.hexdigest()


def stored_features(path: Path) -> dict[str, bool | None]:
    """{"docvectors": ..., "positions": ...}: True when every segment has them, False when one
    lacks them, None when a compound segment hides it (ask :func:`describe`)."""
    path = Path(path)
    names = {f.name for f in _segment_files(path)}
    segments = sorted({n.split(".")[0] for n in names if n.endswith(".si")})
    out: dict[str, bool | None] = {}
    for feature, ext in (("docvectors", ".tvd"), ("positions", ".pos")):
        state: bool | None = True
        for seg in segments:
            if f"{seg}.cfs" in names:
                state = None if state else state
                continue
            has = f"{seg}{ext}" in names or any(n.startswith(f"{seg}_") and n.endswith(ext) for n in names)
            if not has:
                state = False
                break
        out[feature] = state if segments else False
    return out


def describe(path: Path) -> dict[str, object]:
    """What Lucene says the index stores (starts the JVM): documents, contents, positions,
    docvectors, raw, id, id_docvalues."""
    try:
        text = str(lucene.jclass("harness.IndexInfo").describe(str(path)))
    except Exception as e:
        raise EngineError(f"cannot read the index {path}: {e}") from e
    out: dict[str, object] = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        out[key] = int(value) if value.isdigit() else value == "true"
    return out
