"""Another experiment's report is never replaced without a word (issue 47.1): a report folder's
marker names the experiment that wrote it (its config file and `name:`); a config writing there
is refused, at every door (the config's `output`, `--output`, `harness search`, `harness
validate`, `--dry-run`, `harness.run`), with exit 2, naming that experiment and the two ways on
(`--replace`, another `--output`), the folder byte for byte as it was; `--replace` replaces it
as a rerun replaces its own, and a rerun of the same config never needs it.

One real report of the experiment `first` (BM25 and JM, compared) is written once; each test
works on a copy of that project."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import harness
from harness.cli import main
from harness.errors import ConfigError, DataError
from harness.folders import OUTPUT_MARKER

from .conftest import REPO
from .test_safety import snapshot

pytestmark = pytest.mark.java

DATA = (
    f"collection: {{path: {REPO / 'corpora'}, format: text-folder}}\n"
    "index: {path: ../index}\n"
    f"topics: {{path: {REPO / 'topics' / 'demo.tsv'}, format: tsv}}\n"
    f"qrels: {REPO / 'qrels' / 'demo.txt'}\n"
)
FIRST = (
    f"name: first\n{DATA}runs: [bm25, {{jm: {{lambda: 0.1}}}}]\ncompare: {{baseline: bm25}}\noutput: ../reports/first\n"
)
OTHER = f"name: other\n{DATA}runs: [dirichlet]\noutput: ../reports/other\n"


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    """A project: configs/first.yaml and configs/other.yaml, and first's report in reports/first."""
    proj = tmp_path_factory.mktemp("project")
    (proj / "configs").mkdir()
    (proj / "configs" / "first.yaml").write_text(FIRST)
    (proj / "configs" / "other.yaml").write_text(OTHER)
    assert main(["run", str(proj / "configs" / "first.yaml")]) == 0
    assert (proj / "reports" / "first" / "comparisons.csv").is_file()
    return proj


@pytest.fixture
def proj(written, tmp_path) -> Path:
    """A copy of the project (moved elsewhere: the marker names first's config relative to the report)."""
    return Path(shutil.copytree(written, tmp_path / "proj", symlinks=True))


def _refused_words(proj: Path) -> list[str]:
    first, other = proj / "configs" / "first.yaml", proj / "configs" / "other.yaml"
    return [
        f"{proj / 'reports' / 'first'} holds the report of another experiment, 'first' of {first}",
        f"(this one is 'other' of {other})",
        "pass --replace (replace=True in harness.run) to replace it",
        "choose another `output` (--output DIR) to keep it",
    ]


# the doors: how `other` is pointed at first's report (CLI arguments; {p} is the project)
DOORS = {
    "run --output": ["run", "{p}/configs/other.yaml", "--output", "{p}/reports/first"],
    "the config's output": None,  # other.yaml's own `output:` made first's folder
    "search --output": ["search", "{p}/configs/other.yaml", "--output", "{p}/reports/first"],
    "validate --output": ["validate", "{p}/configs/other.yaml", "--output", "{p}/reports/first"],
    "run --dry-run": ["run", "--dry-run", "{p}/configs/other.yaml", "--output", "{p}/reports/first"],
    "search --dry-run": ["search", "--dry-run", "{p}/configs/other.yaml", "--output", "{p}/reports/first"],
}


@pytest.mark.parametrize("door", list(DOORS))
def test_another_experiments_report_is_refused_untouched(capsys, proj, door):
    if door == "the config's output":  # written in the file itself, not given on the command line
        other = proj / "configs" / "other.yaml"
        other.write_text(other.read_text().replace("output: ../reports/other", "output: ../reports/first"))
        argv = ["run", str(other)]
    else:
        argv = [a.format(p=proj) for a in DOORS[door]]
    before = snapshot(proj)
    assert main(argv) == 2
    err = capsys.readouterr().err
    for words in _refused_words(proj):
        assert words in err, err
    assert "Traceback" not in err
    assert snapshot(proj) == before  # first's report byte for byte, and nothing else made (no lock left)


