"""Shared fixtures. The shared data (Cranfield, the course lab's cases) sits beside the
repository as ../shared, in CI too; a test that needs it fails loudly when it is missing."""

from __future__ import annotations

import contextvars
import functools
import gc
import json
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import pytest
from _pytest.tmpdir import TempPathFactory

from harness.cli import BLAS_THREADS

# numpy's and scipy's OpenBLAS on one thread in the test processes and the processes they start,
# as harness.cli does for a command (_one_blas_thread): an OpenBLAS thread waiting for work spins,
# and the two pytest workers already keep both cores busy. statsmodels' OLS (the ANOVA oracles)
# took 30 times the CPU with a thread per core (8 SVDs of 1,125 x 230: 4.9 s against 0.16 s on
# the loaded 2-core machine); ten stats modules in one process: 70.5 -> 41.0 s of CPU. Set here,
# before anything imports numpy, and inherited by pytest-xdist's workers; a thread count the
# environment names is left as it is.
if "numpy" not in sys.modules and not any(name in os.environ for name in BLAS_THREADS):
    os.environ["OPENBLAS_NUM_THREADS"] = "1"

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CRANFIELD = SHARED / "collections" / "cranfield"

# The built Docker image is checked by `make docker-test` (scripts/docker-test.sh builds it and
# names it in $HARNESS_DOCKER_IMAGE, then runs this module); the plain suite has no image.
collect_ignore = [] if os.environ.get("HARNESS_DOCKER_IMAGE") else ["test_docker_image.py"]

# Markers (pyproject.toml) for `make test-quick`, which runs what needs no JVM, browser, Dask,
# Docker or minutes: whole modules by name, and any test that uses a fixture that starts Java.
# Tests in other modules that start Java carry @pytest.mark.java themselves; test-quick runs with
# a JVM option no Java accepts, so an unmarked one fails loudly instead of passing slowly.
MODULE_MARKS = {
    "test_accurate_bm25": ("java",),
    "test_api": ("java",),
    "test_dask": ("java", "dask"),
    "test_dask_faults": ("java", "dask"),
    "test_docker": ("docker",),
    "test_disk_full": ("java",),
    "test_docker_image": ("docker",),
    "test_exit_codes": ("java",),
    "test_explorer": ("java",),
    "test_faults": ("java",),
    "test_kills": ("java",),
    "test_fresh_clone": ("java", "slow"),
    "test_golden": ("java", "slow"),
    "test_hostile_inputs": ("java",),
    "test_index": ("java",),
    "test_languages": ("java",),
    "test_judge_browser": ("java", "browser"),
    "test_kill_points": ("java",),
    "test_lab": ("java",),
    "test_long_queries": ("java",),
    "test_models": ("java",),
    "test_models_exact": ("java",),
    "test_notebook": ("java", "slow"),
    "test_permissions": ("java",),
    "test_pipeline": ("java",),
    "test_readme": ("java",),
    "test_report": ("java", "browser"),
    "test_report_plots": ("java", "browser"),
    "test_report_width": ("java", "browser"),
    "test_search": ("java",),
    "test_trec_eval_binary": ("slow",),  # some 560 processes: the binary's and `harness trec_eval`'s
}
JAVA_FIXTURES = {"cranfield_index", "anserini_cranfield_index", "cli_and_api", "searched", "sweep", "cranfield_sweep"}

# `make test-quick` ($HARNESS_TEST_QUICK) runs every test that carries none of QUICK_LEAVES_OUT,
# and draws a third of a property test's examples; `make test` (the gate, in CI) runs every test
# with all the examples it asks for. The inner loop stays within a minute (the property tests
# with more than hypothesis's 100 examples were some 14 s of its ~120 s of CPU), and every
# example count is still drawn, fresh each run, wherever the whole suite runs.
QUICK = bool(os.environ.get("HARNESS_TEST_QUICK"))
QUICK_LEAVES_OUT = frozenset({"java", "browser", "dask", "docker", "slow"})


