"""Faults: full disks, read-only folders, corrupt files, Java and memory errors (issue 11, "What
to build" 3 and 5). Each ends in exit 2 or 3 with one `harness: error:` paragraph (no traceback),
the previous outputs intact, and no temp folders left. Kills, signals and concurrent runs are
tests/test_kills.py. Waits on subprocesses are bounded; nothing here is timed."""

from __future__ import annotations

import errno
import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.cli.failures import report_failure
from harness.files import atomic_writer, remove_stale_temp_files
from harness.folders import OUTPUT_MARKER, clean_interrupted, locked, replace_folder, sweep_interrupted

from .conftest import CRANFIELD, REPO
from .test_safety import snapshot

PY = sys.executable
DEADLINE = 300  # seconds: a bound on every wait for a subprocess, never an assertion on speed
pytestmark = pytest.mark.usefixtures("sparse_only_processes")  # conftest: BM25, Dirichlet, JM only


def topic_copies(folder: Path, copies: int) -> tuple[Path, Path]:
    """Cranfield's topics ``copies`` times over, as topic ``{i}-{qid}``, and its judgments for
    each copy, written into ``folder`` (topics.tsv, qrels.txt): searches that last long enough
    to be cut, over topics that are all judged (a config whose topics match no judged topic is
    exit 2 before anything is indexed)."""
    lines = (CRANFIELD / "topics.tsv").read_text().splitlines()
    judged = (CRANFIELD / "qrels.txt").read_text().splitlines()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "topics.tsv").write_text("".join(f"{i}-{line}\n" for i in range(copies) for line in lines))
    (folder / "qrels.txt").write_text("".join(f"{i}-{line}\n" for i in range(copies) for line in judged))
    return folder / "topics.tsv", folder / "qrels.txt"


def hidden_leftovers(folder: Path) -> list[str]:
    """Temp folders, temp files and lock files of the harness below ``folder``."""
    out = []
    for dirpath, dirs, files in os.walk(folder):
        for n in dirs + files:
            if n.startswith(".") and any(k in n for k in (".building-", ".writing-", ".old-", ".tmp", ".lock")):
                out.append(str(Path(dirpath, n).relative_to(folder)))
    return out


