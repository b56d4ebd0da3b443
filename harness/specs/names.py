"""Run names: what tables, plots and file names call each run of a config (short, unique,
readable), from the runs' identities (harness.specs.identity), and the file of each name."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

from harness.specs.identity import Tuned
from harness.specs.params import format_value
from harness.specs.similarity import Similarity

__all__ = ["MAX_AUTO_NAME", "TUNED", "run_names", "run_file_names"]

MAX_AUTO_NAME = 32  # an automatic name's longest form (report columns stay narrow)
TUNED = "tuned"  # the word after a cross-validated run's model in its name


def run_names(
    runs: Sequence[Similarity], given: Mapping[Similarity, str] | None = None, tuned: Sequence[Tuned] = ()
) -> dict[str, str]:
    """Short, unique, readable names for a config's runs: spec -> name.

    - A run whose entry carries ``name: NAME`` is that name; an entry that sweeps several
      settings under one name gets ``NAME`` followed by the parameters that vary (``base mu=500``).
    - Otherwise a model (with its expansion, ``bm25+rm3``) given once is its name (``bm25``); a
      model given several times is its name followed by the parameters that differ between its
      settings (``dirichlet mu=500``, ``bm25 k1=1.2 b=0.3``); a cross-validated run is its model
      and ``tuned`` (``dirichlet tuned``).
    - An automatic name longer than 32 characters, or one another run already has, is cut and
      numbered (``axiomatic function=f1exp s=0.… #2``), so every name is unique.

    ``given``: {Similarity: the name its entry gave}; ``tuned``: the cross-validated runs.

    >>> runs = [Similarity.parse(t) for t in ("bm25", "dirichlet(mu=500)", "dirichlet(mu=1000)")]
    >>> list(run_names(runs, tuned=[Tuned("dirichlet", "AP", 5, 42)]).values())
    ['bm25', 'dirichlet mu=500', 'dirichlet mu=1000', 'dirichlet tuned']
    """
    given = dict(given or {})
    out: dict[str, str] = {}
    taken: set[str] = set()
    # the groups whose varying parameters name their runs: a family, or the runs of one given name
    groups: dict[tuple[str, str], list[Similarity]] = {}
    for r in runs:
        groups.setdefault(("name", given[r]) if r in given else ("family", r.family), []).append(r)
    varying: dict[tuple[str, str], list[str]] = {}
    for key, group in groups.items():
        keys = list(dict.fromkeys(k for r in group for k in r.settings))
        varying[key] = [k for k in keys if len({r.settings.get(k) for r in group}) > 1]

    def unique(name: str, limit: int | None) -> str:
        if (limit is None or len(name) <= limit) and name not in taken:
            return name
        n = 2
        while True:
            suffix = f" #{n}"
            if limit is None or len(name) + len(suffix) <= limit:
                candidate = name + suffix
            else:
                candidate = name[: limit - len(suffix) - 1] + "…" + suffix
            if candidate not in taken:
                return candidate
            n += 1

    for r in runs:
        key = ("name", given[r]) if r in given else ("family", r.family)
        head = given[r] if r in given else r.family
        parts = [f"{k}={format_value(r.settings[k])}" for k in varying[key] if k in r.settings]
        name = " ".join([head, *parts]) if len(groups[key]) > 1 else head
        name = unique(name, None if r in given and len(groups[key]) == 1 else MAX_AUTO_NAME)
        out[str(r)] = name
        taken.add(name)
    for t in tuned:
        name = unique(f"{t.family} {TUNED}", MAX_AUTO_NAME)
        out[str(t)] = name
        taken.add(name)
    return out


# A run file's name keeps a name's letters and digits (any script) and . - _ = +; every other
# run of characters (spaces, parentheses, commas, '#', '…') becomes one '_': no character a shell
# needs quoted, none Windows forbids.
_UNSAFE = re.compile(r"[^\w.=+-]+")
_WINDOWS_DEVICES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
_MAX_STEM = 100  # bytes of UTF-8 before ".trec": far below the 255 of common file systems


def _stem(name: str) -> str:
    # no leading '-' either: a file named like a flag (-x.trec) would be read as one
    stem = re.sub("_+", "_", _UNSAFE.sub("_", unicodedata.normalize("NFC", name))).lstrip("_.-").rstrip("_.") or "run"
    if stem.split(".", 1)[0].casefold() in _WINDOWS_DEVICES:
        stem += "_"  # CON.trec cannot be made on Windows
    return stem


def _digest(name: str, n: int) -> str:
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:n]


def run_file_names(names: Iterable[str]) -> dict[str, str]:
    """The file of each run in a report's ``runs/`` folder: name -> file name, safe in a shell
    without quotes, deterministic, and distinct for distinct names (case and Unicode
    normalisation ignored, as on macOS and Windows). ``manifest.json`` maps each name to its file.

    - The name's letters and digits (any script) and ``. - _ = +`` are kept; every other run
      of characters becomes one ``_``; ``_`` and ``.`` are stripped at either end, ``-`` at the
      start (``run`` if nothing is left): ``bm25 k1=0.9`` is
      ``bm25_k1=0.9.trec``, ``rrf(bm25, jm)`` is ``rrf_bm25_jm.trec``.
    - Names that would share a file name, and a name longer than 100 bytes (cut), get ``-`` and
      the first 8 hex digits of the name's SHA-256: ``a b`` and ``a_b`` are
      ``a_b-<hash of 'a b'>.trec`` and ``a_b-<hash of 'a_b'>.trec``.

    >>> run_file_names(["bm25", "dirichlet mu=500", "dirichlet tuned", "rrf(bm25, jm)"])
    {'bm25': 'bm25.trec', 'dirichlet mu=500': 'dirichlet_mu=500.trec', 'dirichlet tuned': 'dirichlet_tuned.trec', \
'rrf(bm25, jm)': 'rrf_bm25_jm.trec'}
    """
    stems = {name: _stem(name) for name in dict.fromkeys(names)}
    stems = {name: stem if len(stem.encode()) <= _MAX_STEM else _hashed(name, 8) for name, stem in stems.items()}
    n = 8
    while True:
        by_key: dict[str, list[str]] = {}
        for name, stem in stems.items():
            by_key.setdefault(stem.casefold(), []).append(name)
        shared = [name for group in by_key.values() if len(group) > 1 for name in group]
        if not shared:
            return {name: f"{stem}.trec" for name, stem in stems.items()}
        n = n if all(stems[name] == _stem(name) for name in shared) else n * 2  # digests met: longer
        for name in shared:
            stems[name] = _hashed(name, n)


def _hashed(name: str, n: int) -> str:
    """``name``'s stem, cut to fit, then ``-`` and ``n`` hex digits of its SHA-256."""
    stem = _stem(name).encode()[: _MAX_STEM - n - 1].decode("utf-8", "ignore").rstrip("_.-") or "run"
    return f"{stem}-{_digest(name, n)}"
