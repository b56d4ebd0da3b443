"""Imports at a module's top (issue 38 item 6): no import in a function body but the listed
exceptions; the one deferred import is harness.lazy's, for libraries whose import costs start-up
time (harness.lazy.HEAVY) and, in the command line and the package's door, for the harness modules
a command runs; ``harness --help``, ``import harness`` and ``harness trec_eval`` load none of the
heavy libraries."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
import threading
import types

import pytest

from harness import lazy

from .conftest import REPO, demo_config
from .sources import harness_modules, walked

PACKAGE = REPO / "harness"

# (module, function) -> why its imports stay in its body. Nothing else may import in a body.
EXCEPTIONS = {
    (
        "harness.engine.lucene",
        "_start",
    ): "the JVM's start, the engine's step on first use (STYLE.md principle 5): jnius_config takes the "
    "class path and options before jnius is imported, and importing jnius starts the JVM",
}

# Harness modules a module may defer with lazy.module (importer prefix -> target prefixes): the
# package's door loads the Python API on first attribute (`import harness` loads no numpy, no
# pandas), and the command line loads what a command runs when it runs (`harness --help` and
# every parser need none of it).
LAZY_HARNESS = {
    "harness": ("harness.api",),
    "harness.cli": ("harness.verbs", "harness.judge"),
}


def _within(name: str, prefix: str) -> bool:
    """``name`` is ``prefix`` or inside it; the root package ``harness`` stands for itself only."""
    return name == prefix or (prefix != "harness" and name.startswith(prefix + "."))


def _body_imports(tree: ast.AST):
    """(function, import node) for each import inside a function body, nested ones too."""

    def walk(node, func):
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else func
            if func is not None and isinstance(child, ast.Import | ast.ImportFrom):
                yield func, child
            yield from walk(child, inner)

    yield from walk(tree, None)


def _lazy_calls(tree: ast.AST):
    """Every call of lazy.module: (node, the name given or None)."""
    for node in walked(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "module"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "lazy"
        ):
            arg = node.args[0] if node.args else None
            yield node, arg.value if isinstance(arg, ast.Constant) else None


def test_no_import_in_a_function_body_but_the_listed_exceptions():
    found, used = [], set()
    for name, path, tree in harness_modules():
        for func, node in _body_imports(tree):
            if (name, func.name) in EXCEPTIONS:
                used.add((name, func.name))
                continue
            found.append(f"{path.relative_to(REPO)}:{node.lineno} in {func.name}(): {ast.unparse(node)}")
    assert not found, "imports at the module's top (or harness.lazy, with its reason):\n" + "\n".join(found)
    assert used == set(EXCEPTIONS), f"listed exceptions that no longer import: {set(EXCEPTIONS) - used}"


def test_no_other_way_to_defer_an_import():
    """importlib.import_module and __import__ are harness.lazy's alone."""
    found = [
        f"{path.relative_to(REPO)}:{node.lineno}: {ast.unparse(node)}"
        for name, path, tree in harness_modules()
        if name != "harness.lazy"
        for node in walked(tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("importlib.import_module", "__import__")
    ]
    assert not found, "\n".join(found)


def _run_time_nodes(tree: ast.AST):
    """Every node but those under ``if TYPE_CHECKING:`` (annotations, never imported at run time)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            yield from (n for child in node.orelse for n in ast.walk(child))
            continue
        yield node
        yield from _run_time_nodes(node)


def test_heavy_libraries_are_imported_only_through_lazy():
    found = []
    for _, path, tree in harness_modules():
        for node in _run_time_nodes(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                # `from importlib import metadata` imports importlib.metadata
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            if any(lazy.is_heavy(n) for n in names):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "\n".join(found)


def test_every_lazy_module_is_a_global_at_the_top_and_allowed():
    bad = []
    for name, path, tree in harness_modules():
        at_top = {
            id(stmt.value)
            for stmt in tree.body
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
        }
        for node, target in _lazy_calls(tree):
            where = f"{path.relative_to(REPO)}:{node.lineno}"
            if name == "harness.lazy":
                continue
            if id(node) not in at_top:
                bad.append(f"{where}: lazy.module outside `NAME = lazy.module(...)` at the module's top")
            elif target is None:
                bad.append(f"{where}: lazy.module of a name that is not a literal")
            elif target.partition(".")[0] == "harness":
                allowed = [t for importer, ts in LAZY_HARNESS.items() if _within(name, importer) for t in ts]
                if not any(_within(target, t) for t in allowed):
                    bad.append(f"{where}: {name} defers {target}, which LAZY_HARNESS does not allow")
            elif not lazy.is_heavy(target):
                bad.append(f"{where}: {target} is not in harness.lazy.HEAVY")
    assert not bad, "\n".join(bad)


# ------------------------------------------------------------------ what start-up loads
def _modules_after(code: str, tmp_path) -> set[str]:
    """Every module in sys.modules after ``code`` ran in a fresh interpreter (written to a file: a
    command's own output goes to stdout)."""
    out = tmp_path / "loaded.json"
    probe = (
        f"import sys, json\ntry:\n{textwrap.indent(code, '    ')}\nexcept SystemExit:\n    pass\n"
        f"open({str(out)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n"
    )
    r = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return set(json.loads(out.read_text()))


def _heavy_loaded(loaded: set[str]) -> list[str]:
    """Which of the harness.lazy.HEAVY names, numpy and yaml (plainly imported, each 10-60 ms) are
    among the modules ``loaded`` (a name with the modules inside it)."""
    watched = {*lazy.HEAVY, "numpy", "yaml"}
    return sorted(w for w in watched if any(m == w or m.startswith(w + ".") for m in loaded))


def _loaded_after(code: str, tmp_path) -> list[str]:
    """:func:`_heavy_loaded` after ``code`` ran in a fresh interpreter."""
    return _heavy_loaded(_modules_after(code, tmp_path))


def _cli(*argv: str) -> str:
    return f"import runpy\nsys.argv = ['harness', *{list(argv)!r}]\nrunpy.run_module('harness', run_name='__main__')"


def test_harness_help_and_import_harness_load_nothing_heavy_and_no_numpy(tmp_path):
    assert _loaded_after(_cli("--help"), tmp_path) == []
    assert _loaded_after(_cli("run", "--help"), tmp_path) == []
    assert _loaded_after("import harness", tmp_path) == []


def test_harness_trec_eval_loads_nothing_heavy(tmp_path):
    (tmp_path / "qrels").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n")
    (tmp_path / "run").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d3 1 1.0 r\n")
    # numpy computes the measures and pyarrow parses the files' numbers (formats/tokenizer.py:
    # correctly rounded, 10-20x Python's float()); nothing else, no yaml either (the run reader
    # skips an ir_metadata block without reading its YAML)
    loaded = _modules_after(_cli("trec_eval", "-q", "qrels", "run"), tmp_path)
    assert _heavy_loaded(loaded) == ["numpy", "pyarrow"]
    # ... through pyarrow._compute's registry, not pyarrow.compute (harness.formats.arrow)
    assert "pyarrow._compute" in loaded and "pyarrow.compute" not in loaded


def test_reading_and_writing_runs_leaves_pyarrow_compute_unloaded(tmp_path):
    """Every kernel the run reader and writer call (cast, take, binary_join_element_wise,
    replace_with_mask: an integer score is written by repr()) goes through harness.formats.arrow;
    an Arrow array's own .cast() or .take() would import pyarrow.compute (30 ms)."""
    (tmp_path / "run").write_text("1 Q0 d1 1 2 r\n1 Q0 d2 2 1.5 r\n2 Q0 d3 1 1e-7 r\n")
    code = (
        "from harness.formats.runs import read_run, write_run\n"
        "write_run('copy', read_run('run'), 'r')\n"
        "assert open('copy').read() == '1 Q0 d1 1 2.0 r\\n1 Q0 d2 2 1.5 r\\n2 Q0 d3 1 1e-07 r\\n'\n"
    )
    loaded = _modules_after(code, tmp_path)
    assert (tmp_path / "copy").is_file()
    assert "pyarrow._compute" in loaded and "pyarrow.compute" not in loaded


# what runs a config and computes its results: never loaded by a command that only checks or
# plans one (the pairs a `compare:` block names are policies', the statistics are not needed)
RUNNING = (
    "harness.verbs.run",
    "harness.verbs.study",
    "harness.experiment.execute",
    "harness.experiment.executors",
    "harness.fusion",
    "harness.stats",
    "harness.publish",
    "harness.report",
)


# search --dry-run takes run --dry-run's path (plan_run after the same load); index's reads no topics
@pytest.mark.parametrize("argv", [("validate",), ("run", "--dry-run"), ("index", "--dry-run")])
def test_validate_and_the_dry_runs_load_nothing_that_runs_a_config(tmp_path, argv):
    """harness.verbs.plan holds the verbs that run nothing, and harness.experiment's package
    imports none of its modules: `harness validate` and every --dry-run load the config's
    loader, the plan and the run store (bench/bench_import.py: 0.1 s of each command)."""
    loaded = _modules_after(_cli(*argv, str(demo_config(tmp_path))), tmp_path)
    assert "harness.verbs.plan" in loaded and "harness.experiment.plan" in loaded
    assert [m for m in loaded if m.startswith(RUNNING)] == []
    # the qrels' numbers parsed (validate and the plans but the index's check the topic ids
    # against them); no version named (importlib.metadata: a marker's, the manifest's, doctor's)
    parsed = ["pyarrow"] if argv[0] != "index" else []
    assert _heavy_loaded(loaded) == sorted(["numpy", "yaml", *parsed]) and "importlib.metadata" not in loaded


def test_the_api_attribute_loads_the_api_but_pandas_only_when_called(tmp_path):
    code = "import harness\nharness.evaluate\nassert 'harness.api' in sys.modules"
    assert "pandas" not in _loaded_after(code, tmp_path)
    code = "import harness\nharness.evaluate({'q': {'d': 1.0}}, {'q': {'d': 1}}, measures=['AP'])"
    assert "pandas" in _loaded_after(code, tmp_path)


@pytest.mark.java
def test_harness_run_loads_no_pandas_searching_or_reusing_its_runs(tmp_path):
    """pyarrow imports pandas when it converts a Python or numpy object (pa.array, pa.table of an
    array, Array.to_numpy) or loads pyarrow.dataset (pq.read_table): 0.2-0.35 s of CPU in every
    `harness run` that writes or reads the run cache, for nothing it needs (formats/runs.py,
    experiment/cache.py build and read Arrow arrays from buffers)."""
    cfg = demo_config(tmp_path)
    fresh = _loaded_after(_cli("run", str(cfg)), tmp_path)
    assert (tmp_path / "report" / "summary.json").is_file()
    cached = _loaded_after(_cli("run", str(cfg)), tmp_path)
    assert list((tmp_path / "index" / "harness-runs").glob("*.parquet"))  # the runs' binary copies
    assert "pyarrow" in fresh and "pyarrow" in cached  # the cache written, then read
    assert "pandas" not in fresh + cached


# ------------------------------------------------------------------ harness.lazy itself
@pytest.fixture
def slow_module(tmp_path, monkeypatch):
    """A module whose import takes 0.3 s and counts its executions in a file."""
    count = tmp_path / "count"
    count.write_text("")
    (tmp_path / "slowmod_38.py").write_text(
        f"import time\nopen({str(count)!r}, 'a').write('x')\ntime.sleep(0.3)\nVALUE = 42\n"
        "def get():\n    return VALUE\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(lazy.HEAVY, "slowmod_38", 300)
    yield "slowmod_38", count
    sys.modules.pop("slowmod_38", None)


def test_lazy_module_imports_on_first_read_and_rebinds_the_global(slow_module):
    name, count = slow_module
    scope = {"__name__": "probe"}
    exec(f"from harness import lazy\nmod = lazy.module({name!r})\nalias = mod", scope)
    stand_in = scope["mod"]
    assert isinstance(stand_in, types.ModuleType) and name not in sys.modules and count.read_text() == ""
    assert scope["mod"].VALUE == 42
    real = sys.modules[name]
    # both globals that held the stand-in are the module itself now
    assert scope["mod"] is real and scope["alias"] is real and count.read_text() == "x"
    # a stand-in kept elsewhere forwards every read: a patched attribute is seen through it
    real.VALUE = 7
    assert stand_in.VALUE == 7 and stand_in.get() == 7
    # a module loaded already is returned as it is
    assert lazy.module(name) is real


def test_lazy_module_loads_once_when_threads_read_it_first_at_the_same_time(slow_module):
    """importlib.util.LazyLoader on Python 3.12.1 (gh-114763) let a second thread see the
    module half loaded; here every thread waits on the import system's lock for the module."""
    name, count = slow_module
    scope: dict = {}
    exec(f"from harness import lazy\nmod = lazy.module({name!r})", scope)
    stand_in = scope["mod"]
    barrier, got = threading.Barrier(8), []

    def read():
        barrier.wait()
        got.append(stand_in.VALUE)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [42] * 8 and count.read_text() == "x"


def test_lazy_module_refuses_a_light_library():
    with pytest.raises(ValueError, match="yaml is not deferred"):
        lazy.module("yaml")


# ------------------------------------------------------------------ what a deferred import does
def test_dask_loggers_are_quieted_after_distributed_made_them(tmp_path):
    """distributed makes its loggers (distributed.client, ...) when imported; the executor quiets
    them once it holds the client. Deferred, the import has to come before the quieting, or Dask's
    reconnection tracebacks reach stderr beside `harness: error:` (test_dask_faults saw them)."""
    code = (
        "import logging\n"
        "from harness.config import Execution\n"
        "from harness.errors import EngineError\n"
        "from harness.experiment.executors.dask import DaskExecutor\n"
        "ex = DaskExecutor(Execution(engine='dask', scheduler='tcp://127.0.0.1:9', timeout=1.0))\n"
        "try:\n    ex._connect()\nexcept EngineError:\n    pass\n"
        "assert logging.getLogger('distributed.client').getEffectiveLevel() > logging.CRITICAL\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
