"""Runs from files and fusions as config entries (harness.config.sources, harness.experiment.sources),
against oracles that are not the config path: pytrec_eval on the file itself, `harness fuse` and
pyserini.fusion 2.4.0 on the report's run files, scipy's paired t-test on pytrec_eval's per-topic
scores; one error per bad input, each naming its key or its file and line."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.config import load_config
from harness.errors import ConfigError, DataError
from harness.formats.runs import read_run
from harness.metrics import parse_measure

from .conftest import REPO
from .docs import commands, section

DOCS = sorted(f"sample_docs/{p.name}" for p in (REPO / "corpora" / "sample_docs").glob("*.txt"))
TOPICS = [line.split("\t")[0] for line in (REPO / "topics" / "demo.tsv").read_text().splitlines() if line]
MEASURES = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "RR": "recip_rank"}

HEAD = f"""\
name: files
collection: {{path: {REPO}/corpora, format: text-folder}}
index: {{stemmer: porter, stopwords: true}}
topics: {{path: {REPO}/topics/demo.tsv, format: tsv}}
qrels: {REPO}/qrels/demo.txt
output: out
"""
RUNS = """\
measures: [AP, nDCG@10, P@10, RR]
runs:
  - {name: base, bm25: {k1: 0.9, b: 0.4}}
  - {name: mine, file: mine.trec}
  - {name: rrf, fuse: {runs: [base, mine]}}
  - {name: interp, fuse: {method: interpolation, alpha: 0.3, runs: [mine, base], depth: 5}}
  - {name: mnz, fuse: {method: combmnz, norm: zscore, runs: [base, mine, rrf], weights: [1, 0.5, 2], k: 10}}
compare: {baseline: [base, mine], test: t, correction: none}
"""


def _file_run(path: Path, seed: int = 7) -> Path:
    """A run of every demo topic: 20 documents each, distinct scores (no ties to break)."""
    rng = random.Random(seed)
    lines = []
    for q in TOPICS:
        for rank, (doc, score) in enumerate(
            zip(rng.sample(DOCS, 20), sorted(rng.sample(range(1000), 20), reverse=True)), 1
        ):
            lines.append(f"{q} Q0 {doc} {rank} {score / 100} mine\n")
    path.write_text("".join(lines))
    return path


def _run(folder: Path, runs: str = RUNS):
    from harness.verbs.run import load, run

    (folder / "indexes").mkdir(exist_ok=True)
    (folder / "c.yaml").write_text(HEAD + runs)
    return run(load(folder / "c.yaml")).result


def _pytrec(run_path: Path) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-topic values of a run file: {measure: {topic: value}}."""
    import pytrec_eval

    qrels: dict = {}
    for line in (REPO / "qrels" / "demo.txt").read_text().splitlines():
        q, _, d, rel = line.split()
        qrels.setdefault(q, {})[d] = int(rel)
    run: dict = {}
    for line in run_path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    got = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values())).evaluate(run)
    return {m: {q: got[q][t] if q in got else 0.0 for q in qrels} for m, t in MEASURES.items()}


def _lines(path: Path) -> list[tuple[str, str, float]]:
    run = read_run(path)
    return [(q, d, s) for q in run.topics() for d, s in zip(*(lambda r: (r[0], r[1].tolist()))(run.ranked(q)))]


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fileruns")
    _file_run(folder / "mine.trec")
    return folder, _run(folder)


@pytest.mark.java
def test_a_file_run_scores_what_pytrec_eval_scores_on_the_file(experiment):
    folder, result = experiment
    expected = _pytrec(folder / "mine.trec")
    got = result.evaluations["mine"].per_topic
    for m in MEASURES:
        assert got[m] == pytest.approx(expected[m], abs=1e-12), m
    # the report's copy is the file, byte for byte; the manifest names it and its hash
    assert (folder / "out" / "runs" / "mine.trec").read_bytes() == (folder / "mine.trec").read_bytes()
    manifest = json.loads((folder / "out" / "manifest.json").read_text())
    entry = next(r for r in manifest["runs"] if r["name"] == "mine")
    assert entry["spec"] == "file(mine.trec)" and entry["source"] == {"file": str(folder / "mine.trec")}
    assert entry["sha256"] == hashlib.sha256((folder / "mine.trec").read_bytes()).hexdigest()


