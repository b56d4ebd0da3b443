"""harness.experiment.compare and the comparison reports: a Dirichlet mu sweep against BM25 on Cranfield
from one config (index built once, nothing recomputed the second time), and the written
comparisons checked against scipy and statsmodels on the report's own per_topic.csv."""

from __future__ import annotations

import csv
import dataclasses
import json

import numpy as np
import pytest
from scipy import stats as sps

from harness import stats
from harness.config import CompareSpec, load_config
from harness.errors import DataError
from harness.events import IndexReady, RunReady, RunsPlanned
from harness.experiment.compare import aligned_scores, compare_runs
from harness.experiment.execute import run_experiment
from harness.experiment.names import with_names
from harness.experiment.tuning import tune_sweeps
from harness.metrics import EvalPolicy, Evaluation
from harness.specs.similarity import Similarity
from harness.specs.sweeps import sweeps

from .conftest import REPO, multipletests, report_run, write_full_report

BM25 = "bm25(k1=0.9,b=0.4)"
MUS = (100, 250, 500, 1000, 2000, 4000)
STATSMODELS = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}


# --- pure: aligned vectors, sweeps, compare_runs ------------------------------------------------


def _ev(scores: dict[str, float], measure: str = "AP") -> Evaluation:
    return Evaluation(
        {measure: dict(scores)}, {measure: float(np.mean(list(scores.values())))}, list(scores), {}, EvalPolicy()
    )


def test_aligned_scores_pair_topics_and_name_the_difference():
    topics, scores, dropped = aligned_scores({"a": _ev({"1": 0.1, "2": 0.2}), "b": _ev({"2": 0.5, "1": 0.4})}, ["AP"])
    assert (topics, dropped) == (["1", "2"], ())
    assert scores["b"]["AP"].tolist() == [0.4, 0.5]
    evs = {"a": _ev({"1": 0.1, "2": 0.2, "3": 0.3}), "b": _ev({"1": 0.4, "2": 0.5})}
    with pytest.raises(DataError) as e:
        aligned_scores(evs, ["AP"])
    msg = str(e.value)
    assert "run 'b' and run 'a'" in msg and "('3')" in msg and "compare.align: common" in msg
    assert "missing_topics: zero" in msg
    topics, scores, dropped = aligned_scores(evs, ["AP"], "common")
    assert (topics, dropped, scores["a"]["AP"].tolist()) == (["1", "2"], ("3",), [0.1, 0.2])


def test_sweeps_are_models_with_several_settings():
    runs = [Similarity.parse(t) for t in (BM25, "dirichlet(mu=500)", "dirichlet(mu=1000)", "jm(lambda=0.1)")]
    [(model, group, varying)] = sweeps(runs)
    assert (model, [str(r) for r in group], varying) == (
        "dirichlet",
        ["dirichlet(mu=500)", "dirichlet(mu=1000)"],
        ["mu"],
    )


