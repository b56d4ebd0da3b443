#!/usr/bin/env python3
"""Import-time benchmark: what `import harness` and `harness run --help` cost, whole process.

In one run, each in a fresh interpreter (the same `.venv` Python), --repeat times, the median of:

  python -c pass                 the interpreter alone, for scale
  import harness                 the package (the Python API is lazy: nothing heavy is imported)
  harness run --help             `python -m harness run --help` (argument parsing only)
  harness.run attribute          `import harness; harness.run`: loads harness.api (pandas)

plus, from one `python -X importtime -c "import harness"`, the cumulative microseconds
Python itself reports for `harness`, and which heavy modules each command loaded (pandas,
scipy, jnius, yaml, numpy). Timings on a shared machine are noisy: compare rows of one run.

    .venv/bin/python bench/bench_import.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
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


def wall(code: str | None, repeat: int) -> float | None:
    """Median wall time, or None when the case fails (e.g. `harness.run` before the API existed)."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        r = subprocess.run(_argv(code), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
        if r.returncode:
            return None
    return statistics.median(times)


def loaded(code: str | None) -> list[str]:
    """Which HEAVY modules are in sys.modules after the case ran."""
    probe = (
        "import sys, json, runpy\n"
        + (
            "sys.argv = ['harness', 'run', '--help']\n"
            "try:\n    runpy.run_module('harness', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            if code is None
            else code + "\n"
        )
        + f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))"
    )
    r = subprocess.run([sys.executable, "-c", probe], cwd=REPO, check=True, capture_output=True, text=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def importtime_us() -> int:
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import harness"],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    line = [x for x in r.stderr.splitlines() if x.rstrip().endswith("| harness")][-1]
    return int(line.split("|")[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args(argv)
    print(f"median of {args.repeat} fresh processes; {sys.executable}")
    base = None
    print("| case | wall s | minus bare interpreter s | heavy modules loaded |\n|---|---:|---:|---|")
    for name, code in CASES.items():
        t = wall(code, args.repeat)
        if t is None:
            print(f"| {name} | fails | | |")
            continue
        base = t if base is None else base
        print(f"| {name} | {t:.3f} | {t - base:.3f} | {', '.join(loaded(code)) or 'none'} |")
    print(f"\npython -X importtime: `harness` cumulative {importtime_us() / 1e6:.4f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
