"""The test suite's CPU by module and by test, from the lines tests/conftest.py writes when
$HARNESS_TEST_COST names a folder (docs/performance.md, "The suite's budget").

    HARNESS_TEST_COST=/tmp/cost make test
    .venv/bin/python scripts/suite_cost.py /tmp/cost [--top 15]

CPU seconds are a test's process and the processes it waited for (harness runs, Java, Dask), user
and system: what the machine's cores must absorb, whatever else runs on it. Each worker's line
says how many seconds after the first test began its last test ended: the two apart are cores
left idle at the end.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--top", type=int, default=15, help="modules and tests listed (default 15)")
    args = ap.parse_args()
    tests, processes = [], {}
    for path in sorted(args.folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "process" in row:
                processes[path.stem] = row["process"]
            else:
                tests.append({**row, "worker": path.stem})
    if not tests:
        raise SystemExit(f"{args.folder}: no test's cost (run the tests with HARNESS_TEST_COST={args.folder})")
    start = min(t["end"] - t["wall"] for t in tests)
    total = sum(t["cpu"] for t in tests)
    # "main" is pytest itself: alone, or pytest-xdist's controller, whose total then holds the
    # workers it started and waited for
    whole = processes.get("main", sum(processes.values()))
    print(f"{len(tests)} tests: {total:.0f} s of CPU in the tests, {whole:.0f} s in the whole run")
    for worker in sorted({t["worker"] for t in tests} - {"main"}):
        mine = [t for t in tests if t["worker"] == worker]
        print(
            f"  {worker}: {len(mine)} tests, {sum(t['cpu'] for t in mine):.0f} s of CPU in tests, "
            f"{processes.get(worker, float('nan')):.0f} s in the worker (with its start), last test ended at "
            f"{max(t['end'] for t in mine) - start:.0f} s"
        )
    modules: dict[str, list] = defaultdict(lambda: [0.0, 0.0, 0])
    for t in tests:
        m = modules[t["test"].split("::")[0]]
        m[0] += t["cpu"]
        m[1] += t["wall"]
        m[2] += 1
    print(f"\n{'module':45} {'CPU s':>7} {'wall s':>7} {'tests':>6}")
    for name, (cpu, wall, n) in sorted(modules.items(), key=lambda kv: -kv[1][0])[: args.top]:
        print(f"{name:45} {cpu:7.1f} {wall:7.1f} {n:6d}")
    print(f"\n{'test':90} {'CPU s':>7} {'wall s':>7}")
    for t in sorted(tests, key=lambda t: -t["cpu"])[: args.top]:
        print(f"{t['test'][:90]:90} {t['cpu']:7.1f} {t['wall']:7.1f}")


if __name__ == "__main__":
    main()
