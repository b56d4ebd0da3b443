"""Harness processes at once on shared folders: two configs with other index options and one
`index.path` (the second one's rebuild waits for the first one's searches instead of swapping the
index and its run cache away under it), and the locks' files left by processes that are gone
(killed, or on another machine). Waits on subprocesses are bounded; nothing here is timed."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.folders import in_use, locked

from .conftest import CRANFIELD, REPO
from .test_faults import hidden_leftovers, topic_copies

PY = sys.executable
DEADLINE = 600
pytestmark = pytest.mark.usefixtures("sparse_only_processes")  # conftest: BM25, Dirichlet, JM only


def shared_index_config(proj: Path, stemmer: str, topics: Path, qrels: Path) -> Path:
    cfg = proj / "configs" / f"{stemmer}.yaml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(
        f"name: {stemmer}\n"
        f"collection: {{path: {CRANFIELD / 'corpus.jsonl'}, format: jsonl}}\n"
        f"index: {{path: ../indexes/shared, stemmer: {stemmer}}}\n"
        f"topics: {{path: {topics}, format: tsv}}\n"
        f"qrels: {qrels}\n"
        "runs:\n  - bm25: {}\n  - dirichlet: {mu: [500, 1000]}\n"
        "measures: [AP]\n"
        f"output: ../reports/{stemmer}\n"
        "depth: 10\n"  # searching takes the time; at depth 1000 the runs filled 3 GB of the disk
    )
    return cfg


def start(cfg: Path, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [PY, "-m", "harness", "run", str(cfg)], cwd=REPO, stdout=subprocess.DEVNULL, stderr=log.open("w")
    )


def run_files(proj: Path, name: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((proj / "reports" / name / "runs").glob("*.trec"))}


@pytest.mark.java
def test_two_configs_sharing_an_index_folder_do_not_swap_it_under_each_other(tmp_path):
    """porter's runs search the index while krovetz's config rebuilds it at the same path. The
    rebuild used to swap the index (and the run cache inside it) away mid-search: porter's run
    failed with "no such file or folder" (exit 2, as if its config were wrong), its runs cached
    so far went into krovetz's index, and a searcher opened after the swap would have searched
    the other index. Now the rebuild waits for porter's searches; both reports equal solo runs."""
    from harness.verbs import run as verb

    topics, qrels = topic_copies(tmp_path, 24)
    solo = {}
    for stemmer in ("porter", "krovetz"):  # each config alone, in this process (the API's door): the oracle
        proj = tmp_path / f"solo-{stemmer}"
        verb.run(verb.load(str(shared_index_config(proj, stemmer, topics, qrels))))
        solo[stemmer] = run_files(proj, stemmer)
    proj = tmp_path / "proj"
    porter, krovetz = (shared_index_config(proj, s, topics, qrels) for s in ("porter", "krovetz"))
    logs = [tmp_path / "porter.txt", tmp_path / "krovetz.txt"]
    first = start(porter, logs[0])
    deadline = time.monotonic() + DEADLINE
    while "index built" not in logs[0].read_text():  # porter now searches its index
        assert first.poll() is None and time.monotonic() < deadline, logs[0].read_text()
        time.sleep(0.05)
    second = start(krovetz, logs[1])
    first.wait(timeout=DEADLINE)
    second.wait(timeout=DEADLINE)
    assert first.returncode == 0, logs[0].read_text()
    assert second.returncode == 0, logs[1].read_text()
    assert "still searching" in logs[1].read_text()  # the rebuild waited for porter's searches
    assert run_files(proj, "porter") == solo["porter"] and run_files(proj, "krovetz") == solo["krovetz"]
    # the shared index is krovetz's now, its run cache krovetz's runs alone
    cached = sorted(p.name for p in (proj / "indexes" / "shared" / "harness-runs").glob("*.trec"))
    solo_cache = sorted(
        p.name for p in (tmp_path / "solo-krovetz" / "indexes" / "shared" / "harness-runs").glob("*.trec")
    )
    assert cached == solo_cache
    assert hidden_leftovers(proj) == [] and not list((proj / "indexes").glob(".*in-use"))


def test_in_use_is_shared_by_readers_and_exclusive_for_a_swap(tmp_path):
    target = tmp_path / "index"
    code = (
        "import sys; from pathlib import Path; from harness.folders import in_use\n"
        f"with in_use(Path({str(target)!r})):\n"
        "    print('reading', flush=True); sys.stdin.read()\n"
    )
    reader = subprocess.Popen([PY, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert reader.stdout.readline().strip() == "reading"
        with in_use(target):  # another reader: at once
            pass
        events = []
        swapped = threading.Event()

        def swap():
            with in_use(target, exclusive=True, on=events.append):
                swapped.set()

        t = threading.Thread(target=swap)
        t.start()
        assert not swapped.wait(1.0) and [type(e).__name__ for e in events] == ["InUse"]
        reader.stdin.close()  # the reader is done: the swap goes on
        t.join(timeout=DEADLINE)
        assert swapped.is_set()
    finally:
        reader.kill()
        reader.wait(timeout=DEADLINE)
    assert not (tmp_path / ".index.in-use").exists()


@pytest.mark.parametrize("content", ["", "999999999\n", "4242\nother-host.example.org\n"])
def test_a_lock_file_left_by_a_gone_process_is_taken_over(tmp_path, content):
    """A lock file whose process was SIGKILLed (or ran on another machine and is gone): the lock
    is the kernel's flock, not the file, so it is free and taken at once, and removed after."""
    target = tmp_path / "out"
    (tmp_path / ".out.lock").write_text(content)
    events = []
    with locked(target, on=events.append) as got:
        assert got and events == []
    assert not (tmp_path / ".out.lock").exists()


def test_a_killed_holder_frees_the_lock(tmp_path):
    target = tmp_path / "out"
    code = (
        "import sys, time; from pathlib import Path; from harness.folders import locked\n"
        f"with locked(Path({str(target)!r})):\n"
        "    print('locked', flush=True); time.sleep(600)\n"
    )
    p = subprocess.Popen([PY, "-c", code], stdout=subprocess.PIPE, text=True, cwd=REPO)
    assert p.stdout.readline().strip() == "locked"
    with locked(target, blocking=False) as got:
        assert got is False  # held by a live process
    p.kill()  # SIGKILL: no finally runs, the lock file stays, the kernel drops the flock
    p.wait(timeout=DEADLINE)
    assert (tmp_path / ".out.lock").exists()
    with locked(target, blocking=False) as got:
        assert got is True
    assert not (tmp_path / ".out.lock").exists()


def test_a_lock_held_on_another_machine_is_waited_for_and_named(tmp_path):
    """A folder shared over NFS, its lock held by a live process on another host (simulated:
    the holder's lock file rewritten to name another host): this one waits, naming pid and host."""
    from .test_faults import holder

    target = tmp_path / "out"
    p = holder(target)
    try:
        (tmp_path / ".out.lock").write_text("4242\nother-host.example.org\n")  # same inode, still locked
        events = []
        got = threading.Event()

        def wait():
            with locked(target, on=events.append):
                got.set()

        t = threading.Thread(target=wait)
        t.start()
        assert not got.wait(1.0)
        assert [str(e) for e in events] == [
            f"waiting for another harness process (pid 4242 on host other-host.example.org) that is writing {target} ..."
        ]
        p.stdin.close()
        t.join(timeout=DEADLINE)
        assert got.is_set()
    finally:
        p.kill()
        p.wait(timeout=DEADLINE)
