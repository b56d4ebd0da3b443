"""A study run end to end (harness run / search / index / validate of a config of several
collections, and harness.run): each collection's results are those of a config of it alone, the
table across collections is made of their means, expectations are OK, OK-ish or FAIL, and a
collection that fails as it runs is named while the others' reports are written.

Oracles: the same collections' configs alone, each run by its own `harness run` process on its
own index folder (run files byte for byte, the same report files); each collection's per_topic.csv,
whose means (numpy, here) make the table's cells and whose cells' mean makes its `mean`."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from .conftest import REPO

pytestmark = pytest.mark.java

CORPORA, TOPICS, QRELS = REPO / "corpora", REPO / "topics" / "demo.tsv", REPO / "qrels" / "demo.txt"
XQUAD = REPO / "tests" / "data" / "xquad"

# each collection's own keys: the demo (English, a text folder), XQuAD in German and Chinese
ENTRIES = {
    "demo": {"collection": {"path": str(CORPORA), "format": "text-folder"}, "topics": str(TOPICS), "qrels": str(QRELS)},
    **{
        code: {
            "collection": {"path": str(XQUAD / f"{code}.jsonl"), "format": "jsonl"},
            "index": {"language": code},
            "topics": str(XQUAD / f"{code}.tsv"),
            "qrels": str(XQUAD / "qrels.txt"),
        }
        for code in ("de", "zh")
    },
}
SHARED = {
    "runs": [{"bm25": {"k1": 0.9, "b": 0.4}}, {"dirichlet": {"mu": [500, 1000]}}],
    "depth": 100,
    "measures": ["AP", "nDCG@10", "RR"],
    "expect_tolerance": 0.001,
    "compare": {"baseline": "bm25", "test": "randomization", "permutations": 2000, "seed": 3},
}
RUNS = ["bm25", "dirichlet mu=500", "dirichlet mu=1000"]


def study_config(folder: Path, entries: dict = ENTRIES, name: str = "suite", **extra) -> Path:
    """A study of ``entries`` in ``folder`` (its indexes in folder/indexes, its output folder/out)."""
    (folder / "indexes").mkdir(parents=True, exist_ok=True)
    collections = [{"name": n, **keys} for n, keys in entries.items()]
    config = {"name": name, "collections": collections, **SHARED, "output": str(folder / "out"), **extra}
    (folder / "study.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return folder / "study.yaml"


def harness(*argv, cwd=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_INDEXES"}  # each root its own indexes/
    return subprocess.run(
        [sys.executable, "-m", "harness", *map(str, argv)], capture_output=True, text=True, env=env, cwd=cwd
    )


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def ran(tmp_path_factory, sparse_only_processes):
    """The study by `harness run` in a/, and each collection's config alone in b/ (its own index
    folder: nothing of the study's is reused)."""
    tmp = tmp_path_factory.mktemp("study")
    study = study_config(tmp / "a")
    r = harness("run", study)
    assert r.returncode == 0, r.stderr[-3000:]
    (tmp / "b" / "indexes").mkdir(parents=True)
    for name, keys in ENTRIES.items():
        alone = {"name": name, **keys, **SHARED, "output": str(tmp / "b" / "out" / "collections" / name)}
        (tmp / "b" / f"{name}.yaml").write_text(yaml.safe_dump(alone, sort_keys=False))
        s = harness("run", tmp / "b" / f"{name}.yaml")
        assert s.returncode == 0, s.stderr[-3000:]
    return tmp, r


def _normalised(text: str, tmp: Path) -> str:
    """A report file with what tells the two runs apart taken out: their folders (a/ b/), the
    config file's path and hash, whether the index and runs were built or reused, timings."""
    for config in (*(tmp / "a").glob("*.yaml"), *(tmp / "b").glob("*.yaml")):
        text = text.replace(str(config), "CONFIG").replace(hashlib.sha256(config.read_bytes()).hexdigest(), "SHA")
    text = text.replace(str(tmp / "a"), "ROOT").replace(str(tmp / "b"), "ROOT")
    # the effectiveness-against-latency chart: its dots and ticks sit where the search times put them
    text = re.sub(r'<svg[^>]*class="[^"]*scatter-chart.*?</svg>', "CHART", text, flags=re.S)
    text = re.sub(r"\b(reused|built|searched)\b", "X", text)
    text = re.sub(r"\b(yes|no)\b", "X", text)
    return re.sub(r"\d+\.\d+( s)?\b", "T", text)  # seconds, and the search times' figures (ms, qps)