def examples(n: int) -> int:
    """A property test's ``max_examples``: ``n``, or a third of it (at least 10) in test-quick."""
    return max(n // 3, 10) if QUICK else n


# The modules that take longest start first (`make test` hands whole modules to the workers,
# pytest-xdist's --dist loadfile), so that the two workers finish together; the rest follow in
# file order. A module missing here only starts later. By the wall seconds each took in a whole
# run at load 1-3 (scripts/suite_cost.py; docs/performance.md, "The suite's budget"), except that
# test_kill_points starts beside test_models_exact, ahead of test_dask_faults: those two wait for
# Cranfield's index, which one worker builds, while test_kill_points indexes the demo's documents.
LONGEST_FIRST = (
    "test_models_exact",  # 79 s
    "test_kill_points",  # 76 s
    "test_dask_faults",  # 85 s
    "test_dask",  # 44 s
    "test_hostile_inputs",  # 40 s
    "test_kills",  # 37 s
    "test_readme",  # 30 s
    "test_fresh_clone",  # 29 s
    "test_study",  # 28 s
    "test_lab",  # 24 s
    "test_trec_eval_binary",  # 24 s
    "test_cli",  # 23 s
    "test_reproduce",  # 21 s
    "test_permissions",  # 21 s
    "test_concurrency",  # 21 s
    "test_judge_browser",  # 21 s
    "test_golden",  # 19 s
    "test_search",  # 18 s
)


def pytest_ignore_collect(collection_path, config):
    # test-quick: a module whose every test it leaves out is not even imported (the browser's,
    # the notebook's and the JVM's modules import Playwright, nbclient, ir_datasets...: 0.8 s of
    # each worker's collection)
    if QUICK and collection_path.suffix == ".py" and QUICK_LEAVES_OUT & set(MODULE_MARKS.get(collection_path.stem, ())):
        return True
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1]
        for mark in MODULE_MARKS.get(module, ()):
            item.add_marker(mark)
        if JAVA_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker("java")
    if QUICK:
        kept, left_out = [], []
        for item in items:
            (left_out if QUICK_LEAVES_OUT & {m.name for m in item.iter_markers()} else kept).append(item)
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = kept
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.module.__name__.rsplit(".", 1)[-1], len(rank)))  # stable


def _freeze_what_lives() -> None:
    """What is alive now (the modules imported, a module's fixtures still held) is moved out of
    the cyclic collector's sight after one collection: each full collection the next tests
    trigger walks only what they made. Before, test-quick's two workers spent 4.4 and 1.7 s in
    16 and 14 full collections, every one walking every library the suite had imported so far
    (numpy, scipy, pandas, statsmodels, repro_eval...). Objects frozen are still freed when their
    last reference goes; only a cycle among them would wait for the process's end."""
    gc.collect()
    gc.freeze()


def pytest_collection_finish(session):
    _freeze_what_lives()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    if nextitem is not None and nextitem.module is not item.module:  # between two modules
        _freeze_what_lives()


def pytest_configure(config):
    # Started in the background by a shell without job control (`make test &` in a script, nohup),
    # the suite inherits SIGINT ignored, and so would every harness it starts: the tests that send
    # Ctrl-C to one would wait forever. Its default comes back (the harnesses started get SIG_DFL).
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# ------------------------------------------------------------------------------ the suite's cost
# $HARNESS_TEST_COST=DIR (docs/performance.md, "The suite's budget"): each process running tests
# (each pytest-xdist worker) appends a JSON line per test to DIR/<worker>.jsonl: its node id, the
# CPU seconds (user and system) of the process and of the processes it waited for (a harness run,
# a Dask cluster) while the test was set up, run and torn down, its wall seconds and when it
# ended; and a last line with the process's own total, its start and collection included.
# scripts/suite_cost.py sums them by module. A fixture's cost goes to the test that set it up
# or tore it down.
def _cpu_seconds() -> float:
    own, waited = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime


