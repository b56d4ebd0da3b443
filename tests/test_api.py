"""The Python API: harness.run's tables equal what `harness run` writes for the same config;
harness.evaluate equals trec_eval (pytrec_eval) on files, DataFrames and dicts; harness.compare's
p-values equal scipy's and statsmodels'; harness.query equals the harness's runs and returns the
documents' own text. `import harness` loads nothing heavy."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from scipy import stats as sps

import harness
from harness.errors import ConfigError, DataError

from .conftest import REPO, multipletests, report_run

CONFIG = """\
name: api
collection: {path: corpora, format: text-folder}
topics: topics/demo.tsv
qrels: qrels/demo.txt
runs:
  - bm25: {k1: [0.9, 1.2], b: 0.4}
  - dirichlet: {mu: 1000}
depth: 100
measures: [AP, nDCG@10, P@10, RR]
compare: {baseline: "bm25(k1=0.9,b=0.4)", test: t, correction: holm}
output: OUTPUT
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A private indexes/ folder for this module's runs, for the API and the CLI alike."""
    tmp = tmp_path_factory.mktemp("api")
    old = os.environ.get("HARNESS_INDEXES")
    os.environ["HARNESS_INDEXES"] = str(tmp / "indexes")
    yield tmp
    if old is None:
        del os.environ["HARNESS_INDEXES"]
    else:
        os.environ["HARNESS_INDEXES"] = old