def test_each_collection_is_its_config_alone(ran):
    tmp, _ = ran
    for name in ENTRIES:
        ours, alone = tmp / "a" / "out" / "collections" / name, tmp / "b" / "out" / "collections" / name
        files = sorted(str(p.relative_to(alone)) for p in alone.rglob("*") if p.is_file() and p.name[0] != ".")
        assert sorted(str(p.relative_to(ours)) for p in ours.rglob("*") if p.is_file()) == files
        assert {"runs/bm25.trec", "comparisons.csv", "report.html", "report.tex"} <= set(files)
        for f in files:
            a, b = (ours / f).read_bytes(), (alone / f).read_bytes()
            if f.endswith((".trec", ".csv")) or f == "summary.json":
                assert a == b, (name, f)  # byte for byte: runs, means, per topic, comparisons
            elif f == "comparisons.json":  # every number; the config file's hash aside
                x, y = json.loads(a), json.loads(b)
                assert x["provenance"].pop("config_sha256") != y["provenance"].pop("config_sha256")
                assert x == y, name
            elif f == "manifest.json":
                x, y = json.loads(a), json.loads(b)
                for key in ("topics", "qrels", "policy", "stats_policy"):
                    assert x.get(key) == y.get(key), (name, key)
                for run in (*x["runs"], *y["runs"]):  # searched here and there: how long it took aside
                    del run["seconds"], run["reused"]
                    if run.get("latency"):  # the search times' figures vary; what was timed does not
                        run["latency"] = {k: run["latency"][k] for k in ("queries", "threads", "batches")}
                assert x["runs"] == y["runs"], name
                assert x["index"]["fingerprint"] == y["index"]["fingerprint"]
                assert x["index"]["stats"] == y["index"]["stats"]
                assert {**x["config"]["parsed"], "output": ""} == {**y["config"]["parsed"], "output": ""}
            elif f.endswith(".ir-metadata.yml"):
                continue  # timings and paths of the machine; the run's own hash is in manifest.json
            else:
                assert _normalised(a.decode(), tmp) == _normalised(b.decode(), tmp), (name, f)


def test_one_process_one_jvm_each_index_once(ran):
    tmp, r = ran
    assert r.stderr.count("collection ") >= len(ENTRIES)
    assert [line.split(": ", 1)[1] for line in r.stderr.splitlines() if re.match(r"collection \d/\d: ", line)] == list(
        ENTRIES
    )
    assert sorted(p.name.rsplit("-", 1)[0] for p in (tmp / "a" / "indexes").iterdir() if p.is_dir()) == sorted(
        ["corpora", "de", "zh"]
    )
    again = harness("run", tmp / "a" / "study.yaml")  # the indexes and runs reused, the folder replaced
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("index reused") == len(ENTRIES) and "indexing" not in again.stderr


def test_the_table_across_collections_is_the_collections_means(ran):
    tmp, r = ran
    out = tmp / "a" / "out"
    rows = read_csv(out / "collections.csv")
    assert list(rows[0]) == ["measure", "run", *ENTRIES, "mean"]  # exactly these columns
    assert [(row["measure"], row["run"]) for row in rows] == [(m, run) for m in SHARED["measures"] for run in RUNS]
    for row in rows:
        values = []
        for name in ENTRIES:
            per_topic = [t for t in read_csv(out / "collections" / name / "per_topic.csv") if t["run"] == row["run"]]
            mean = np.mean([float(t[row["measure"]]) for t in per_topic])  # recomputed from the topics
            assert float(row[name]) == pytest.approx(mean, rel=1e-12, abs=1e-15)
            summary = next(s for s in read_csv(out / "collections" / name / "summary.csv") if s["run"] == row["run"])
            assert row[name] == summary[row["measure"]]  # the collection's own mean, every digit
            values.append(float(row[name]))
        assert float(row["mean"]) == pytest.approx(np.mean(values), rel=1e-12)  # unweighted, over collections
    md = (out / "summary.md").read_text()
    assert "| run | demo | de | zh | mean |" in md and "### nDCG@10" in md
    first = rows[0]
    assert f"| bm25 | {float(first['demo']):.4f} | {float(first['de']):.4f}" in md
    assert r.stdout.startswith("# suite\n") and "| run | demo | de | zh | mean |" in r.stdout  # what it printed
    html = (out / "report.html").read_text()
    assert "<h2>Means across collections</h2>" in html and '<a href="collections/de/report.html">' in html
    tex = (out / "report.tex").read_text()
    assert r"run & demo & de & zh & mean \\" in tex and r"\caption{AP: Means across collections of suite." in tex
    marker = json.loads((out / ".harness-output.json").read_text())
    assert marker["experiment"] == {"name": "suite", "config": "../study.yaml"}
    assert "collections/de/runs/bm25.trec" in marker["files"] and "collections.csv" in marker["files"]
    from harness.folders import foreign_entries

    assert foreign_entries(out) == []  # one folder, every file the study's


