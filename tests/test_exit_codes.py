"""Every fault ends in its documented exit code (issue 25.6): one table, each row a real fault
made on disk or in the process and a real `harness` process meeting it, with the code and the
words its message must hold. docs/cli.md shows the same table (checked here row for row).

0 ok · 1 expectations not met · 2 bad input · 3 environment · 128 + N a signal (130 Ctrl-C,
143 SIGTERM, 129 SIGHUP). Nothing here is timed."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import REPO, demo_config
from .docs import section
from .test_faults import holder

pytestmark = [pytest.mark.java, pytest.mark.usefixtures("sparse_only_processes")]  # conftest: BM25, Dirichlet, JM only
DEADLINE = 300


@dataclass(frozen=True)
class Fault:
    name: str  # as the docs table says it
    code: int
    words: str  # in the error message
    make: Callable  # (tmp) -> (argv, env or None, how: "run" | a signal to send while it waits)


def _demo(tmp: Path, extra: str = "") -> Path:
    return demo_config(tmp, extra)


def _edit(cfg: Path, old: str, new: str) -> Path:
    text = cfg.read_text()
    assert old in text, old
    cfg.write_text(text.replace(old, new))
    return cfg


def _run_files(tmp: Path) -> tuple[Path, Path]:
    run, qrels = tmp / "run.trec", tmp / "qrels.txt"
    run.write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n")
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    return run, qrels


def not_yaml(tmp):
    (tmp / "c.yaml").write_text("name: [\n")
    return ["validate", str(tmp / "c.yaml")], None, "run"


def unknown_key(tmp):
    return ["run", str(_demo(tmp, "colour: blue\n"))], None, "run"


def missing_topics(tmp):
    cfg = _demo(tmp)
    return ["run", str(_edit(cfg, str(REPO / "topics"), str(tmp / "no-such-folder")))], None, "run"


def bad_qrels_line(tmp):
    run, qrels = _run_files(tmp)
    qrels.write_text("1 0 a\n")
    return ["evaluate", str(run), str(qrels), "-m", "AP"], None, "run"


def bad_run_line(tmp):
    run, qrels = _run_files(tmp)
    run.write_text("1 Q0 a 1 2.0\n")
    return ["evaluate", str(run), str(qrels), "-m", "AP"], None, "run"


def swapped(tmp):
    run, qrels = _run_files(tmp)
    return ["evaluate", str(qrels), str(run), "-m", "AP"], None, "run"


def unknown_measure(tmp):
    run, qrels = _run_files(tmp)
    return ["evaluate", str(run), str(qrels), "-m", "APX"], None, "run"


def broken_index_manifest(tmp):
    cfg = _demo(tmp)
    (tmp / "index").mkdir()
    (tmp / "index" / "harness-index.json").write_text("[1, 2]")
    return ["run", str(cfg)], None, "run"


def foreign_output(tmp):
    cfg = _demo(tmp)
    (tmp / "report").mkdir()
    (tmp / "report" / "notes.txt").write_text("mine")
    return ["run", str(cfg)], None, "run"


def other_experiments_output(tmp):
    cfg = _demo(tmp)
    (tmp / "report").mkdir()
    marker = '{"written_by": "harness", "kind": "report", "experiment": {"name": "first", "config": "../first.yaml"}, "files": []}'
    (tmp / "report" / ".harness-output.json").write_text(marker)
    return ["run", str(cfg)], None, "run"


def output_in_collection(tmp):
    shutil.copytree(REPO / "corpora", tmp / "corpora")
    cfg = _edit(_demo(tmp), str(REPO / "corpora"), str(tmp / "corpora"))
    _edit(cfg, str(tmp / "report"), str(tmp / "corpora" / "report"))
    return ["validate", str(cfg)], None, "run"


def expectation(tmp):
    return ["run", str(_demo(tmp, 'expect: {"bm25": {AP: 0.99}}\n'))], None, "run"


def java_fails(tmp):
    return ["run", str(_demo(tmp))], {"HARNESS_JAVA_OPTS": "-Xno-such-option"}, "run"


def read_only_report(tmp):
    cfg = _demo(tmp)
    (tmp / "report").mkdir()
    (tmp / "report" / ".harness-output.json").write_text('{"written_by": "harness", "kind": "report", "files": []}')
    (tmp / "report").chmod(0o555)
    return ["run", str(cfg)], {"_AS_A_USER": "1"}, "run"


def unreadable_qrels(tmp):
    run, qrels = _run_files(tmp)
    qrels.chmod(0)
    return ["evaluate", str(run), str(qrels), "-m", "AP"], {"_AS_A_USER": "1"}, "run"


def unreadable_config(tmp):
    cfg = _demo(tmp)
    cfg.chmod(0)
    return ["validate", str(cfg)], {"_AS_A_USER": "1"}, "run"


def unlistable_collection(tmp):
    shutil.copytree(REPO / "corpora", tmp / "corpora")
    cfg = _edit(_demo(tmp), str(REPO / "corpora"), str(tmp / "corpora"))
    (tmp / "corpora" / "sample_docs").chmod(0)
    return ["run", str(cfg)], {"_AS_A_USER": "1"}, "run"


def full_disk(tmp):
    cfg = _edit(_demo(tmp), f"path: {tmp / 'index'}", f"path: {tmp / 'disk' / 'index'}")
    (tmp / "disk").mkdir()
    return ["run", str(cfg)], {"_FULL_DISK": str(tmp / "disk")}, "run"


def study_with_a_bad_line(tmp):
    """A study whose second collection's corpus breaks at line 50 (validation reads five)."""
    from .test_study import ENTRIES, broken_collection, study_config

    return (
        ["run", str(study_config(tmp, {"de": ENTRIES["de"], "broken": broken_collection(tmp / "data")}))],
        None,
        "run",
    )