def test_compare_runs_equals_scipy_and_statsmodels_on_string_ordered_topics():
    import scipy.stats as sps

    rng = np.random.default_rng(7)
    names = [BM25, "dirichlet(mu=500)", "dirichlet(mu=1000)", "dirichlet(mu=2000)"]
    qids = [f"q{i}" for i in range(12)]
    evs = {n: _ev(dict(zip(qids, rng.random(12).round(3)))) for n in names}
    spec = CompareSpec((BM25,), False, ("AP",), stats.StatsPolicy(test="wilcoxon", correction="bh"), folds=3)
    runs = [Similarity.parse(n) for n in names]
    topics, scores, _ = aligned_scores(evs, ["AP"])
    tuned = tune_sweeps(runs, topics, scores, "AP", 3, 42)
    got = compare_runs(spec, runs, evs, tuned, order=names)  # the tuned run is reported, not compared here
    order = sorted(qids)  # trec_eval's order: q0, q1, q10, q11, q2, ...
    assert list(got.topics) == order and order[2] == "q10"
    x = np.array([evs[BM25].per_topic["AP"][q] for q in order])
    raw = []
    for row, name in zip(got.rows, names[1:]):
        y = np.array([evs[name].per_topic["AP"][q] for q in order])
        assert (row.baseline, row.run, row.topics) == (BM25, name, 12)
        assert row.p == pytest.approx(sps.wilcoxon(y, x).pvalue, rel=1e-12)
        assert row.diff == pytest.approx(float(np.mean(y - x)), abs=1e-15)
        assert (row.wins, row.ties, row.losses) == (int((y > x).sum()), int((y == x).sum()), int((y < x).sum()))
        raw.append(sps.wilcoxon(y, x).pvalue)
    np.testing.assert_allclose([r.p_corrected for r in got.rows], multipletests(raw, method="fdr_bh")[1], rtol=1e-12)
    [tuning] = got.tuning
    # the folds partition the topics; the held-out mean is each topic scored by its fold's choice
    tested = [q for f in tuning.folds for q in f.test_topics]
    assert sorted(tested) == order and len(tuning.folds) == 3
    heldout = [evs[f.chosen].per_topic["AP"][q] for f in tuning.folds for q in f.test_topics]
    assert tuning.heldout_mean == pytest.approx(float(np.mean(heldout)), abs=1e-15)


# --- Cranfield: one config, a mu sweep against BM25 ---------------------------------------------


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """The sweep run twice on a fresh index: (cfg, first, second, report of each, logs)."""
    tmp = tmp_path_factory.mktemp("sweep")
    cfg = load_config(REPO / "tests" / "configs" / "cranfield-sweep.yaml")
    cfg = dataclasses.replace(cfg, index_path=tmp / "index", output=tmp / "report")
    logs: list = []  # harness.events
    first = with_names(run_experiment(cfg, on=logs.append))  # runs by their names, as the run verb
    out1 = write_full_report(first, tmp / "report1")
    second = with_names(run_experiment(cfg, on=logs.append))
    out2 = write_full_report(second, tmp / "report2")
    return cfg, first, second, out1, out2, logs


def test_the_sweep_runs_from_one_config(sweep):
    cfg, first, _, _, _, _ = sweep
    # the tuned run (harness.experiment.tuning) follows its sweep's settings
    assert [str(r.spec) for r in first.runs] == [BM25] + [f"dirichlet(mu={m})" for m in MUS] + [
        "dirichlet(cv:AP,folds=5,seed=42)"
    ]
    # ... each by its name (the one bm25 run by its model alone)
    assert [r.name for r in first.runs] == ["bm25"] + [f"dirichlet mu={m}" for m in MUS] + ["dirichlet tuned"]
    assert len(first.comparisons.rows) == 3 * (len(MUS) + 1)
    assert first.comparisons.pairs == tuple(("bm25", f"dirichlet mu={m}") for m in MUS) + (("bm25", "dirichlet tuned"),)