# --- expect: OK, OK-ish, FAIL, in a study and in a config of one collection --------------------------


def _values(ran) -> dict:
    tmp, _ = ran
    return {(r["measure"], r["run"]): r for r in read_csv(tmp / "a" / "out" / "collections.csv")}


def test_expectations_ok_okish_and_fail_in_a_study(ran, tmp_path):
    tmp, _ = ran
    v = _values(ran)
    ap = {name: float(v[("AP", "bm25")][name]) for name in ENTRIES}
    sets = [
        f"collections.0.expect={{bm25: {{AP: {ap['demo']}}}}}",  # OK
        f"collections.1.expect={{bm25: {{AP: {ap['de'] - 0.0012}}}}}",  # OK-ish: within 1.5 x 0.001
    ]
    args = ["run", tmp / "a" / "study.yaml", "--output", tmp_path / "okish", *[x for s in sets for x in ("--set", s)]]
    r = harness(*args)
    assert r.returncode == 0, r.stderr[-2000:]
    assert re.search(
        r"harness: warning: expectation met only within the OK-ish tolerance: \[OK-ish\] bm25 AP", r.stderr
    )
    summary = (tmp_path / "okish" / "summary.md").read_text()
    assert "- demo: [OK] bm25 AP: expected=" in summary and "- de: [OK-ish] bm25 AP: expected=" in summary
    assert "(tolerance 0.001, OK-ish within 0.0015)" in summary
    de = (tmp_path / "okish" / "collections" / "de" / "summary.md").read_text()
    assert "- [OK-ish] bm25 AP" in de and "OK-ish tolerance" in de  # its check and its warning
    fail = f"collections.2.expect={{dirichlet mu=500: {{RR: {float(v[('RR', 'dirichlet mu=500')]['zh']) + 0.002}}}}}"
    r = harness(*args[:3], tmp_path / "fail", *[x for s in [*sets, fail] for x in ("--set", s)])
    assert r.returncode == 1, r.stderr[-2000:]
    assert "expectations not met:\nzh: [FAIL] dirichlet mu=500 RR" in r.stderr
    assert (tmp_path / "fail" / "collections.csv").exists()  # the report is written all the same


def test_expectations_ok_okish_and_fail_in_a_config_of_one_collection(ran, tmp_path):
    tmp, _ = ran
    v = float(_values(ran)[("nDCG@10", "dirichlet mu=1000")]["demo"])
    config = tmp / "b" / "demo.yaml"
    for expected, code, status in ((v, 0, "OK"), (v + 0.0014, 0, "OK-ish"), (v - 0.0016, 1, "FAIL")):
        out = tmp_path / status
        r = harness("run", config, "--output", out, "--set", f"expect={{dirichlet mu=1000: {{nDCG@10: {expected}}}}}")
        assert r.returncode == code, r.stderr[-2000:]
        line = f"[{status}] dirichlet mu=1000 nDCG@10: expected={expected}"
        assert f"- {line}" in (out / "summary.md").read_text()
        assert ("OK-ish tolerance: " + line in r.stderr) == (status == "OK-ish")
        checks = json.loads((out / "summary.json").read_text())["expectations"]
        assert [(c["status"], c["ok"], c["okish_tolerance"]) for c in checks] == [(status, status != "FAIL", 0.0015)]
        assert f"<td>{status}</td>" in (out / "report.html").read_text()
    assert "expectations not met:\n[FAIL] dirichlet mu=1000 nDCG@10" in r.stderr


