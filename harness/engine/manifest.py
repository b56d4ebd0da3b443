"""An index's manifest, ``harness-index.json``: what the harness records of an index it built
(the fingerprint, the options, IndexCollection's counters, the statistics, who built it, when),
written last by the build (harness.engine.index), so that its presence says the index is complete,
and the marker that the harness built the folder (only such a folder is ever replaced). Read and
checked here: a manifest of another shape is an unusable index, with the one command that fixes it.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.folders import INDEX_MANIFEST
from harness.policies import DEFAULT_LANGUAGE, LANGUAGES

__all__ = ["MANIFEST", "LENGTHS", "read_manifest", "open_manifest", "unusable_index"]

MANIFEST = INDEX_MANIFEST
# The manifest's keys a reader relies on, and their types (anything else is kept as written).
_MANIFEST_TYPES = {"fingerprint": str, "options": dict, "stats": dict, "counters": dict}
_STEMMERS = ("porter", "krovetz", "none")
LENGTHS = ("lucene", "exact")  # IndexOptions.lengths
VECTOR_INDEXES = (None, "flat", "hnsw")  # IndexOptions.vectors


def read_manifest(path: Path) -> tuple[dict | None, str | None]:
    """(manifest, None) for a usable ``harness-index.json`` in ``path``; (None, None) when there is
    none; (None, what is wrong) when it is there but unreadable, empty, not JSON, or not of the
    shape the harness writes. Never raises."""
    file = Path(path) / MANIFEST
    try:
        if not file.exists():
            return None, None
        if not file.is_file():
            return None, "is not a regular file"
        raw = file.read_bytes()
    except OSError as e:
        return None, f"cannot be read ({e.strerror or e})"
    if not raw.strip():
        return None, "is empty"
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        return None, f"is not JSON ({str(e).splitlines()[0][:120]})"
    if not isinstance(manifest, dict):
        return None, f"holds a JSON {type(manifest).__name__}, not the object the harness writes"
    for key, kind in _MANIFEST_TYPES.items():
        if key not in manifest:
            return None, f"has no {key!r}"
        if not isinstance(manifest[key], kind) or (key == "fingerprint" and not manifest[key]):
            return None, f"has a {key!r} that is not a {'non-empty string' if kind is str else 'mapping'}"
    opts = manifest["options"]
    if (
        opts.get("stemmer", "porter") not in _STEMMERS
        or not isinstance(opts.get("stopwords", True), bool)
        or opts.get("lengths", "lucene") not in LENGTHS
        or opts.get("language", DEFAULT_LANGUAGE) not in LANGUAGES
        or opts.get("vectors") not in VECTOR_INDEXES
        or opts.get("quantize") not in (None, "int8")
        or not isinstance(opts.get("impact", False), bool)
        or any(not isinstance(opts.get(k, 1), int) or isinstance(opts.get(k), bool) for k in ("M", "efC"))
    ):
        return None, "has index options the harness does not write (stemmer, stopwords, lengths, language, vectors)"
    return manifest, None


def open_manifest(path: Path) -> dict | None:
    """The manifest when it is usable, else None (see :func:`read_manifest` for why not)."""
    return read_manifest(path)[0]


def unusable_index(path: Path, why: str) -> str:
    """The message for an index folder whose manifest is unusable, with the one command that fixes it."""
    return (
        f"{MANIFEST} {why}: {path} is not a usable harness index. Remove the folder "
        f"(rm -r '{path}') and run again: the harness builds it anew"
    )
