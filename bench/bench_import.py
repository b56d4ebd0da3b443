#!/usr/bin/env python3
"""Import-time benchmark: what `import harness` and `harness run --help` cost, whole process.

Each case runs in a fresh interpreter (the same `.venv` Python), --repeat times; the table gives
the median wall time of:

  python -c pass                 the interpreter alone, for scale
  import harness                 the package (the Python API is lazy: nothing heavy is imported)
  harness run --help             `python -m harness run --help` (argument parsing only)
  harness.run attribute          `import harness; harness.run`: loads the API (pandas)

and which heavy modules each case loaded (numpy, yaml, pandas, scipy, jnius), plus the
cumulative time `python -X importtime` reports for `harness`. With --baseline REV the same
cases also run on that git revision (extracted with `git archive` into a temporary folder),
alternating run by run with this tree, so both columns come from one run of the script on the
same machine load. Timings on a shared machine are noisy: compare columns of one run.

    .venv/bin/python bench/bench_import.py [--repeat 15] [--baseline main]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "yaml", "pandas", "scipy", "jnius", "pyserini")

CASES = {
    "python -c pass": "pass",
    "import harness": "import harness",
    "harness run --help": None,  # run as `python -m harness run --help`
    "harness.run attribute": "import harness; harness.run",
}


def _argv(code: str | None) -> list[str]:
    if code is None:
        return [sys.executable, "-m", "harness", "run", "--help"]
    return [sys.executable, "-c", code]


def _env(tree: Path) -> dict:
    import os

    # the tree's own package first, whatever the venv has installed
    return {**os.environ, "PYTHONPATH": str(tree)}


def once(code: str | None, tree: Path) -> float | None:
    """Wall time of one fresh process, or None when the case fails (no `harness.run` before the API)."""
    t = time.perf_counter()
    r = subprocess.run(_argv(code), cwd=tree, env=_env(tree), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - t
    return None if r.returncode else elapsed


def loaded(code: str | None, tree: Path) -> str:
    """Which HEAVY modules are in sys.modules after the case ran."""
    body = (
        "sys.argv = ['harness', 'run', '--help']\n"
        "try:\n    runpy.run_module('harness', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        if code is None
        else code + "\n"
    )
    probe = f"import sys, json, runpy\n{body}print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))"
    r = subprocess.run([sys.executable, "-c", probe], cwd=tree, env=_env(tree), capture_output=True, text=True)
    if r.returncode:
        return "fails"
    return ", ".join(json.loads(r.stdout.strip().splitlines()[-1])) or "none"


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
            subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
            trees = {f"{args.baseline} ({rev})": Path(tmp), **trees}
        print(f"median wall seconds of {args.repeat} fresh processes each, trees alternating; {sys.executable}")
        print("| case | " + " | ".join(trees) + " | heavy modules loaded (" + " / ".join(trees) + ") |")
        print("|---|" + "---:|" * len(trees) + "---|")
        for name, code in CASES.items():
            times: dict[str, list] = {t: [] for t in trees}
            for _ in range(args.repeat):
                for label, tree in trees.items():
                    times[label].append(once(code, tree))
            mods = " / ".join(loaded(code, tree) for tree in trees.values())
            print(f"| {name} | " + " | ".join(_fmt(times[t]) for t in trees) + f" | {mods} |")
        print(
            "\npython -X importtime, `harness` cumulative: "
            + ", ".join(f"{label} {importtime_s(tree):.4f} s" for label, tree in trees.items())
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
