"""Folders the user made read-only (issue 25.1): the report folder, a folder inside it, the
reports' parent, the index folder, the run cache and the indexes' parent. Each time the run stops
with exit 3 naming the folder and the permission, the folder stays exactly where and as it was
(names, contents, modes), nothing hidden is left beside it, and once the user restores the
permission the next run works.

The runs are made as root without the capabilities that override file permissions
(``setpriv --bounding-set=-dac_override,...``): the owner's permission bits then apply to root as
to any user, which is what a user who types ``chmod 555`` meets. Nothing here is timed."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import demo_config
from .test_faults import hidden_leftovers
from .test_safety import snapshot

SETPRIV = shutil.which("setpriv")
AS_A_USER = [SETPRIV, "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]
DEADLINE = 300

# setpriv is util-linux's, on every Debian: never skipped; sparse_only_processes: conftest
pytestmark = [pytest.mark.java, pytest.mark.usefixtures("sparse_only_processes")]


def harness(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*AS_A_USER, sys.executable, "-m", "harness", *args], capture_output=True, text=True, timeout=DEADLINE
    )


def state(folder: Path) -> dict:
    """Names, contents and permission bits of everything below ``folder``, and its own mode."""
    modes = {
        str(Path(d, n).relative_to(folder)): stat.S_IMODE(os.lstat(Path(d, n)).st_mode)
        for d, dirs, files in os.walk(folder)
        for n in dirs + files
    }
    return {"files": snapshot(folder), "modes": modes, "mode": stat.S_IMODE(os.stat(folder).st_mode)}


@pytest.fixture
def demo(tmp_path):
    """The demo run once (index, run cache, report), as a user would have it."""
    cfg = demo_config(tmp_path)
    r = harness("run", str(cfg))
    assert r.returncode == 0, r.stderr
    yield cfg, tmp_path
    for d, dirs, _ in os.walk(tmp_path):  # let pytest remove what a test left read-only
        for n in [".", *dirs]:
            os.chmod(Path(d, n), 0o755)


def refused(r: subprocess.CompletedProcess, folder: Path) -> None:
    assert r.returncode == 3, r.stderr
    assert "Traceback" not in r.stderr
    err = r.stderr[r.stderr.index("harness: error: ") :]
    assert err.startswith("harness: error: permission denied: "), err
    assert f"permission denied: {folder} (" in err, err  # the folder itself, not a hidden temp name
    assert "may not change this folder (mode 555)" in err and "chmod" in err, err


@pytest.mark.parametrize("inside", ["", "runs"])
def test_a_read_only_report_folder_stays_where_and_as_it_was(demo, inside):
    cfg, tmp = demo
    report = tmp / "report"
    locked_folder = report / inside if inside else report
    locked_folder.chmod(0o555)
    before = state(report)
    refused(harness("run", str(cfg)), locked_folder)
    assert state(report) == before
    assert hidden_leftovers(tmp) == []
    r = harness("run", str(cfg))  # and again: nothing changed by the first refusal
    refused(r, locked_folder)
    locked_folder.chmod(0o755)
    r = harness("run", str(cfg))
    assert r.returncode == 0, r.stderr
    assert hidden_leftovers(tmp) == [] and (report / "summary.md").exists()


def test_a_read_only_reports_parent_is_named_and_nothing_is_made(tmp_path):
    cfg = demo_config(tmp_path, "")
    text = cfg.read_text().replace(str(tmp_path / "report"), str(tmp_path / "reports" / "demo"))
    cfg.write_text(text)
    parent = tmp_path / "reports"
    parent.mkdir(mode=0o555)
    parent.chmod(0o555)
    try:
        r = harness("run", str(cfg))
        refused(r, parent)
        assert os.listdir(parent) == []
        parent.chmod(0o755)
        r = harness("run", str(cfg))
        assert r.returncode == 0, r.stderr
        assert (parent / "demo" / "summary.md").exists() and hidden_leftovers(tmp_path) == []
    finally:
        for d, dirs, _ in os.walk(tmp_path):
            for n in [".", *dirs]:
                os.chmod(Path(d, n), 0o755)


def test_a_read_only_index_folder_is_used_as_it_is_while_its_runs_are_cached(demo):
    cfg, tmp = demo
    index = tmp / "index"
    for d, dirs, _ in os.walk(index):
        for n in [".", *dirs]:
            os.chmod(Path(d, n), 0o555)
    before = state(index)
    r = harness("run", str(cfg))  # every run reused: reading a read-only index is fine
    assert r.returncode == 0, r.stderr
    assert state(index) == before


def test_a_read_only_run_cache_is_named_before_anything_is_searched(demo):
    cfg, tmp = demo
    cache = tmp / "index" / "harness-runs"
    for p in cache.iterdir():  # the runs must be searched again
        p.unlink()
    cache.chmod(0o555)
    before, report = state(tmp / "index"), state(tmp / "report")
    refused(harness("run", str(cfg)), cache)
    assert state(tmp / "index") == before and state(tmp / "report") == report
    assert hidden_leftovers(tmp) == []
    cache.chmod(0o755)
    r = harness("run", str(cfg))
    assert r.returncode == 0, r.stderr
    assert len(list(cache.glob("*.trec"))) == 5 and hidden_leftovers(tmp) == []


def test_a_read_only_index_that_must_be_rebuilt_stays_as_it_was(demo):
    cfg, tmp = demo
    cfg.write_text(
        cfg.read_text().replace(
            f"index: {{path: {tmp / 'index'}}}", f"index: {{path: {tmp / 'index'}, stemmer: krovetz}}"
        )
    )
    index = tmp / "index"
    index.chmod(0o555)
    before = state(index)
    refused(harness("run", str(cfg)), index)
    assert state(index) == before and hidden_leftovers(tmp) == []
    index.chmod(0o755)
    r = harness("run", str(cfg))
    assert r.returncode == 0, r.stderr
    assert "krovetz" in (index / "harness-index.json").read_text() and hidden_leftovers(tmp) == []


def test_a_read_only_indexes_parent_is_named_and_nothing_is_made(demo):
    cfg, tmp = demo
    parent = tmp / "indexes"
    parent.mkdir()
    cfg.write_text(cfg.read_text().replace(f"index: {{path: {tmp / 'index'}}}", f"index: {{path: {parent / 'demo'}}}"))
    parent.chmod(0o555)
    refused(harness("run", str(cfg)), parent)
    assert os.listdir(parent) == [] and hidden_leftovers(tmp) == []
    parent.chmod(0o755)
    r = harness("run", str(cfg))
    assert r.returncode == 0, r.stderr
    assert (parent / "demo" / "harness-index.json").exists() and hidden_leftovers(tmp) == []
