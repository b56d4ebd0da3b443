"""Bytecode for the modules a harness command imports, written at set-up (scripts/setup.sh).

    .venv/bin/python scripts/bytecode.py

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
"""

from __future__ import annotations

import compileall
import importlib
import importlib.util
import pkgutil
import sys
import time

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
    took = time.monotonic() - start
    print(f"bytecode.py: {len(sys.modules)} modules imported, bytecode written, in {took:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