@pytest.fixture(scope="module")
def cli_and_api(env):
    """The same config run by `harness run` (a file in the repo's folder, relative paths) and by
    harness.run (a YAML string, relative paths resolved against the current directory)."""
    cfg = env / "cli.yaml"
    text = CONFIG
    for rel in ("corpora", "topics/demo.tsv", "qrels/demo.txt"):
        text = text.replace(f": {rel}", f": {REPO / rel}")
    cfg.write_text(text.replace("OUTPUT", str(env / "cli")))
    r = subprocess.run(
        [sys.executable, "-m", "harness", "run", str(cfg)], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stderr[-2000:]
    cwd = Path.cwd()
    os.chdir(REPO)
    try:
        result = harness.run(CONFIG.replace("OUTPUT", str(env / "api")))
    finally:
        os.chdir(cwd)
    return env / "cli", result


def _csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_import_harness_loads_nothing_heavy():
    code = (
        "import sys, harness\n"
        "heavy = [m for m in ('numpy', 'pandas', 'scipy', 'yaml', 'jnius') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "assert 'run' in dir(harness) and callable(harness.run) and 'harness.api' in sys.modules\n"
        "assert 'scipy' not in sys.modules and 'jnius' not in sys.modules\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        harness.nope  # noqa: B018


def test_run_writes_the_same_files_and_numbers_as_the_cli(cli_and_api):
    cli, result = cli_and_api
    api = result.output
    assert sorted(p.relative_to(api).as_posix() for p in api.rglob("*")) == sorted(
        p.relative_to(cli).as_posix() for p in cli.rglob("*")
    )
    # means: summary.csv
    summary = _csv(cli / "summary.csv")
    assert list(result.means.index) == [row["run"] for row in summary]
    assert list(result.means.columns) == ["AP", "nDCG@10", "P@10", "RR"]
    for row in summary:
        for m in result.means.columns:
            assert result.means.loc[row["run"], m] == float(row[m]), (row["run"], m)
    # per topic: per_topic.csv, long
    wide = _csv(cli / "per_topic.csv")
    assert len(result.per_topic) == len(wide) * 4
    got = {(r.run, r.qid, r.measure): r.value for r in result.per_topic.itertuples()}
    for row in wide:
        for m in ("AP", "nDCG@10", "P@10", "RR"):
            assert got[(row["run"], row["qid"], m)] == float(row[m])
    # comparisons: comparisons.csv, every field
    comp = _csv(cli / "comparisons.csv")
    assert list(result.comparisons.columns) == list(comp[0])
    assert len(result.comparisons) == len(comp) == 2 * 4
    for row, mine in zip(comp, result.comparisons.to_dict("records")):
        for k, v in row.items():
            assert str(mine[k]) == v or float(mine[k]) == float(v), (k, v, mine[k])
    assert "paired t-test" in result.comparisons.attrs["policy"]
    # runs: the TREC files
    for name in result.runs:
        lines = report_run(cli, name).read_text().splitlines()
        df = result.runs[name]
        assert list(df.columns) == ["qid", "docno", "rank", "score"]
        assert len(df) == len(lines)
        for line, row in zip(lines, df.itertuples()):
            q, _, d, rank, score, _ = line.split()
            assert (q, d, int(rank), float(score)) == (row.qid, row.docno, row.rank, row.score)
    # manifest: manifest.json, the same runs (reused: the CLI searched them first)
    manifest = json.loads((cli / "manifest.json").read_text())
    assert result.manifest == json.loads((api / "manifest.json").read_text())
    assert [r["sha256"] for r in result.manifest["runs"]] == [r["sha256"] for r in manifest["runs"]]
    assert result.manifest["config"]["path"] == str(REPO / "<config>")
    assert all(r["reused"] for r in result.manifest["runs"])
    assert result.ok and result.checks.empty


def test_compare_on_the_results_per_topic_equals_its_comparisons(cli_and_api):
    _, result = cli_and_api
    again = harness.compare(result.per_topic, baseline="bm25 k1=0.9", test="t", correction="holm")
    pd.testing.assert_frame_equal(again, result.comparisons)


def test_result_shows_its_summary(cli_and_api):
    _, result = cli_and_api
    page = result._repr_html_()
    assert "<table" in page and "bm25 k1=1.2" in page and "paired t-test" in page
    assert f"{result.means.loc['dirichlet', 'AP']:.4f}" in page
    assert "bm25 k1=0.9" in repr(result)
    assert list(result.topics.columns) == ["qid", "query"] and len(result.topics) == 15


def test_a_dict_config_resolves_paths_against_the_current_directory(env, monkeypatch):
    monkeypatch.chdir(REPO)
    cfg = {
        "name": "api-dict",
        "collection": {"path": "corpora", "format": "text-folder"},
        "topics": "topics/demo.tsv",
        "qrels": "qrels/demo.txt",
        "runs": [{"bm25": None}],
        "depth": 10,
        "measures": ["P@10", "RR"],
        "expect": {"bm25(k1=0.9,b=0.4)": {"P@10": 0.5}},
        "output": str(env / "dict"),
    }
    result = harness.run(cfg)
    qrels = {}
    for line in (REPO / "qrels/demo.txt").read_text().splitlines():
        q, _, d, label = line.split()
        qrels.setdefault(q, {})[d] = int(label)
    run = {}
    for row in result.runs["bm25(k1=0.9,b=0.4)"].itertuples():
        run.setdefault(row.qid, {})[row.docno] = row.score
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"P_10", "recip_rank"}).evaluate(run)
    assert result.means.loc["bm25", "P@10"] == pytest.approx(np.mean([v["P_10"] for v in ev.values()]), abs=1e-12)
    assert not result.ok and not result.checks["ok"].any()  # the expectation 0.5 is deliberately wrong
    assert (env / "dict" / "summary.md").exists()

    with pytest.raises(ConfigError) as e:
        harness.run({**cfg, "runs": [{"jm": {"lambda": 0}}], "depht": 5})
    assert "runs[0].jm.lambda: must be in (0, 1] (got 0)" in str(e.value)
    assert "unknown key 'depht'; did you mean 'depth'?" in str(e.value)


def test_a_dict_config_may_hold_paths_and_numpy_values(monkeypatch):
    """A config built in Python holds pathlib.Path and numpy values naturally: they are their
    text and Python's numbers (they were "the dict cannot be written as YAML")."""
    from harness.verbs.run import load

    monkeypatch.chdir(REPO)
    cfg = {
        "name": "api-dict",
        "collection": {"path": Path("corpora"), "format": "text-folder"},
        "topics": REPO / "topics/demo.tsv",
        "runs": [{"bm25": {"k1": np.float64(0.9), "b": np.linspace(0.3, 0.4, 2)}}],
        "depth": np.int64(10),
        "output": Path("reports/api-dict"),
    }
    loaded = load(cfg)
    assert [str(r) for r in loaded.runs] == ["bm25(k1=0.9,b=0.3)", "bm25(k1=0.9,b=0.4)"]
    assert loaded.depth == 10 and loaded.output == REPO / "reports/api-dict"
    with pytest.raises(ConfigError, match="cannot be written as YAML.*object"):
        load({**cfg, "name": object()})
    deep: dict = {}
    for _ in range(5000):
        deep = {"a": deep}
    with pytest.raises(ConfigError, match="cannot be written as YAML: it is nested too deeply"):
        load({**cfg, "x": deep})  # was a RecursionError
    with pytest.raises(ConfigError, match="an integer is thousands of digits long"):
        load({**cfg, "depth": 10**5000})  # was a ValueError (int_max_str_digits)


