"""The README cannot drift: its generated sections match the code, and the commands it shows
for running experiments work as shown."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from .conftest import REPO
from .docs import PAGES, section

README = (REPO / "README.md").read_text()
pytestmark = pytest.mark.usefixtures("sparse_only_processes")  # conftest: its commands: BM25, Dirichlet, JM only


def test_generated_sections_are_current():
    r = subprocess.run([sys.executable, "scripts/gen_docs.py", "--check"], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]


def test_validation_example_is_what_validate_prints():
    block = re.search(r"```\n\$ \.venv/bin/harness validate (\S+)\n(.*?)```", section("Running experiments"), re.S)
    r = subprocess.run(
        [sys.executable, "-m", "harness", "validate", block.group(1)], cwd=REPO, capture_output=True, text=True
    )
    assert r.returncode == 2
    assert r.stderr == block.group(2)


def test_experiment_commands_run(tmp_path):
    """As written, in a shell: `.venv/bin/harness ...` from the repository, `$HARNESS/...` (a
    config run from anywhere, issue 36) from an unrelated folder, $HARNESS being the checkout.
    The repository is a laid-out copy (its configs and data, ../shared beside it, this .venv), so
    that the indexes and reports the commands make go there, not into the checkout."""
    from .golden import lay_out

    lay_out(tmp_path)
    repo = tmp_path / "repo"
    (repo / ".venv").symlink_to(REPO / ".venv")
    commands = []
    for title in ("Running experiments", "Reproducing Cranfield"):
        for block in re.findall(r"```sh\n(.*?)```", section(title), re.S):
            commands += [line for line in block.splitlines() if line.startswith((".venv/bin/harness", "$HARNESS/"))]
    assert len(commands) >= 6 and sum(c.startswith("$HARNESS/") for c in commands) == 2
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_INDEXES"} | {"HARNESS": str(repo)}
    for line in commands:
        cwd = elsewhere if line.startswith("$HARNESS/") else repo
        r = subprocess.run(["bash", "-c", line], cwd=cwd, capture_output=True, text=True, env=env, timeout=900)
        assert r.returncode == 0, (line, r.stderr[-2000:])
    assert (repo / "reports" / "demo" / "summary.json").exists()
    # the report where the commands were typed, the config's own output untouched by them
    assert (elsewhere / "cranfield" / "summary.md").exists()
    manifest = json.loads((elsewhere / "cranfield-qld" / "manifest.json").read_text())
    assert manifest["config"]["overrides"][0].startswith("--set runs=[bm25, {qld:")
    assert [r["name"] for r in manifest["runs"]] == [
        "bm25",
        "dirichlet mu=500",
        "dirichlet mu=1000",
        "dirichlet mu=2000",
    ]


def _repo_copy(tmp_path):
    """The sample data and configs in a temporary folder with its own indexes/."""
    import shutil

    for d in ("configs", "corpora", "topics", "qrels"):
        shutil.copytree(REPO / d, tmp_path / d)
    (tmp_path / "indexes").mkdir()
    return tmp_path


def _csv(path):
    import csv

    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_python_api_examples_run_and_equal_the_cli(tmp_path, monkeypatch):
    import yaml

    blocks = re.findall(r"```python\n(.*?)```", section("Python API"), re.S)
    assert len(blocks) >= 6
    tmp = _repo_copy(tmp_path)
    monkeypatch.chdir(tmp)
    monkeypatch.delenv("HARNESS_INDEXES", raising=False)
    ns: dict = {}
    results = []  # each Result the blocks make, in order
    for i, block in enumerate(blocks):
        exec(compile(block, f"README.md Python API block {i + 1}", "exec"), ns)
        if "result" in ns and all(ns["result"] is not r for r in results):
            results.append(ns["result"])
    demo, two = results
    assert demo.output == tmp / "reports" / "demo"
    assert ns["table"].attrs["policy"].startswith("Wilcoxon signed-rank test; Holm-Bonferroni")

    # the same configs through the command line
    (tmp / "two.yaml").write_text(yaml.safe_dump({**two.experiment.config.raw, "output": "reports/two-cli"}))
    for config in ("configs/demo.yaml", "two.yaml"):
        r = subprocess.run([sys.executable, "-m", "harness", "run", config], cwd=tmp, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-2000:]
    for result, out in ((demo, tmp / "reports" / "demo"), (two, tmp / "reports" / "two-cli")):
        for row in _csv(out / "summary.csv"):
            for m in result.means.columns:
                assert result.means.loc[row["run"], m] == float(row[m]), (row["run"], m)
    comp = _csv(tmp / "reports" / "two-cli" / "comparisons.csv")
    assert [float(r["p"]) for r in comp] == two.comparisons["p"].tolist()
    assert [float(r["p_corrected"]) for r in comp] == two.comparisons["p_corrected"].tolist()
    # the evaluate example's file is the CLI's run
    per_topic = ns["bm25"]
    assert per_topic[per_topic["measure"] == "AP"]["value"].mean() == demo.means.loc["bm25", "AP"]


def test_editor_support_header_and_schema(tmp_path):
    import json

    import jsonschema
    import yaml

    text = section("Config reference")
    header = re.search(r"```yaml\n(# yaml-language-server: \$schema=(\S+))\n", text)
    command = re.search(r"```sh\n\.venv/bin/harness schema > (\S+)\n```", text)
    assert header and command
    tmp = _repo_copy(tmp_path)
    r = subprocess.run([sys.executable, "-m", "harness", "schema"], cwd=tmp, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    target = tmp / command.group(1)
    target.write_text(r.stdout)
    config = tmp / "configs" / "demo.yaml"
    config.write_text(header.group(1) + "\n" + config.read_text())
    assert (config.parent / header.group(2)).resolve() == target.resolve()  # the header finds the schema
    schema = json.loads(target.read_text())
    jsonschema.Draft202012Validator(schema).validate(yaml.safe_load(config.read_text()))  # its metaschema: test_schema
    r = subprocess.run([sys.executable, "-m", "harness", "validate", str(config)], cwd=tmp, capture_output=True)
    assert r.returncode == 0, r.stderr


def test_the_front_page_is_short_and_links_to_every_page():
    lines = README.splitlines()
    assert len(lines) <= 200, len(lines)
    for page in sorted((REPO / "docs").glob("*.md")):
        assert f"](docs/{page.name})" in README, page.name
    assert "make demo" in README and "make test" in README


def _anchors(text: str) -> set[str]:
    heads = [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in heads}


def test_every_relative_link_resolves():
    bad = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                bad.append(f"{page.name}: {target} (no such file)")
            elif anchor and file.suffix == ".md" and anchor not in _anchors(file.read_text(encoding="utf-8")):
                bad.append(f"{page.name}: {target} (no such heading)")
    assert not bad, "\n".join(bad)


def test_the_front_page_example_prints_what_it_shows(tmp_path, monkeypatch, capsys):
    text = section("In Python")
    code, shown = re.findall(r"```(?:python)?\n(.*?)```", text, re.S)
    tmp = _repo_copy(tmp_path)
    monkeypatch.chdir(tmp)
    monkeypatch.delenv("HARNESS_INDEXES", raising=False)
    exec(compile(code, "README.md In Python", "exec"), {})
    assert capsys.readouterr().out == shown


def test_demo_block_is_what_make_demo_prints(tmp_path):
    """The generated demo block (scripts/gen_docs.py) shows the lines `make demo` prints, run names
    and all: rendered through the verb the command line runs, not a path of its own."""
    block = re.search(r"<!-- BEGIN demo-output -->\n```\n\$ make demo\n\.\.\.\n(.*?)\n\.\.\.\n", README, re.S)
    shown = block.group(1).splitlines()
    assert len(shown) >= 7 and shown[0].startswith("| run |")
    tmp = _repo_copy(tmp_path)
    r = subprocess.run(
        [sys.executable, "-m", "harness", "run", "configs/demo.yaml"], cwd=tmp, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr[-2000:]
    printed = r.stdout.splitlines()
    start = printed.index(shown[0])
    assert printed[start : start + len(shown)] == shown
    assert printed[start + len(shown)] == ""  # the whole table: it ends there