def waiting(sig):
    def make(tmp):
        return ["run", str(_demo(tmp))], None, sig

    return make


FAULTS = [
    Fault("a config that is not YAML", 2, "YAML syntax error", not_yaml),
    Fault("an unknown config key", 2, "colour", unknown_key),
    Fault("a data file that does not exist", 2, "no-such-folder", missing_topics),
    Fault("a qrels line with three fields", 2, "qrels.txt:1", bad_qrels_line),
    Fault("a run line with five fields", 2, "run.trec:1", bad_run_line),
    Fault("run and qrels given the other way round", 2, "the order is RUN QRELS", swapped),
    Fault("an unknown measure", 2, "APX", unknown_measure),
    Fault("an index folder with a broken harness-index.json", 2, "harness-index.json", broken_index_manifest),
    Fault("an output folder the harness did not write", 2, "not written by the harness", foreign_output),
    Fault("an output folder another experiment wrote", 2, "another experiment, 'first'", other_experiments_output),
    Fault("an output folder inside the collection", 2, "corpora", output_in_collection),
    Fault("a collection of a study that fails as it runs", 2, "broken: ", study_with_a_bad_line),
    Fault("an expectation (`expect:`) not met", 1, "FAIL", expectation),
    Fault("Java does not start", 3, "JVM", java_fails),
    Fault("a report folder this user may not change", 3, "permission denied", read_only_report),
    Fault("a data file this user may not read", 3, "qrels.txt: cannot read", unreadable_qrels),
    Fault("a collection folder this user may not list", 3, "cannot list the collection folder", unlistable_collection),
    Fault(
        "a config file this user may not read", 3, "cannot read the config file: Permission denied", unreadable_config
    ),
    Fault("a disk that fills up", 3, "no space left on the device", full_disk),
    Fault("Ctrl-C (SIGINT)", 130, "interrupted (SIGINT)", waiting(signal.SIGINT)),
    Fault("SIGTERM", 143, "interrupted (SIGTERM)", waiting(signal.SIGTERM)),
    Fault("SIGHUP (the terminal closed)", 129, "interrupted (SIGHUP)", waiting(signal.SIGHUP)),
]


def _command(argv, env) -> tuple[list[str], dict]:
    cmd = [sys.executable, "-m", "harness", *argv]
    full = dict(os.environ)
    for k, v in (env or {}).items():
        if k == "_AS_A_USER":  # root without the capabilities that override permission bits
            cmd = [shutil.which("setpriv"), "--bounding-set=-dac_override,-dac_read_search,-fowner", "--", *cmd]
        elif k == "_FULL_DISK":  # a 120 KB tmpfs in a private mount namespace: the index cannot fit
            script = f"mount -t tmpfs -o size=120k tmpfs {v} && exec {' '.join(map(repr, cmd))}"
            cmd = [shutil.which("unshare"), "--mount", "sh", "-c", script]
        else:
            full[k] = v
    return cmd, full


@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
def test_every_fault_ends_in_its_documented_exit_code(tmp_path, fault):
    argv, env, how = fault.make(tmp_path)
    cmd, full = _command(argv, env)
    try:
        if how == "run":
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=DEADLINE, env=full, cwd=tmp_path)
            code, err = r.returncode, r.stderr
        else:  # a signal while the run waits for the lock of its report folder: a point every run passes
            lock = holder(tmp_path / "report")
            try:
                p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=full)
                seen = ""
                while "waiting for another harness process" not in seen:
                    line = p.stderr.readline()
                    assert line, seen
                    seen += line
                p.send_signal(how)
                err = seen + p.stderr.read()
                code = p.wait(timeout=DEADLINE)
            finally:
                lock.stdin.close()
                lock.wait(timeout=DEADLINE)
    finally:
        for d, dirs, _ in os.walk(tmp_path):
            for n in [".", *dirs]:
                os.chmod(Path(d, n), 0o755)
    assert code == fault.code, err
    assert fault.words in err, err
    assert "Traceback" not in err and "\tat " not in err, err


def test_the_docs_show_the_same_table():
    rows = re.findall(r"^\| (.+?) \| (\d+) \|$", section("Exit codes"), flags=re.M)
    assert rows == [(f.name, str(f.code)) for f in FAULTS]
