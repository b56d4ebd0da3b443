"""Pyserini's local caches, read by name and never downloaded: prebuilt indexes
(``<cache>/indexes/``), topics (``<cache>/topics/``) and qrels (``<cache>/qrels/``).

The cache is where Pyserini 2.4.0 (``pyserini.util.get_cache_home``) and Anserini
(``CacheDirectoryResolver``) put it: ``$PYSERINI_CACHE`` when set and not empty, else
``./.cache/pyserini`` when the current folder has a ``.cache`` folder, else ``~/.cache/pyserini``.

Names resolve as Pyserini resolves them, offline:

- a topic set or qrels name through Pyserini's registry (castorini/eval's topics.json and
  qrels.json with their aliases, at the commit the installed pyserini pins), kept in
  ``pyserini_names.json`` beside this module (``scripts/pyserini_names.py`` writes it; Pyserini
  itself downloads the registry on every call). The topics are read with the Anserini topic
  reader the registry names, as Pyserini's ``get_topics`` reads them, and the query is the
  ``title`` field, as Pyserini's searchers take it.
- a prebuilt index name through the aliases of the installed ``pyserini/prebuilt_index_info.py``
  (read as text, never imported: importing pyserini starts Java and downloads the index
  catalogue), then to the folder Pyserini unpacked it into, ``<archive name>.<md5>`` whose
  archive name is ``<kind>.<name>.<date>.<commit>`` (``lucene-inverted.msmarco-v1-passage.20221004.252b5e``).
"""

from __future__ import annotations

import ast
import difflib
import importlib.util
import json
import os
import re
from functools import lru_cache
from pathlib import Path

from harness.errors import DataError

__all__ = ["cache_home", "topics_file", "qrels_file", "prebuilt_index", "MissingFromCache"]

_NAMES = Path(__file__).with_name("pyserini_names.json")
# <archive name>.<md5>, the archive name <kind>.<name>.<yyyymmdd>.<commit>: how Pyserini names an unpacked index
_INDEX_DIR = re.compile(r"(?:lucene|faiss)[A-Za-z0-9-]*\.(?P<name>.+)\.\d{8}\.[0-9a-f]+\.[0-9a-f]{32}\Z")


class MissingFromCache(DataError):
    """Named data that is not in the local cache (exit 2): the name, where it was looked for, and
    the command that would fetch it (the harness never downloads)."""

    def __init__(self, name: str, what: str, where: Path | str, fetch: str, detail: str = ""):
        self.where, self.fetch = str(where), fetch
        self.reason = (
            f"{what} is not in the local cache (looked for {where}){detail}; "
            f"the harness never downloads: fetch it with `{fetch}`"
        )
        super().__init__(name, self.reason)


def cache_home() -> Path:
    """Pyserini's cache folder, chosen as ``pyserini.util.get_cache_home`` chooses it."""
    custom = os.environ.get("PYSERINI_CACHE")
    if custom:
        return Path(custom)
    local = Path.cwd() / ".cache"
    if local.is_dir():
        return local / "pyserini"
    return Path.home() / ".cache" / "pyserini"


@lru_cache(maxsize=1)
def _names() -> dict:
    return json.loads(_NAMES.read_text(encoding="utf-8"))


def _known(kind: str, name: str) -> None:
    if name not in _names()[kind]:
        close = difflib.get_close_matches(name, list(_names()[kind]), n=5, cutoff=0.6)
        raise DataError(
            f"pyserini:{name}",
            f"no Pyserini {kind} named {name!r} (Pyserini's registry at castorini/eval "
            f"{_names()['eval_commit'][:7]})" + (f"; did you mean {', '.join(close)}?" if close else ""),
        )


def topics_file(name: str) -> tuple[Path, str]:
    """The cached topics file of Pyserini's topic set ``name`` and the Anserini reader that reads
    it (``TsvInt``...); MissingFromCache when it was never fetched."""
    _known("topics", name)
    file, reader = _names()["topics"][name]
    path = cache_home() / "topics" / file
    if not path.is_file():
        fetch = f"python -c \"from pyserini.search import get_topics; get_topics('{name}')\""
        raise MissingFromCache(f"pyserini:{name}", f"Pyserini's topics {name!r}", path, fetch)
    return path, reader


def qrels_file(name: str) -> Path:
    """The cached qrels file of Pyserini's qrels ``name``; MissingFromCache when never fetched."""
    _known("qrels", name)
    path = cache_home() / "qrels" / _names()["qrels"][name]
    if not path.is_file():
        fetch = f"python -c \"from pyserini.search import get_qrels_file; get_qrels_file('{name}')\""
        raise MissingFromCache(f"pyserini:{name}", f"Pyserini's qrels {name!r}", path, fetch)
    return path


@lru_cache(maxsize=1)
def _index_aliases() -> dict[str, str]:
    """The ``*_ALIASES`` dictionaries of the installed pyserini/prebuilt_index_info.py (literals)."""
    spec = importlib.util.find_spec("pyserini")
    if spec is None or not spec.submodule_search_locations:
        return {}
    out: dict[str, str] = {}
    for loc in spec.submodule_search_locations:
        source = Path(loc, "prebuilt_index_info.py")
        if not source.is_file():
            continue
        for node in ast.parse(source.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id.endswith("_ALIASES") for t in node.targets
            ):
                try:
                    value = ast.literal_eval(node.value)
                except ValueError:
                    continue
                out.update((k, v) for k, v in value.items() if isinstance(k, str) and isinstance(v, str))
    return out


def prebuilt_index(name: str) -> Path:
    """The folder Pyserini unpacked its prebuilt index ``name`` (or an alias of it) into;
    MissingFromCache when there is none, DataError when several versions are there."""
    aliases, seen, resolved = _index_aliases(), set(), name
    while resolved in aliases and resolved not in seen:  # Pyserini's _PrebuiltIndexCatalog._resolve_alias
        seen.add(resolved)
        resolved = aliases[resolved]
    folder = cache_home() / "indexes"
    found = sorted(
        p for p in (folder.iterdir() if folder.is_dir() else ()) if p.is_dir() and _index_name(p.name) == resolved
    )
    also = f" (an alias of {resolved})" if resolved != name else ""
    if not found:
        fetch = f"python -c \"from pyserini.util import download_prebuilt_index; download_prebuilt_index('{name}')\""
        where = folder / f"*.{resolved}.*"
        raise MissingFromCache(f"prebuilt:{name}", f"Pyserini's prebuilt index {name!r}{also}", where, fetch)
    if len(found) > 1:
        raise DataError(
            str(folder),
            f"{len(found)} versions of Pyserini's prebuilt index {name!r}{also} are there "
            f"({', '.join(p.name for p in found)}): name one with `index.path`",
        )
    return found[0]


def _index_name(folder: str) -> str | None:
    m = _INDEX_DIR.match(folder)
    return m.group("name") if m else None
