"""SIGKILL at every rename (issue 25.4): the harness run is killed just before each rename,
exchange or replace it (or Lucene, or Anserini) makes: the index's segments file, the index
manifest, the index swap, each run-cache file, the report's marker, the report swap. Killing
before the N-th rename is killing after the (N-1)-th and everything between. After each kill the
next `harness run` must leave no temporary folder or file of the killed run anywhere (the index's
and the report's parents, the run cache), reuse nothing half-written, and end with the same
results, byte for byte, as a run that was never killed.

The kills come from inside the process, at the call that makes the syscall: a small library
preloaded into Python and the JVM (``LD_PRELOAD``, compiled here with gcc) counts every
``rename``, ``renameat`` and ``renameat2`` of the process, whichever thread makes it (Lucene's,
the run-cache writer's, the main thread's), and sends itself SIGKILL before the N-th. (strace's
``-e inject=...:signal=SIGKILL:when=N`` counts per thread, so with three threads renaming it
cannot reach every point; it is used once, below, to check the kill is the same.) Two starting
points: nothing yet (first index, first runs, first report), and a previous index and report
that a changed config (another stemmer) must replace (the index rebuilt and swapped by
RENAME_EXCHANGE, new runs, the report swapped). Nothing here is timed.

The config is the demo's with two runs (BM25 and Dirichlet) instead of five: each run renames
the same two files into the run cache, so three more runs added six kill points of a kind
already killed (and twelve harness processes a start); a kill between two runs' files is kept."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import demo_config
from .test_faults import hidden_leftovers

pytestmark = [pytest.mark.java, pytest.mark.usefixtures("sparse_only_processes")]  # conftest

DEADLINE = 300
# What must equal a clean run's, byte for byte (the other files also say what was reused and how
# long it took, which a run after a kill legitimately differs in).
SAME = ("summary.csv", "summary.json", "per_topic.csv", "comparisons.csv", "comparisons.json")

SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int calls;

static void before(const char *call, const char *a, const char *b) {
    int n = atomic_fetch_add(&calls, 1) + 1;
    const char *log = getenv("RENAME_LOG");
    if (log) {
        char line[8192];
        int len = snprintf(line, sizeof line, "%d %s %s -> %s\n", n, call, a, b);
        int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
        if (fd >= 0) { (void)!write(fd, line, len > 0 && len < (int)sizeof line ? len : 0); close(fd); }
    }
    const char *at = getenv("KILL_AT_RENAME");
    if (at && atoi(at) == n) kill(getpid(), SIGKILL);
}

int rename(const char *a, const char *b) {
    before("rename", a, b);
    return ((int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename"))(a, b);
}

int renameat(int fa, const char *a, int fb, const char *b) {
    before("renameat", a, b);
    return ((int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat"))(fa, a, fb, b);
}

int renameat2(int fa, const char *a, int fb, const char *b, unsigned int flags) {
    before("renameat2", a, b);
    return ((int (*)(int, const char *, int, const char *, unsigned int))dlsym(RTLD_NEXT, "renameat2"))(fa, a, fb, b, flags);
}
"""


@pytest.fixture(scope="module")
def shim(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("shim")
    (d / "kill_at_rename.c").write_text(SHIM)
    lib = d / "kill_at_rename.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", str(lib), str(d / "kill_at_rename.c"), "-ldl"], check=True)
    return lib


def harness(cfg: Path, shim: Path | None = None, kill_at: int | None = None, log: Path | None = None):
    env = dict(os.environ)
    if shim is not None:
        env["LD_PRELOAD"] = str(shim)
        if kill_at is not None:
            env["KILL_AT_RENAME"] = str(kill_at)
        if log is not None:
            env["RENAME_LOG"] = str(log)
    cmd = [sys.executable, "-m", "harness", "run", str(cfg)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=DEADLINE, env=env)


def results(work: Path) -> dict:
    report = work / "report"
    out = {name: (report / name).read_bytes() for name in SAME if (report / name).exists()}
    for p in sorted((report / "runs").iterdir()):
        out[f"runs/{p.name}"] = p.read_bytes()
    manifest = json.loads((work / "index" / "harness-index.json").read_text())
    out["index"] = (manifest["fingerprint"], manifest["stats"], manifest["counters"])
    return out


def stemmer(cfg: Path, name: str) -> None:
    text = re.sub(
        r"index: \{path: ([^,}]+)(, stemmer: \w+)?\}", rf"index: {{path: \1, stemmer: {name}}}", cfg.read_text()
    )
    cfg.write_text(text)


