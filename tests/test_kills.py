"""Kills and concurrent runs (issue 11, "What to build" 5): SIGKILL, SIGINT and SIGTERM while
indexing and while searching, a signal while the JVM starts, Java's own temporary files and
sockets, Ctrl-C inside a long Java call, two runs of one config at once. The previous outputs
stay intact, the next run cleans up, and nothing is left in /tmp. Split from tests/test_faults.py
(the faults of files and folders), whose helpers these share. Waits on subprocesses are bounded;
nothing here is timed."""

from __future__ import annotations

import getpass
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import CRANFIELD, REPO
from .test_faults import hidden_leftovers, topic_copies
from .test_safety import snapshot

PY = sys.executable
DEADLINE = 300  # seconds: a bound on every wait for a subprocess, never an assertion on speed
pytestmark = pytest.mark.usefixtures("sparse_only_processes")  # conftest: BM25, Dirichlet, JM only


# Two runs: a kill lands in the first (mid-search) or before either (mid-index), and the run after
# it searches them all; five runs (three more of Cranfield's 225 topics at depth 1000, and of
# 5,400 mid-search) made each next run and the first report longer and the cases no different.
RUNS = "runs:\n  - bm25: {k1: 0.9, b: 0.4}\n  - dirichlet: {mu: 500}\n"


def cranfield_project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / "configs").mkdir(parents=True)
    (proj / "indexes").mkdir()
    cfg = proj / "configs" / "cran.yaml"
    cfg.write_text(
        "name: cran\n"
        f"collection: {{path: {CRANFIELD / 'corpus.jsonl'}, format: jsonl}}\n"
        "index: {path: ../indexes/cran}\n"
        f"topics: {{path: {CRANFIELD / 'topics.tsv'}, format: tsv}}\n"
        f"qrels: {CRANFIELD / 'qrels.txt'}\n"
        f"{RUNS}"
        "measures: [AP, nDCG@10]\n"
        "output: ../reports/cran\n"
    )
    return cfg


def start(cfg: Path, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [PY, "-m", "harness", "run", str(cfg)], cwd=REPO, stdout=subprocess.PIPE, stderr=log.open("w"), text=True
    )


