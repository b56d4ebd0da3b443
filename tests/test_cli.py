"""The real command line, in subprocesses: exit codes, messages, nothing half-written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

HARNESS = [sys.executable, "-m", "harness.cli"]


def harness(*args, cwd=REPO, env=None):
    return subprocess.run([*HARNESS, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


def demo_copy(tmp_path: Path, **replace: str) -> Path:
    """configs/demo.yaml rewritten with absolute paths into tmp_path, with lines replaced."""
    text = (REPO / "configs" / "demo.yaml").read_text()
    for rel in ("../corpora", "../topics/demo.tsv", "../qrels/demo.txt"):
        text = text.replace(rel, str((REPO / "configs" / rel).resolve()))
    text = text.replace("../reports/demo", str(tmp_path / "report"))
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new)
    cfg = tmp_path / "demo.yaml"
    cfg.write_text(text)
    return cfg


def test_validate_ok():
    r = harness("validate", "configs/demo.yaml")
    assert r.returncode == 0, r.stderr
    assert "5 run(s)" in r.stdout and "jm(lambda=0.1)" in r.stdout


def test_validate_reports_every_problem_without_java(tmp_path):
    cfg = demo_copy(tmp_path, **{"index: {stemmer: porter": "index: {stemer: porter",
                                 "jm: {lambda: 0.1}": "jm: {lambda: 0}"})
    r = harness("validate", str(cfg), env={"JAVA_HOME": "/nonexistent"})
    assert r.returncode == 2
    assert "index.stemer: unknown key 'stemer'; did you mean 'stemmer'?" in r.stderr
    assert "runs[2].jm.lambda: must be in (0, 1] (got 0)" in r.stderr
    assert "Traceback" not in r.stderr


def test_missing_file_is_exit_2_and_names_key(tmp_path):
    cfg = demo_copy(tmp_path)
    cfg.write_text(cfg.read_text().replace(str((REPO / "qrels/demo.txt").resolve()), str(tmp_path / "nope.txt")))
    r = harness("run", str(cfg))
    assert r.returncode == 2
    assert "qrels" in r.stderr and "nope.txt" in r.stderr
    assert not (tmp_path / "report").exists()


def test_bad_flag_is_exit_2():
    r = harness("run", "--no-such-flag", "configs/demo.yaml")
    assert r.returncode == 2 and "unrecognized arguments" in r.stderr


def test_run_writes_report_and_checks_expectations(tmp_path):
    cfg = demo_copy(tmp_path)
    r = harness("run", str(cfg), env={"HARNESS_INDEXES": str(tmp_path / "indexes")})
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert [row["run"] for row in summary["runs"]] == [
        "bm25(k1=0.9,b=0.4)", "dirichlet(mu=500)", "dirichlet(mu=1000)", "dirichlet(mu=2000)", "jm(lambda=0.1)"]
    ap = summary["runs"][0]["AP"]
    # An expectation off by 0.01 fails the run with exit 1 -- after writing the report.
    shutil.rmtree(tmp_path / "report")
    cfg.write_text(cfg.read_text() + f'expect: {{"bm25(k1=0.9,b=0.4)": {{AP: {ap + 0.01}}}}}\n')
    r = harness("run", str(cfg), env={"HARNESS_INDEXES": str(tmp_path / "indexes")})
    assert r.returncode == 1
    assert "[FAIL] bm25(k1=0.9,b=0.4) AP" in r.stderr
    assert (tmp_path / "report" / "summary.json").exists()
    assert "index reused" in r.stderr and "reused 15 topics" in r.stderr


def test_doctor():
    r = harness("doctor")
    assert r.returncode == 0, r.stdout + r.stderr
    for key in ("python", "pyserini", "anserini", "java_home", "lucene"):
        assert key in r.stdout
    assert "lucene     10." in r.stdout and "jvm        started" in r.stdout