def _cost(line: dict) -> None:
    folder = Path(os.environ["HARNESS_TEST_COST"])
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not os.environ.get("HARNESS_TEST_COST"):
        return (yield)
    cpu, wall = _cpu_seconds(), time.monotonic()
    try:
        return (yield)
    finally:
        _cost({"test": item.nodeid, "cpu": _cpu_seconds() - cpu, "wall": time.monotonic() - wall, "end": time.time()})


# ------------------------------------------------------------------------------ temporary folders
# A run leaves nothing behind and holds little at a time (pyproject.toml: a passing test's tmp_path
# is removed when it ends, the base folder when the session passes):
# - a folder a fixture made with tmp_path_factory.mktemp is removed when that fixture is torn
#   down (a module's fixture: when the module's tests are done), not at the end of the session;
# - tempfile's folder (TMPDIR) is the worker's base folder, so what the harness, Dask, Chromium,
#   pip or a subprocess write there is removed with it and counted with it.
_SETTING_UP: contextvars.ContextVar = contextvars.ContextVar("fixture being set up", default=None)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    token = _SETTING_UP.set(request)
    try:
        return (yield)
    finally:
        _SETTING_UP.reset(token)


_mktemp = TempPathFactory.mktemp


def _mktemp_removed_with_its_fixture(self, basename: str, numbered: bool = True) -> Path:
    path = _mktemp(self, basename, numbered)
    request = _SETTING_UP.get()
    if request is not None and request.fixturename != "tmp_path":  # tmp_path: pytest's retention policy
        request.addfinalizer(lambda: shutil.rmtree(path, ignore_errors=True))
    return path


TempPathFactory.mktemp = _mktemp_removed_with_its_fixture


@pytest.fixture(scope="session", autouse=True)
def _temp_folder_inside_the_base_folder(tmp_path_factory):
    tmp = tmp_path_factory.getbasetemp() / "tmp"
    tmp.mkdir(exist_ok=True)
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(tmp)
    tempfile.tempdir = None
    yield tmp
    if before is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = before
    tempfile.tempdir = None
    shutil.rmtree(tmp, ignore_errors=True)


# The JVMs of the harnesses the tests start as processes (`harness run` killed at every rename,
# interrupted, racing another) live a few seconds: the serial collector spends less CPU on them
# than G1, HotSpot's default, and changes no result. (C1 alone, -XX:TieredStopAtLevel=1, saved
# more, but Lucene then leaves out its Panama vector code and sums a dense score's products in
# another order: the dense runs of Dask's workers differed from the local ones in the last digits.)
# This process's own JVM, started first, searches Cranfield hundreds of times: it takes the serial
# collector too (test_models_exact alone: 100 -> 92 s of CPU, 79 -> 73 s) and keeps
# HotSpot's JIT (C2); the class archive below is for the processes started after. A
# HARNESS_JAVA_OPTS given (test-quick's bogus option) is left as it is.
SHORT_JVM_OPTS = "-XX:+UseSerialGC"


@pytest.fixture(scope="session", autouse=True)
def _short_lived_jvms_in_the_processes_started(request, tmp_path_factory, _temp_folder_inside_the_base_folder):
    if "HARNESS_JAVA_OPTS" in os.environ or not any(item.get_closest_marker("java") for item in request.session.items):
        yield
        return
    from harness.engine import lucene

    os.environ["HARNESS_JAVA_OPTS"] = SHORT_JVM_OPTS
    lucene.jclass("java.lang.Object")  # this process's JVM
    os.environ["HARNESS_JAVA_OPTS"] = " ".join([SHORT_JVM_OPTS, *_class_archive(tmp_path_factory)])
    yield
    os.environ.pop("HARNESS_JAVA_OPTS", None)


# The harness processes of a module that indexes and searches with sparse models only (BM25,
# Dirichlet, JM) live a second or two, most of it compiling: with C1 alone their JVMs spend a fifth
# less CPU (test_kill_points 115 -> 95 s, test_faults 101 -> 81, test_dask_faults 109 -> 85). Such a
# module asks for it (pytestmark): its processes and Dask workers get the option; a sparse run
# is the same under C1 or C2, so an oracle of such a module may run in the pytest worker's JVM.
# Not for every process: without C2 Lucene leaves out its Panama code and sums a dense score's
# products in another order (see SHORT_JVM_OPTS above).
SPARSE_ONLY_JVM_OPTS = "-XX:TieredStopAtLevel=1"


