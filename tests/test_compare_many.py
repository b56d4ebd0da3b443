"""Many systems in a comparison (issue 49, items 3 and 5), through every door: `compare.test:
tukey | randomized-tukey`, `compare.anova`, `compare.power` in a config, `harness compare` and
`harness.compare`. The written p-values, ANOVA tables and power rows are checked against
harness.stats on the report's own per_topic.csv and, independently, against statsmodels' anova_lm
and TTestPower/FTestAnovaPower, scipy's studentized range and a plain loop of the randomised
test's permutations; the letters and the best group against the p-values they are read from."""

from __future__ import annotations

import csv
import dataclasses
import doctest
import io
import itertools
import json
import math
import re
import shlex
import subprocess
import sys
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import yaml
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.power import FTestAnovaPower, TTestPower

import harness
from harness import stats
from harness.cli import main
from harness.config import load_config
from harness.errors import ConfigError, DataError
from harness.experiment.execute import run_experiment
from harness.policies import PowerPolicy

from .conftest import REPO, demo_config, report_run, write_full_report
from .docs import commands, section
from .study_data import FIVE
from .test_stats_tukey import _reference

MEASURES = ["AP", "nDCG@10"]


# --- the config's keys: one error per mistake, before anything runs --------------------------------


def _compare(tmp_path, compare) -> object:
    """configs/demo.yaml with ``compare`` (a dict) loaded from tmp_path: its CompareSpec, or the
    ConfigError's [(path, message)]."""
    cfg = yaml.safe_load((REPO / "configs" / "demo.yaml").read_text())
    cfg["compare"] = compare
    (tmp_path / "configs").mkdir(exist_ok=True)
    for d in ("corpora", "topics", "qrels"):
        if not (tmp_path / d).exists():
            (tmp_path / d).symlink_to(REPO / d)
    path = tmp_path / "configs" / "x.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    try:
        return load_config(path).compare
    except ConfigError as e:
        return [(p.path, p.message) for p in e.problems]


@pytest.mark.parametrize(
    "compare, path, words",
    [
        (
            {"test": "tukey", "correction": "holm"},
            "compare.correction",
            "test tukey tests every pair of runs at once and its p-values are family-wise already, so no "
            "correction applies (got holm); remove `correction` or write `correction: none`",
        ),
        ({"test": "randomized-tukey", "correction": "bh"}, "compare.correction", "(got bh)"),
        ({"test": "tukee"}, "compare.test", "(got 'tukee'); did you mean 'tukey'?"),
        ({"anova": "yes please"}, "compare.anova", "expected true or false"),
        ({"power": {"power": 1.5}}, "compare.power.power", "must be a number in (0, 1) (got 1.5)"),
        ({"power": {"difference": 0}}, "compare.power.difference", "must be a number > 0 (got 0)"),
        ({"power": {"powr": 0.9}}, "compare.power.powr", "unknown key 'powr'; did you mean 'power'?"),
        ({"power": 0.9}, "compare.power", "(or true: its defaults; false: off), got the number 0.9"),
    ],
)
def test_each_mistake_is_one_error_at_its_key(tmp_path, compare, path, words):
    [(where, message)] = _compare(tmp_path, compare)
    assert where == path and words in message, message


def test_the_keys_defaults_and_what_a_many_system_test_implies(tmp_path):
    spec = _compare(tmp_path, {"test": "tukey"})
    # every pair, no correction, the ANOVA; no power unless asked
    assert (spec.all_pairs, spec.baselines, spec.policy.correction, spec.anova, spec.power) == (
        True,
        (),
        "none",
        True,
        None,
    )
    spec = _compare(tmp_path, {"test": "randomized-tukey", "correction": "none", "baseline": "jm(lambda=0.1)"})
    assert (spec.all_pairs, spec.baselines, spec.anova) == (False, ("jm(lambda=0.1)",), True)
    spec = _compare(tmp_path, {"test": "tukey", "anova": False, "power": True})
    assert (spec.anova, spec.power) == (False, PowerPolicy(0.8, 0.05))
    spec = _compare(tmp_path, {"anova": True, "power": {"difference": 0.02}})
    assert (spec.policy.test, spec.policy.correction, spec.all_pairs, spec.anova) == ("t", "holm", False, True)
    assert spec.power == PowerPolicy(0.8, 0.02)
    assert _compare(tmp_path, {"power": False}).power is None
    assert _compare(tmp_path, {}).anova is False