@pytest.mark.parametrize(
    "config, message",
    [
        (5, r"a config is a path, a YAML string or a dict \(got int\)"),  # was a TypeError
        ([{"name": "x"}], r"\(got list\)"),
        (b"name: x\n", r"\(got bytes\)"),
        ("", "the config is an empty string"),  # was "<cwd>: is a folder"
        ("   ", "the config is an empty string"),  # was "config file not found: <cwd>/   "
    ],
)
def test_run_refuses_configs_of_the_wrong_kind(config, message):
    with pytest.raises(ConfigError, match=message):
        harness.run(config)


# --- evaluate --------------------------------------------------------------------------------


def _synthetic(seed=3, topics=12, docs=40):
    """A run with tied scores and a qrels with graded labels, topics missing either side."""
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for t in range(topics):
        qid = f"q{t}"
        if t != 0:  # q0: judged, not in the run
            ids = rng.choice(docs, size=25, replace=False)
            run[qid] = {f"d{i}": float(rng.integers(0, 10)) for i in ids}
        if t != 1:  # q1: in the run, unjudged
            ids = rng.choice(docs, size=15, replace=False)
            qrels[qid] = {f"d{i}": int(rng.integers(0, 3)) for i in ids}
    return run, qrels


MEASURES = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5", "RR": "recip_rank", "R@20": "recall_20"}


@pytest.mark.parametrize("form", ["dict", "pyterrier", "ir_measures", "files"])
def test_evaluate_equals_pytrec_eval(form, tmp_path):
    run, qrels = _synthetic()
    expected = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values())).evaluate(run)
    if form == "pyterrier":
        r = pd.DataFrame([(q, d, s) for q, ds in run.items() for d, s in ds.items()], columns=["qid", "docno", "score"])
        r["rank"] = r.groupby("qid")["score"].rank(method="first", ascending=False).astype(int)
        q = pd.DataFrame(
            [(q, d, l) for q, ds in qrels.items() for d, l in ds.items()], columns=["qid", "docno", "label"]
        )
    elif form == "ir_measures":
        r = pd.DataFrame(
            [(q, d, s) for q, ds in run.items() for d, s in ds.items()], columns=["query_id", "doc_id", "score"]
        )
        q = pd.DataFrame(
            [(q, d, l) for q, ds in qrels.items() for d, l in ds.items()], columns=["query_id", "doc_id", "relevance"]
        )
    elif form == "files":
        r, q = tmp_path / "mine.trec", tmp_path / "qrels.txt"
        r.write_text("".join(f"{q_} Q0 {d} 0 {s} t\n" for q_, ds in run.items() for d, s in ds.items()))
        q.write_text("".join(f"{q_} 0 {d} {l}\n" for q_, ds in qrels.items() for d, l in ds.items()))
    else:
        r, q = run, qrels
    per_topic, means = harness.evaluate(r, q, list(MEASURES))
    assert list(per_topic.columns) == ["run", "qid", "measure", "value"]
    assert set(per_topic["run"]) == {"mine" if form == "files" else "run"}
    # trec_eval -c: q0 (judged, not in the run) scores 0 and counts in the mean; q1 is ignored
    assert set(per_topic["qid"]) == set(qrels)
    for m, te in MEASURES.items():
        rows = per_topic[per_topic["measure"] == m]
        for row in rows.itertuples():
            assert row.value == pytest.approx(expected[row.qid][te] if row.qid in expected else 0.0, abs=1e-12)
        assert means[m].iloc[0] == pytest.approx(rows["value"].sum() / len(qrels), abs=1e-12)
    assert means.attrs["audit"]["judged_missing_from_run"] == 1