# --- a collection that fails as it runs ---------------------------------------------------------


def broken_collection(folder: Path) -> dict:
    """A collection whose corpus line 50 is broken: validation reads a file's first five lines."""
    folder.mkdir(parents=True)
    lines = [json.dumps({"id": f"d{i}", "contents": f"word{i} common text"}) + "\n" for i in range(60)]
    lines[49] = '{"id": "d49", "contents": "cut off\n'
    (folder / "docs.jsonl").write_text("".join(lines))
    (folder / "topics.tsv").write_text("1\tword1 common\n2\tword7\n")
    (folder / "qrels.txt").write_text("1 0 d1 1\n2 0 d7 1\n")
    return {
        "collection": {"path": str(folder / "docs.jsonl"), "format": "jsonl"},
        "topics": str(folder / "topics.tsv"),
        "qrels": str(folder / "qrels.txt"),
    }


def test_a_collection_failing_as_it_runs_is_named_and_the_others_written(tmp_path):
    ud = REPO / "tests" / "data" / "ud"  # Japanese: four of its topics judged, a warning
    ja = {"collection": {"path": str(ud / "ja.jsonl"), "format": "jsonl"}, "index": {"language": "ja"}}
    ja.update(topics=str(ud / "ja.tsv"), qrels=str(ud / "qrels.txt"))
    entries = {"de": ENTRIES["de"], "broken": broken_collection(tmp_path / "data"), "ja": ja}
    config = study_config(tmp_path, entries)
    assert harness("validate", config).returncode == 0  # line 50: beyond what validation reads
    r = harness("run", config)
    assert r.returncode == 2, r.stderr[-2000:]  # the code of the data error it met
    assert "collection broken failed: " in r.stderr and "docs.jsonl:50: " in r.stderr
    assert "1 collection(s) of the study failed, the others' reports are written:\n  broken: " in r.stderr
    out = tmp_path / "out"
    assert sorted(p.name for p in (out / "collections").iterdir()) == ["de", "ja"]
    assert (out / "collections" / "de" / "summary.csv").exists() and (
        out / "collections" / "ja" / "report.html"
    ).exists()
    md = (out / "summary.md").read_text()
    assert "## Failed collections" in md and "- **broken** (exit 2): " in md and "| broken | failed |" in md
    assert "## Warnings\n\n- ja: " in md and "4 of 8 topics have no judgments" in md  # each collection's, named
    assert "<li>ja: " in (out / "report.html").read_text()
    rows = read_csv(out / "collections.csv")
    assert all(row["broken"] == "" and row["mean"] == "" and row["de"] and row["ja"] for row in rows)
    manifest = json.loads((out / "manifest.json").read_text())
    assert [c.get("exit_code") for c in manifest["collections"]] == [None, 2, None]


def test_a_file_gone_after_validation_fails_its_collection_alone(tmp_path):
    """In one process, as the Python API runs it: the topics of one collection removed between
    validation and the run."""
    import harness as api

    data = tmp_path / "data"
    data.mkdir()
    gone = data / "topics.tsv"
    gone.write_text(TOPICS.read_text())
    entries = {"demo": {**ENTRIES["demo"], "topics": str(gone)}, "de": ENTRIES["de"]}
    from harness.verbs import run as verbs_run
    from harness.verbs import study as verbs_study

    study = verbs_run.load(study_config(tmp_path, entries))
    gone.unlink()
    out = verbs_study.run(study)
    assert list(out.result.failures) == ["demo"] and out.result.failures["demo"].exit_code == 2
    assert str(gone) in out.result.failures["demo"].message
    assert (tmp_path / "out" / "collections" / "de" / "summary.md").exists()
    result = api.run(study_config(tmp_path, {"de": ENTRIES["de"]}, name="again"), replace=True)
    assert result.ok and list(result.collections) == ["de"]


# --- the other doors: harness.run, validate, search, index, --dry-run -------------------------------