@pytest.mark.java
def test_fused_runs_equal_harness_fuse_and_pyserini(experiment, tmp_path):
    from pyserini.fusion import interpolation, reciprocal_rank_fusion
    from pyserini.trectools import TrecRun

    folder, _ = experiment
    runs = folder / "out" / "runs"
    base, mine = runs / "base.trec", runs / "mine.trec"
    cases = {
        "rrf": ([base, mine], ["--method", "rrf"]),
        "interp": ([mine, base], ["--method", "interpolation", "--alpha", "0.3", "--depth", "5"]),
        "mnz": (
            [base, mine, runs / "rrf.trec"],
            ["--method", "combmnz", "--norm", "zscore", "--weights", "1", "0.5", "2", "-k", "10"],
        ),
    }
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for name, (parts, options) in cases.items():
        out = tmp_path / f"{name}.trec"
        argv = [sys.executable, "-m", "harness", "fuse", *map(str, parts), *options, "-o", str(out)]
        r = subprocess.run(argv, capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        assert _lines(runs / f"{name}.trec") == _lines(out), name
    # pyserini.fusion (topic ids are integers, which it reads as integers: the same text here)
    for name, fn, parts, kw in (
        ("rrf", reciprocal_rank_fusion, [base, mine], {"rrf_k": 60, "depth": 1000, "k": 1000}),
        ("interp", interpolation, [mine, base], {"alpha": 0.3, "depth": 5, "k": 1000}),
    ):
        fn([TrecRun(filepath=str(p)) for p in parts], **kw).save_to_txt(str(tmp_path / "p.trec"), tag="t")
        assert _lines(runs / f"{name}.trec") == _lines(tmp_path / "p.trec"), name


@pytest.mark.java
def test_fusions_are_compared_with_their_parts_as_scipy_does(experiment):
    from scipy import stats

    folder, result = experiment
    c = result.comparisons
    assert c.baselines == ("base", "mine")
    assert {p for p in c.pairs if p[1] in ("rrf", "interp", "mnz")} == {
        (b, r) for b in ("base", "mine") for r in ("rrf", "interp", "mnz")
    }
    scores = {n: _pytrec(folder / "out" / "runs" / f"{n}.trec") for n in ("base", "mine", "rrf", "interp", "mnz")}
    for row in c.rows:
        b = [scores[row.baseline][row.measure][q] for q in c.topics]
        r = [scores[row.run][row.measure][q] for q in c.topics]
        assert row.mean_run == pytest.approx(np.mean(r), abs=1e-12)
        if np.any(np.subtract(r, b)):
            assert row.p == pytest.approx(stats.ttest_rel(r, b).pvalue, rel=1e-9), (row.baseline, row.run)
        assert row.p_corrected == row.p  # correction: none


@pytest.mark.java
def test_a_file_run_is_read_again_when_it_changes_and_never_written(tmp_path):
    path = _file_run(tmp_path / "mine.trec", seed=1)
    before = path.read_bytes(), path.stat().st_mtime_ns
    first = _run(tmp_path)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    _file_run(path, seed=2)
    second = _run(tmp_path)
    for name, result in (("first", first), ("second", second)):
        expected = _pytrec(tmp_path / "out" / "runs" / "mine.trec") if name == "second" else None
        if expected is not None:
            assert result.evaluations["mine"].per_topic["AP"] == pytest.approx(expected["AP"], abs=1e-12)
    assert first.evaluations["mine"].means["AP"] != second.evaluations["mine"].means["AP"]
    assert first.evaluations["rrf"].means["AP"] != second.evaluations["rrf"].means["AP"]  # fused again
    assert first.evaluations["base"].means == second.evaluations["base"].means


@pytest.mark.java
def test_dry_run_plan_names_files_and_fusions(tmp_path):
    from harness.verbs.run import load, plan_run

    _file_run(tmp_path / "mine.trec")
    (tmp_path / "indexes").mkdir()
    (tmp_path / "c.yaml").write_text(HEAD + RUNS)
    runs = dict(plan_run(load(tmp_path / "c.yaml"), "run").runs)
    assert list(runs)[1:] == ["mine", "rrf", "interp", "mnz"]
    assert runs["mine"] == f"read {tmp_path / 'mine.trec'}"
    assert runs["rrf"] == "fuse base, mine (rrf)" and runs["mnz"] == "fuse base, mine, rrf (combmnz)"


# ------------------------------------------------------------------ bad input


def _problems(tmp_path, runs: str, compare: str = "") -> str:
    _file_run(tmp_path / "mine.trec")
    (tmp_path / "c.yaml").write_text(HEAD + "runs:\n" + runs + compare)
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path / "c.yaml")
    return str(e.value)