def test_the_policies_refuse_a_correction_for_a_many_system_test():
    with pytest.raises(ValueError, match="correction must be 'none' with test 'tukey'"):
        stats.StatsPolicy(test="tukey")
    # stats.compare's overrides: the test's own correction unless one is given
    scores = {
        r: {"AP": np.array(v)} for r, v in (("a", [0.1, 0.4, 0.3]), ("b", [0.2, 0.6, 0.3]), ("c", [0.5, 0.5, 0.4]))
    }
    rows = stats.compare(scores, stats.all_pairs(["a", "b", "c"]), test="tukey")
    assert [r.p for r in rows] == [
        p.p for p in stats.tukey_hsd(np.column_stack([scores[r]["AP"] for r in "abc"]), list("abc")).pairs
    ]
    assert [r.p_corrected for r in rows] == [r.p for r in rows]
    with pytest.raises(ValueError, match="tests every pair of runs at once"):
        stats.paired_test([0.1, 0.2], [0.2, 0.3], "randomized-tukey")


# --- the API on Cranfield's five runs (no JVM) ----------------------------------------------------


@pytest.fixture(scope="module")
def five():
    """tests/data/cranfield-five's per_topic.csv, and its AP and nDCG@10 matrices (topics in
    trec_eval's order: ids as strings, as harness.compare pairs them) with the runs' names."""
    df = pd.read_csv(FIVE, dtype={"qid": str})
    runs = list(dict.fromkeys(df["run"]))
    topics = sorted(set(df["qid"]))
    x = {m: df.pivot(index="qid", columns="run", values=m).loc[topics, runs].to_numpy() for m in MEASURES}
    return df, runs, x


def _anova_lm(x: np.ndarray) -> pd.DataFrame:
    n, m = x.shape
    frame = pd.DataFrame({"score": x.ravel(), "topic": np.repeat(np.arange(n), m), "system": np.tile(np.arange(m), n)})
    return anova_lm(ols("score ~ C(system) + C(topic)", frame).fit())


def _classic_oracle(x: np.ndarray) -> list[float]:
    """Each pair's classic Tukey HSD p, from anova_lm's residual mean square and df and scipy's
    studentized range (pairs in all-pairs order)."""
    table = _anova_lm(x)
    mse, df = table.loc["Residual", "mean_sq"], table.loc["Residual", "df"]
    n, m = x.shape
    means = x.mean(axis=0)
    q = [abs(means[j] - means[i]) / math.sqrt(mse / n) for i, j in itertools.combinations(range(m), 2)]
    return [float(scipy.stats.studentized_range.sf(v, m, df)) if v > 0 else 1.0 for v in q]


def test_api_classic_tukey_is_scipys_studentized_range_on_anova_lms_residual(five):
    df, runs, x = five
    out = harness.compare(df, test="tukey", measures=MEASURES)
    assert out.attrs["policy"].startswith("classic Tukey HSD") and "no correction needed" in out.attrs["policy"]
    for m in MEASURES:
        rows = out[out["measure"] == m]
        assert list(zip(rows["baseline"], rows["run"])) == stats.all_pairs(runs)  # every pair, by default
        ours = stats.tukey_hsd(x[m], runs)
        assert rows["p"].tolist() == [p.p for p in ours.pairs]
        np.testing.assert_allclose(rows["p"], _classic_oracle(x[m]), rtol=1e-9, atol=1e-12)
        assert rows["p_corrected"].tolist() == rows["p"].tolist()  # family-wise already
        assert rows["reject"].tolist() == [p < 0.05 for p in rows["p"]]
        # the ANOVA table (with a many-system test by default) is anova_lm's
        anova = pd.DataFrame(out.attrs["anova"])
        got = anova[anova["measure"] == m].set_index("source")
        want = _anova_lm(x[m])
        for source, name in (("system", "C(system)"), ("topic", "C(topic)"), ("residual", "Residual")):
            assert got.loc[source, "df"] == want.loc[name, "df"]
            for col in ("sum_sq", "mean_sq", "F", "p"):
                ref = want.loc[name, col if col != "p" else "PR(>F)"]
                assert got.loc[source, col] == pytest.approx(ref, rel=1e-9, nan_ok=True), (source, col)


