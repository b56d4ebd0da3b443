"""Bytecode for what the harness loads, in the image's root stage (Dockerfile).

    python scripts/docker-bytecode.py LOADED        (in /app, with the example data)

pip installed the packages with --no-compile, so none has bytecode: a module without it is
compiled in memory each time a process imports it (pandas and scipy.stats: 2 to 3 s more at
every start, measured in the image). This runs the demo (`harness run configs/demo.yaml`: index,
search, evaluation, reports) and a comparison (`harness compare`: scipy.stats) in this process,
refusing if either fails, then compiles each venv module they loaded (checked-hash .pyc: valid
while the source is the same, whatever the files' times) and writes every module source loaded
to LOADED, for scripts/docker-root.py, which keeps Debian's bytecode of just those of the
standard library. The harness's own modules are compiled whole in the build stage. A module
left out here (the judging page's, Dask's) is compiled in memory when imported: slower to
start, never different.
"""

from __future__ import annotations

import py_compile
import sys
from pathlib import Path

RUNS = (
    ["run", "configs/demo.yaml"],
    [
        "compare",
        "--qrels",
        "qrels/demo.txt",
        "--baseline",
        "reports/demo/runs/bm25.trec",
        "reports/demo/runs/jm.trec",
        "-m",
        "AP",
    ],
)


def main(out: Path) -> None:
    sys.dont_write_bytecode = True
    import pandas  # noqa: F401  (the API's tables: harness.run/evaluate/compare return DataFrames; no command loads it)

    import harness.api  # noqa: F401  (the Python API's entry points, as a notebook imports them)
    from harness.cli import main as cli

    for argv in RUNS:
        if code := cli(argv):
            sys.exit(f"docker-bytecode.py: `harness {' '.join(argv)}` failed (exit {code})")
    files = sorted({f for m in list(sys.modules.values()) if (f := getattr(m, "__file__", None) or "").endswith(".py")})
    venv = [f for f in files if f.startswith(sys.prefix + "/")]
    for f in venv:
        py_compile.compile(f, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    out.write_text("".join(f + "\n" for f in files))
    print(f"docker-bytecode.py: {len(files)} modules loaded, {len(venv)} of the venv compiled", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
