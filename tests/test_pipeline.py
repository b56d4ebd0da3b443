"""The spine end to end on Cranfield: config -> index -> runs -> metrics -> report, checked
against the collection's reference numbers and against trec_eval (pytrec_eval) per topic."""

from __future__ import annotations

import dataclasses
import json

import pytest
import pytrec_eval

from harness.config import load_config
from harness.experiment.execute import run_experiment
from harness.experiment.names import with_names

from .conftest import REPO, report_run, shared_path, write_full_report

TREC_EVAL = {
    "AP": "map",
    "nDCG@10": "ndcg_cut_10",
    "P@10": "P_10",
    "RR": "recip_rank",
    "R@1000": "recall_1000",
    "Rprec": "Rprec",
    "bpref": "bpref",
}


@pytest.fixture(scope="module")
def cranfield(tmp_path_factory, cranfield_index):
    cfg = load_config(REPO / "tests" / "configs" / "cranfield.yaml")
    out = tmp_path_factory.mktemp("report") / "cranfield"
    cfg = dataclasses.replace(cfg, index_path=cranfield_index.path, output=out)
    logs: list = []
    result = with_names(run_experiment(cfg, on=logs.append))  # runs by their names, as the run verb
    write_full_report(result, out)
    return cfg, result, out, logs


def read_trec(path):
    run = {}
    for line in open(path):
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return run


def test_reference_numbers(cranfield):
    cfg, result, _, _ = cranfield
    assert [str(c) for c in result.checks if not c.ok] == []
    assert len(result.checks) == 5
    means = result.evaluations["bm25"].means
    assert round(means["AP"], 4) == 0.2878 and round(means["nDCG@10"], 4) == 0.3508


def test_per_topic_equals_trec_eval(cranfield):
    cfg, result, out, _ = cranfield
    qrels = {}
    for line in open(shared_path("collections", "cranfield", "qrels.txt")):
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_EVAL.values()))
    assert [(r.name, str(r.spec)) for r in result.runs] == [
        ("bm25", "bm25(k1=0.9,b=0.4)"),
        ("dirichlet", "dirichlet(mu=1000)"),
        ("jm lambda=0.1", "jm(lambda=0.1)"),
        ("jm lambda=0.7", "jm(lambda=0.7)"),
    ]
    for r in result.runs:
        oracle = evaluator.evaluate(read_trec(report_run(out, r.name)))
        ev = result.evaluations[r.name]
        assert sorted(ev.topics) == sorted(oracle)
        for measure, name in TREC_EVAL.items():
            for qid, values in oracle.items():
                assert ev.per_topic[measure][qid] == pytest.approx(values[name], abs=1e-9), (r.name, measure, qid)


def test_report_files(cranfield):
    cfg, result, out, _ = cranfield
    assert sorted(p.name for p in out.iterdir()) == [
        ".harness-output.json",  # the marker: the harness wrote this folder and may replace it
        "manifest.json",
        "per_topic.csv",
        "report.html",
        "report.tex",
        "runs",
        "summary.csv",
        "summary.json",
        "summary.md",
    ]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["index"]["stats"]["documents"] == 1398
    assert manifest["versions"]["anserini"] == "2.3.0"
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["runs"][0]["run"], summary["runs"][0]["spec"]) == ("bm25", "bm25(k1=0.9,b=0.4)")
    rows = (out / "per_topic.csv").read_text().splitlines()
    assert len(rows) == 1 + 4 * 225
    md = (out / "summary.md").read_text()
    assert "| bm25 | 0.2878 |" in md


def test_second_invocation_recomputes_nothing(cranfield):
    cfg, first, _, _ = cranfield
    logs: list[str] = []
    again = run_experiment(cfg, on=logs.append)
    assert again.index.reused and all(r.reused for r in again.runs)
    for a, b in zip(first.runs, again.runs):
        assert a.run.topics() == b.run.topics()
        for q in a.run.topics():
            assert a.run.ranked(q)[0] == b.run.ranked(q)[0]
            assert (a.run.ranked(q)[1] == b.run.ranked(q)[1]).all()
