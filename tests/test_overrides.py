"""A documented config run from anywhere and varied without copying it: `--output DIR` and
`--set KEY=VALUE` on run, search, index and validate, `output=` and `overrides=` in harness.run
(issue 36). Each override is checked as a key of the file is, named as given, and listed in
manifest.json; a path it gives is relative to the current folder, the file's to the file."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

HARNESS = [sys.executable, "-m", "harness"]
NO_JVM = {"HARNESS_JAVA_OPTS": "-Xno-such-option"}  # any JVM start would fail: proves none starts


def harness(*args, cwd, env=None):
    env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([*HARNESS, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600)


@pytest.fixture
def layout(tmp_path):
    """The repository's demo config and data in tmp/repo, and an unrelated folder to run from."""
    repo = tmp_path / "repo"
    for d in ("configs", "corpora", "topics", "qrels"):
        shutil.copytree(REPO / d, repo / d)
    (repo / "indexes").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return repo, elsewhere


def test_a_config_run_from_another_folder_with_output_and_set_plans_what_they_say(layout):
    repo, elsewhere = layout
    config = repo / "configs" / "demo.yaml"
    r = harness(
        "run", "--dry-run", str(config), "--output", "out", "--set", "depth=100", "--set", "runs=[bm25, {qld: {mu: 500}}]",
        cwd=elsewhere, env=NO_JVM,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    # the file's own paths resolve against the file; --output against the current folder
    assert re.search(r"^topics\s+15 from \S*repo/topics/demo\.tsv, depth 100$", r.stdout, re.M), r.stdout
    assert re.search(r"^run\s+bm25\(k1=0\.9,b=0\.4\)\s", r.stdout, re.M)
    assert re.search(r"^run\s+dirichlet\(mu=500\)\s", r.stdout, re.M)  # qld: Anserini's name of dirichlet
    assert len(re.findall(r"^run ", r.stdout, re.M)) == 2
    assert r.stdout.rstrip().endswith(f"report -> {elsewhere / 'out'}")
    assert str(repo / "indexes") in r.stdout  # the nearest indexes/ above the config, wherever it is run from
    # validate, search and index take them too
    for command in ("validate", "search"):
        r = harness(command, *(["--dry-run"] if command == "search" else []), str(config), "--output", "o",
                    "--set", "runs.0.bm25.k1=1.2", cwd=elsewhere, env=NO_JVM)  # fmt: skip
        assert r.returncode == 0, r.stderr
        assert "bm25(k1=1.2,b=0.4)" in r.stdout, r.stdout
    r = harness("index", "--dry-run", str(config), "--set", "index.stemmer=krovetz", cwd=elsewhere, env=NO_JVM)
    assert r.returncode == 0, r.stderr
    plain = harness("index", "--dry-run", str(config), cwd=elsewhere, env=NO_JVM)
    fingerprint = lambda out: re.search(r"fingerprint (\w+)", out).group(1)  # noqa: E731
    assert fingerprint(r.stdout) != fingerprint(plain.stdout)  # another index: krovetz
    assert not (elsewhere / "o").exists() and not (elsewhere / "out").exists()  # a plan writes nothing


def test_a_bad_override_is_named_as_given_and_nothing_runs(layout):
    repo, elsewhere = layout
    config = str(repo / "configs" / "demo.yaml")
    r = harness(
        "validate", config, "--set", "index.stemer=krovetz", "--set", "depth=ten", "--set", "qrels=mine.txt",
        cwd=elsewhere, env=NO_JVM,
    )  # fmt: skip
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "  - --set index.stemer=krovetz: index.stemer: unknown key 'stemer'; did you mean 'stemmer'?" in r.stderr
    assert "  - --set depth=ten: depth: expected an integer, got the string 'ten'" in r.stderr
    assert (
        f"  - --set qrels=mine.txt: qrels.path: file not found: {elsewhere / 'mine.txt'} (a path given on the command "
        f"line is relative to the current folder, {elsewhere})"
    ) in r.stderr
    for args, message in [
        (["--set", "name.x=1"], "--set name.x=1: name is not a mapping in the config, so it has no key 'x'"),
        (["--set", "runs.7.bm25.k1=1"], "--set runs.7.bm25.k1=1: runs has 3 item(s): there is no item 7"),
        (["--set", "runs=[bm25"], "--set runs=[bm25: the value is not YAML"),
        (["--set", "depth"], "argument --set: expected KEY=VALUE with a dotted key"),
    ]:
        r = harness("run", config, *args, cwd=elsewhere, env=NO_JVM)
        assert r.returncode == 2 and message in r.stderr, (args, r.stderr)
    assert sorted(p.name for p in elsewhere.iterdir()) == [] and not (repo / "reports").exists()


def test_a_shorthand_and_a_bare_model_name_take_keys(layout, tmp_path):
    from harness.verbs.run import load

    repo, elsewhere = layout
    text = (repo / "configs" / "demo.yaml").read_text()
    text = text.replace("topics: {path: ../topics/demo.tsv, format: tsv}", "topics: ../topics/demo.tsv")
    text = text.replace("  - bm25: {k1: 0.9, b: 0.4}\n", "  - bm25\n")
    (repo / "configs" / "short.yaml").write_text(text)
    cwd = os.getcwd()
    os.chdir(elsewhere)
    try:
        cfg = load(
            repo / "configs" / "short.yaml",
            sets=["topics.format=tsv", "runs.0.bm25.b=0.75", "compare.test=randomization"],
            overrides={"measures": ["AP"], "expect": {"bm25": {"AP": 0.5}}},
            output="report",
        )
    finally:
        os.chdir(cwd)
    assert cfg.topics_path == repo / "topics" / "demo.tsv" and str(cfg.topics_format) == "tsv"
    assert str(cfg.runs[0]) == "bm25(k1=0.9,b=0.75)"
    assert cfg.compare.policy.test == "randomization" and cfg.measure_names == ("AP",)
    assert cfg.output == elsewhere / "report"
    assert cfg.overrides == (
        "--set topics.format=tsv",
        "--set runs.0.bm25.b=0.75",
        "--set compare.test=randomization",
        "overrides['measures']",
        "overrides['expect']",
        "--output report",
    )


@pytest.mark.java
def test_run_and_the_api_write_the_varied_config_where_asked_and_say_so(layout):
    import harness as api

    repo, elsewhere = layout
    config = repo / "configs" / "demo.yaml"
    sets = ["--set", "runs=[bm25, {qld: {mu: [500, 1000]}}]", "--set", "measures=[AP, nDCG@10]"]
    r = harness("run", str(config), "--output", "varied", *sets, cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    report = elsewhere / "varied"
    manifest = json.loads((report / "manifest.json").read_text())
    assert manifest["config"]["path"] == str(config)
    assert manifest["config"]["overrides"] == [
        "--set runs=[bm25, {qld: {mu: [500, 1000]}}]",
        "--set measures=[AP, nDCG@10]",
        "--output varied",
    ]
    assert manifest["config"]["parsed"]["measures"] == ["AP", "nDCG@10"]
    assert [run["name"] for run in manifest["runs"]] == ["bm25", "dirichlet mu=500", "dirichlet mu=1000"]
    summary = (report / "summary.md").read_text()
    assert "--set measures=[AP, nDCG@10] --output varied" in summary
    assert not (repo / "reports").exists()  # the config's own output is left alone
    # the API: the same runs, the same numbers, the overrides under their own names
    cwd = os.getcwd()
    os.chdir(elsewhere)
    try:
        result = api.run(
            config,
            output="from-api",
            overrides={"runs": ["bm25", {"qld": {"mu": [500, 1000]}}], "measures": ["AP", "nDCG@10"]},
        )
    finally:
        os.chdir(cwd)
    assert result.output == elsewhere / "from-api"
    assert result.manifest["config"]["overrides"] == ["overrides['runs']", "overrides['measures']", "output='from-api'"]
    cli = {row["run"]: row for row in json.loads((report / "summary.json").read_text())["runs"]}
    for name, row in result.means.iterrows():
        assert row["AP"] == cli[name]["AP"] and row["nDCG@10"] == cli[name]["nDCG@10"], name
    # harness search writes where it is asked too
    r = harness("search", str(config), "--output", "runs-only", "--set", "runs=[qljm]", cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (elsewhere / "runs-only" / "runs").iterdir()) == ["jm.ir-metadata.yml", "jm.trec"]
    assert Path(r.stdout.split("\t")[2].strip()) == elsewhere / "runs-only" / "runs" / "jm.trec"
