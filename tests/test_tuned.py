"""A cross-validated run is a run (harness.experiment.tuning): its file, evaluated by trec_eval
(pytrec_eval), gives the out-of-fold values that an independent re-implementation of the fold
method computes from the settings' own run files; its p-values against the baseline equal scipy's
on those values; and its config edge cases are validation errors with file and line."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from scipy import stats as sps

from harness.config import load_config
from harness.errors import ConfigError
from harness.experiment.execute import run_experiment
from harness.experiment.names import with_names

from .conftest import REPO, report_run, shared_path, write_full_report

MUS = (100, 250, 500, 1000, 2000, 4000)
BM25 = "bm25(k1=0.9,b=0.4)"
TUNED = "dirichlet(cv:AP,folds=5,seed=42)"
# what the report and a named result call them (the config's automatic names)
BM25_NAME, TUNED_NAME = "bm25", "dirichlet tuned"


def _trec(path: Path) -> dict:
    run: dict = {}
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return run


def _ap(run: dict, qrels: dict) -> dict[str, float]:
    """trec_eval -c: every judged topic, 0 where the run has nothing."""
    got = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    return {q: got[q]["map"] if q in got else 0.0 for q in qrels}


def _folds(topics: list[str], k: int, seed: int) -> list[list[str]]:
    """The documented fold method, written out again: topic ids sorted as text, permuted by
    numpy's default_rng(seed), split into k near-equal parts (the first len % k one longer)."""
    order = list(np.random.default_rng(seed).permutation(sorted(topics)))
    n, out, start = len(order), [], 0
    for i in range(k):
        size = n // k + (1 if i < n % k else 0)
        out.append([str(q) for q in order[start : start + size]])
        start += size
    return out


@pytest.fixture(scope="module")
def cranfield_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("tuned")
    cfg_path = out / "sweep.yaml"
    text = (REPO / "tests" / "configs" / "cranfield-sweep.yaml").read_text()
    cran = shared_path("collections", "cranfield")
    text = text.replace("../../../shared/collections/cranfield", str(cran)).replace(
        "../../reports/cranfield-sweep", str(out / "report")
    )
    cfg_path.write_text(text)
    (out / "indexes").mkdir()
    cfg = load_config(cfg_path)
    result = with_names(run_experiment(cfg))  # runs by their names, as the run verb
    write_full_report(result, cfg.output)
    return cfg, result, out / "report"


def test_the_tuned_run_file_gives_the_out_of_fold_values(cranfield_sweep):
    cfg, result, report = cranfield_sweep
    qrels: dict = {}
    for line in Path(cfg.qrels_path).read_text().splitlines():
        q, _, d, label = line.split()
        qrels.setdefault(q, {})[d] = int(label)
    settings = [f"dirichlet mu={mu}" for mu in MUS]
    per_setting = {s: _ap(_trec(report_run(report, s)), qrels) for s in settings}
    expected = {}
    for k, test in enumerate(_folds(list(qrels), 5, 42)):
        train = [q for q in qrels if q not in set(test)]
        means = [np.mean([per_setting[s][q] for q in train]) for s in settings]
        chosen = settings[int(np.argmax(means))]  # ties: the first setting in config order
        assert result.comparisons.tuning[0].folds[k].chosen == chosen
        expected.update({q: per_setting[chosen][q] for q in test})

    tuned_file = report_run(report, TUNED_NAME)
    oracle = _ap(_trec(tuned_file), qrels)
    for q in qrels:
        assert oracle[q] == pytest.approx(expected[q], abs=1e-12)
    with open(report / "per_topic.csv") as fh:
        ours = {row["qid"]: float(row["AP"]) for row in csv.DictReader(fh) if row["run"] == TUNED_NAME}
    assert set(ours) == set(qrels)
    for q in qrels:
        assert ours[q] == pytest.approx(oracle[q], abs=1e-12)
    tuning = result.comparisons.tuning[0]
    assert tuning.run == TUNED_NAME
    assert tuning.heldout_mean == pytest.approx(np.mean(list(oracle.values())), abs=1e-12)
    summary = json.loads((report / "summary.json").read_text())
    assert json.dumps(summary).count(TUNED_NAME) >= 1