def wait_for(log: Path, text: str, p: subprocess.Popen) -> None:
    deadline = time.monotonic() + DEADLINE
    while text not in log.read_text():
        assert p.poll() is None, f"finished before {text!r}: {log.read_text()}"
        assert time.monotonic() < deadline, f"no {text!r} in {DEADLINE} s: {log.read_text()}"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def cranfield_done(tmp_path_factory):
    """A Cranfield project with its report and index, built once (subprocess, like a user)."""
    tmp = tmp_path_factory.mktemp("kills")
    cfg = cranfield_project(tmp)
    r = subprocess.run([PY, "-m", "harness", "run", str(cfg)], cwd=REPO, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    return cfg


# SIGKILL in each phase: no handler runs, the next run cleans up. A signal the harness handles
# raises in the main thread, a KeyboardInterrupt for SIGINT and for SIGTERM (docker stop, Slurm)
# its subclass Terminated (harness/cli/failures.py), which takes Ctrl-C's way out with exit 143:
# the phase decides what there is to clean up, the signal only the exception's class and the exit
# code. So each handled signal lands once and in another phase than the other (SIGINT and
# SIGTERM in both phases, six cases, covered nothing more); both also land while the JVM
# starts and in a weakref callback (below).
@pytest.mark.parametrize(
    "sig, phase",
    [
        (signal.SIGKILL, "mid-index"),
        (signal.SIGINT, "mid-index"),
        (signal.SIGKILL, "mid-search"),
        (signal.SIGTERM, "mid-search"),
    ],
    ids=lambda x: x.name if isinstance(x, signal.Signals) else x,
)
def test_kill_leaves_previous_report_and_next_run_cleans_up(tmp_path, cranfield_done, sig, phase):
    proj = tmp_path / "proj"
    shutil.copytree(cranfield_done.parent.parent, proj)
    cfg = proj / "configs" / "cran.yaml"
    if phase == "mid-index":  # a rebuild of the index (another stemmer), killed while building
        cfg.write_text(
            cfg.read_text().replace(
                "index: {path: ../indexes/cran}", "index: {path: ../indexes/cran, stemmer: krovetz}"
            )
        )
        marker = "indexing "
    else:  # the runs searched again, killed while searching: 24 copies of the topics keep the
        # search going for seconds (with Cranfield's 225 five runs took 1.3 s, and a fast machine
        # finished them before the signal arrived); at depth 10, as searching is what takes the
        # time: at depth 1000 the runs, cached and in the report, filled 4.8 GB of the disk
        shutil.rmtree(proj / "indexes" / "cran" / "harness-runs")
        topics, qrels = topic_copies(proj / "many", 24)
        text = cfg.read_text()
        assert f"topics: {{path: {CRANFIELD / 'topics.tsv'}, format: tsv}}" in text
        assert f"qrels: {CRANFIELD / 'qrels.txt'}" in text
        cfg.write_text(
            text.replace(
                f"topics: {{path: {CRANFIELD / 'topics.tsv'}, format: tsv}}", f"topics: {{path: {topics}, format: tsv}}"
            ).replace(f"qrels: {CRANFIELD / 'qrels.txt'}", f"qrels: {qrels}")
            + "depth: 10\n"
        )
        marker = "index reused"
    report = snapshot(proj / "reports" / "cran")
    index = snapshot(proj / "indexes" / "cran")
    log = tmp_path / "err.txt"
    p = start(cfg, log)
    wait_for(log, marker, p)
    if phase == "mid-index":  # the message comes before the corpus check; the folder after it
        deadline = time.monotonic() + DEADLINE
        while not any(".cran.building-" in n for n in os.listdir(proj / "indexes")):
            assert p.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.01)
    p.send_signal(sig)
    p.communicate(timeout=DEADLINE)
    expected = {signal.SIGKILL: -9, signal.SIGINT: 130, signal.SIGTERM: 143}[sig]
    assert p.returncode == expected, log.read_text()
    err = log.read_text()
    assert "Traceback" not in err
    if sig != signal.SIGKILL:
        assert f"harness: interrupted ({sig.name})" in err
        assert hidden_leftovers(proj) == []  # cleaned up on the way out
    assert snapshot(proj / "reports" / "cran") == report
    now = snapshot(proj / "indexes" / "cran")
    if phase == "mid-index":
        assert now == index  # the old index, untouched by the interrupted rebuild
    else:  # searched runs may have been cached completely before the kill; nothing else changed
        assert {k: v for k, v in now.items() if not k.startswith("harness-runs")} == {
            k: v for k, v in index.items() if "harness-runs/" not in k
        }
    r = subprocess.run([PY, "-m", "harness", "run", str(cfg)], cwd=REPO, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    if sig == signal.SIGKILL:
        assert "left by an interrupted run" in r.stderr or "temporary file(s)" in r.stderr or phase == "mid-search"
    assert hidden_leftovers(proj) == []
    summary = json.loads((proj / "reports" / "cran" / "summary.json").read_text())
    assert [(row["run"], row["spec"]) for row in summary["runs"]][0] == ("bm25", "bm25(k1=0.9,b=0.4)")


def jvm_threads(pid: int) -> set[str]:
    """The names of the process's threads that are the JVM's own."""
    names = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            names.add((task / "comm").read_text().strip())
        except OSError:  # the thread ended meanwhile
            pass
    return names & {"Reference Handl", "Signal Dispatch", "Finalizer", "Common-Cleaner"}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_signal_while_the_jvm_starts_is_cleaned_up_as_any_other(tmp_path, cranfield_done, sig):
    """The signal lands while the JVM starts (its Reference Handler thread is up, the JVM is not
    yet back in Python): the run exits 130/143 and removes its build folder. The JVM used to own
    SIGINT and SIGTERM then (Java's Runtime.exit: the build folder left; or the signal lost and
    the run went on to exit 0), every time at this point; the mid-index kills above met it once
    in a few runs."""
    proj = tmp_path / "proj"
    shutil.copytree(cranfield_done.parent.parent, proj)
    cfg = proj / "configs" / "cran.yaml"
    cfg.write_text(
        cfg.read_text().replace("index: {path: ../indexes/cran}", "index: {path: ../indexes/cran, stemmer: krovetz}")
    )
    index = snapshot(proj / "indexes" / "cran")
    log = tmp_path / "err.txt"
    p = subprocess.Popen(
        [PY, "-m", "harness", "index", str(cfg)], cwd=REPO, stdout=subprocess.DEVNULL, stderr=log.open("w")
    )
    deadline = time.monotonic() + DEADLINE
    while not jvm_threads(p.pid):
        assert p.poll() is None and time.monotonic() < deadline, log.read_text()
    p.send_signal(sig)
    p.communicate(timeout=DEADLINE)
    err = log.read_text()
    assert p.returncode == 128 + sig, err
    assert f"harness: interrupted ({sig.name})" in err and "Traceback" not in err
    assert hidden_leftovers(proj) == []
    assert snapshot(proj / "indexes" / "cran") == index


def test_java_temp_files_are_the_process_s_own_and_leave_with_it(tmp_path):
    """Java's temporary folder is one of the process's own under $TMPDIR, removed at exit: the
    JVM embedded here never runs its shutdown hooks, so what Java deletes "on exit" stayed, such
    as Snappy's native library (Parquet collections) in /tmp after every run."""
    code = (
        "from harness.engine.lucene import jclass\n"
        "import os\n"
        "folder = jclass('java.lang.System').getProperty('java.io.tmpdir')\n"
        "jclass('org.xerial.snappy.Snappy').maxCompressedLength(10)\n"
        "print(folder); print(' '.join(os.listdir(folder)))\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    r = subprocess.run([PY, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=DEADLINE)
    assert r.returncode == 0, r.stderr
    folder, files = r.stdout.splitlines()
    assert Path(folder).parent == tmp_path and files.endswith("-libsnappyjava.so"), r.stdout
    assert list(tmp_path.iterdir()) == []


def test_a_killed_harness_leaves_no_attach_socket_or_counters_in_tmp():
    """Started with -Xrs (from the main thread), HotSpot opened its attach socket at start,
    /tmp/.java_pid<pid> (in /tmp whatever $TMPDIR says), and removed it only at a normal exit:
    every harness killed by SIGKILL left one behind (the kill tests, 130 of them a run). Its
    performance counters, /tmp/hsperfdata_$USER/<pid>, are removed only at the JVM's shutdown,
    which a JVM inside Python never reaches, killed or not: each harness process left them."""
    code = (
        "from harness.engine.lucene import jclass\n"
        "import os, signal\n"
        "jclass('java.lang.Object')\n"
        "print(os.getpid(), flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    r = subprocess.run([PY, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=DEADLINE)
    assert r.returncode == -signal.SIGKILL, r.stderr
    pid = int(r.stdout)
    files = [Path(f"/tmp/.java_pid{pid}"), Path(f"/tmp/hsperfdata_{getpass.getuser()}/{pid}")]
    left = [p for p in files if p.exists()]
    for p in left:
        p.unlink()
    assert not left


def test_ctrl_c_inside_a_long_java_call_acts_at_once(tmp_path, cranfield_index):
    """A batch search is one Java call (harness.engine.lucene.interruptible runs it on a worker
    thread): Ctrl-C in the middle exits 130 at once, not when the call returns, and leaves
    nothing behind. "At once" is measured against the same search run to its end afterwards,
    which also shows that the interrupted run cached nothing."""
    shutil.copytree(cranfield_index.path, tmp_path / "index")
    lines = (CRANFIELD / "topics.tsv").read_text().splitlines()
    (tmp_path / "topics.tsv").write_text("".join(f"{i}-{line}\n" for i in range(80) for line in lines))
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"name: long\ncollection: {{path: {CRANFIELD / 'corpus.jsonl'}, format: jsonl}}\n"
        "index: {path: index}\ntopics: topics.tsv\nruns: [{bm25: {}}]\noutput: out\n"
        "depth: 10\n"  # searching takes the time; at depth 1000 the run filled 2 GB of the disk
    )
    log = tmp_path / "err.txt"
    p = start(cfg, log)
    wait_for(log, "index reused", p)
    time.sleep(0.5)  # into the search of 18,000 topics
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=DEADLINE)
    stopped = time.monotonic() - t
    assert p.returncode == 130, log.read_text()
    assert "searched" not in log.read_text() and "harness: interrupted (SIGINT)" in log.read_text()
    assert not (tmp_path / "out").exists() and hidden_leftovers(tmp_path) == []
    r = subprocess.run([PY, "-m", "harness", "run", str(cfg)], cwd=REPO, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    searched = float(r.stderr.split("searched 18000 topics in ")[1].split(" s")[0])
    assert stopped < searched / 2, f"stopped {stopped:.2f} s after Ctrl-C; the search takes {searched:.2f} s"


def test_a_signal_while_pyjnius_starts_the_jvm_acts_once_it_has_started():
    """SIGTERM landing while pyjnius starts the JVM (from the import of its extension, as the
    harness's SIGTERM mid-index sometimes met it): held back until the JVM has started, then
    raised in the main thread. Its handler used to run inside pyjnius's initialisation, where C
    code cleared the exception: the signal was lost and the run exited 0, once in ~25 runs."""
    code = (
        "import importlib.abc, os, signal, sys\n"
        "from harness.cli.failures import Terminated, handle_signals\n"
        "from harness.engine import lucene\n"
        "masks = []\n"
        "class Pyjnius(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'jnius.jnius':  # the extension, whose loading starts the JVM\n"
        "            masks.append(sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])))\n"
        "            os.kill(os.getpid(), signal.SIGTERM)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Pyjnius())\n"
        "with handle_signals():\n"
        "    try:\n"
        "        lucene.jclass('java.lang.Object')\n"
        "    except Terminated as e:\n"
        "        print(e.signum, lucene.started(), masks)\n"
    )
    r = subprocess.run([PY, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=DEADLINE)
    held = sorted(int(s) for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM))
    assert r.stdout.split(" ", 2) == [str(int(signal.SIGTERM)), "True", f"[{held}]\n"], r.stdout + r.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_signal_landing_where_python_cannot_raise_is_delivered_again(sig):
    """A signal's handler runs at the main thread's next step, which may be a weakref callback or
    a ``__del__`` (garbage collection, an import's module lock): there Python prints "Exception
    ignored" and goes on. An interrupted `harness run` once finished its index and report and
    exited 0 that way (test_kill_leaves_previous_report_and_next_run_cleans_up[SIGINT-mid-index]).
    Under the command line's handlers the interrupt is sent again and raises outside the
    callback; the loop after it would run 60 s otherwise."""
    code = (
        "import os, signal, sys, time, weakref\n"
        "from harness.cli.failures import handle_signals\n"
        "class Held:\n    pass\n"
        "def callback(ref):  # the handler runs in here\n"
        f"    os.kill(os.getpid(), {int(sig)})\n"
        "    for _ in range(1000):\n        pass\n"
        "with handle_signals():\n"
        "    try:\n"
        "        held = Held()\n        ref = weakref.ref(held, callback)\n        del held\n"
        "        deadline = time.monotonic() + 60\n"
        "        while time.monotonic() < deadline:\n            pass\n"
        "        print('went on')\n"
        "    except KeyboardInterrupt as e:\n"
        "        print('interrupted', type(e).__name__, getattr(e, 'signum', None))\n"
    )
    r = subprocess.run([PY, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=DEADLINE)
    expected = "KeyboardInterrupt None" if sig == signal.SIGINT else f"Terminated {int(sig)}"
    assert r.stdout == f"interrupted {expected}\n", r.stdout + r.stderr
    assert "Exception ignored" not in r.stderr, r.stderr


def test_two_concurrent_runs_of_one_config_both_succeed_with_identical_results(tmp_path):
    cfg = cranfield_project(tmp_path)
    logs = [tmp_path / "a.txt", tmp_path / "b.txt"]
    ps = [start(cfg, logs[0]), start(cfg, logs[1])]
    outs = [p.communicate(timeout=900)[0] for p in ps]
    for p, log in zip(ps, logs):
        assert p.returncode == 0, log.read_text()

    def table(md: str) -> list[str]:  # the metric table of the printed summary
        lines = md.splitlines()
        start = lines.index(next(x for x in lines if x.startswith("| run | AP")))
        return lines[start : lines.index("", start)]

    assert table(outs[0]) == table(outs[1])
    assert any("waiting for another harness process" in log.read_text() for log in logs)
    assert hidden_leftovers(tmp_path / "proj") == []