def test_api_randomised_tukey_is_the_plain_permutation_loop(five):
    df, runs, x = five
    small = df[df["qid"].isin(sorted(set(df["qid"]))[:12])]  # 12 topics: the plain loop is slow
    out = harness.compare(small, test="randomized-tukey", measures=["AP"], permutations=300, seed=3)
    xs = x["AP"][:12]
    assert out["p"].tolist() == _reference(xs, 300, 3)  # the draws rebuilt one topic at a time
    assert out["p"].tolist() == [p.p for p in stats.randomized_tukey_hsd(xs, runs, 300, 3).pairs]
    assert "(300 permutations, seed 3)" in out.attrs["policy"]


def test_api_letters_and_best_group_follow_the_p_values(five):
    df, runs, _ = five
    out = harness.compare(df, test="tukey", measures=MEASURES)
    groups = pd.DataFrame(out.attrs["groups"])
    assert list(groups.columns) == ["measure", "run", "mean", "letters", "indistinguishable_from_best"]
    for m in MEASURES:
        g = groups[groups["measure"] == m].set_index("run")
        p = {frozenset((r.baseline, r.run)): r.p for r in out[out["measure"] == m].itertuples()}
        best = g["mean"].idxmax()
        for a, b in itertools.combinations(runs, 2):
            assert bool(set(g.loc[a, "letters"]) & set(g.loc[b, "letters"])) == (p[frozenset((a, b))] >= 0.05)
        for r in runs:
            assert g.loc[r, "indistinguishable_from_best"] == (r == best or p[frozenset((r, best))] >= 0.05)
    assert any(not v for v in groups["indistinguishable_from_best"])  # Cranfield's five do differ


def _power_oracle(x: np.ndarray, runs, pairs, alpha: float, power: float, difference: float) -> list[dict]:
    """power.csv's rows by statsmodels: the detectable effect by TTestPower.solve_power times the
    sd of the differences; the topics needed by its power at that many topics and one fewer; the
    ANOVA design by FTestAnovaPower with Sakai's f = D / sqrt(2 m sigma**2)."""
    n, m = x.shape
    where = {r: i for i, r in enumerate(runs)}
    tt = TTestPower()
    out = []
    effect = tt.solve_power(nobs=n, alpha=alpha, power=power)
    for b, r in pairs:
        d = x[:, where[r]] - x[:, where[b]]
        sd = d.std(ddof=1)
        out.append(dict(baseline=b, run=r, topics=n, sd=sd, detectable_difference=effect * sd))
    var = ((x - x.mean(axis=0)) ** 2).sum() / (m * (n - 1))
    out.append(dict(baseline=None, run=None, topics=n, sd=math.sqrt(var), variance=var, systems=m))
    return out


def _t_power(effect: float, topics: int, alpha: float) -> float:
    """statsmodels' TTestPower().power; where it is NaN (its lower tail, scipy's noncentral t at a
    large noncentrality on few degrees of freedom), the upper tail alone by scipy: the lower one
    is below Phi(-noncentrality), nothing at such an effect."""
    p = TTestPower().power(effect, topics, alpha)
    if math.isnan(p):
        p = scipy.stats.nct.sf(scipy.stats.t.isf(alpha / 2, topics - 1), topics - 1, effect * math.sqrt(topics))
    return float(p)


def _check_power(rows: list[dict], x, runs, pairs, alpha, power, difference):
    want = _power_oracle(x, runs, pairs, alpha, power, difference)
    assert len(rows) == len(want)
    for got, ref in zip(rows, want):
        assert (got["baseline"], got["run"], got["topics"]) == (ref["baseline"], ref["run"], ref["topics"])
        assert (got["alpha"], got["power"], got["difference"]) == (alpha, power, difference)
        assert got["sd"] == pytest.approx(ref["sd"], rel=1e-12)
        k = got["topics_needed"]
        if got["run"] is not None:  # statsmodels' root finder stops short by 2e-5: the value, not its digits
            assert got["detectable_difference"] == pytest.approx(ref["detectable_difference"], rel=1e-4)
            es = difference / got["sd"]
            assert _t_power(es, k, alpha) >= power and (k == 2 or _t_power(es, k - 1, alpha) < power)
        else:  # Sakai's ANOVA design, as statsmodels' FTestAnovaPower
            m = ref["systems"]
            to_f = 1 / math.sqrt(2 * m * ref["variance"])
            fp = FTestAnovaPower()
            assert fp.power(got["detectable_difference"] * to_f, m * ref["topics"], alpha, k_groups=m) == pytest.approx(
                power, abs=1e-9
            )
            assert fp.power(difference * to_f, m * k, alpha, k_groups=m) >= power
            assert fp.power(difference * to_f, m * (k - 1), alpha, k_groups=m) < power