def test_the_python_api_returns_each_collection_and_the_tables(ran, tmp_path, monkeypatch):
    import harness as api

    tmp, _ = ran
    monkeypatch.delenv("HARNESS_INDEXES", raising=False)
    study = api.run(tmp / "a" / "study.yaml", output=tmp_path / "api")
    assert isinstance(study, api.Study) and study.ok and study.failed == {}
    assert list(study.collections) == list(ENTRIES)
    for name, result in study.collections.items():
        assert isinstance(result, api.Result) and result.output == tmp_path / "api" / "collections" / name
        for row in read_csv(tmp / "b" / "out" / "collections" / name / "summary.csv"):
            for m in SHARED["measures"]:
                assert result.means.loc[row["run"], m] == float(row[m])
    table = study.tables["collections"]
    assert study.means is table and list(table.columns) == ["measure", "run", *ENTRIES, "mean"]
    rows = read_csv(tmp / "a" / "out" / "collections.csv")
    assert [float(x) for x in table["mean"]] == [float(r["mean"]) for r in rows]
    assert study.checks.empty
    # with `compare:`, its meta-analysis across the collections too (tests/test_meta_study.py)
    assert study.manifest["tables"] == {"collections": "collections.csv", "meta_analysis": "meta_analysis.csv"}


def test_validate_dry_run_search_and_index_of_a_study(ran, tmp_path):
    tmp, _ = ran
    config = tmp / "a" / "study.yaml"
    r = harness("validate", config)
    assert r.returncode == 0 and r.stdout.startswith(
        f"{config}: OK — a study of 3 collections (demo, de, zh); 3 run(s)"
    )
    r = harness("run", "--dry-run", config)
    assert r.returncode == 0, r.stderr
    assert [line for line in r.stdout.splitlines() if line.startswith("collection ")] == [
        f"collection {n}" for n in ENTRIES
    ]
    assert r.stdout.count("reuse (fingerprint matches)") == 3 and "search (not cached)" not in r.stdout
    r = harness("search", config, "--output", tmp_path / "runs")
    assert r.returncode == 0, r.stderr
    lines = [line.split("\t") for line in r.stdout.splitlines()]
    assert [(c, run, how) for c, run, how, _ in lines] == [(c, run, "reused") for c in ENTRIES for run in RUNS]
    for c, _, _, path in lines:
        assert Path(path).parent == tmp_path / "runs" / "collections" / c / "runs"
        assert (
            Path(path).read_bytes() == (tmp / "b" / "out" / "collections" / c / "runs" / Path(path).name).read_bytes()
        )
    r = harness("run", config, "--output", tmp_path / "runs")  # the study's own folder: replaced by its report
    assert r.returncode == 0, r.stderr
    r = harness("index", config)
    assert r.returncode == 0, r.stderr
    assert re.findall(r"^collection (\S+)$", r.stdout, re.M) == list(ENTRIES)
    assert r.stdout.count("status               reused") == 3


def test_the_study_in_the_docs_runs_as_shown(tmp_path):
    """docs/experiments.md, *Studies*: its config is configs/study.yaml's, and its command, run in a
    copy of the repository, prints the table the page shows (generated by scripts/gen_docs.py)."""
    import shutil

    from .docs import commands, section
    from .golden import lay_out

    text = section("Studies: several collections")
    shipped = (REPO / "configs" / "study.yaml").read_text().splitlines()
    block = re.search(r"```yaml\n(.*?)```", text, re.S).group(1)
    for line in block.splitlines():
        line = line.split("#")[0].rstrip()
        assert not line.strip() or line in shipped, line
    lay_out(tmp_path)
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "tests" / "data", repo / "tests" / "data")
    (repo / ".venv").symlink_to(REPO / ".venv")
    assert commands("Studies: several collections") == [".venv/bin/harness run configs/study.yaml"]
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_INDEXES"}
    r = subprocess.run(
        ["bash", "-c", ".venv/bin/harness run configs/study.yaml"], cwd=repo, capture_output=True, text=True, env=env
    )
    assert r.returncode == 0, r.stderr[-2000:]
    shown = re.search(r"<!-- BEGIN study-output -->\n```\n\$ [^\n]*\n\.\.\.\n(.*?)\n\.\.\.\n```", text, re.S).group(1)
    assert shown in r.stdout
    assert (repo / "reports" / "study" / "collections" / "zh" / "summary.md").exists()