@pytest.fixture(scope="module")
def sparse_only_processes():
    before = os.environ.get("HARNESS_JAVA_OPTS")
    if before is None:  # no test here starts Java (the options are set for Java tests alone)
        yield
        return
    os.environ["HARNESS_JAVA_OPTS"] = f"{before} {SPARSE_ONLY_JVM_OPTS}"
    yield
    os.environ["HARNESS_JAVA_OPTS"] = before


def _class_archive(tmp_path_factory) -> list[str]:
    """The JVM options that map a class-data archive (HotSpot's AppCDS) of the classes a `harness
    run` loads: the JVMs of the processes started then map Lucene's and Anserini's classes already
    parsed and verified (a demo run: 2.9 s -> 2.0 s; test_kill_points: 26% less CPU). Made once
    per session by the first worker to ask: the class list of the demo run as `make demo` runs
    it, then ``java -Xshare:dump`` into a temporary name, renamed into place. It changes how
    classes are loaded, not what any of them does. The JVM's own messages about the archive are
    off (-Xlog:cds=off,aot=off): a JVM with another class path (a fresh clone's), or started
    while the archive is not there yet, prints nothing and loads its classes as usual. So the
    other workers do not wait for it (they waited 5 s at the start of every run, a core idle):
    their processes map it once it is in place. When it cannot be made, the processes load their
    classes as usual, with a warning."""
    import fcntl
    import subprocess
    import warnings

    from harness.engine import lucene

    folder = shared_folder(tmp_path_factory, "jvm")
    archive = folder / "classes.jsa"
    options = [f"-XX:SharedArchiveFile={archive}", "-Xlog:cds=off,aot=off"]
    with open(folder / ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another worker makes it now
            return options
        if not (folder / "tried").exists():
            (folder / "tried").touch()
            (folder / "demo").mkdir()
            classes = folder / "classes.txt"
            env = {**os.environ, "HARNESS_JAVA_OPTS": f"{SHORT_JVM_OPTS} -XX:DumpLoadedClassList={classes}"}
            java = lucene.java_home()[0] / "bin" / "java"
            steps = (
                ([sys.executable, "-m", "harness", "run", str(demo_config(folder / "demo"))], env),
                (
                    [
                        str(java),
                        "-Xshare:dump",
                        "-XX:-UsePerfData",  # as the harness's JVMs: nothing in /tmp/hsperfdata_$USER
                        f"-XX:SharedClassListFile={classes}",
                        f"-XX:SharedArchiveFile={folder / 'classes.jsa.tmp'}",
                    ]
                    + ["-Xlog:cds=off,aot=off", "-cp", str(lucene.anserini_jar())],
                    None,
                ),
            )
            for cmd, env in steps:
                r = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=600)
                if r.returncode != 0:
                    warnings.warn(
                        f"no class-data archive for the tests' JVMs: {cmd[:4]} failed: {r.stderr[-2000:]}", stacklevel=1
                    )
                    break
            else:
                os.replace(folder / "classes.jsa.tmp", archive)
            shutil.rmtree(folder / "demo")
    return options if archive.exists() else []


# What a test writes goes into its temporary folders, never into the checkout: the session (under
# pytest-xdist, the controller's) fails when indexes/, reports/ or tests/output/ gained an entry
# while it ran (tests/output/ may, when $HARNESS_SCREENSHOTS asks for the screenshots there).
_REPO_BEFORE = pytest.StashKey[set]()


def _repo_outputs() -> set[str]:
    folders = [REPO / "indexes", REPO / "reports"]
    if not os.environ.get("HARNESS_SCREENSHOTS"):
        folders.append(REPO / "tests" / "output")
    return {str(p) for folder in folders if folder.is_dir() for p in folder.iterdir()}


