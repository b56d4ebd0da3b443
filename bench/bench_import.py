#!/usr/bin/env python3
"""Import-time benchmark: what `import harness` and the quick commands cost, whole process.

Each case runs in a fresh interpreter (the same `.venv` Python), --repeat times; the table gives
the median wall time of:

  python -c pass                 the interpreter alone, for scale
  import harness                 the package (the Python API is loaded on first use)
  harness --help                 `python -m harness --help` (every subcommand's parser)
  harness run --help             `python -m harness run --help` (argument parsing only)
  harness trec_eval              `python -m harness trec_eval -q QRELS RUN`: the demo's qrels
                                 (qrels/demo.txt, 113 judgments) and a run of its judged documents
  harness evaluate               `python -m harness evaluate RUN QRELS` (its default measures)
  harness compare                `python -m harness compare RUN OTHER --qrels QRELS --baseline bench`:
                                 that run and another of the same documents in the qrels' order
  harness fuse                   `python -m harness fuse RUN OTHER -o FUSED` (rrf)
  harness schema                 `python -m harness schema` (the config's JSON Schema)
  harness validate               `python -m harness validate configs/demo.yaml` (no Java)
  harness run --dry-run          `python -m harness run --dry-run configs/demo.yaml`: the plan
                                 (tsv topics: no Java)
  harness.run attribute          `import harness; harness.run`: loads the API

and which heavy modules each case loaded (HEAVY: numpy, yaml and the libraries harness.lazy
defers) with, in parentheses, how many harness modules, plus the cumulative time `python -X
importtime` reports for `harness` and the machine's load average before and after. With --baseline REV the
same cases also run on that git revision (extracted with `git archive` into a temporary folder),
alternating run by run with this tree, so both columns come from one run of the script on the
same machine load; each tree's bytecode is written first (:func:`compiled`). Timings on a shared
machine are noisy: compare columns of one run.

    .venv/bin/python bench/bench_import.py [--repeat 15] [--baseline main]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QRELS = REPO / "qrels" / "demo.txt"
HEAVY = (
    "numpy",
    "yaml",
    "pandas",
    "scipy",
    "pyarrow",
    "distributed",
    "ir_datasets",
    "starlette",
    "jinja2",
    "jnius",
    "pyserini",
)


def cases(run: Path, other: Path) -> dict[str, tuple[str, ...] | str]:
    """name -> Python code (a string) or the arguments of `python -m harness` (a tuple)."""
    config = str(REPO / "configs" / "demo.yaml")
    return {
        "python -c pass": "pass",
        "import harness": "import harness",
        "harness --help": ("--help",),
        "harness run --help": ("run", "--help"),
        "harness trec_eval": ("trec_eval", "-q", str(QRELS), str(run)),
        "harness evaluate": ("evaluate", str(run), str(QRELS)),
        "harness compare": ("compare", str(run), str(other), "--qrels", str(QRELS), "--baseline", run.stem),
        "harness fuse": ("fuse", str(run), str(other), "-o", str(run.with_name("fused.run"))),
        "harness schema": ("schema",),
        "harness validate": ("validate", config),
        "harness run --dry-run": ("run", "--dry-run", config),
        "harness.run attribute": "import harness; harness.run",
    }


def _judged_run(path: Path, tag: str, score) -> Path:
    """A run of the demo qrels' judged documents, in the qrels' order, each scored
    ``score(label, rank)``."""
    lines, rank = [], {}
    for line in QRELS.read_text().splitlines():
        qid, _, doc, label = line.split()
        rank[qid] = rank.get(qid, 0) + 1
        lines.append(f"{qid} Q0 {doc} {rank[qid]} {score(int(label), rank[qid])} {tag}")
    path.write_text("\n".join(lines) + "\n")
    return path


def write_run(path: Path) -> Path:
    """A run of the demo qrels' judged documents, the more relevant first."""
    return _judged_run(path, "bench", lambda label, rank: f"{label + 1 / rank:.4f}")


def write_other(path: Path) -> Path:
    """A run of the demo qrels' judged documents in the qrels' order (what compare and fuse read
    beside write_run's)."""
    return _judged_run(path, "other", lambda label, rank: 100 - rank)


def _argv(case: tuple[str, ...] | str) -> list[str]:
    if isinstance(case, tuple):
        return [sys.executable, "-m", "harness", *case]
    return [sys.executable, "-c", case]


