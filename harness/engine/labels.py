"""Run labels: what tables, plots and file names call each run of a config (short, unique,
readable), from the runs' canonical similarity specs (harness.engine.similarity)."""

from __future__ import annotations

from harness.engine.similarity import format_value

__all__ = ["MAX_LABEL", "TUNED", "run_labels"]

MAX_LABEL = 32  # an automatic label's longest form (report columns stay narrow)
TUNED = "tuned"  # the word after a cross-validated run's model in its label


def run_labels(runs, names=None, tuned=()) -> dict[str, str]:
    """Short, unique, readable labels for a config's runs: canonical name -> label.

    - A run whose entry carries ``name: LABEL`` is that label; an entry that sweeps several
      settings under one name gets ``LABEL`` followed by the parameters that vary (``base mu=500``).
    - Otherwise a model (with its expansion, ``bm25+rm3``) given once is its name (``bm25``); a
      model given several times is its name followed by the parameters that differ between its
      settings (``dirichlet mu=500``, ``bm25 k1=1.2 b=0.3``); a cross-validated run is its model
      and ``tuned`` (``dirichlet tuned``).
    - An automatic label longer than 32 characters, or one another run already has, is cut and
      numbered (``axiomatic function=f1exp s=0.… #2``), so every label is unique.

    ``names``: {Similarity: the name its entry gave}; ``tuned``: the cross-validated runs'
    canonical names (``dirichlet(cv:AP,folds=5,seed=42)``).

    >>> from harness.engine.similarity import Similarity
    >>> runs = [Similarity.parse(t) for t in ("bm25", "dirichlet(mu=500)", "dirichlet(mu=1000)")]
    >>> list(run_labels(runs, tuned=["dirichlet(cv:AP,folds=5,seed=42)"]).values())
    ['bm25', 'dirichlet mu=500', 'dirichlet mu=1000', 'dirichlet tuned']
    """
    names = dict(names or {})
    out: dict[str, str] = {}
    taken: set[str] = set()
    # the groups whose varying parameters name their runs: a family, or the runs of one given name
    groups: dict[tuple[str, str], list] = {}
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
            fits = limit is None or len(label) + len(suffix) <= limit
            candidate = (label if fits else label[: limit - len(suffix) - 1] + "…") + suffix
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
    for name in tuned:
        model = name.split("(cv:", 1)[0]
        label = unique(f"{model} {TUNED}", MAX_LABEL)
        out[name] = label
        taken.add(label)
    return out