BASE = "  - {name: base, bm25: {}}\n  - {name: mine, file: mine.trec}\n"


@pytest.mark.parametrize(
    ("runs", "message"),
    [
        ("  - file: missing.trec\n", "c.yaml:8: runs[0].file: file not found: "),
        (BASE + "  - {name: mine, jm: {}}\n", "runs[2].name: 'mine' is also the name of runs[1]; names are unique"),
        (BASE + "  - fuse: {runs: [base, nope]}\n", "runs[2].fuse.runs[1]: no run 'nope' in this config"),
        (BASE + "  - {name: f, fuse: {runs: [base, f]}}\n", "runs[2].fuse.runs[1]: a fusion cannot fuse itself"),
        (
            BASE + "  - {name: f, fuse: {runs: [base, g]}}\n  - {name: g, fuse: {runs: [mine, f]}}\n",
            "runs[2].fuse.runs: the fusions form a cycle: runs[2] -> runs[3] -> runs[2]",
        ),
        (BASE + "  - fuse: {runs: [base, mine, base]}\n", "runs[2].fuse.runs[2]: 'base' is fused twice"),
        (
            BASE + "  - fuse: {method: interpolation, runs: [base]}\n",
            "runs[2].fuse.runs: interpolation fuses exactly two runs (got 1)",
        ),
        (
            BASE + "  - fuse: {method: rrf, norm: minmax, runs: [base, mine]}\n",
            "runs[2].fuse: norm and weights apply to combsum and combmnz only",
        ),
        (
            BASE + "  - fuse: {method: combsum, weights: [1], runs: [base, mine]}\n",
            "runs[2].fuse.weights: one weight per run (2 runs, 1 weights)",
        ),
        (
            BASE + "  - fuse: {method: borda, runs: [base, mine]}\n",
            "runs[2].fuse.method: must be one of rrf, interpolation",
        ),
        (BASE + "  - fuse: {runs: [base, mine], kk: 3}\n", "runs[2].fuse.kk: unknown key 'kk'"),
        (
            BASE + "  - file: other/mine.trec\n",
            "runs[2]: the name 'mine' is another run's name: give this entry a `name:`",
        ),
    ],
)
def test_bad_entries_are_named_by_key(tmp_path, runs, message):
    (tmp_path / "other").mkdir()
    _file_run(tmp_path / "other" / "mine.trec")
    assert message in _problems(tmp_path, runs)