@pytest.fixture(scope="module")
def starts(tmp_path_factory):
    """(work folder, {start: a copy of the work folder to begin from}, the clean results of each)."""
    base = tmp_path_factory.mktemp("kills")
    work = base / "work"
    work.mkdir()
    cfg = demo_config(work)
    runs = "runs:\n  - bm25: {k1: 0.9, b: 0.4}\n  - dirichlet: {mu: [500, 1000, 2000]}\n  - jm: {lambda: 0.1}\n"
    assert runs in cfg.read_text()
    cfg.write_text(cfg.read_text().replace(runs, "runs:\n  - bm25: {k1: 0.9, b: 0.4}\n  - dirichlet: {mu: 1000}\n"))
    stemmer(cfg, "porter")
    starts, clean = {}, {}
    starts["nothing yet"] = base / "nothing"
    shutil.copytree(work, starts["nothing yet"])
    r = harness(cfg)
    assert r.returncode == 0, r.stderr
    clean["nothing yet"] = results(work)
    assert len([k for k in clean["nothing yet"] if k.startswith("runs/") and k.endswith(".trec")]) == 2
    stemmer(cfg, "krovetz")  # the next run rebuilds the index, searches anew, replaces the report
    starts["a previous index and report"] = base / "previous"
    shutil.copytree(work, starts["a previous index and report"], symlinks=True)
    r = harness(cfg)
    assert r.returncode == 0, r.stderr
    clean["a previous index and report"] = results(work)
    return work, starts, clean


@pytest.mark.parametrize("start", ["nothing yet", "a previous index and report"])
def test_a_kill_at_every_rename_then_a_run_ends_as_a_clean_run(shim, starts, start):
    work, begin, clean = starts
    # how many renames a run from this start makes, and which
    shutil.rmtree(work)
    shutil.copytree(begin[start], work, symlinks=True)
    log = work.parent / f"renames-{start.replace(' ', '-')}.log"
    log.unlink(missing_ok=True)
    r = harness(work / "demo.yaml", shim, log=log)
    assert r.returncode == 0, r.stderr
    assert results(work) == clean[start]  # the shim changes nothing by itself
    renames = log.read_text().splitlines()
    assert len(renames) >= 9, renames  # the segments file, manifests, two runs' two files, marker, swaps
    assert any("segments_" in line for line in renames)  # Lucene's, in the JVM
    assert any(line.endswith(f" -> {work / 'report'}") for line in renames)  # the report swap
    if start != "nothing yet":  # the index and the report swapped with their previous ones
        assert sum(line.split()[1] == "renameat2" for line in renames) == 2, renames
    problems = []
    for n in range(1, len(renames) + 1):
        shutil.rmtree(work)
        shutil.copytree(begin[start], work, symlinks=True)
        killed = harness(work / "demo.yaml", shim, kill_at=n)
        if killed.returncode != -9:
            problems.append(f"kill {n}: not killed (exit {killed.returncode})")
            continue
        after = harness(work / "demo.yaml")
        where = renames[n - 1][:160]
        if after.returncode != 0:
            problems.append(f"kill {n} ({where}): the next run failed: {after.stderr[-800:]}")
            continue
        left = hidden_leftovers(work)
        if left:
            problems.append(f"kill {n} ({where}): left {left}")
        got = results(work)
        if got != clean[start]:
            differ = sorted(k for k in set(got) | set(clean[start]) if got.get(k) != clean[start].get(k))
            problems.append(f"kill {n} ({where}): differs from a clean run in {differ}")
    assert not problems, "\n".join(problems)


def test_strace_kills_at_the_same_first_rename(shim, starts, tmp_path):
    """The first rename of a run from nothing, killed by strace's syscall injection, leaves the
    same state as the shim's kill there: the index not yet in place, the next run clean."""
    work, begin, clean = starts
    states = []
    for how in ("strace", "shim"):
        shutil.rmtree(work)
        shutil.copytree(begin["nothing yet"], work, symlinks=True)
        if how == "strace":
            cmd = [
                shutil.which("strace"),
                "-f",
                "-qq",
                "-o",
                "/dev/null",
                "--trace=rename,renameat,renameat2",
                "--inject=rename,renameat,renameat2:signal=SIGKILL:when=1",
                sys.executable,
                "-m",
                "harness",
                "run",
                str(work / "demo.yaml"),
            ]
            killed = subprocess.run(cmd, capture_output=True, text=True, timeout=DEADLINE)
            assert killed.returncode in (-9, 137)
        else:
            assert harness(work / "demo.yaml", shim, kill_at=1).returncode == -9
        states.append(sorted(p.name for p in work.iterdir() if not p.name.startswith(".")))
        after = harness(work / "demo.yaml")
        assert after.returncode == 0, after.stderr
        assert hidden_leftovers(work) == [] and results(work) == clean["nothing yet"]
    assert states[0] == states[1] == ["demo.yaml"]