def test_the_tuned_run_is_compared_with_the_baseline_like_any_run(cranfield_sweep):
    cfg, result, report = cranfield_sweep
    with open(report / "per_topic.csv") as fh:
        rows = [r for r in csv.DictReader(fh)]
    for measure in cfg.compare.measure_names:
        base = {r["qid"]: float(r[measure]) for r in rows if r["run"] == BM25_NAME}
        tuned = {r["qid"]: float(r[measure]) for r in rows if r["run"] == TUNED_NAME}
        qids = sorted(base)
        row = result.comparisons.row(measure, BM25_NAME, TUNED_NAME)
        assert row is not None
        want = sps.ttest_rel([tuned[q] for q in qids], [base[q] for q in qids]).pvalue
        assert row.p == pytest.approx(want, rel=1e-9, abs=1e-15)
    # in the same correction family as the settings: Holm over the 7 runs compared per measure
    ap_rows = [c for c in result.comparisons.rows if c.measure == "AP"]
    assert len(ap_rows) == len(MUS) + 1 and TUNED_NAME in [c.run for c in ap_rows]
    with open(report / "comparisons.csv") as fh:
        assert any(r["run"] == TUNED_NAME for r in csv.DictReader(fh))


def test_the_manifest_says_which_setting_each_fold_chose(cranfield_sweep):
    _, result, report = cranfield_sweep
    manifest = json.loads((report / "manifest.json").read_text())
    [entry] = [r for r in manifest["runs"] if r["name"] == TUNED_NAME]
    cv = entry["cross_validated"]
    assert cv["out_of_fold"] and cv["measure"] == "AP"
    assert [f["chosen"] for f in cv["folds"]] == [f.chosen for f in result.comparisons.tuning[0].folds]
    assert "out-of-fold" in (report / "summary.md").read_text()


# --- validation ---------------------------------------------------------------------------------

DEMO = """name: t
collection: {{path: {repo}/corpora, format: text-folder}}
topics: {repo}/topics/demo.tsv
qrels: {repo}/qrels/demo.txt
runs:
  - bm25: {{}}
  - dirichlet: {{mu: [500, 1000]}}
compare:
{compare}
output: {out}
"""


def _config(tmp_path, compare: str) -> Path:
    p = tmp_path / "c.yaml"
    p.write_text(DEMO.format(repo=REPO, compare=compare, out=tmp_path / "out"))
    return p


@pytest.mark.parametrize("block", ["  cross_validation:", "  cross_validation: null", "  cross_validation: {}"])
def test_a_bare_or_null_cross_validation_means_the_defaults(tmp_path, block):
    assert load_config(_config(tmp_path, block)).compare.folds == 5


def test_more_folds_than_judged_topics_is_a_validation_error_with_the_line(tmp_path):
    path = _config(tmp_path, "  cross_validation: {folds: 16}")  # the demo qrels judge 15 topics
    with pytest.raises(ConfigError) as e:
        load_config(path)
    msg = str(e.value)
    assert f"{path}:9: compare.cross_validation.folds: 16 folds need at least 16 judged topics" in msg
    assert "judge 15" in msg


@pytest.mark.java
def test_the_tuned_run_can_be_the_baseline(tmp_path):
    name = "dirichlet(cv:AP,folds=3,seed=42)"
    cfg = load_config(_config(tmp_path, f'  baseline: "{name}"\n  cross_validation: {{folds: 3}}'))
    assert cfg.compare.baselines == (name,)
    result = run_experiment(cfg)
    rows = [c for c in result.comparisons.rows if c.measure == "AP"]
    assert {c.baseline for c in rows} == {name} and {c.run for c in rows} == {
        BM25,
        "dirichlet(mu=500)",
        "dirichlet(mu=1000)",
    }
    bad = _config(tmp_path, '  baseline: "dirichlet(cv:AP,folds=4,seed=42)"\n  cross_validation: {folds: 3}')
    with pytest.raises(ConfigError, match=r"no run dirichlet\(cv:AP,folds=4,seed=42\) in this config; its runs are: "):
        load_config(bad)