def test_index_built_once_and_second_invocation_recomputes_nothing(sweep):
    cfg, first, second, out1, out2, logs = sweep
    assert not first.index.reused and not any(r.reused for r in first.runs)
    assert second.index.reused and all(r.reused for r in second.runs)
    assert first.index.path == second.index.path == cfg.index_path
    ready = [e for e in logs if isinstance(e, IndexReady)]
    assert [e.reused for e in ready] == [False, True]
    assert [e.total for e in logs if isinstance(e, RunsPlanned)] == [len(first.runs)] * 2
    made = ("searched", "assembled")  # a tuned run is assembled from the settings' runs
    runs = [e for e in logs if isinstance(e, RunReady)]
    assert sum(e.how in made for e in runs) == len(first.runs)
    assert sum(e.how == "reused" for e in runs) == len(second.runs)
    # ... and the reports say so
    m1, m2 = (json.loads((o / "manifest.json").read_text()) for o in (out1, out2))
    assert m1["index"]["reused"] is False and m2["index"]["reused"] is True
    assert [r["reused"] for r in m1["runs"]] == [False] * 8 and [r["reused"] for r in m2["runs"]] == [True] * 8
    assert [r["sha256"] for r in m1["runs"]] == [r["sha256"] for r in m2["runs"]]
    md = (out2 / "summary.md").read_text()
    for r in second.runs:
        file = report_run(out2, r.name).relative_to(out2).as_posix()
        assert file == "runs/" + r.name.replace(" ", "_") + ".trec"  # dirichlet_mu=100.trec
        assert f"| {r.name} | {file} | 225 |" in md and md.split(f"| {r.name} | {file}")[1].split("\n")[0].endswith(
            "| yes |"
        )
    assert "8 runs (8 reused from the cache)" in (out2 / "report.html").read_text()
    # the same numbers both times
    assert (
        json.loads((out1 / "comparisons.json").read_text())["comparisons"]
        == json.loads((out2 / "comparisons.json").read_text())["comparisons"]
    )


def _per_topic(out) -> dict[str, dict[str, dict[str, float]]]:
    """per_topic.csv as {run: {measure: {qid: value}}} (floats are written with repr: exact)."""
    table: dict = {}
    with open(out / "per_topic.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            run, qid = row.pop("run"), row.pop("qid")
            for m, v in row.items():
                table.setdefault(run, {}).setdefault(m, {})[qid] = float(v)
    return table


def _check_against_oracles(out, test: str, correction: str, family: str):
    report = json.loads((out / "comparisons.json").read_text())
    pol = report["policy"]
    assert (pol["test"], pol["correction"], pol["family"]) == (test, correction, family)
    per_topic = _per_topic(out)
    topics = report["topics"]
    rows = report["comparisons"]
    assert len(rows) == len(report["pairs"]) * len(pol["measures"])
    p_oracle = []
    for row in rows:
        base = per_topic[row["baseline"]][row["measure"]]
        run = per_topic[row["run"]][row["measure"]]
        assert sorted(base) == sorted(run) == sorted(topics)  # aligned on the same topics
        a = np.array([run[q] for q in topics])
        b = np.array([base[q] for q in topics])
        p = sps.ttest_rel(a, b).pvalue if test == "t" else sps.wilcoxon(a, b).pvalue
        assert row["p"] == pytest.approx(p, rel=1e-9, abs=1e-14), row
        p_oracle.append(p)
        d = a - b
        assert row["topics"] == len(topics)
        assert row["mean_run"] == pytest.approx(a.mean(), abs=1e-12)
        assert row["mean_baseline"] == pytest.approx(b.mean(), abs=1e-12)
        assert row["diff"] == pytest.approx(d.mean(), abs=1e-12)
        assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-9)
        assert (row["wins"], row["ties"], row["losses"]) == (
            int((d > 0).sum()),
            int((d == 0).sum()),
            int((d < 0).sum()),
        )
        lo, hi = stats.bootstrap_ci(a, b, pol["ci_level"], pol["bootstrap_samples"], pol["seed"])
        assert (row["ci_low"], row["ci_high"]) == (lo, hi) and lo <= row["diff"] <= hi
    families: dict = {}
    for i, row in enumerate(rows):
        families.setdefault(row["measure"] if family == "per-measure" else None, []).append(i)
    for idx in families.values():
        expected = multipletests([p_oracle[i] for i in idx], alpha=pol["alpha"], method=STATSMODELS[correction])[1]
        for i, q in zip(idx, expected):
            assert rows[i]["p_corrected"] == pytest.approx(q, rel=1e-9, abs=1e-14)
            assert rows[i]["reject"] == bool(rows[i]["p_corrected"] < pol["alpha"])
    return report