def test_expect_and_baseline_name_file_and_fused_runs(tmp_path):
    _file_run(tmp_path / "mine.trec")
    (tmp_path / "c.yaml").write_text(
        HEAD + "runs:\n" + BASE + "  - fuse: {runs: [base, mine]}\n"
        "compare: {baseline: [mine, 'rrf(base, mine)']}\nexpect: {mine: {AP: 0.1}, 'file(mine.trec)': {RR: 1}}\n"
    )
    with pytest.raises(ConfigError, match="names the same run as expect.mine"):  # both name the file run
        load_config(tmp_path / "c.yaml")
    (tmp_path / "c.yaml").write_text((tmp_path / "c.yaml").read_text().replace(", 'file(mine.trec)': {RR: 1}", ""))
    cfg = load_config(tmp_path / "c.yaml")
    fused = "fuse(rrf,rrf_k=60,depth=1000,k=1000:bm25(k1=0.9,b=0.4)+file(mine.trec))"
    assert cfg.run_specs == ("bm25(k1=0.9,b=0.4)", "file(mine.trec)", fused)
    assert cfg.compare.baselines == ("file(mine.trec)", fused)
    assert cfg.expect == {"file(mine.trec)": {parse_measure("AP"): 0.1}}
    assert [cfg.name_of(n) for n in cfg.run_specs] == ["base", "mine", "rrf(base, mine)"]


