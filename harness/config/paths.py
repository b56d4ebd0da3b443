"""Where the harness may write: checks of an output or index folder against everything a user
would not want replaced, before anything touches the disk (``validate`` runs them too).

A folder the harness writes (the report ``output``, an index ``path``) is refused when it

- equals, contains or lies inside an input: the collection, the topics, the qrels, the config
  file, a `file:` run, or the other folder it writes (index vs output);
- is the file system root or the home folder, or contains one of them;
- is, contains or lies inside a git repository's ``.git``, or is (or contains) a folder holding
  ``.git`` (a checkout: the repository of the config or of an input);
- already exists, is not empty, and was not written by the harness (no marker: see
  :mod:`harness.folders`), or is a file;
- (an output folder) holds what another experiment wrote: its marker names another config file
  or ``name:`` (:class:`harness.folders.Experiment`). ``replace`` (``--replace``,
  ``harness.run(..., replace=True)``) lets the harness replace it; nothing lets it replace a
  folder it did not write (the rules above hold with ``replace`` too). A marker of a version
  before the experiment was recorded names none, so any experiment may replace it, as before.

Lying *inside* a checkout is fine (``reports/demo`` of this repository); replacing it is not.
"""

from __future__ import annotations

import os
from pathlib import Path

from harness.folders import INDEX_MANIFEST as MANIFEST
from harness.folders import (
    OUTPUT_MARKER,
    Experiment,
    foreign_entries,
    is_legacy_report,
    read_marker,
    recorded_experiment,
)

__all__ = ["resolve_path", "write_target_problems", "other_experiment_problem"]


def resolve_path(path: Path) -> tuple[Path, None] | tuple[None, str]:
    """(absolute path with symlinks followed, None) or (None, why it cannot be resolved)."""
    try:
        return Path(os.path.expanduser(path)).resolve(), None
    except RuntimeError:  # Python < 3.13: "Symlink loop from ..."
        return None, f"{path} is a symlink loop (a link that points back to itself); remove or fix the link"
    except OSError as e:
        return None, f"cannot resolve {path}: {e.strerror or e}"


def _inside(a: Path, b: Path) -> bool:
    """a is b or lies below b."""
    return a == b or b in a.parents


def _git_roots(paths: list[Path]) -> set[Path]:
    """The checkouts (folders holding .git) that hold any of ``paths``."""
    roots = set()
    for p in paths:
        for d in (p, *p.parents):
            try:
                if (d / ".git").exists():
                    roots.add(d)
                    break
            except OSError:
                break
    return roots


def _home() -> Path | None:
    home = os.environ.get("HOME")
    if not home:
        return None
    p, _ = resolve_path(Path(home))
    return p