def test_api_power_rows_are_statsmodels(five):
    df, runs, x = five
    out = harness.compare(df, baseline=runs[0], measures=MEASURES, power={"power": 0.9, "difference": 0.03}, anova=True)
    rows = out.attrs["power"]
    pairs = stats.pairs_against(runs[0], runs)
    for m in MEASURES:
        _check_power([r for r in rows if r["measure"] == m], x[m], runs, pairs, 0.05, 0.9, 0.03)
    # the paired rows alone without the ANOVA; the defaults with power=True
    out = harness.compare(df, measures=["AP"], power=True)
    assert [r["run"] for r in out.attrs["power"]] == runs[1:] and "anova" not in out.attrs
    assert {(r["power"], r["difference"]) for r in out.attrs["power"]} == {(0.8, 0.05)}


def test_api_mistakes_name_the_argument(five):
    df, _, _ = five
    with pytest.raises(DataError, match="correction must be 'none' with test 'tukey'"):
        harness.compare(df, test="tukey", correction="holm")
    with pytest.raises(DataError, match=r"power: unknown setting\(s\) 'level'"):
        harness.compare(df, power={"level": 0.9})
    with pytest.raises(DataError, match=r"power must be a number in \(0, 1\) \(got 2\)"):
        harness.compare(df, power={"power": 2})
    with pytest.raises(DataError, match="anova must be True, False or None"):
        harness.compare(df, anova="yes")


# --- a config on the demo collection: every file, every format, and the other doors -------------

POWER = {"power": 0.9, "difference": 0.03}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo's five runs compared by the randomised Tukey HSD (500 permutations: the plain loop
    re-draws them) with the power table; then by the classic test, the runs reused."""
    tmp = tmp_path_factory.mktemp("many")
    extra = (
        "compare: {test: randomized-tukey, permutations: 500, measures: [AP, nDCG@10], "
        f"power: {{power: {POWER['power']}, difference: {POWER['difference']}}}}}\n"
    )
    path = demo_config(tmp, extra)
    result = harness.run(path)  # the Python API's door to a config: the report and its tables
    cfg = load_config(path)
    policy = dataclasses.replace(cfg.compare.policy, test="tukey")
    classic = dataclasses.replace(cfg, compare=dataclasses.replace(cfg.compare, policy=policy))
    out_classic = write_full_report(run_experiment(classic), tmp / "classic")
    return result, result.output, out_classic


def _csv(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _matrix(out, measure: str) -> tuple[np.ndarray, list[str]]:
    """per_topic.csv's topics x runs matrix of ``measure`` (runs in its order, topics as ids sorted
    as strings: the compare's pairing) and the runs."""
    rows = _csv(out / "per_topic.csv")
    runs = list(dict.fromkeys(r["run"] for r in rows))
    value = {(r["run"], r["qid"]): float(r[measure]) for r in rows}
    topics = sorted({r["qid"] for r in rows})
    return np.array([[value[(r, t)] for r in runs] for t in topics]), runs


@pytest.mark.java
def test_comparisons_csv_carries_the_tests_p_values(demo):
    _, out, out_classic = demo
    for folder, test in ((out, "randomized"), (out_classic, "classic")):
        rows = _csv(folder / "comparisons.csv")
        for m in MEASURES:
            x, runs = _matrix(folder, m)
            got = [r for r in rows if r["measure"] == m]
            assert [(r["baseline"], r["run"]) for r in got] == stats.all_pairs(runs)
            p = [float(r["p"]) for r in got]
            if test == "randomized":
                assert p == [q.p for q in stats.randomized_tukey_hsd(x, runs, 500, 42).pairs]
                assert p == _reference(x, 500, 42)
            else:
                assert p == [q.p for q in stats.tukey_hsd(x, runs).pairs]
                np.testing.assert_allclose(p, _classic_oracle(x), rtol=1e-9, atol=1e-12)
            assert [float(r["p_corrected"]) for r in got] == p
            assert [r["reject"] == "True" for r in got] == [q < 0.05 for q in p]