def test_evaluate_keeps_the_topic_order_and_ranks_by_rank(cli_and_api):
    cli, result = cli_and_api
    name = "dirichlet"  # the run's name (its spec: dirichlet(mu=1000))
    assert result.runs["dirichlet(mu=1000)"] is result.runs[name]  # a spec finds the run too
    frame = result.runs[name]
    from_file, _ = harness.evaluate(cli / "runs" / f"{name}.trec", REPO / "qrels/demo.txt", ["AP", "P@5"], name=name)
    from_frame, _ = harness.evaluate(frame, REPO / "qrels/demo.txt", ["AP", "P@5"], name=name)
    pd.testing.assert_frame_equal(from_frame, from_file)
    pt = result.per_topic
    expected = pt[(pt["measure"] == "AP") & (pt["run"] == name)].reset_index(drop=True)
    pd.testing.assert_frame_equal(from_frame[from_frame["measure"] == "AP"].reset_index(drop=True), expected)
    # as-ranked follows the rank column, not the row order
    shuffled = frame.sample(frac=1, random_state=1)
    shuffled = shuffled.set_index("qid").loc[frame["qid"].unique()].reset_index()  # topics in order, rows not
    asr, _ = harness.evaluate(shuffled, REPO / "qrels/demo.txt", ["AP", "P@5"], name=name, ties="as-ranked")
    pd.testing.assert_frame_equal(asr, from_file)


def test_evaluate_bad_input_names_the_problem():
    run, qrels = _synthetic()
    with pytest.raises(DataError, match="no docno column: expected one of docno, doc_id, docid"):
        harness.evaluate(pd.DataFrame({"qid": ["1"], "doc": ["a"], "score": [1.0]}), qrels)
    with pytest.raises(DataError, match="unknown measure 'MAPP'.*did you mean 'map'"):
        harness.evaluate(run, qrels, ["MAPP"])
    with pytest.raises(DataError, match="missing_topics must be one of zero, drop"):
        harness.evaluate(run, qrels, missing_topics="skip")
    with pytest.raises(DataError, match="labels must be integers"):
        harness.evaluate(run, pd.DataFrame({"qid": ["q2"], "docno": ["d1"], "label": [0.5]}))
    with pytest.raises(DataError, match="file not found"):
        harness.evaluate("nope.trec", qrels)


RUN3 = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["d1", "d3", "d2"], "score": [2.0, 1.0, 3.0]})
QRELS3 = {"1": {"d1": 1, "d3": 0}, "2": {"d2": 1}}


@pytest.mark.parametrize(
    "run, qrels, message",
    [
        # duplicate or MultiIndex columns were a TypeError from pd.to_numeric
        (
            RUN3.assign(s2=1.0).set_axis(["qid", "docno", "score", "score"], axis=1),
            QRELS3,
            "column 'score' is given more than once",
        ),
        (
            RUN3.set_axis(pd.MultiIndex.from_tuples([("qid", "a"), ("docno", "b"), ("score", "c")]), axis=1),
            QRELS3,
            "column 'score' is given more than once",
        ),
        # float ids were read as '1.0', which no topic is: every score 0, no error
        (RUN3.assign(qid=[1.0, 1.0, 2.0]), QRELS3, r"column qid, row 0: ids are text or integers \(got 1.0"),
        (RUN3.assign(docno=["d1", True, "d2"]), QRELS3, r"column docno, row 1: .*\(got True, a boolean"),
        (RUN3, {1.0: {"d1": 1}}, "topic 1.0: ids are text or integers"),
        (RUN3, pd.DataFrame({"qid": [1.0], "docno": ["d1"], "label": [1]}), "column qid, row 0: ids are text"),
        # labels beyond int64 became garbage with numpy's "invalid value" warning
        (RUN3, pd.DataFrame({"qid": ["1"], "docno": ["d1"], "label": [np.inf]}), r"within 64 bits \(got inf\)"),
        (RUN3, pd.DataFrame({"qid": ["1"], "docno": ["d1"], "label": [1e30]}), r"within 64 bits \(got 1e\+30\)"),
        # only empty topics: an OverflowError in the join; a list read as pairs ('d' judged '1')
        (RUN3, {"1": {}}, "the qrels have no judgments"),
        (RUN3, {"1": ["d1"]}, r"topic '1': expected \{docno: label\} \(got list\)"),
    ],
)
def test_evaluate_refuses_tables_and_dicts_it_would_misread(run, qrels, message):
    with pytest.raises(DataError, match=message):
        harness.evaluate(run, qrels, ["AP"])


