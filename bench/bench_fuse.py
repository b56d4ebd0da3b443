#!/usr/bin/env python3
"""Benchmark: `harness fuse` against `python -m pyserini.fusion` on two TREC runs, as whole
processes as a user times them (interpreter and imports included for both).

    .venv/bin/python bench/bench_fuse.py                       # two 1M-line runs, rrf
    .venv/bin/python bench/bench_fuse.py --methods rrf,normalize --repeat 3

The runs are generated here (seeded numpy: 1000 topics x 1000 documents each, drawn from 2500
per topic so that about 40% overlap, scores with 4 decimals and some ties) into bench/out/
(git-ignored) and reused. Both tools run with their defaults (depth 1000, k 1000) and the same
run tag; the outputs are checked identical line for line (the topic ids are plain integers,
which pyserini writes back unchanged). Prints the median wall time of each tool and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"


def make_run(path: Path, seed: int, topics: int = 1000, depth: int = 1000, pool: int = 2500) -> None:
    import numpy as np

    if path.exists():
        return
    rng = np.random.default_rng(seed)
    lines = []
    for q in range(1, topics + 1):
        docs = rng.choice(pool, depth, replace=False)
        scores = np.sort(np.round(rng.gamma(2.0, 3.0, depth), 4))[::-1]
        lines += [
            f"{q} Q0 D{q}-{d} {r} {s!r} s{seed}\n" for r, (d, s) in enumerate(zip(docs.tolist(), scores.tolist()), 1)
        ]
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(lines))
    tmp.replace(path)


def timed(argv: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--methods", default="rrf", help="comma-separated: rrf, interpolation, average, normalize")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    a, b = OUT / "fuse-a-1M.trec", OUT / "fuse-b-1M.trec"
    make_run(a, 1)
    make_run(b, 2)
    py = sys.executable
    env_path = str(HERE.parent)
    print("| method | harness fuse | pyserini.fusion | pyserini / harness |")
    print("|---|---:|---:|---:|")
    for method in args.methods.split(","):
        ours, theirs = OUT / f"fused-harness-{method}.trec", OUT / f"fused-pyserini-{method}.trec"
        h_cmd = [
            py,
            "-c",
            f"import sys; sys.path.insert(0, {env_path!r}); from harness.cli import main; "
            f"sys.exit(main(['fuse', {str(a)!r}, {str(b)!r}, '--method', {method!r}, '-o', {str(ours)!r}, "
            "'--runtag', 'fused']))",
        ]
        p_cmd = [
            py,
            "-m",
            "pyserini.fusion",
            "--runs",
            str(a),
            str(b),
            "--method",
            method,
            "--output",
            str(theirs),
            "--runtag",
            "fused",
        ]
        h = [timed(h_cmd) for _ in range(args.repeat)]
        p = [timed(p_cmd) for _ in range(args.repeat)]
        if ours.read_bytes() != theirs.read_bytes():
            sys.exit(f"{method}: the outputs differ ({ours}, {theirs})")
        hm, pm = statistics.median(h), statistics.median(p)
        print(f"| {method} | {hm:.2f} s | {pm:.2f} s | {pm / hm:.1f}x |")


if __name__ == "__main__":
    main()
