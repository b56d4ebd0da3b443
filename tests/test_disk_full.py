"""A disk that fills up while indexing, writing the run cache or writing the report (issue 25.3):
exit 3, "no space left on the device" naming the folder, the partial index or report removed, the
previous index and report exactly as they were, nothing hidden left behind.

Each case runs in a private mount namespace (``unshare --mount``) holding a small tmpfs, so the
disk really fills up: Lucene, Anserini and Arrow meet ENOSPC in their own code, not a simulated
one. Nothing here is timed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import demo_config

pytestmark = [pytest.mark.java, pytest.mark.usefixtures("sparse_only_processes")]  # conftest: BM25, Dirichlet, JM only

# Runs as its own process inside the namespace: mounts the tmpfs, then runs the steps it is given
# and prints, for each, the exit code, stderr and what the tmpfs holds (names and content hashes).
DRIVER = r"""
import hashlib, json, os, subprocess, sys
spec = json.loads(sys.argv[1])
subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={spec['size']}", "tmpfs", spec["mount"]], check=True)
def state():
    out = {}
    for d, dirs, files in os.walk(spec["mount"]):
        for n in dirs + files:
            p = os.path.join(d, n)
            out[os.path.relpath(p, spec["mount"])] = "dir" if os.path.isdir(p) else hashlib.sha256(open(p, "rb").read()).hexdigest()
    return out
results = []
for step in spec["steps"]:
    if step.get("replace"):
        text = open(step["config"]).read()
        open(step["config"], "w").write(text.replace(*step["replace"]))
    before = state()
    r = subprocess.run([sys.executable, "-m", "harness", *step["args"]], capture_output=True, text=True)
    results.append({"rc": r.returncode, "err": r.stderr, "before": before, "after": state()})
print(json.dumps(results))
"""


def in_full_disk(mount: Path, size: str, steps: list[dict]) -> list[dict]:
    mount.mkdir(parents=True, exist_ok=True)
    spec = json.dumps({"mount": str(mount), "size": size, "steps": steps})
    r = subprocess.run(
        [shutil.which("unshare"), "--mount", sys.executable, "-c", DRIVER, spec],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


def error_line(err: str) -> str:
    assert "Traceback" not in err and "\tat " not in err, err
    return err[err.index("harness: error: ") :]


def hidden(state: dict) -> list[str]:
    """The harness's temp folders, temp files and locks."""
    marks = (".building-", ".writing-", ".old-", ".tmp", ".lock")
    return [k for k in state if any(part.startswith(".") and any(m in part for m in marks) for part in Path(k).parts)]


def test_an_index_rebuild_that_fills_the_disk_leaves_the_previous_index(tmp_path):
    """One demo index fits (132 KB on tmpfs), two do not: the rebuild fails, the old index stays."""
    disk = tmp_path / "disk"
    cfg = demo_config(tmp_path)
    cfg.write_text(cfg.read_text().replace(f"path: {tmp_path / 'index'}", f"path: {disk / 'index'}"))
    first, rebuild = in_full_disk(
        disk,
        "200k",
        [
            {"args": ["index", str(cfg)]},
            {
                "args": ["index", str(cfg)],
                "config": str(cfg),
                "replace": [f"path: {disk / 'index'}", f"path: {disk / 'index'}, stemmer: krovetz"],
            },
        ],
    )
    assert first["rc"] == 0, first["err"]
    assert rebuild["rc"] == 3
    err = error_line(rebuild["err"])
    assert err.startswith(f"harness: error: no space left on the device: {disk} ("), err
    assert "the partial index is removed" in err
    assert rebuild["after"] == rebuild["before"]  # the previous index, byte for byte; nothing hidden
    assert "index/harness-index.json" in rebuild["after"] and not hidden(rebuild["after"])


def test_a_first_index_on_a_full_disk_is_named_and_removed(tmp_path):
    disk = tmp_path / "disk"
    cfg = demo_config(tmp_path)
    cfg.write_text(cfg.read_text().replace(f"path: {tmp_path / 'index'}", f"path: {disk / 'index'}"))
    [build] = in_full_disk(disk, "120k", [{"args": ["run", str(cfg)]}])
    assert build["rc"] == 3
    assert error_line(build["err"]).startswith(f"harness: error: no space left on the device: {disk} (")
    assert build["after"] == {}  # the partial index removed
    assert not (tmp_path / "report").exists()


def tmpfs_kib(folder: Path) -> int:
    """What a folder takes on tmpfs: each file rounded up to whole 4 KiB pages."""
    return sum(-(-p.stat().st_size // 4096) * 4 for p in folder.rglob("*") if p.is_file())


def test_a_report_that_fills_the_disk_leaves_the_previous_report(tmp_path):
    """The report fits once, not twice: the new one is built beside the previous one, fails, is
    removed, and the previous report stays. The disk's size is taken from the report this code
    writes (once and a half of it), so the case holds however large the report becomes."""
    measured = tmp_path / "measured"
    measured.mkdir()
    probe = demo_config(measured)
    done = subprocess.run([sys.executable, "-m", "harness", "run", str(probe)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    report_kib = tmpfs_kib(measured / "report")
    disk = tmp_path / "disk"
    cfg = demo_config(tmp_path)
    cfg.write_text(cfg.read_text().replace(str(tmp_path / "report"), str(disk / "report")))
    first, second = in_full_disk(
        disk,
        f"{report_kib * 3 // 2}k",
        [
            {"args": ["run", str(cfg)]},
            {"args": ["run", str(cfg)]},  # every run reused; the report is written anew
        ],
    )
    assert first["rc"] == 0, first["err"]
    assert second["rc"] == 3
    err = error_line(second["err"])
    assert err.startswith(f"harness: error: no space left on the device: {disk / 'report'} ("), err
    assert "the new report is removed" in err
    assert second["after"] == second["before"] and not hidden(second["after"])


def test_a_run_cache_that_fills_the_disk_is_named_and_keeps_only_whole_files(tmp_path):
    """The index fits, the cached runs do not: exit 3 naming the cache folder; what the cache
    holds is whole files only (no temp file) and no report is written."""
    disk = tmp_path / "disk"
    cfg = demo_config(tmp_path)
    cfg.write_text(cfg.read_text().replace(f"path: {tmp_path / 'index'}", f"path: {disk / 'index'}"))
    [full] = in_full_disk(disk, "200k", [{"args": ["run", str(cfg)]}])
    assert full["rc"] == 3
    err = error_line(full["err"])
    assert err.startswith(f"harness: error: no space left on the device: {disk / 'index' / 'harness-runs'} ("), err
    assert not hidden(full["after"]) and not (tmp_path / "report").exists()