def holder(target: Path):
    """A subprocess that holds the lock of ``target`` until its stdin closes."""
    code = (
        "import sys; from pathlib import Path; from harness.folders import locked\n"
        f"with locked(Path({str(target)!r})):\n"
        "    print('locked', flush=True); sys.stdin.read()\n"
    )
    p = subprocess.Popen([PY, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)
    assert p.stdout.readline().strip() == "locked"
    return p


def dead_pid() -> int:
    p = subprocess.Popen([PY, "-c", "pass"])
    p.wait(timeout=DEADLINE)
    return p.pid


# ------------------------------------------------------------------------------ folder primitives
def test_replace_folder_swaps_in_one_step(tmp_path):
    target, new = tmp_path / "out", tmp_path / ".out.writing-1"
    target.mkdir()
    (target / "a").write_text("old")
    new.mkdir()
    (new / "a").write_text("new")
    previous = replace_folder(new, target)
    assert (target / "a").read_text() == "new"
    assert (previous / "a").read_text() == "old"  # kept until the caller removes it


def test_replace_interrupted_between_two_renames_restores_the_previous(tmp_path, monkeypatch):
    """The fallback for file systems without RENAME_EXCHANGE: cut after the first rename, the
    folder is missing (never wrong) and the next run puts the previous one back."""
    import harness.folders as folders

    target, new = tmp_path / "out", tmp_path / f".out.writing-{os.getpid()}"
    target.mkdir()
    (target / "a").write_text("old")
    new.mkdir()
    (new / "a").write_text("new")

    def no_exchange(a, b):
        raise OSError(errno.EINVAL, "Invalid argument")

    renames = []
    real_rename = os.rename

    def rename(a, b):
        renames.append((a, b))
        if len(renames) == 2:
            raise KeyboardInterrupt
        real_rename(a, b)

    monkeypatch.setattr(folders, "_exchange", no_exchange)
    monkeypatch.setattr(folders.os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        replace_folder(new, target)
    monkeypatch.setattr(folders.os, "rename", real_rename)
    assert not target.exists()
    notes = []
    with locked(target):
        clean_interrupted(target, notes.append)
    assert (target / "a").read_text() == "old"
    assert any("restored the previous" in str(n) for n in notes)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_stale_temp_folders_of_dead_runs_are_removed_with_a_note(tmp_path):
    target = tmp_path / "out"
    pid = dead_pid()
    for kind in ("building", "writing", "old"):
        (tmp_path / f".out.{kind}-{pid}" / "x").mkdir(parents=True)
    target.mkdir()
    notes = sweep_interrupted(tmp_path)
    assert len(notes) == 3 and all("left by an interrupted run" in n for n in notes)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_temp_folders_of_a_live_writer_are_left_alone(tmp_path):
    target = tmp_path / "out"
    p = holder(target)
    try:
        (tmp_path / f".out.writing-{p.pid}").mkdir()
        assert sweep_interrupted(tmp_path) == []
        assert (tmp_path / f".out.writing-{p.pid}").exists()
        with locked(target, blocking=False) as got:
            assert got is False
    finally:
        p.stdin.close()
        p.wait(timeout=DEADLINE)
    assert len(sweep_interrupted(tmp_path)) == 1  # its process is gone now
    assert list(tmp_path.iterdir()) == []  # and the lock file went with it


def test_stale_temp_files_removed_unless_being_written(tmp_path):
    stale = tmp_path / f".run.trec.{dead_pid()}.abcd1234.tmp"
    stale.write_text("half")
    live = tmp_path / ".other.trec.1.efgh5678.tmp"
    live.write_text("being written")
    code = (
        "import fcntl, os, sys\n"
        f"fd = os.open({str(live)!r}, os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('locked', flush=True); sys.stdin.read()\n"
    )
    p = subprocess.Popen([PY, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "locked"
        assert remove_stale_temp_files(tmp_path) == [stale]
        assert live.exists()
    finally:
        p.stdin.close()
        p.wait(timeout=DEADLINE)


@pytest.mark.parametrize("fault", ["exception", "enospc-on-write", "enospc-on-fsync"])
def test_atomic_writer_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch, fault):
    path = tmp_path / "cache.trec"
    path.write_text("previous\n")
    if fault == "enospc-on-fsync":
        monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left")))
    with pytest.raises((OSError, ValueError)):
        with atomic_writer(path) as fh:
            fh.write("new")
            if fault == "exception":
                raise ValueError("boom")
            if fault == "enospc-on-write":
                raise OSError(errno.ENOSPC, "No space left on device")
    assert path.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache.trec"]


@pytest.mark.parametrize("name", ["x" * 250, "\u00e9" * 127])  # 250 and 254 bytes: legal names
def test_atomic_writer_writes_a_name_as_long_as_the_file_system_allows(tmp_path, name):
    """The temp file's name holds the target's, cut so that it stays a legal name ("File name
    too long" for `harness fuse -o` a 250-character name, naming the temp file, before)."""
    with atomic_writer(tmp_path / name) as fh:
        fh.write("x")
    assert [p.name for p in tmp_path.iterdir()] == [name]
    assert (tmp_path / name).read_text() == "x"


def test_written_files_get_the_usual_mode(tmp_path):
    with atomic_writer(tmp_path / "f") as fh:
        fh.write("x")
    umask = os.umask(0o022)
    os.umask(umask)
    assert (tmp_path / "f").stat().st_mode & 0o777 == 0o666 & ~umask


# ------------------------------------------------------------------------------ error mapping
def _java_exception():
    cls = type("JavaException", (Exception,), {"__module__": "jnius"})
    e = cls("JVM exception occurred: boom\n\tat org.apache.lucene.X.y(X.java:12)\n")
    e.classname = "java.lang.IllegalArgumentException"
    e.innermessage = "maxClauseCount is set to 1024\n\tat org.apache.lucene.search.IndexSearcher(IndexSearcher.java:1)"
    return e


@pytest.mark.parametrize(
    "exc, code, text",
    [
        (
            OSError(errno.ENOSPC, "No space left on device", "/data/out/x"),
            3,
            "no space left on the device: /data/out/x",
        ),
        (OSError(errno.EDQUOT, "Disk quota exceeded", "/data/out/x"), 3, "disk quota exceeded: /data/out/x"),
        (PermissionError(errno.EACCES, "Permission denied", "/data/out"), 3, "permission denied: /data/out"),
        (OSError(errno.EROFS, "Read-only file system", "/ro/out"), 3, "read-only file system: /ro/out"),
        (OSError(errno.ELOOP, "Too many levels of symbolic links", "/x/loop"), 2, "symlink loop"),
        (FileNotFoundError(errno.ENOENT, "No such file or directory", "/x/y"), 2, "no such file or folder: /x/y"),
        (OSError(errno.EMFILE, "Too many open files"), 3, "too many open files"),
        (MemoryError(), 3, "out of memory"),
        (RecursionError("maximum recursion depth exceeded"), 2, "nested too deeply"),
        (gzip.BadGzipFile("Not a gzipped file (b'ab')"), 2, "not a valid compressed file"),
        (EOFError("Compressed file ended before the end-of-stream marker was reached"), 2, "truncated or corrupt"),
        (_java_exception(), 3, "Java failed: java.lang.IllegalArgumentException: maxClauseCount is set to 1024"),
        (ZeroDivisionError("division by zero"), 3, "internal error: ZeroDivisionError"),
        (KeyboardInterrupt(), 130, "interrupted (SIGINT)"),
    ],
    ids=lambda x: type(x).__name__ if isinstance(x, BaseException) else None,
)
def test_every_failure_is_one_paragraph_and_an_exit_code(capsys, exc, code, text):
    assert report_failure(exc) == code
    err = capsys.readouterr().err
    assert text in err
    assert "Traceback" not in err and "\tat " not in err and ".java:" not in err


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_is_accepted_before_or_after_the_command(tmp_path, where):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [\n")
    args = ["--debug", "validate", str(bad)] if where == "before" else ["validate", str(bad), "--debug"]
    r = subprocess.run([PY, "-m", "harness", *args], capture_output=True, text=True, cwd=REPO, timeout=DEADLINE)
    assert r.returncode == 1 and "Traceback" in r.stderr  # --debug: the exception itself
    r = subprocess.run(
        [PY, "-m", "harness", "validate", str(bad)], capture_output=True, text=True, cwd=REPO, timeout=DEADLINE
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr and "YAML syntax error" in r.stderr


# ------------------------------------------------------------------------------ the commands
def demo_project(tmp_path: Path, output: str = "../reports/demo", collection: str | None = None) -> Path:
    proj = tmp_path / "proj"
    for d in ("corpora", "topics", "qrels"):
        if not (proj / d).exists():
            shutil.copytree(REPO / d, proj / d)
    (proj / "configs").mkdir(exist_ok=True)
    (proj / "indexes").mkdir(exist_ok=True)
    cfg = proj / "configs" / "demo.yaml"
    cfg.write_text(
        "name: demo\n"
        f"collection: {collection or '{path: ../corpora, format: text-folder}'}\n"
        "topics: {path: ../topics/demo.tsv, format: tsv}\n"
        "qrels: ../qrels/demo.txt\n"
        "runs:\n  - bm25: {k1: 0.9, b: 0.4}\n  - jm: {lambda: 0.1}\n"
        f"output: {output}\n"
    )
    return cfg


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory):
    """A project whose demo report (and index) exist, built once in this process."""
    tmp = tmp_path_factory.mktemp("faults")
    cfg = demo_project(tmp)
    assert main(["run", str(cfg)]) == 0
    return cfg


def fresh_copy(demo_report: Path, tmp_path: Path) -> Path:
    shutil.copytree(demo_report.parent.parent, tmp_path / "proj", symlinks=True)
    return tmp_path / "proj" / "configs" / "demo.yaml"


@pytest.mark.parametrize("err", [errno.EROFS, errno.EACCES])
def test_read_only_output_folder(capsys, tmp_path, monkeypatch, demo_report, err):
    """The folder beside the output refuses writes (simulated: tests may run as root, which
    chmod cannot stop): exit 3 naming the folder, nothing changed."""
    cfg = fresh_copy(demo_report, tmp_path)
    reports = cfg.parent.parent / "reports"
    real_open = os.open

    def guarded_open(path, flags, *a, **k):
        if str(path).startswith(str(reports)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(err, os.strerror(err), str(path))
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", guarded_open)
    before = snapshot(tmp_path)
    assert main(["run", str(cfg)]) == 3
    msg = capsys.readouterr().err
    assert f"{os.strerror(err)}: {reports}/.demo.lock".lower() in msg.lower()  # the folder may hold capitals
    assert "Traceback" not in msg
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("stage", ["report", "run cache"])
def test_full_disk_leaves_the_previous_report(capsys, tmp_path, monkeypatch, demo_report, stage):
    """ENOSPC injected into fsync while the report (or a new run's cache file) is written."""
    cfg = fresh_copy(demo_report, tmp_path)
    proj = cfg.parent.parent
    if stage == "run cache":
        cfg.write_text(cfg.read_text().replace("jm: {lambda: 0.1}", "jm: {lambda: 0.3}"))
    report_before = snapshot(proj / "reports" / "demo")
    import harness.files

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(harness.files.os, "fsync", full)
    assert main(["run", str(cfg)]) == 3
    msg = capsys.readouterr().err
    assert "harness: error: no space left on the device" in msg and "Traceback" not in msg
    assert "Previous outputs and caches are intact" in msg
    assert snapshot(proj / "reports" / "demo") == report_before
    assert hidden_leftovers(proj) == []


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_corrupt_gzip_collection_is_exit_2_naming_it(capsys, tmp_path, damage):
    coll = tmp_path / "proj" / "coll"
    coll.mkdir(parents=True)
    blob = gzip.compress(b'{"id": "d1", "contents": "hello world"}\n' * 2000)
    (coll / "docs.jsonl.gz").write_bytes(b"not gzip at all" * 10 if damage == "garbage" else blob[: len(blob) // 2])
    cfg = demo_project(tmp_path, collection="{path: ../coll, format: jsonl}")
    assert main(["run", str(cfg)]) == 2
    msg = capsys.readouterr().err
    assert f"{coll}/docs.jsonl.gz: not a valid compressed file" in msg and "Traceback" not in msg
    assert hidden_leftovers(tmp_path) == []


def test_foreign_file_added_after_a_run_is_never_replaced(capsys, tmp_path, demo_report):
    cfg = fresh_copy(demo_report, tmp_path)
    out = cfg.parent.parent / "reports" / "demo"
    (out / "my-notes.md").write_text("mine\n")
    before = snapshot(tmp_path)
    assert main(["run", str(cfg)]) == 2
    assert "holds files the harness did not write (my-notes.md)" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_legacy_report_is_replaced_and_marked(tmp_path, demo_report):
    from .test_safety import legacy_report

    cfg = fresh_copy(demo_report, tmp_path)
    out = cfg.parent.parent / "reports" / "demo"
    shutil.rmtree(out)
    legacy_report(out)
    assert main(["run", str(cfg)]) == 0
    marker = json.loads((out / OUTPUT_MARKER).read_text())
    assert "summary.md" in marker["files"] and "runs/jm.trec" in marker["files"]
    assert hidden_leftovers(tmp_path) == []


def test_index_rebuild_keeps_the_old_index_until_the_new_one_is_complete(tmp_path, monkeypatch):
    """A failing rebuild (of a changed index.path's options) leaves the old index as it was."""
    from harness.engine import index as index_mod

    cfg = demo_project(tmp_path)
    cfg.write_text(cfg.read_text().replace("output:", "index: {path: ../indexes/demo}\noutput:"))
    assert main(["index", str(cfg)]) == 0
    idx = cfg.parent.parent / "indexes" / "demo"
    before = snapshot(idx)
    cfg.write_text(
        cfg.read_text().replace("index: {path: ../indexes/demo}", "index: {path: ../indexes/demo, stemmer: krovetz}")
    )

    def fail(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", str(idx.parent / "x"))

    monkeypatch.setattr(index_mod, "index_stats", fail)
    assert main(["index", str(cfg)]) == 3
    assert snapshot(idx) == before
    assert hidden_leftovers(idx.parent) == []


def test_search_into_a_legacy_report_keeps_it_replaceable(capsys, tmp_path, demo_report):
    """`harness search` adds runs/ to an earlier version's report: the marker it writes lists the
    report's files too, so the next `harness run` may still replace the folder."""
    from .test_safety import legacy_report

    cfg = fresh_copy(demo_report, tmp_path)
    out = cfg.parent.parent / "reports" / "demo"
    shutil.rmtree(out)
    legacy_report(out)
    assert main(["search", str(cfg)]) == 0
    marker = json.loads((out / OUTPUT_MARKER).read_text())
    assert {"summary.md", "manifest.json", "runs/jm.trec"} <= set(marker["files"])
    assert main(["validate", str(cfg)]) == 0, capsys.readouterr().err
    assert main(["run", str(cfg)]) == 0
    assert hidden_leftovers(tmp_path) == []


@pytest.mark.parametrize("err", [errno.EXDEV, errno.EBUSY])
def test_output_folder_as_a_mount_point_says_what_to_mount(capsys, err):
    assert report_failure(OSError(err, os.strerror(err), "/work/.demo.writing-1", None, "/work/demo")) == 3
    msg = capsys.readouterr().err
    assert "mount point" in msg and "/work/demo" in msg and "reports/" in msg