def test_a_qrels_dict_topic_without_judgments_is_left_out_as_pytrec_eval_does():
    qrels = {**QRELS3, "3": {}}  # was evaluated with AP 0: a mean of 2/3, not 1
    _, means = harness.evaluate(RUN3, qrels, ["AP"])
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate({"1": {"d1": 2.0, "d3": 1.0}, "2": {"d2": 3.0}})
    assert means.loc["run", "AP"] == np.mean([v["map"] for v in ev.values()]) == 1.0


@pytest.mark.parametrize("measures", [None, 5])
def test_measures_of_the_wrong_type_are_named(measures):
    with pytest.raises(DataError, match="measures: expected a measure name or a list of them"):
        harness.evaluate(RUN3, QRELS3, measures)  # was a TypeError


@pytest.mark.parametrize(
    "runs, kwargs, message",
    [
        # a string is iterable: each letter was a run file ("r: run file not found")
        ("run.trec", {}, "runs: expected a list of two or more runs .* got str"),
        ({"a": RUN3, "b": RUN3}, {}, "runs: expected a list .* got dict"),
        (None, {}, "got NoneType"),  # a TypeError
        ([RUN3, RUN3], {"output": 5}, r"output: expected a file path or None \(got int\)"),  # a TypeError
        ([RUN3, RUN3], {"duplicates": "x"}, "policy: duplicates must be one of"),  # a ValueError
    ],
)
def test_fuse_refuses_arguments_of_the_wrong_kind(runs, kwargs, message):
    with pytest.raises(DataError, match=message):
        harness.fuse(runs, **kwargs)


@pytest.mark.parametrize(
    "queries, message",
    [
        # the query ids were str(): 'nan', '1.0' (then matching no qrels topic), 'a b' (no TREC id)
        (pd.DataFrame({"qid": ["1", np.nan], "query": ["x", "y"]}), "column qid has a missing value at row 1"),
        (pd.DataFrame({"qid": [1.0, 2.0], "query": ["x", "y"]}), r"ids are text or integers \(got 1.0"),
        ({1.5: "x"}, r"ids are text or integers \(got 1.5"),
        ({"a b": "x"}, "ids must be non-empty and without whitespace"),
    ],
)
def test_query_refuses_query_ids_it_would_misread(queries, message):
    with pytest.raises(DataError, match=message):
        harness.query(REPO / "no-such-index", queries)  # refused before the index is opened


def test_search_still_resolves_but_is_no_longer_listed():
    """`harness.search` resolves for one release and warns when called (before anything else, so
    also when the call fails); `dir(harness)` and `__all__` list `query` in its place."""
    assert "query" in dir(harness) and "query" in harness.__all__
    assert "search" not in dir(harness) and "search" not in harness.__all__
    with pytest.warns(DeprecationWarning, match=r"harness\.search is now harness\.query"):
        with pytest.raises(DataError, match="ids must be non-empty and without whitespace"):
            harness.search(REPO / "no-such-index", {"a b": "x"})


# --- compare ---------------------------------------------------------------------------------


