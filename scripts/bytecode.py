"""Bytecode for the modules a harness command imports, written at set-up (scripts/setup.sh);
with --dev (`make setup-dev`) also for what the tests import.

    .venv/bin/python scripts/bytecode.py [--dev]

pip installs with --no-compile: compiling every module of every package (most never imported
by the harness) took 14 s of a fresh clone's 37.6 s set-up. Python compiles a module when it is
first imported and keeps the bytecode beside it, unless PYTHONDONTWRITEBYTECODE is set (as in
many containers and CI machines, and here): then each process compiled pandas, pyarrow and the
rest in memory again. A `harness run` refusing a bad config took 1.4 s of CPU instead of 0.48 s,
and `make test` in a fresh clone 10:58 with set-up (its tests 10:36, the same tests 8:33 on a
venv with bytecode); with this step 9:10 (its tests 8:41).

This imports every harness module and every library it defers (harness.lazy's stand-ins) with
bytecode writing on, so Python writes the bytecode of each module as it compiles it (5-7 s). A
demo run and a comparison then find the bytecode of every module they load but the two startup
hooks of site-packages. The Docker image compiles what a demo run loads instead
(scripts/docker-bytecode.py), as it also keeps the standard library's bytecode of just those.

--dev then collects the tests (pytest --collect-only, bytecode writing on): pytest and its
plugins, the oracles the test modules import (statsmodels, hypothesis, ir_measures, playwright...)
and the test modules themselves, as pytest rewrites their asserts, get their bytecode. Each
pytest-xdist worker of `make test` collects every test module: without it each compiled some
1,100 modules and rewrote 114, 10.3 s of CPU a worker, against 4.0 s with it (the collection
here takes about as long, once per set-up). A test module edited afterwards is rewritten in
memory again on each run, as before, until the next set-up.
"""

from __future__ import annotations

import compileall
import contextlib
import importlib
import importlib.util
import os
import pkgutil
import sys
import time
from pathlib import Path

# ir_datasets makes ~/.ir_datasets when imported: left to be compiled when a config names its data
SKIP = {"ir_datasets"}
# imported when the JVM starts (importing jnius starts one): compiled without being imported
COMPILED = ("jnius", "jnius_config")


def main() -> None:
    start = time.monotonic()
    sys.dont_write_bytecode = False  # whatever PYTHONDONTWRITEBYTECODE says: that is the point
    import harness
    from harness.lazy import LazyModule

    for info in pkgutil.walk_packages(harness.__path__, "harness."):
        if not info.name.endswith("__main__"):  # running it would run the command line
            importlib.import_module(info.name)
    for module in list(sys.modules.values()):
        for value in list(vars(module).values()):
            if isinstance(value, LazyModule) and value.__name__.partition(".")[0] not in SKIP:
                importlib.import_module(value.__name__)
    for name in COMPILED:
        for folder in importlib.util.find_spec(name).submodule_search_locations:
            if not compileall.compile_dir(folder, quiet=1):
                sys.exit(f"bytecode.py: {folder} did not compile (above)")
    if "--dev" in sys.argv[1:]:
        collect_the_tests()
    took = time.monotonic() - start
    print(f"bytecode.py: {len(sys.modules)} modules imported, bytecode written, in {took:.1f} s", file=sys.stderr)


def collect_the_tests() -> None:
    """pytest --collect-only on tests/, in this process (bytecode writing on), its listing
    dropped. A collection that fails is said and set-up goes on: the tests then say it again."""
    import pytest

    tests = Path(__file__).resolve().parents[1] / "tests"
    with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
        code = pytest.main(["--collect-only", "-qq", "-p", "no:cacheprovider", str(tests)])
    if code != pytest.ExitCode.OK:
        print(f"bytecode.py: collecting the tests failed (exit {int(code)}); the tests will say why", file=sys.stderr)


if __name__ == "__main__":
    main()
