"""Output safety: the harness replaces only folders it created, and refuses, before touching the
disk, any output or index folder that is, holds or lies inside an input, a checkout, the home
folder or the root (issue 11, "What to build" 1). Each case asserts the exit code, the message
(naming both paths) and that no file anywhere in the sandbox changed (hashes before and after)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.folders import OUTPUT_MARKER, is_legacy_report

from .conftest import REPO


def snapshot(root: Path) -> dict[str, str]:
    """Every file, folder and link below root -> a hash of its content (or its link target)."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            p = Path(dirpath, name)
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = "link:" + os.readlink(p)
            elif p.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A project: a git checkout with the demo collection, topics, qrels, configs/ and a home folder."""
    proj = tmp_path / "home" / "proj"
    shutil.copytree(REPO / "corpora", proj / "corpora")
    shutil.copytree(REPO / "topics", proj / "topics")
    shutil.copytree(REPO / "qrels", proj / "qrels")
    (proj / ".git").mkdir()
    (proj / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (proj / "indexes").mkdir()
    (proj / "configs").mkdir()
    (proj / "notes").mkdir()
    (proj / "notes" / "thesis.txt").write_text("three years of work\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HARNESS_INDEXES", raising=False)
    return proj


def config(proj: Path, output: str, index: str | None = None) -> Path:
    cfg = proj / "configs" / "exp.yaml"
    index_line = f"index: {{path: {json.dumps(index)}}}\n" if index is not None else ""
    cfg.write_text(
        "name: exp\n"
        "collection: {path: ../corpora, format: text-folder}\n"
        f"{index_line}"
        "topics: {path: ../topics/demo.tsv, format: tsv}\n"
        "qrels: ../qrels/demo.txt\n"
        "runs:\n  - bm25: {k1: 0.9, b: 0.4}\n"
        f"output: {json.dumps(output)}\n"
    )
    return cfg


def refused(capsys, sandbox: Path, command: str, cfg: Path, *expected: str) -> str:
    before = snapshot(sandbox.parent.parent)
    code = main([command, str(cfg)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "harness: error:" in err and "Traceback" not in err
    for text in expected:
        assert text in err, err
    assert snapshot(sandbox.parent.parent) == before  # nothing anywhere changed, no lock left
    return err


# (output, index.path or None, the key refused, what the message must say: {p} is the sandbox)
OVERLAPS = {
    "output-dot": (".", None, "output", ["{p}/configs contains the config file ({p}/configs/exp.yaml)"]),
    "output-dotdot": ("..", None, "output", ["{p} contains the collection ({p}/corpora)", "the git checkout {p}"]),
    "output-is-topics-file": (
        "../topics/demo.tsv",
        None,
        "output",
        ["output: expected a folder, but {p}/topics/demo.tsv is a file"],
    ),
    "output-is-topics-folder": ("../topics", None, "output", ["{p}/topics contains the topics ({p}/topics/demo.tsv)"]),
    "output-is-qrels-folder": ("../qrels", None, "output", ["{p}/qrels contains the qrels ({p}/qrels/demo.txt)"]),
    "output-is-collection": ("../corpora", None, "output", ["{p}/corpora is the collection itself"]),
    "output-inside-collection": (
        "../corpora/report",
        None,
        "output",
        ["{p}/corpora/report lies inside the collection ({p}/corpora)"],
    ),
    "output-is-index": (
        "../indexes/exp",
        "../indexes/exp",
        "index.path",
        ["{p}/indexes/exp is also `output`"],
    ),
    "output-inside-index": (
        "../indexes/exp/report",
        "../indexes/exp",
        "index.path",
        ["`output` ({p}/indexes/exp/report) lies inside `index.path` ({p}/indexes/exp)"],
    ),
    "index-inside-output": (
        "../reports/exp",
        "../reports/exp/index",
        "index.path",
        ["`index.path` ({p}/reports/exp/index) lies inside `output` ({p}/reports/exp)"],
    ),
    "output-inside-dot-git": ("../.git/reports", None, "output", ["lies inside a git repository's .git folder"]),
    "output-is-dot-git": ("../.git", None, "output", ["{p}/.git lies inside a git repository's .git folder"]),
    "output-is-home": ("~", None, "output", ["is your home folder"]),
    "output-contains-home": ("~/..", None, "output", ["contains your home folder"]),
    "output-is-root": ("/", None, "output", ["/ is the file system root"]),
    "output-unmarked-folder": (
        "../notes",
        None,
        "output",
        ["{p}/notes exists, is not empty and was not written by the harness"],
    ),
    "index-is-collection": ("../reports/exp", "../corpora", "index.path", ["{p}/corpora is the collection itself"]),
    "index-is-dot": ("../reports/exp", ".", "index.path", ["{p}/configs contains the config file"]),
    "index-unmarked-folder": (
        "../reports/exp",
        "../notes",
        "index.path",
        ["{p}/notes exists, is not empty and was not built by the harness (no harness-index.json)"],
    ),
    "index-is-home": ("../reports/exp", "~", "index.path", ["is your home folder"]),
    "index-is-checkout": ("../reports/exp", "..", "index.path", ["the git checkout {p}"]),
}


@pytest.mark.parametrize("command", ["validate", "run", "index", "search"])
@pytest.mark.parametrize("case", list(OVERLAPS))
def test_overlap_refused_before_touching_the_disk(capsys, sandbox, case, command):
    output, index, key, expected = OVERLAPS[case]
    cfg = config(sandbox, output, index)
    err = refused(capsys, sandbox, command, cfg, *(e.format(p=sandbox) for e in expected))
    assert f"{key}: " in err  # the key, with the config's file:line before it
    assert f"{cfg}:" in err


def test_symlink_loop_as_output(capsys, sandbox):
    (sandbox / "loop_a").symlink_to(sandbox / "loop_b")
    (sandbox / "loop_b").symlink_to(sandbox / "loop_a")
    cfg = config(sandbox, "../loop_a/report")
    refused(capsys, sandbox, "validate", cfg, "symlink loop")
    refused(capsys, sandbox, "run", cfg, "symlink loop")


def test_symlink_to_an_input_is_followed(capsys, sandbox):
    (sandbox / "reports").mkdir()
    (sandbox / "reports" / "exp").symlink_to(sandbox / "corpora")
    refused(capsys, sandbox, "run", config(sandbox, "../reports/exp"), f"{sandbox}/corpora is the collection itself")


def test_marked_folder_with_a_foreign_file_is_refused(capsys, sandbox):
    out = sandbox / "reports" / "exp"
    out.mkdir(parents=True)
    (out / "summary.md").write_text("old report\n")
    (out / OUTPUT_MARKER).write_text(json.dumps({"written_by": "harness", "files": ["summary.md"]}))
    (out / "analysis.ipynb").write_text("{}\n")  # the user's own work, added afterwards
    refused(
        capsys,
        sandbox,
        "run",
        config(sandbox, "../reports/exp"),
        "holds files the harness did not write (analysis.ipynb)",
    )


def test_output_that_is_a_file_is_refused(capsys, sandbox):
    (sandbox / "results").write_text("not a folder\n")
    refused(
        capsys,
        sandbox,
        "validate",
        config(sandbox, "../results"),
        f"expected a folder, but {sandbox}/results is a file",
    )


@pytest.mark.parametrize("state", ["missing", "empty", "marked", "legacy"])
def test_folders_the_harness_may_write_pass_validate(capsys, sandbox, state):
    out = sandbox / "reports" / "exp"
    if state != "missing":
        out.mkdir(parents=True)
    if state == "marked":
        (out / "summary.md").write_text("x\n")
        (out / OUTPUT_MARKER).write_text(json.dumps({"written_by": "harness", "files": ["summary.md"]}))
    if state == "legacy":
        legacy_report(out)
    assert main(["validate", str(config(sandbox, "../reports/exp"))]) == 0, capsys.readouterr().err


def legacy_report(out: Path) -> None:
    """A report folder as harness versions before the marker wrote it."""
    (out / "runs").mkdir(parents=True)
    (out / "runs" / "bm25(k1=0.9,b=0.4).trec").write_text("1 Q0 d 1 1.0 bm25\n")
    for name in ("summary.md", "summary.csv", "summary.json", "per_topic.csv", "report.html", "report.tex"):
        (out / name).write_text("x\n")
    (out / "manifest.json").write_text(
        json.dumps(
            {
                "config": {"path": "/x.yaml", "sha256": "0"},
                "versions": {"harness": "0.1.0"},
                "index": {"path": "/i", "fingerprint": "f"},
                "runs": [{"name": "bm25(k1=0.9,b=0.4)", "file": "runs/bm25(k1=0.9,b=0.4).trec"}],
            }
        )
    )


@pytest.mark.parametrize(
    "extra",
    [None, "notes.txt", "runs/other.trec", "config.yaml"],
)
def test_legacy_report_recognised_only_when_exactly_the_harness_files(tmp_path, extra):
    out = tmp_path / "report"
    legacy_report(out)
    if extra:
        (out / extra).write_text("mine\n")
    assert is_legacy_report(out) is (extra is None)


def test_legacy_report_needs_the_harness_manifest(tmp_path):
    out = tmp_path / "report"
    legacy_report(out)
    (out / "manifest.json").write_text('{"config": 1}')
    assert not is_legacy_report(out)
    (out / "manifest.json").write_text("[1, 2]")  # not an object
    assert not is_legacy_report(out)