def write_target_problems(
    targets: dict[str, Path],
    inputs: dict[str, Path],
    kinds: dict[str, str] | None = None,
    *,
    experiment: Experiment | None = None,
    replace: bool = False,
) -> list[tuple[str, str]]:
    """Problems ``(key, message)`` with the folders the harness is about to write.

    ``targets``: key (e.g. ``output``, ``index.path``) -> folder; ``inputs``: what each names
    (e.g. ``topics``) -> file or folder it reads; ``kinds``: key -> "output" | "index", how an
    existing folder proves the harness wrote it (marker, or ``harness-index.json``).
    ``experiment``: the one about to write the output folders, refused where another wrote
    them unless ``replace`` (None: not checked)."""
    kinds = kinds or {}
    problems: list[tuple[str, str]] = []
    resolved_inputs: dict[str, Path] = {}
    for name, p in inputs.items():
        r, _ = resolve_path(p)
        if r is not None:
            resolved_inputs[name] = r
    resolved: dict[str, Path] = {}
    for key, p in targets.items():
        r, why = resolve_path(p)
        if why is not None:
            problems.append((key, why))
        elif r is not None:
            resolved[key] = r
    home = _home()
    roots = _git_roots(list(resolved_inputs.values()))
    what = {"output": "the report folder", "index": "the index folder"}
    for key, t in resolved.items():
        kind = kinds.get(key, "output")
        replacing = f"the harness would replace {t} with {what[kind]}"
        fix = f"Choose another `{key}`"
        if t == Path(t.anchor):
            problems.append(
                (key, f"{t} is the file system root; {replacing}. {fix} (e.g. a new folder under reports/)")
            )
            continue
        if home is not None and _inside(home, t):
            rel = "is" if t == home else "contains"
            problems.append((key, f"{t} {rel} your home folder {home}; {replacing}. {fix}"))
            continue
        for name, i in resolved_inputs.items():
            if t == i:
                problems.append((key, f"{t} is the {name} itself; {replacing}. {fix}"))
            elif _inside(i, t):
                problems.append((key, f"{t} contains the {name} ({i}); {replacing}. {fix}"))
            elif _inside(t, i):
                problems.append((key, f"{t} lies inside the {name} ({i}); writing there changes an input. {fix}"))
        if ".git" in t.parts:
            problems.append((key, f"{t} lies inside a git repository's .git folder. {fix}"))
        checkouts = roots | ({t} if (t / ".git").exists() else set())
        for root in sorted(checkouts):
            if _inside(root, t):
                rel = "is" if t == root else "contains"
                problems.append((key, f"{t} {rel} the git checkout {root}; {replacing}. {fix}"))
        for other, o in resolved.items():
            if other < key or other == key:
                continue
            if t == o:
                problems.append((key, f"{t} is also `{other}`; the index and the report need separate folders"))
            elif _inside(o, t) or _inside(t, o):
                outer, inner = (key, other) if _inside(o, t) else (other, key)
                problems.append(
                    (key, f"`{inner}` ({resolved[inner]}) lies inside `{outer}` ({resolved[outer]}). {fix}")
                )
        problems += [(key, m) for m in _existing_problems(t, kind, key)]
        if kind == "output" and experiment is not None and not replace and not any(k == key for k, _ in problems):
            if (why := other_experiment_problem(t, experiment, key)) is not None:
                problems.append((key, why))
    return problems


def other_experiment_problem(folder: Path, experiment: Experiment, key: str = "output") -> str | None:
    """Why ``experiment`` may not write ``folder`` without ``--replace`` (its marker names another
    experiment: :func:`harness.folders.recorded_experiment`), or None. The two ways on are named
    for both doors: the command line's flags and the Python API's arguments."""
    theirs = recorded_experiment(folder)
    if theirs is None or theirs == experiment:
        return None
    marker = read_marker(folder) or {}
    what = "runs" if marker.get("kind") == "runs" else "report"  # `harness search` writes runs only
    return (
        f"{folder} holds the {what} of another experiment, {theirs} (this one is {experiment}); the harness "
        f"replaces another experiment's folder only when asked: pass --replace (replace=True in harness.run) "
        f"to replace it, or choose another `{key}` (--output DIR) to keep it"
    )


def _existing_problems(t: Path, kind: str, key: str) -> list[str]:
    if not os.path.lexists(t):
        return []
    if not t.is_dir():
        return [f"{t} exists and is not a folder; choose another `{key}`"]
    try:
        empty = not any(os.scandir(t))
    except OSError as e:
        return [f"cannot read the folder {t}: {e.strerror or e}"]
    if empty:
        return []
    if kind == "index":
        if (t / MANIFEST).is_file():
            return []
        return [
            f"{t} exists, is not empty and was not built by the harness (no {MANIFEST}); "
            f"the harness replaces only folders it created: choose another `{key}` or empty it yourself"
        ]
    foreign = foreign_entries(t)
    if foreign is None:
        if is_legacy_report(t):
            return []
        return [
            f"{t} exists, is not empty and was not written by the harness (no {OUTPUT_MARKER} marker); "
            f"the harness replaces only folders it created: choose another `{key}` (e.g. a new folder under "
            "reports/) or empty it yourself"
        ]
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        return [
            f"{t} holds files the harness did not write ({shown}); it would replace the folder and lose them: "
            f"move them elsewhere or choose another `{key}`"
        ]
    return []