@pytest.mark.java
def test_anova_csv_is_anova_lm_on_per_topic_csv(demo):
    _, out, _ = demo
    rows = _csv(out / "anova.csv")
    assert list(rows[0]) == ["measure", "source", "df", "sum_sq", "mean_sq", "F", "p"]
    assert [(r["measure"], r["source"]) for r in rows] == [
        (m, s) for m in MEASURES for s in ("system", "topic", "residual")
    ]
    for m in MEASURES:
        x, _ = _matrix(out, m)
        want = _anova_lm(x)
        for r, name in zip([r for r in rows if r["measure"] == m], ("C(system)", "C(topic)", "Residual")):
            assert int(r["df"]) == want.loc[name, "df"]
            assert float(r["sum_sq"]) == pytest.approx(want.loc[name, "sum_sq"], rel=1e-9)
            assert float(r["mean_sq"]) == pytest.approx(want.loc[name, "mean_sq"], rel=1e-9)
            if name == "Residual":
                assert r["F"] == r["p"] == ""
            else:
                assert float(r["F"]) == pytest.approx(want.loc[name, "F"], rel=1e-9)
                assert float(r["p"]) == pytest.approx(want.loc[name, "PR(>F)"], rel=1e-9, abs=1e-300)


@pytest.mark.java
def test_power_csv_is_statsmodels_on_the_observed_sd(demo):
    _, out, _ = demo
    rows = _csv(out / "power.csv")
    assert list(rows[0]) == [
        "measure",
        "baseline",
        "run",
        "topics",
        "sd",
        "alpha",
        "power",
        "detectable_difference",
        "difference",
        "topics_needed",
    ]
    typed = [
        {
            **r,
            "baseline": r["baseline"] or None,
            "run": r["run"] or None,
            **{k: float(r[k]) for k in ("sd", "alpha", "power", "detectable_difference", "difference")},
            **{k: int(r[k]) for k in ("topics", "topics_needed")},
        }
        for r in rows
    ]
    for m in MEASURES:
        x, runs = _matrix(out, m)
        mine = [r for r in typed if r["measure"] == m]
        _check_power(mine, x, runs, stats.all_pairs(runs), 0.05, POWER["power"], POWER["difference"])


@pytest.mark.java
def test_the_reports_show_the_letters_groups_anova_and_power(demo):
    _, out, _ = demo
    md = (out / "summary.md").read_text(encoding="utf-8")
    page = (out / "report.html").read_text(encoding="utf-8")
    tex = (out / "report.tex").read_text(encoding="utf-8")
    comparisons = json.loads((out / "comparisons.json").read_text())
    p = {(r["measure"], frozenset((r["baseline"], r["run"]))): r["p"] for r in comparisons["comparisons"]}
    summary = {r["run"]: r for r in _csv(out / "summary.csv")}
    for g in comparisons["groups"]:
        m, letters = g["measure"], g["letters"]
        # the letters: two runs share one exactly when their p >= alpha
        for a, b in itertools.combinations(g["runs"], 2):
            assert bool(set(letters[a]) & set(letters[b])) == (p[(m, frozenset((a, b)))] >= 0.05)
        best = max(g["runs"], key=lambda r: float(summary[r][m]))
        assert g["best"] == best
        assert g["indistinguishable_from_best"] == [
            r for r in g["runs"] if r == best or p[(m, frozenset((r, best)))] >= 0.05
        ]
        # ... written beside each mean in every format, and the best group under its heading
        for run in g["runs"]:
            mean = f"{float(summary[run][m]):.4f}"
            row = next(line for line in md.splitlines() if line.startswith(f"| {run} | "))
            assert f"{mean}{letters[run]} |" in row or f"**{mean}**{letters[run]}" in row
            mark = rf"$^{{\mathrm{{{letters[run]}}}}}$"
            assert f"{mean}{mark}" in tex or rf"\textbf{{{mean}}}{mark}" in tex
        kept = ", ".join(g["indistinguishable_from_best"])
        assert f"| {m} | {best} | {float(summary[best][m]):.4f} | {kept} (" in md
        assert f"{m}: {kept}" in tex
    assert "### Indistinguishable from the best" in md and '<section id="groups">' in page
    # the ANOVA and power tables, as anova.csv and power.csv round them
    for r in _csv(out / "anova.csv"):
        if r["source"] == "system":
            line = f"| {r['measure']} | system | {r['df']} | {float(r['sum_sq']):.4f} | {float(r['mean_sq']):.4f} |"
            assert line in md
            assert f"{r['measure']} & system & {r['df']} & {float(r['sum_sq']):.4f}" in tex
            assert f'<td>{r["measure"]}</td><td>system</td><td class="n">{r["df"]}</td>' in page
    for r in _csv(out / "power.csv"):
        run = r["run"] or "all runs (ANOVA design)"
        cells = f"| {run} | {r['topics']} | {float(r['sd']):.4f} | {float(r['detectable_difference']):.4f} |"
        assert cells in md
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["stats_policy"]["anova"] is True and manifest["stats_policy"]["power"] == POWER