def test_replace_replaces_another_experiments_report(capsys, proj):
    out = proj / "reports" / "first"
    assert main(["run", str(proj / "configs" / "other.yaml"), "--output", str(out), "--replace"]) == 0
    marker = json.loads((out / OUTPUT_MARKER).read_text())
    assert marker["experiment"] == {"name": "other", "config": "../../configs/other.yaml"}
    assert sorted(p.name for p in (out / "runs").glob("*.trec")) == ["dirichlet.trec"]
    assert not (out / "comparisons.csv").exists()  # first's report is gone, replaced whole
    assert json.loads((out / "manifest.json").read_text())["config"]["parsed"]["name"] == "other"
    capsys.readouterr()
    # and now the folder is other's: first is refused there in turn, naming other
    assert main(["validate", str(proj / "configs" / "first.yaml")]) == 2
    assert f"holds the report of another experiment, 'other' of {proj / 'configs' / 'other.yaml'}" in (
        capsys.readouterr().err
    )


def test_rerunning_the_same_config_replaces_its_own_report(capsys, proj):
    first = proj / "configs" / "first.yaml"
    out = proj / "reports" / "first"
    assert main(["validate", str(first)]) == 0
    assert main(["run", "--dry-run", str(first)]) == 0
    assert "replaces" not in capsys.readouterr().out
    # the same file with other settings is the same experiment (only another file or name is not)
    assert main(["run", str(first), "--set", "runs=[bm25, dirichlet]"]) == 0
    assert sorted(p.name for p in (out / "runs").glob("*.trec")) == ["bm25.trec", "dirichlet.trec"]
    assert main(["search", str(first)]) == 0
    assert main(["run", str(first)]) == 0
    marker = json.loads((out / OUTPUT_MARKER).read_text())
    assert marker["experiment"] == {"name": "first", "config": "../../configs/first.yaml"}


def test_another_name_in_the_same_file_is_another_experiment(capsys, proj):
    before = snapshot(proj)
    assert main(["run", str(proj / "configs" / "first.yaml"), "--set", "name=second"]) == 2
    err = capsys.readouterr().err
    assert "another experiment, 'first' of" in err and "(this one is 'second' of" in err
    assert snapshot(proj) == before


def test_index_never_writes_the_output_so_whose_it_is_does_not_matter(capsys, proj):
    argv = [str(proj / "configs" / "other.yaml"), "--set", f"output={proj / 'reports' / 'first'}"]
    assert main(["validate", *argv]) == 2  # the run would be refused
    assert "another experiment" in capsys.readouterr().err
    before = snapshot(proj / "reports")
    assert main(["index", *argv]) == 0
    assert "another experiment" not in capsys.readouterr().err
    assert snapshot(proj / "reports") == before


def test_dry_run_with_replace_says_what_it_replaces(capsys, proj):
    other = proj / "configs" / "other.yaml"
    argv = ["--dry-run", str(other), "--output", str(proj / "reports" / "first"), "--replace"]
    assert main(["validate", *argv[1:]]) == 0
    for command in ("run", "search"):
        assert main([command, *argv]) == 0
        out = capsys.readouterr().out
        assert f"replaces  the folder of another experiment, 'first' of {proj / 'configs' / 'first.yaml'}" in out


def test_search_with_replace_leaves_only_its_runs(proj):
    out = proj / "reports" / "first"
    assert main(["search", str(proj / "configs" / "other.yaml"), "--output", str(out), "--replace"]) == 0
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    assert files == [OUTPUT_MARKER, "runs", "runs/dirichlet.ir-metadata.yml", "runs/dirichlet.trec"]
    marker = json.loads((out / OUTPUT_MARKER).read_text())
    assert marker["experiment"] == {"name": "other", "config": "../../configs/other.yaml"}
    assert marker["files"] == ["runs/dirichlet.ir-metadata.yml", "runs/dirichlet.trec"]
    assert [p.name for p in out.parent.iterdir()] == ["first"]  # no temp or lock left beside it