@pytest.mark.java
@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.5 t\n1 Q0 d1 3 1.0 t\n", "mine.trec:3: duplicate document"),
        # the hint names what exists: the CLI flag and the API argument, no read option a config lacks
        ("1 Q0 d1 1 2.0 t\n1 Q0 d1 2 1.0 t\n", "`harness evaluate --duplicates drop` and duplicates='drop'"),
        ("1 Q0 d1 1 2.0 t\n99 Q0 d1 1 1.0 t\n", "mine.trec:2: topic '99' is not in the topics file"),
        # five fields: the missing column named, with the command that adds it (as `harness evaluate` says)
        (
            "1 Q0 d1 1 2.0\n",
            "mine.trec:1: expected at least 6 whitespace-separated fields (run: qid Q0 docid rank score tag format), "
            "got 5: '1 Q0 d1 1 2.0'. Five fields ending in a rank and a score: the run tag is missing",
        ),
    ],
)
def test_bad_run_files_stop_the_run_naming_file_and_line(tmp_path, lines, message):
    (tmp_path / "mine.trec").write_text(lines)
    (tmp_path / "c.yaml").write_text(HEAD + "runs:\n" + BASE)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run(
        [sys.executable, "-m", "harness", "run", "c.yaml"], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert r.stderr.rstrip().endswith(f"[the run 'mine' of {tmp_path / 'c.yaml'} (`file: mine.trec`)]")
    assert "indexing" not in r.stderr  # read and checked before anything is indexed
    with pytest.raises(DataError):
        from harness.verbs.run import load, run

        run(load(tmp_path / "c.yaml"))


# ------------------------------------------------------------------ the hybrid example and its docs


def _example(tmp_path) -> Path:
    """The example beside a copy of the qrels, as in the repository, with its own indexes/."""
    shutil.copytree(REPO / "examples" / "hybrid", tmp_path / "examples" / "hybrid")
    shutil.copytree(REPO / "qrels", tmp_path / "qrels")
    (tmp_path / "indexes").mkdir()
    return tmp_path


def test_the_example_vectors_are_what_make_vectors_makes(tmp_path):
    r = subprocess.run([sys.executable, str(REPO / "examples" / "hybrid" / "make_vectors.py"), str(tmp_path)])
    assert r.returncode == 0
    for name, key in (("doc-vectors.jsonl", "docid"), ("query-vectors.jsonl", "qid")):
        made = [json.loads(x) for x in (tmp_path / name).read_text().splitlines()]
        shipped = [json.loads(x) for x in (REPO / "examples" / "hybrid" / name).read_text().splitlines()]
        assert [x[key] for x in made] == [x[key] for x in shipped]
        assert np.allclose([x["vector"] for x in made], [x["vector"] for x in shipped], atol=2e-6)


@pytest.mark.java
def test_the_example_file_run_is_the_demo_bm25_run(experiment):
    folder, _ = experiment
    assert _lines(REPO / "examples" / "hybrid" / "bm25.trec") == _lines(folder / "out" / "runs" / "base.trec")


@pytest.mark.java
def test_hybrid_docs_commands_run_and_fuse_as_pyserini(tmp_path):
    from pyserini.fusion import reciprocal_rank_fusion
    from pyserini.trectools import TrecRun

    root = _example(tmp_path)
    cmds = commands("Hybrid runs")
    assert cmds and all(c.startswith(".venv/bin/harness ") for c in cmds)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for cmd in cmds:
        r = subprocess.run(
            [sys.executable, "-m", "harness", *cmd.split()[1:]], cwd=root, capture_output=True, text=True, env=env
        )
        assert r.returncode == 0, (cmd, r.stderr[-2000:])
    runs = root / "reports" / "hybrid" / "runs"
    parts = [TrecRun(filepath=str(runs / n)) for n in ("bm25.trec", "dense.trec")]
    reciprocal_rank_fusion(parts, rrf_k=60, depth=1000, k=1000).save_to_txt(str(tmp_path / "p.trec"), tag="t")
    assert _lines(runs / "rrf.trec") == _lines(tmp_path / "p.trec")
    with open(root / "reports" / "hybrid" / "comparisons.csv", newline="") as fh:
        pairs = {(c["baseline"], c["run"]) for c in csv.DictReader(fh)}
    assert {("bm25", "rrf"), ("dense", "rrf"), ("bm25", "combsum"), ("dense", "combsum")} <= pairs


def test_the_docs_show_the_example_config():
    text = section("Hybrid runs")
    shipped = (REPO / "examples" / "hybrid" / "hybrid.yaml").read_text()
    body = "".join(line + "\n" for line in shipped.splitlines() if not line.startswith("#"))
    assert f"```yaml\n{body}```" in text


@pytest.mark.java
def test_the_docs_entries_run_as_described(tmp_path):
    from harness.policies import FusionPolicy
    from harness.verbs.fuse import fuse

    block = section("Runs from files and fusions").split("```yaml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "runs").mkdir()
    _file_run(tmp_path / "runs" / "their-system.trec")
    result = _run(tmp_path, block)
    assert [r.name for r in result.runs] == ["base", "theirs", "rrf", "combsum(base, rrf)"]
    runs = tmp_path / "out" / "runs"
    fuse(
        [runs / "base.trec", runs / "rrf.trec"], FusionPolicy("combsum", norm="minmax", weights=(1, 2)), tmp_path / "f"
    )
    assert _lines(runs / "combsum_base_rrf.trec") == _lines(tmp_path / "f")  # label combsum(base, rrf)


def test_validate_lists_them_and_exits_2_on_a_bad_entry(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "harness", "validate"]
    r = subprocess.run([*argv, "examples/hybrid/hybrid.yaml"], cwd=REPO, capture_output=True, text=True, env=env)
    assert (r.returncode, r.stdout) == (
        0,
        "examples/hybrid/hybrid.yaml: OK — 4 run(s): knn(efSearch=100), bm25, rrf, combsum\n",
    )
    bad = _example(tmp_path) / "examples" / "hybrid" / "hybrid.yaml"
    bad.write_text(
        bad.read_text().replace(
            "{name: rrf, fuse: {method: rrf, runs: [bm25, dense]",
            "{name: rrf, fuse: {method: rrf, runs: [bm25, sparse]",
        )
    )
    r = subprocess.run([*argv, str(bad)], capture_output=True, text=True, env=env)
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines()[1:] == [
        f"  - {bad}:12: runs[2].fuse.runs[1]: no run 'sparse' in this config; its runs are: dense, bm25, rrf, combsum"
    ]


@pytest.mark.java
def test_judge_pools_the_searched_runs_only(tmp_path):
    from harness.verbs.judge import from_config

    _file_run(tmp_path / "mine.trec")
    (tmp_path / "indexes").mkdir()
    (tmp_path / "c.yaml").write_text(HEAD + "runs:\n" + BASE + "  - jm: {}\n  - fuse: {runs: [base, mine]}\n")
    cfg = load_config(tmp_path / "c.yaml")
    assert sorted(from_config(cfg).runs) == ["base", "jm"]
    assert list(from_config(cfg, ["jm"]).runs) == ["jm"]  # the fusion's searched part is not searched