@pytest.mark.java
def test_the_cli_and_the_api_give_the_reports_numbers(demo):
    result, out, _ = demo
    manifest = json.loads((out / "manifest.json").read_text())
    runs = [r["name"] for r in manifest["runs"]]
    files = [str(report_run(out, r)) for r in runs]  # in the config's order: the same columns
    comparisons = _csv(out / "comparisons.csv")
    power = _csv(out / "power.csv")
    # harness.run's Result: the report's tables as DataFrames
    assert result.comparisons["p"].tolist() == [float(r["p"]) for r in comparisons]
    anova = _csv(out / "anova.csv")
    assert result.anova["sum_sq"].tolist() == [float(r["sum_sq"]) for r in anova]
    assert list(result.anova.columns) == list(anova[0])
    assert list(result.power.columns) == list(power[0])
    assert result.power["detectable_difference"].tolist() == [float(r["detectable_difference"]) for r in power]
    groups = json.loads((out / "comparisons.json").read_text())["groups"]
    assert result.groups["letters"].tolist() == [g["letters"][r] for g in groups for r in g["runs"]]
    # the API on the report's per-topic values
    per_topic = pd.read_csv(out / "per_topic.csv", dtype={"qid": str})
    api = harness.compare(per_topic, test="randomized-tukey", permutations=500, measures=MEASURES, power=POWER)
    assert api["p"].tolist() == [float(r["p"]) for r in comparisons]
    assert [r["topics_needed"] for r in api.attrs["power"]] == [int(r["topics_needed"]) for r in power]
    assert [r["sd"] for r in api.attrs["power"]] == [float(r["sd"]) for r in power]
    # harness compare on the report's run files, all pairs, by their file names
    base = ["compare", *files, "--qrels", str(REPO / "qrels" / "demo.txt"), "--baseline", "all-pairs"]
    base += ["--test", "randomized-tukey", "--permutations", "500", "-m", *MEASURES]
    argv = [*base, "--power", "--power-level", str(POWER["power"]), "--power-difference", str(POWER["difference"])]
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(argv) == 0
    text = buf.getvalue()
    names = {r: report_run(out, r).stem for r in runs}
    for r in comparisons:
        line = next(
            line
            for line in text.splitlines()
            if line.startswith(r["measure"] + " ") and f" {names[r['run']]} vs {names[r['baseline']]} " in line
        )
        assert harness.policies.format_p(float(r["p"])) in line.split()
    for r in power:
        if r["run"]:
            cells = [names[r["baseline"]], names[r["run"]], r["topics"], f"{float(r['sd']):.4f}"]
        else:
            cells = ["all runs (ANOVA design", r["topics"], f"{float(r['sd']):.4f}"]
        assert any(all(c in line for c in cells) and line.startswith(r["measure"]) for line in text.splitlines())
    assert "two-way ANOVA (system x topic) over 5 runs and 15 topics" in text
    # the CLI's correction is the test's: none; another is refused with the policy's words
    r = subprocess.run(
        [sys.executable, "-m", "harness", *base, "--correction", "holm"], capture_output=True, text=True, cwd=REPO
    )
    assert r.returncode == 2 and "correction must be 'none' with test 'randomized-tukey'" in r.stderr


# --- the documentation's example ------------------------------------------------------------------


def test_the_docs_example_prints_what_it_shows(monkeypatch):
    """docs/experiments.md, *Many systems in a report*: `harness compare` on the demo's runs
    (tests/golden's, the runs `harness run configs/demo.yaml` writes) prints the text shown, and
    the Python example on Cranfield's five runs what it shows."""
    text = section("Many systems in a report")
    [command] = commands("Many systems in a report")
    shown = re.search(r"```text\n(.*?)```", text, re.S).group(1)
    argv = shlex.split(command)[1:]
    i = argv.index("reports/demo/runs/*.trec")
    argv[i : i + 1] = sorted(str(p) for p in (REPO / "tests" / "golden" / "demo" / "demo" / "runs").glob("*.trec"))
    monkeypatch.chdir(REPO)
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(argv) == 0
    assert buf.getvalue() == shown
    [block] = re.findall(r"```pycon\n(.*?)```", text, re.S)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(doctest.DocTestParser().get_doctest(block, {}, "many", "docs/experiments.md", 0))
    result = runner.summarize(verbose=False)
    assert result.failed == 0 and result.attempted >= 8