def test_replace_never_replaces_a_file_the_harness_did_not_write(capsys, proj):
    out = proj / "reports" / "first"
    (out / "notes.md").write_text("mine\n")
    before = snapshot(proj)
    for command in ("run", "search"):
        assert main([command, str(proj / "configs" / "other.yaml"), "--output", str(out), "--replace"]) == 2
        err = capsys.readouterr().err
        assert "holds files the harness did not write (notes.md)" in err
        assert "another experiment" not in err  # --replace would not help: not offered
        assert snapshot(proj) == before


def test_the_python_api_refuses_and_replaces(proj, monkeypatch):
    monkeypatch.chdir(proj)
    other = proj / "configs" / "other.yaml"
    before = snapshot(proj)
    with pytest.raises(ConfigError) as e:
        harness.run(other, output="reports/first")
    for words in _refused_words(proj):
        assert words in str(e.value)
    assert "output='reports/first'" in str(e.value)  # named as the API's argument
    assert snapshot(proj) == before
    result = harness.run(other, output="reports/first", replace=True)
    assert list(result.runs) == ["dirichlet"] and result.output == proj / "reports" / "first"
    assert result.manifest["config"]["parsed"]["name"] == "other"


def test_a_config_given_in_python_is_known_by_its_name(proj, monkeypatch):
    monkeypatch.chdir(proj)
    config = yaml_dict(proj / "configs" / "other.yaml")
    # first's name, but not first's file (relative paths resolve against the current folder)
    config.update(name="first", index={"path": "index"}, output="reports/first")
    with pytest.raises(ConfigError) as e:
        harness.run(config)
    assert "another experiment, 'first' of" in str(e.value) and "(this one is 'first' given in Python)" in str(e.value)
    harness.run(config, replace=True)
    marker = json.loads((proj / "reports" / "first" / OUTPUT_MARKER).read_text())
    assert marker["experiment"] == {"name": "first", "config": None}
    harness.run({**config, "runs": ["bm25"]})  # the same name in Python: its own report, replaced
    config.update(name="third")
    with pytest.raises(ConfigError, match="holds the report of another experiment, 'first' given in Python"):
        harness.run(config)


def test_refused_again_at_write_time(proj, monkeypatch):
    """Another experiment's report appears while this one runs (the check at validation is then
    minutes old): the report is not written and the folder stays as it is."""
    from harness.experiment.execute import Session

    out = proj / "reports" / "other"
    real = Session.run

    def meanwhile(self):
        result = real(self)
        shutil.copytree(proj / "reports" / "first", out)  # another experiment's report, marker and all
        return result

    monkeypatch.setattr(Session, "run", meanwhile)
    with pytest.raises(DataError) as e:
        harness.run(proj / "configs" / "other.yaml")
    assert f"{out} holds the report of another experiment, 'first' of {proj / 'configs' / 'first.yaml'}" in str(e.value)
    assert snapshot(out) == snapshot(proj / "reports" / "first")
    assert sorted(p.name for p in out.parent.iterdir()) == ["first", "other"]


def test_a_marker_that_names_no_experiment_is_replaced_as_before(capsys, proj):
    """A report of a version before the experiment was recorded says nothing of whose it is: any
    experiment may replace it (as the marker alone allowed before); the new marker names it."""
    out = proj / "reports" / "first"
    marker = json.loads((out / OUTPUT_MARKER).read_text())
    del marker["experiment"]
    (out / OUTPUT_MARKER).write_text(json.dumps(marker))
    assert main(["run", str(proj / "configs" / "other.yaml"), "--output", str(out)]) == 0, capsys.readouterr().err
    assert json.loads((out / OUTPUT_MARKER).read_text())["experiment"]["name"] == "other"


def yaml_dict(path: Path) -> dict:
    import yaml

    return yaml.safe_load(path.read_text())