def _env(tree: Path) -> dict:
    # the tree's own package first, whatever the venv has installed
    return {**os.environ, "PYTHONPATH": str(tree)}


def once(case: tuple[str, ...] | str, tree: Path) -> float | None:
    """Wall time of one fresh process, or None when the case fails (no `harness.run` before the API)."""
    t = time.perf_counter()
    r = subprocess.run(_argv(case), cwd=tree, env=_env(tree), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - t
    return None if r.returncode else elapsed


def loaded(case: tuple[str, ...] | str, tree: Path) -> str:
    """Which HEAVY modules are in sys.modules after the case ran."""
    body = (
        f"sys.argv = ['harness', *{list(case)!r}]\n"
        "try:\n    runpy.run_module('harness', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        if isinstance(case, tuple)
        else case + "\n"
    )
    probe = (
        f"import sys, json, runpy\n{body}print('HEAVY', json.dumps([[m for m in {list(HEAVY)!r} if m in sys.modules], "
        "sum(m.partition('.')[0] == 'harness' for m in sys.modules)]))"
    )
    r = subprocess.run([sys.executable, "-c", probe], cwd=tree, env=_env(tree), capture_output=True, text=True)
    if r.returncode:
        return "fails"
    line = [x for x in r.stdout.splitlines() if x.startswith("HEAVY ")][-1]
    heavy, ours = json.loads(line.removeprefix("HEAVY "))
    return f"{', '.join(heavy) or 'none'} ({ours})"


def importtime_s(tree: Path) -> float:
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import harness"],
        cwd=tree,
        env=_env(tree),
        check=True,
        capture_output=True,
        text=True,
    )
    line = [x for x in r.stderr.splitlines() if x.rstrip().endswith("| harness")][-1]
    return int(line.split("|")[1]) / 1e6


def compiled(tree: Path) -> None:
    """The bytecode of the tree's harness modules written (or brought up to date) beforehand, as
    set-up writes it (scripts/bytecode.py): with PYTHONDONTWRITEBYTECODE set (as here and in many
    containers) a tree extracted by `git archive`, or a module edited since set-up, would be
    compiled again in every process (validate took 0.60 s instead of 0.40 s so), and the
    columns would compare compilations, not imports."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "harness")], check=True)


def _load() -> str:
    """The machine's load average over 1, 5 and 15 minutes (the table's figures depend on it)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _fmt(times: list) -> str:
    return "fails" if None in times else f"{statistics.median(times):.3f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--baseline", metavar="REV", help="also time this git revision (e.g. main), alternating")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"this tree": REPO}
        if args.baseline:
            rev = subprocess.run(
                ["git", "rev-parse", "--short", args.baseline], cwd=REPO, check=True, capture_output=True, text=True
            ).stdout.strip()
            archive = subprocess.run(["git", "archive", rev, "harness"], cwd=REPO, check=True, capture_output=True)
            base = Path(tmp) / "baseline"
            base.mkdir()
            subprocess.run(["tar", "-x", "-C", base], input=archive.stdout, check=True)
            trees = {f"{args.baseline} ({rev})": base, **trees}
        for tree in trees.values():
            compiled(tree)
        print(f"median wall seconds of {args.repeat} fresh processes each, trees alternating; {sys.executable}")
        print(f"load average at the start: {_load()}")
        print(
            "| case | " + " | ".join(trees) + " | heavy modules loaded (harness modules) (" + " / ".join(trees) + ") |"
        )
        print("|---|" + "---:|" * len(trees) + "---|")
        runs = write_run(Path(tmp) / "bench.run"), write_other(Path(tmp) / "other.run")
        for name, case in cases(*runs).items():
            times: dict[str, list] = {t: [] for t in trees}
            for _ in range(args.repeat):
                for label, tree in trees.items():
                    times[label].append(once(case, tree))
            mods = " / ".join(loaded(case, tree) for tree in trees.values())
            print(f"| {name} | " + " | ".join(_fmt(times[t]) for t in trees) + f" | {mods} |")
        print(
            "\npython -X importtime, `harness` cumulative: "
            + ", ".join(f"{label} {importtime_s(tree):.4f} s" for label, tree in trees.items())
        )
        print(f"load average at the end: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