def test_written_comparisons_equal_scipy_and_statsmodels(sweep):
    _, _, _, out1, _, _ = sweep
    report = _check_against_oracles(out1, "t", "holm", "per-measure")
    assert any(r["reject"] for r in report["comparisons"])  # Cranfield: BM25 vs mu=4000 differs


def test_written_comparisons_with_wilcoxon_and_bh_over_all(sweep, tmp_path):
    cfg, _, _, _, _, _ = sweep
    policy = dataclasses.replace(cfg.compare.policy, test="wilcoxon", correction="bh", family="all")
    cfg = dataclasses.replace(cfg, compare=dataclasses.replace(cfg.compare, policy=policy))
    result = run_experiment(cfg)
    assert result.index.reused and all(r.reused for r in result.runs)
    _check_against_oracles(write_full_report(result, tmp_path / "r"), "wilcoxon", "bh", "all")


def test_cross_validation_and_not_worse_than_best_in_the_report(sweep):
    _, first, _, out1, _, _ = sweep
    report = json.loads((out1 / "comparisons.json").read_text())
    per_topic = _per_topic(out1)
    [cv] = report["cross_validation"]
    assert (cv["model"], cv["measure"], len(cv["folds"])) == ("dirichlet", "AP", 5)
    folds = cv["folds"]
    assert sorted(q for f in folds for q in f["test_topics"]) == sorted(report["topics"])
    heldout = [per_topic[f["chosen"]]["AP"][q] for f in folds for q in f["test_topics"]]
    assert cv["heldout_mean"] == pytest.approx(np.mean(heldout), abs=1e-12)
    for f in folds:  # the chosen setting is the best on the other folds' topics
        train = [q for q in report["topics"] if q not in set(f["test_topics"])]
        means = {f"dirichlet mu={m}": np.mean([per_topic[f"dirichlet mu={m}"]["AP"][q] for q in train]) for m in MUS}
        assert f["chosen"] == max(means, key=means.get)
        assert f["train_mean"] == pytest.approx(means[f["chosen"]], abs=1e-12)
    [sw] = report["sweeps"]
    assert sw["model"] == "dirichlet" and sw["varying"] == ["mu"]
    for m, keep in sw["not_worse_than_best"].items():
        best = max(sw["runs"], key=lambda n: first.evaluations[n].means[m])
        assert best in keep
    md = (out1 / "summary.md").read_text()
    assert "### Cross-validated dirichlet on AP (5 folds)" in md and "Held-out AP: **" in md


def test_markdown_and_latex_mark_significant_differences(sweep):
    _, first, _, out1, _, _ = sweep
    md = (out1 / "summary.md").read_text()
    assert str(first.comparisons.policy) in md
    significant = [c for c in first.comparisons.rows if c.reject]
    assert significant
    assert "| p | corrected p | significant | W/T/L |" in md  # the column is named
    for c in significant:
        way, word = ("▲", "better") if c.diff > 0 else ("▼", "worse")
        line = next(l for l in md.splitlines() if l.startswith(f"| {c.measure} | {c.baseline} | {c.run} |"))
        assert f"| {way} {word} |" in line
        row = next(l for l in md.splitlines() if l.startswith(f"| {c.run} | "))
        assert f"{first.evaluations[c.run].means[c.measure]:.4f}†{way}" in row
    # every significant difference of this sweep is worse than BM25: the legend says that one, and
    # no "†▲" line claims a better run where there is none (issue 47)
    assert {c.diff < 0 for c in significant} == {True}
    assert "†▼: significantly worse than bm25 (corrected p < 0.05)  \n" in md and "†▲" not in md
    tex = (out1 / "report.tex").read_text()
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    assert r"$^{\dagger\downarrow}$" in tex and r"\uparrow" not in tex and "Holm-Bonferroni" in tex
    rows = list(csv.DictReader(open(out1 / "comparisons.csv", newline="")))
    assert len(rows) == len(first.comparisons.rows) and float(rows[0]["p"]) == first.comparisons.rows[0].p
