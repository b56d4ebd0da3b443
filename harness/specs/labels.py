"""Run labels: what tables, plots and file names call each run of a config (short, unique,
readable), from the runs' identities (harness.specs.identity), and the file each label names."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

from harness.specs.identity import Tuned
from harness.specs.params import format_value
from harness.specs.similarity import Similarity

__all__ = ["MAX_LABEL", "TUNED", "run_labels", "run_file_names"]

MAX_LABEL = 32  # an automatic label's longest form (report columns stay narrow)
TUNED = "tuned"  # the word after a cross-validated run's model in its label


def run_labels(
    runs: Sequence[Similarity], names: Mapping[Similarity, str] | None = None, tuned: Sequence[Tuned] = ()
) -> dict[str, str]:
    """Short, unique, readable labels for a config's runs: canonical name -> label.

    - A run whose entry carries ``name: LABEL`` is that label; an entry that sweeps several
      settings under one name gets ``LABEL`` followed by the parameters that vary (``base mu=500``).
    - Otherwise a model (with its expansion, ``bm25+rm3``) given once is its name (``bm25``); a
      model given several times is its name followed by the parameters that differ between its
      settings (``dirichlet mu=500``, ``bm25 k1=1.2 b=0.3``); a cross-validated run is its model
      and ``tuned`` (``dirichlet tuned``).
    - An automatic label longer than 32 characters, or one another run already has, is cut and
      numbered (``axiomatic function=f1exp s=0.… #2``), so every label is unique.

    ``names``: {Similarity: the name its entry gave}; ``tuned``: the cross-validated runs.

    >>> runs = [Similarity.parse(t) for t in ("bm25", "dirichlet(mu=500)", "dirichlet(mu=1000)")]
    >>> list(run_labels(runs, tuned=[Tuned("dirichlet", "AP", 5, 42)]).values())
    ['bm25', 'dirichlet mu=500', 'dirichlet mu=1000', 'dirichlet tuned']
    """
    names = dict(names or {})
    out: dict[str, str] = {}
    taken: set[str] = set()
    # the groups whose varying parameters name their runs: a family, or the runs of one given name
    groups: dict[tuple[str, str], list[Similarity]] = {}
    for r in runs:
        groups.setdefault(("name", names[r]) if r in names else ("family", r.family), []).append(r)
    varying: dict[tuple[str, str], list[str]] = {}
    for key, group in groups.items():
        keys = list(dict.fromkeys(k for r in group for k in r.settings))
        varying[key] = [k for k in keys if len({r.settings.get(k) for r in group}) > 1]

    def unique(label: str, limit: int | None) -> str:
        if (limit is None or len(label) <= limit) and label not in taken:
            return label
        n = 2
        while True:
            suffix = f" #{n}"
            if limit is None or len(label) + len(suffix) <= limit:
                candidate = label + suffix
            else:
                candidate = label[: limit - len(suffix) - 1] + "…" + suffix
            if candidate not in taken:
                return candidate
            n += 1

    for r in runs:
        key = ("name", names[r]) if r in names else ("family", r.family)
        head = names[r] if r in names else r.family
        parts = [f"{k}={format_value(r.settings[k])}" for k in varying[key] if k in r.settings]
        label = " ".join([head, *parts]) if len(groups[key]) > 1 else head
        label = unique(label, None if r in names and len(groups[key]) == 1 else MAX_LABEL)
        out[str(r)] = label
        taken.add(label)
    for t in tuned:
        label = unique(f"{t.family} {TUNED}", MAX_LABEL)
        out[str(t)] = label
        taken.add(label)
    return out


# A run file's name keeps a label's letters and digits (any script) and . - _ = +; every other
# run of characters (spaces, parentheses, commas, '#', '…') becomes one '_': no character a shell
# needs quoted, none Windows forbids.
_UNSAFE = re.compile(r"[^\w.=+-]+")
_WINDOWS_DEVICES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
_MAX_STEM = 100  # bytes of UTF-8 before ".trec": far below the 255 of common file systems


def _stem(label: str) -> str:
    # no leading '-' either: a file named like a flag (-x.trec) would be read as one
    stem = re.sub("_+", "_", _UNSAFE.sub("_", unicodedata.normalize("NFC", label))).lstrip("_.-").rstrip("_.") or "run"
    if stem.split(".", 1)[0].casefold() in _WINDOWS_DEVICES:
        stem += "_"  # CON.trec cannot be made on Windows
    return stem


def _digest(label: str, n: int) -> str:
    return hashlib.sha256(label.encode("utf-8", "surrogatepass")).hexdigest()[:n]


def run_file_names(labels: Iterable[str]) -> dict[str, str]:
    """The file of each run in a report's ``runs/`` folder: label -> file name, safe in a shell
    without quotes, deterministic, and distinct for distinct labels (case and Unicode
    normalisation ignored, as on macOS and Windows). ``manifest.json`` maps each label to its file.

    - The label's letters and digits (any script) and ``. - _ = +`` are kept; every other run
      of characters becomes one ``_``; ``_`` and ``.`` are stripped at either end, ``-`` at the
      start (``run`` if nothing is left): ``bm25 k1=0.9`` is
      ``bm25_k1=0.9.trec``, ``rrf(bm25, jm)`` is ``rrf_bm25_jm.trec``.
    - Labels that would share a file name, and a name longer than 100 bytes (cut), get ``-`` and
      the first 8 hex digits of the label's SHA-256: ``a b`` and ``a_b`` are
      ``a_b-<hash of 'a b'>.trec`` and ``a_b-<hash of 'a_b'>.trec``.

    >>> run_file_names(["bm25", "dirichlet mu=500", "dirichlet tuned", "rrf(bm25, jm)"])
    {'bm25': 'bm25.trec', 'dirichlet mu=500': 'dirichlet_mu=500.trec', 'dirichlet tuned': 'dirichlet_tuned.trec', \
'rrf(bm25, jm)': 'rrf_bm25_jm.trec'}
    """
    stems = {label: _stem(label) for label in dict.fromkeys(labels)}
    stems = {label: stem if len(stem.encode()) <= _MAX_STEM else _hashed(label, 8) for label, stem in stems.items()}
    n = 8
    while True:
        by_key: dict[str, list[str]] = {}
        for label, stem in stems.items():
            by_key.setdefault(stem.casefold(), []).append(label)
        shared = [label for group in by_key.values() if len(group) > 1 for label in group]
        if not shared:
            return {label: f"{stem}.trec" for label, stem in stems.items()}
        n = n if all(stems[label] == _stem(label) for label in shared) else n * 2  # digests met: longer
        for label in shared:
            stems[label] = _hashed(label, n)


def _hashed(label: str, n: int) -> str:
    """``label``'s stem, cut to fit, then ``-`` and ``n`` hex digits of its SHA-256."""
    stem = _stem(label).encode()[: _MAX_STEM - n - 1].decode("utf-8", "ignore").rstrip("_.-") or "run"
    return f"{stem}-{_digest(label, n)}"