def _three_runs():
    run, qrels = _synthetic(topics=20)
    rng = np.random.default_rng(5)
    frames = []
    for name in ("base", "better", "noise"):
        noisy = {q: {d: s + (rng.normal() if name != "base" else 0) for d, s in ds.items()} for q, ds in run.items()}
        frames.append(harness.evaluate(noisy, qrels, ["AP", "nDCG@10"], name=name)[0])
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_compare_equals_scipy_and_statsmodels(test):
    per_topic = _three_runs()
    out = harness.compare(per_topic, baseline="base", test=test, correction="holm")
    assert list(out[["measure", "run"]].itertuples(index=False, name=None)) == [
        ("AP", "better"),
        ("AP", "noise"),
        ("nDCG@10", "better"),
        ("nDCG@10", "noise"),
    ]
    wide = per_topic.pivot_table(index=["measure", "qid"], columns="run", values="value")
    for m in ("AP", "nDCG@10"):
        rows = out[out["measure"] == m]
        raw = []
        for row in rows.itertuples():
            x, y = wide.loc[m]["base"].to_numpy(), wide.loc[m][row.run].to_numpy()
            fn = sps.ttest_rel if test == "t" else sps.wilcoxon
            expected = fn(y, x).pvalue
            assert row.p == pytest.approx(expected, rel=1e-12)
            assert row.diff == pytest.approx((y - x).mean(), abs=1e-15)
            assert (row.wins, row.ties, row.losses) == (sum(y > x), sum(y == x), sum(y < x))
            raw.append(expected)
        np.testing.assert_allclose(rows["p_corrected"], multipletests(raw, method="holm")[1], rtol=1e-12)


def test_compare_reads_pyterrier_and_wide_tables():
    per_topic = _three_runs()
    ours = harness.compare(per_topic, baseline="base", test="randomization", seed=7)
    pyterrier = per_topic.rename(columns={"run": "name"})  # pt.Experiment(perquery=True) columns
    pd.testing.assert_frame_equal(harness.compare(pyterrier, baseline="base", test="randomization", seed=7), ours)
    # the same topic order: seeded resampling (CI, randomization) depends on it
    wide = per_topic.pivot_table(index=["run", "qid"], columns="measure", values="value", sort=False).reset_index()
    wide = wide.rename(columns={"qid": "query_id"})
    got = harness.compare(wide, baseline="base", test="randomization", seed=7, measures=["AP", "nDCG@10"])
    pd.testing.assert_frame_equal(got, ours)
    pairs = harness.compare(per_topic, baseline="all-pairs", measures="AP", correction="none")
    assert list(zip(pairs["baseline"], pairs["run"])) == [("base", "better"), ("base", "noise"), ("better", "noise")]


def test_align_common_compares_on_the_shared_topics_and_says_which_were_left_out():
    import scipy.stats as sps

    per_topic = _three_runs()
    short = per_topic[~((per_topic["run"] == "noise") & (per_topic["qid"] == "q3"))]
    out = harness.compare(short, baseline="base", measures="AP", align="common")
    assert out.attrs["align"] == "common" and out.attrs["dropped_topics"] == ["q3"]
    kept = short[(short["measure"] == "AP") & (short["qid"] != "q3")]
    wide = kept.pivot(index="qid", columns="run", values="value")
    for row in out.itertuples():
        assert row.topics == len(wide)
        assert row.p == pytest.approx(sps.ttest_rel(wide[row.run], wide["base"]).pvalue, rel=1e-12)


def test_compare_errors_name_the_problem():
    per_topic = _three_runs()
    with pytest.raises(DataError, match="no run named 'bm25'; runs: base, better, noise"):
        harness.compare(per_topic, baseline="bm25")
    short = per_topic[~((per_topic["run"] == "noise") & (per_topic["qid"] == "q3"))]
    with pytest.raises(DataError) as e:
        harness.compare(short, baseline="base")
    assert str(e.value) == (
        "per_topic: AP: run 'noise' and run 'base' are scored on different topics: 1 topic(s) only 'base' has "
        "('q3'); paired tests need every run scored on the same topics (align='common' compares on the topics "
        "every run is scored on)"
    )
    with pytest.raises(DataError, match="test must be one of"):
        harness.compare(per_topic, test="z")


PER_TOPIC = pd.DataFrame(
    {"run": ["a", "a", "b", "b"], "qid": ["1", "2", "1", "2"], "measure": "AP", "value": [0.1, 0.2, 0.3, 0.5]}
)