def pytest_sessionstart(session):
    session.config.stash[_REPO_BEFORE] = _repo_outputs()


def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("HARNESS_TEST_COST"):
        _cost({"process": _cpu_seconds()})
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    new = sorted(_repo_outputs() - session.config.stash.get(_REPO_BEFORE, set()))
    if new:
        session.config.get_terminal_writer().line(f"tests wrote into the checkout: {', '.join(new)}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def shared_folder(tmp_path_factory, name: str) -> Path:
    """A folder every worker of this session sees (pytest-xdist gives each worker a base folder
    of its own inside the session's): for what is built once and read by all, such as an index
    that ensure_index builds under its lock and the other workers then reuse."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "shared" / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shared_path(*parts: str) -> Path:
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.fail(f"{p} is missing: the tests need ../shared beside the repository")
    return p


@pytest.fixture(scope="session")
def cranfield_index(tmp_path_factory):
    """Cranfield indexed once per test session with Anserini's defaults (one worker builds it,
    the others wait for it and reuse it)."""
    from harness.engine.corpus import Corpus
    from harness.engine.index import IndexOptions, ensure_index

    corpus = Corpus(shared_path("collections", "cranfield", "corpus.jsonl"), "jsonl")
    return ensure_index(corpus, IndexOptions(), shared_folder(tmp_path_factory, "idx") / "cranfield")


@pytest.fixture(scope="session")
def anserini_cranfield_index(tmp_path_factory) -> Path:
    """Cranfield indexed by Anserini's own command line (IndexCollection.main) with positions and
    document vectors (what query expansion reads) and not the raw documents, built once per
    session under a lock. The oracles that search with Anserini's SimpleSearcher search it:
    SimpleSearcher loads every hit's stored document, 225,000 a run of Cranfield at depth 1000,
    and with the raw texts stored that was half of each oracle's time (bm25+rocchio 8.0 -> 4.0 s).
    The harness's runs compared with them search the harness's own index or this one."""
    from harness.engine import lucene
    from harness.folders import locked

    folder = shared_folder(tmp_path_factory, "anserini-cranfield")
    index = folder / "index"
    with locked(folder / "build"):
        if not (folder / "built").exists():
            shutil.rmtree(index, ignore_errors=True)
            (folder / "corpus").mkdir(exist_ok=True)
            if not (folder / "corpus" / "corpus.jsonl").exists():
                (folder / "corpus" / "corpus.jsonl").symlink_to(shared_path("collections", "cranfield", "corpus.jsonl"))
            args = ["-collection", "JsonCollection", "-input", str(folder / "corpus"), "-index", str(index)]
            args += ["-generator", "DefaultLuceneDocumentGenerator", "-threads", "1"]
            args += ["-storePositions", "-storeDocvectors"]
            with lucene.java_output_hidden():
                lucene.jclass("io.anserini.index.IndexCollection").main(args)
            stored = [f.name for f in index.iterdir() if f.suffix == ".fdt"]
            assert stored and all((index / name).stat().st_size < 20_000 for name in stored)  # ids alone
            (folder / "built").touch()
    return index


@pytest.fixture(scope="session")
def cranfield_exact_index(tmp_path_factory):
    """Cranfield indexed with exact document lengths (IndexCollection -bm25.accurate), the index
    bm25 accurate=true needs."""
    from harness.engine.corpus import Corpus
    from harness.engine.index import IndexOptions, ensure_index

    corpus = Corpus(shared_path("collections", "cranfield", "corpus.jsonl"), "jsonl")
    return ensure_index(
        corpus, IndexOptions(lengths="exact"), shared_folder(tmp_path_factory, "idx") / "cranfield-exact"
    )


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    """Where the browser tests put their screenshots: the folder $HARNESS_SCREENSHOTS names, for a
    person to look at (`HARNESS_SCREENSHOTS=tests/output make test`), else a temporary folder."""
    if os.environ.get("HARNESS_SCREENSHOTS"):
        folder = Path(os.environ["HARNESS_SCREENSHOTS"]).resolve()
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="session")
def cranfield_topics():
    from harness.formats.topics import read_topics

    return read_topics(shared_path("collections", "cranfield", "topics.tsv"))


@functools.cache
def config_validator():
    """A jsonschema validator of the config's JSON Schema (harness.config.json_schema), the
    schema checked against its metaschema once: ``jsonschema.validate`` checks it again on every
    call, about 0.4 s each for this schema."""
    import jsonschema

    from harness.config.json_schema import json_schema

    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def demo_config(tmp: Path, extra: str = "") -> Path:
    """configs/demo.yaml written into ``tmp`` with absolute data paths, its index and report in
    ``tmp`` (plus ``extra`` YAML lines); the demo as `make demo` runs it, elsewhere."""
    text = (REPO / "configs" / "demo.yaml").read_text()
    text = text.replace("../corpora", str(REPO / "corpora")).replace("../topics", str(REPO / "topics"))
    text = text.replace("../qrels", str(REPO / "qrels")).replace("../reports/demo", str(tmp / "report"))
    text = text.replace("index: {stemmer: porter, stopwords: true}", f"index: {{path: {tmp / 'index'}}}")
    (tmp / "demo.yaml").write_text(text + extra)
    return tmp / "demo.yaml"


def report_run(report: Path, name: str) -> Path:
    """The file of the run named ``name`` in a report folder, as its manifest.json maps it
    (run files are named by harness.specs.names.run_file_names, not by the name itself)."""
    import json

    runs = json.loads((report / "manifest.json").read_text(encoding="utf-8"))["runs"]
    return report / next(r["file"] for r in runs if r["name"] == name)


def write_full_report(result, out):
    """What the run verb does after an experiment: runs by their names, then what the report
    shows from Lucene (the explorer's documents, the versions), then the report."""
    from harness.experiment.explore import attach
    from harness.experiment.names import with_names
    from harness.publish import write_report

    return write_report(attach(with_names(result)), out)


def tiny_report(tmp: Path, name: str, corpus_jsonl: str, topics_tsv: str):
    """A one-run (BM25) experiment on a few JSON-lines documents, report written; its config."""
    from harness.config import load_config
    from harness.experiment.execute import run_experiment

    (tmp / "corpus.jsonl").write_text(corpus_jsonl, encoding="utf-8")
    (tmp / "topics.tsv").write_text(topics_tsv, encoding="utf-8")
    (tmp / "c.yaml").write_text(
        f"name: {name}\ncollection: {{path: corpus.jsonl, format: jsonl}}\nindex: {{path: index}}\n"
        "topics: topics.tsv\nruns: [{bm25: {}}]\noutput: report\n"
    )
    cfg = load_config(tmp / "c.yaml")
    write_full_report(run_experiment(cfg), cfg.output)
    return cfg


def three_runs(tmp: Path, compare: str = "{baseline: bm25}", runs=("bm25", "copy", "flat"), extra: str = ""):
    """The demo collection searched by BM25, then an experiment of up to three runs (``runs``),
    report written: ``bm25`` (reused), ``copy`` (bm25's run file read back: an identical run) and
    ``flat`` (bm25's documents, each with the score 1.0: every topic is one tie, which
    trec_eval's order re-sorts by doc id, so it scores far below the others); ``compare`` as given
    (``""``: none), ``extra`` YAML lines added. Its (config, result), runs by their names."""
    from harness.config import load_config
    from harness.experiment.execute import run_experiment
    from harness.experiment.explore import attach
    from harness.experiment.names import with_names
    from harness.publish import write_report

    tmp.mkdir(parents=True, exist_ok=True)
    head = (
        f"collection: {{path: {REPO / 'corpora'}, format: text-folder}}\nindex: {{path: {tmp / 'index'}}}\n"
        f"topics: {{path: {REPO / 'topics' / 'demo.tsv'}, format: tsv}}\nqrels: {REPO / 'qrels' / 'demo.txt'}\n"
        "measures: [AP, nDCG@10]\n"
    )
    bm25 = "{bm25: {k1: 0.9, b: 0.4}, name: bm25}"
    (tmp / "base.yaml").write_text(f"name: base\n{head}runs: [{bm25}]\noutput: {tmp / 'base'}\n")
    lines = run_experiment(load_config(tmp / "base.yaml")).runs[0].path.read_text().splitlines()
    (tmp / "copy.trec").write_text("".join(line + "\n" for line in lines))
    (tmp / "flat.trec").write_text("".join(" ".join(line.split()[:4] + ["1.0", "flat"]) + "\n" for line in lines))
    entries = {"bm25": bm25, "copy": f"{{file: {tmp / 'copy.trec'}, name: copy}}"}
    entries["flat"] = f"{{file: {tmp / 'flat.trec'}, name: flat}}"
    (tmp / "three.yaml").write_text(
        f"name: three\n{head}runs:\n"
        + "".join(f"  - {entries[r]}\n" for r in runs)
        + (f"compare: {compare}\n" if compare else "")
        + f"output: {tmp / 'report'}\n{extra}"
    )
    cfg = load_config(tmp / "three.yaml")
    result = attach(with_names(run_experiment(cfg)))  # as write_full_report, keeping the result
    write_report(result, cfg.output)
    return cfg, result


def explorer_data(page: str) -> dict:
    """The topic explorer's JSON of a report.html (harness.report.explorer), as the page's script
    reads it."""
    import json
    import re

    found = re.search(r'<script type="application/json" id="explorer-data">(.*?)</script>', page, re.S)
    assert found, "no explorer data in the page"
    return json.loads(found.group(1))


def marked(data: dict) -> list[str]:
    """Every highlighted piece of the explorer's snippets, topic by topic, document by document."""
    return [s[i] for t in data["topics"] for _, _, s in t["docs"] if s for i in range(2, len(s), 2) if s[i]]


def assert_runs_equal_simple_searcher(ours: Path, theirs: Path, queries: list[str], depth: int) -> None:
    """The harness's Searcher on index ``ours`` and Anserini's SimpleSearcher on index ``theirs``
    (the oracle) rank the same documents with the same float32 scores for each of ``queries``,
    with BM25 (k1=0.9, b=0.4) and Dirichlet (mu=1000), ``depth`` hits each."""
    import numpy as np

    from harness.engine import lucene
    from harness.engine.index import IndexOptions
    from harness.engine.search import Searcher
    from harness.specs.similarity import Similarity

    searcher = Searcher(ours, IndexOptions())
    ss = lucene.jclass("io.anserini.search.SimpleSearcher")(str(theirs))
    try:
        for spec in ("bm25", "dirichlet"):
            sim = Similarity.parse(spec)
            ss.set_bm25(0.9, 0.4) if spec == "bm25" else ss.set_qld(1000.0)
            for q, (ids, scores) in zip(queries, searcher.search(queries, sim, depth, threads=1), strict=True):
                hits = ss.search(q, depth)
                assert ids == [str(h.docid) for h in hits], (spec, q)
                assert scores.astype(np.float32).tolist() == [h.score for h in hits], (spec, q)
    finally:
        ss.close()
        searcher.close()


def multipletests(pvals, alpha: float = 0.05, method: str = "hs"):
    """statsmodels' ``multipletests``, the p-value corrections' oracle, as it is but for the full
    garbage collection its holm branch ends with (``gc.collect()``, statsmodels 0.15.0): in a
    pytest worker, whose heap holds the whole suite, that took about 0.5 s a call (test_stats'
    seven holm cases 3.6 s, its bonferroni and bh ones 0.01 s). The values do not depend on it."""
    import gc

    from statsmodels.stats.multitest import multipletests as oracle

    collect, gc.collect = gc.collect, lambda generation=2: 0
    try:
        return oracle(pvals, alpha=alpha, method=method)
    finally:
        gc.collect = collect