@pytest.mark.parametrize(
    "per_topic, kwargs, message",
    [
        # a name that is no string or list was a TypeError
        (PER_TOPIC, {"baseline": 5}, r"baseline: expected a name or a list of names \(got 5\)"),
        (PER_TOPIC, {"runs": 5}, r"runs: expected a name or a list of names"),
        (PER_TOPIC, {"measures": ["AP", None]}, r"measures: expected a name or a list of names"),
        # NaN became the run, topic or measure 'nan' ("run nan and run 'a' are scored on different topics")
        (PER_TOPIC.assign(run=["a", np.nan, "b", "b"]), {}, "column run has a missing value at row 1"),
        (PER_TOPIC.assign(qid=["1", None, "1", "2"]), {}, "column qid has a missing value at row 1"),
        (PER_TOPIC.assign(measure=["AP", np.nan, "AP", "AP"]), {}, "column measure has a missing value at row 1"),
        (pd.concat([PER_TOPIC, PER_TOPIC[["value"]]], axis=1), {}, "column 'value' is given more than once"),
    ],
)
def test_compare_refuses_names_and_tables_it_would_misread(per_topic, kwargs, message):
    with pytest.raises(DataError, match=message):
        harness.compare(per_topic, **kwargs)


# --- query -----------------------------------------------------------------------------------


def test_query_equals_the_runs_and_returns_the_documents_text(cli_and_api):
    _, result = cli_and_api
    topics = result.topics
    hits = harness.query(result, topics, "bm25(k1=1.2,b=0.4)", k=5, text=True)
    run = result.runs["bm25(k1=1.2,b=0.4)"]
    top5 = run[run["rank"] <= 5].reset_index(drop=True)
    pd.testing.assert_frame_equal(hits[["qid", "docno", "rank", "score"]], top5)
    assert list(hits.columns) == ["qid", "query", "docno", "rank", "score", "text"]
    for row in hits.head(8).itertuples():
        assert row.text == (REPO / "corpora" / row.docno).read_text(encoding="utf-8")
    same = harness.query(result.index, dict(zip(topics["qid"], topics["query"])), "bm25", k=5, k1=1.2)
    pd.testing.assert_frame_equal(same, hits.drop(columns="text"))
    with pytest.raises(DataError, match="bm25 has no parameter mu"):
        harness.query(result, "x", "bm25", mu=3)
    with pytest.raises(DataError, match="query '1': expected a non-empty text"):
        harness.query(result, [""], "bm25")


def test_search_is_query_under_its_former_name_and_warns(cli_and_api):
    """harness.search, query's name before (`harness search CONFIG` means a config's runs): the
    same arguments give the same frame, with a DeprecationWarning naming harness.query, for one
    release; `harness.query` warns nothing."""
    _, result = cli_and_api
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = harness.query(result, result.topics, "bm25", k=5, text=True, k1=1.2)
    with pytest.warns(DeprecationWarning, match=r"harness\.search is now harness\.query") as seen:
        old = harness.search(result, result.topics, "bm25", k=5, text=True, k1=1.2)
    assert len(seen) == 1 and seen[0].filename == __file__  # the caller's line, not the API's
    pd.testing.assert_frame_equal(old, new)
    assert old.attrs == new.attrs


def test_registries_as_tables():
    from harness.metrics import MEASURES as REGISTRY
    from harness.specs.models import MODELS

    sims = harness.similarities()
    assert list(sims.itertuples(index=False, name=None))[0][:3] == ("bm25", "k1", 0.9)
    assert len(sims) == sum(len(m.params) for m in MODELS.values())
    assert list(harness.measures()["measure"]) == list(REGISTRY)


# Each door turns a policy value it refuses into a DataError naming the argument group
# (harness.api.frames.as_policy), before any run is read.
@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: harness.evaluate("nope.trec", "nope.txt", ties="random"), "policy: EvalPolicy.ties must be one of"),
        (lambda: harness.evaluate("nope.trec", "nope.txt", run_format="csv"), "policy: run_format must be one of"),
        (lambda: harness.fuse(["a.trec", "b.trec"], duplicates="keep"), "policy: duplicates must be one of"),
        (lambda: harness.compare(PER_TOPIC, align="loose"), "compare: align must be one of 'strict', 'common'"),
        (lambda: harness.compare(PER_TOPIC, alpha=2), r"compare: alpha must be a number in \(0, 1\) \(got 2\)"),
    ],
    ids=["evaluate-ties", "evaluate-run_format", "fuse-duplicates", "compare-align", "compare-alpha"],
)
def test_a_refused_policy_value_is_a_data_error_naming_its_group(call, message):
    with pytest.raises(DataError, match=f"^{message}"):
        call()
