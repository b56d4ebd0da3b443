"""A study's meta-analysis across its collections (issue 49, item 4: `compare.meta`), end to end:
`harness run` of a study of six small collections, harness.run of the same config, and the files
they write (meta_analysis.csv, the forest plots of report.html, the tables of summary.md and
report.tex, manifest.json).

Oracles: each collection's own per_topic.csv, from which numpy computes every collection's effect
and variance (the raw mean of the paired differences with var(d)/n; the standardised d_z =
mean(d)/sd(d) with 1/n + d_z^2/(2n)), and statsmodels' combine_effects on those effects and
variances (fixed effect; random effects by DerSimonian-Laird and Paule-Mandel; Q, I2, tau2 and
every interval). The forest plots and the tables are checked against the CSV they are drawn from."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
import yaml
from statsmodels.stats.meta_analysis import combine_effects

from .conftest import REPO
from .test_stats_meta import PM
from .test_study import harness, read_csv

pytestmark = pytest.mark.java

XQUAD = REPO / "tests" / "data" / "xquad"
COLUMNS = ["measure", "baseline", "run", "collection", "effect", "variance", "ci_low", "ci_high", "Q", "I2", "tau2"]
NAMES = ["demo-a", "demo-b", "de", "es", "ru", "zh"]
RUNS = ["dirichlet", "jm", "bm25+rm3"]  # each compared with bm25
MEASURES = ["AP", "nDCG@10"]


def write_study(folder: Path) -> Path:
    """The demo's topics in two halves (two collections over one corpus, one index) and four of
    XQuAD's languages: six collections; four runs, each compared with bm25."""
    (folder / "indexes").mkdir(parents=True)
    topics = (REPO / "topics" / "demo.tsv").read_text().splitlines(keepends=True)
    qrels = (REPO / "qrels" / "demo.txt").read_text().splitlines(keepends=True)
    entries = []
    for name, half in (("demo-a", topics[:8]), ("demo-b", topics[8:])):
        ids = {line.split("\t")[0] for line in half}
        (folder / f"{name}.tsv").write_text("".join(half))
        (folder / f"{name}.txt").write_text("".join(q for q in qrels if q.split()[0] in ids))
        entries.append(
            {
                "name": name,
                "collection": {"path": str(REPO / "corpora"), "format": "text-folder"},
                "topics": f"{name}.tsv",
                "qrels": f"{name}.txt",
            }
        )
    for code in NAMES[2:]:
        entries.append(
            {
                "name": code,
                "collection": {"path": str(XQUAD / f"{code}.jsonl"), "format": "jsonl"},
                "index": {"language": code},
                "topics": str(XQUAD / f"{code}.tsv"),
                "qrels": str(XQUAD / "qrels.txt"),
            }
        )
    config = {
        "name": "meta",
        "collections": entries,
        "runs": [
            {"bm25": {"k1": 0.9, "b": 0.4}},
            {"dirichlet": {"mu": 1000}},
            {"jm": {"lambda": 0.7}},
            {"bm25": {"k1": 0.9, "b": 0.4, "rm3": {}}},
        ],
        "measures": [*MEASURES, "RR"],
        "compare": {"baseline": "bm25", "measures": MEASURES},
        "output": "out",
    }
    (folder / "meta.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return folder / "meta.yaml"


@pytest.fixture(scope="module")
def ran(tmp_path_factory, sparse_only_processes):
    """The study by `harness run` with the defaults (out/), and again with the standardised effect
    and Paule-Mandel's tau2 (std/: the indexes and runs reused)."""
    tmp = tmp_path_factory.mktemp("meta")
    config = write_study(tmp)
    r = harness("run", config)
    assert r.returncode == 0, r.stderr[-3000:]
    s = harness("run", config, "--output", tmp / "std", "--set", "compare.meta={effect: standardized, method: pm}")
    assert s.returncode == 0, s.stderr[-3000:]
    return tmp, r, s


def effects(out: Path, measure: str, baseline: str, run: str, effect: str = "raw") -> dict[str, tuple[float, float]]:
    """{collection: (effect, variance)} of ``run - baseline`` from each collection's per_topic.csv,
    numpy; a collection whose differences are all equal (no variance) left out."""
    got = {}
    for name in NAMES:
        rows = read_csv(out / "collections" / name / "per_topic.csv")
        score = {(r["run"], r["qid"]): float(r[measure]) for r in rows}
        d = np.array([score[run, t] - score[baseline, t] for (x, t) in score if x == baseline])
        if np.ptp(d) == 0:
            continue
        n, sd = d.size, d.std(ddof=1)
        if effect == "raw":
            got[name] = (d.mean(), sd**2 / n)
        else:
            dz = d.mean() / sd
            got[name] = (dz, 1 / n + dz**2 / (2 * n))
    return got


def pooled_rows(rows: list[dict]) -> dict[tuple[str, str, str], dict[str, dict]]:
    """(measure, baseline, run) -> {collection or fixed/random: its row}, in the CSV's order."""
    out: dict = {}
    for r in rows:
        out.setdefault((r["measure"], r["baseline"], r["run"]), {})[r["collection"]] = r
    return out


def f(row: dict, key: str) -> float:
    return float(row[key])


def check_against_the_references(out: Path, effect: str, method: str) -> list[float]:
    """meta_analysis.csv of ``out`` against numpy and statsmodels; the pairs' Q - (k - 1)."""
    rows = read_csv(out / "meta_analysis.csv")
    assert list(rows[0]) == COLUMNS  # exactly these columns, in this order
    by_pair = pooled_rows(rows)
    assert list(by_pair) == [(m, "bm25", run) for m in MEASURES for run in RUNS]
    z = scipy.stats.norm.ppf(0.975)
    excess = []
    for (m, baseline, run), got in by_pair.items():
        want = effects(out, m, baseline, run, effect)
        assert list(got) == [*want, "fixed", "random"]  # the config's order, the pooled rows last
        y, v = np.array([e for e, _ in want.values()]), np.array([var for _, var in want.values()])
        for (_name, (e, var)), row in zip(want.items(), got.values()):
            assert f(row, "effect") == pytest.approx(e, rel=1e-12, abs=1e-15)
            assert f(row, "variance") == pytest.approx(var, rel=1e-12)
            assert f(row, "ci_low") == pytest.approx(e - z * var**0.5, rel=1e-12, abs=1e-15)
            assert f(row, "ci_high") == pytest.approx(e + z * var**0.5, rel=1e-12, abs=1e-15)
            assert row["Q"] == row["I2"] == row["tau2"] == ""  # on the pooled rows only
        ref = combine_effects(y, v, method_re=method)
        fixed, random = got["fixed"], got["random"]
        fe, re_, _, _ = ref.conf_int(alpha=0.05)
        assert f(fixed, "effect") == pytest.approx(ref.mean_effect_fe, rel=1e-12, abs=1e-15)
        assert f(fixed, "variance") == pytest.approx(ref.var_eff_w_fe, rel=1e-12)
        assert (f(fixed, "ci_low"), f(fixed, "ci_high")) == pytest.approx(tuple(fe), rel=1e-10)
        for row in (fixed, random):
            assert f(row, "Q") == pytest.approx(ref.q, rel=1e-12)
        k = len(want)
        excess.append(ref.q - (k - 1))
        if ref.q > k - 1 or method == "pm":
            tol = PM if method == "pm" else {"rel": 1e-10}
            assert f(random, "effect") == pytest.approx(ref.mean_effect_re, **tol, abs=1e-15)
            assert f(random, "variance") == pytest.approx(ref.var_eff_w_re, **tol)
            assert f(random, "tau2") == pytest.approx(ref.tau2, **tol, abs=1e-15)
            assert f(random, "I2") == pytest.approx(max(0.0, ref.i2), rel=1e-12)
            low, high = re_
            width = (PM["rel"] if method == "pm" else 1e-9) * (high - low)
            assert f(random, "ci_low") == pytest.approx(low, abs=width)
            assert f(random, "ci_high") == pytest.approx(high, abs=width)
        else:
            # Q <= k - 1: DerSimonian & Laird's tau2 is max(0, ...) = 0, where statsmodels 0.15 leaves
            # it negative (harness.stats.meta): random effects are then the fixed effect, I2 is 0
            assert ref.tau2 <= 0 and f(random, "tau2") == 0 and f(random, "I2") == 0
            assert [random[c] for c in COLUMNS[4:]] == [fixed[c] for c in COLUMNS[4:]]
    return excess


def test_each_collections_effect_combined_as_statsmodels_combines_them(ran):
    tmp, r, _ = ran
    excess = check_against_the_references(tmp / "out", "raw", "dl")
    # both regimes met: collections that disagree beyond chance (tau2 > 0) and ones that do not
    assert max(excess) > 0 and min(excess) < 0
    # a collection whose differences are all equal has no variance: left out, with a warning
    rows = read_csv(tmp / "out" / "meta_analysis.csv")
    ap_dirichlet = [row["collection"] for row in rows if row["measure"] == "AP" and row["run"] == "dirichlet"]
    assert "zh" not in ap_dirichlet and "demo-a" in ap_dirichlet
    warning = "meta-analysis of AP, dirichlet − bm25: es, ru, zh left out (differences all equal, so variance 0"
    assert f"harness: warning: {warning}" in r.stderr
    assert f"- {warning}" in (tmp / "out" / "summary.md").read_text()


def test_the_standardised_effect_and_paule_mandel(ran):
    tmp, _, s = ran
    check_against_the_references(tmp / "std", "standardized", "pm")
    manifest = json.loads((tmp / "std" / "manifest.json").read_text())
    assert manifest["meta_analysis"] == {
        "effect": "standardized",
        "method": "pm",
        "level": 0.95,
        "policy": "standardised mean differences (d_z), fixed and random effects (Paule-Mandel tau2)",
    }
    assert "the standardised mean difference d_z = mean(d)/sd(d), with variance 1/n + d_z^2/(2n)" in s.stdout


def test_a_forest_plot_per_pair_one_row_a_collection_the_pooled_last(ran):
    tmp, _, _ = ran
    html = (tmp / "out" / "report.html").read_text()
    charts = re.findall(r'<svg class="chart forest-chart"[^>]*aria-label="([^"]*)">(.*?)</svg>', html, re.S)
    by_pair = pooled_rows(read_csv(tmp / "out" / "meta_analysis.csv"))
    assert [label for label, _ in charts] == [
        f"{m}: {run} − {baseline} across collections, 95% intervals" for m, baseline, run in by_pair
    ]
    for (label, svg), rows in zip(charts, by_pair.values()):
        drawn = re.findall(
            r'<g class="forest-row" data-kind="(\w+)" data-label="([^"]*)" data-estimate="([^"]*)" '
            r'data-low="([^"]*)" data-high="([^"]*)"',
            svg,
        )
        assert [(kind, name) for kind, name, *_ in drawn] == [
            ("pooled" if name in ("fixed", "random") else "study", name) for name in rows
        ], label
        for (_, _name, est, low, high), row in zip(drawn, rows.values()):
            assert (float(est), float(low), float(high)) == (f(row, "effect"), f(row, "ci_low"), f(row, "ci_high"))
        # a square's weight is the collection's fixed-effect weight, 1/variance
        weights = re.findall(r'data-kind="study" data-label="([^"]*)".*?data-weight="([^"]*)"', svg)
        assert {name: float(w) for name, w in weights} == pytest.approx(
            {name: 1 / f(row, "variance") for name, row in rows.items() if name not in ("fixed", "random")},
            rel=1e-12,
        )
    assert "How to read a forest plot" in html and '<section id="table-meta_analysis">' in html


def test_the_table_in_summary_md_and_report_tex(ran):
    tmp, r, _ = ran
    out = tmp / "out"
    rows = read_csv(out / "meta_analysis.csv")
    md, tex = (out / "summary.md").read_text(), (out / "report.tex").read_text()
    assert "## Meta-analysis across collections" in md and r.stdout.strip() == md.strip()  # `harness run` prints it
    header = "| baseline | run | collection | effect | variance | ci_low | ci_high | Q | I2 | tau2 |"
    assert md.count(header) == len(MEASURES)
    assert r"baseline & run & collection & effect & variance & ci\_low & ci\_high & Q & I2 & tau2 \\" in tex
    assert r"\caption{AP: Meta-analysis across collections of meta." in tex
    for row in rows:
        numbers = [f"{float(row[c]):.4f}" for c in ("effect",)] + [f"{float(row['variance']):.4g}"]
        numbers += [f"{float(row[c]):.4f}" for c in ("ci_low", "ci_high")]
        if row["Q"]:
            numbers += [f"{float(row['Q']):.4f}", f"{float(row['I2']):.4f}", f"{float(row['tau2']):.4g}"]
        else:
            numbers += ["", "", ""]
        cells = [row["baseline"], row["run"], row["collection"], *numbers]
        section = md[md.index(f"### {row['measure']}", md.index("## Meta-analysis")) :]
        assert "| " + " | ".join(cells) + " |" in section, cells
        tex_cells = [rf"\texttt{{{c}}}" for c in cells[:3]] + numbers
        assert " & ".join(tex_cells) + r" \\" in tex, tex_cells
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tables"] == {"collections": "collections.csv", "meta_analysis": "meta_analysis.csv"}
    assert manifest["meta_analysis"]["effect"] == "raw" and manifest["meta_analysis"]["method"] == "dl"


def test_the_python_api_gives_the_same_table(ran, tmp_path, monkeypatch):
    import harness as api

    tmp, _, _ = ran
    monkeypatch.delenv("HARNESS_INDEXES", raising=False)
    monkeypatch.chdir(tmp)  # the config's relative output (out) is the file's folder's: not this one
    study = api.run(tmp / "meta.yaml", output=tmp_path / "api")
    table = study.meta_analysis
    assert table is study.tables["meta_analysis"] and list(table.columns) == COLUMNS
    rows = read_csv(tmp / "out" / "meta_analysis.csv")
    assert len(table) == len(rows)
    for got, want in zip(table.itertuples(index=False), rows):
        for c, v in zip(COLUMNS, got):
            assert (v is None or (isinstance(v, float) and np.isnan(v))) if want[c] == "" else str(v) == want[c]
    std = api.run(
        tmp / "meta.yaml",
        output=tmp_path / "std",
        overrides={"compare.meta": {"effect": "standardized", "method": "pm"}},
    )
    cli = read_csv(tmp / "std" / "meta_analysis.csv")
    assert [str(x) for x in std.meta_analysis["effect"]] == [row["effect"] for row in cli]
    off = api.run(tmp / "meta.yaml", output=tmp_path / "off", overrides={"compare.meta": False})
    assert off.meta_analysis.empty and list(off.meta_analysis.columns) == COLUMNS
    assert not (tmp_path / "off" / "meta_analysis.csv").exists()
    assert "Meta-analysis" not in (tmp_path / "off" / "summary.md").read_text()
    assert "forest-chart" not in (tmp_path / "off" / "report.html").read_text()
    assert "meta_analysis" not in off.manifest and off.manifest["tables"] == {"collections": "collections.csv"}


def test_the_worked_example_in_the_docs_runs_as_shown(tmp_path):
    """docs/experiments.md, *Meta-analysis in a study*: its command, run in a copy of the
    repository, prints what the page shows (generated by scripts/gen_docs.py) and draws a forest
    plot per pair; with only RR compared, no pair has two collections with an effect, and every
    document says so in the table's place."""
    import os
    import shutil
    import subprocess

    from .docs import commands, section
    from .golden import lay_out

    text = section("Meta-analysis in a study")
    [command] = commands("Meta-analysis in a study")
    shown = re.search(r"<!-- BEGIN meta-output -->\n```\n\$ ([^\n]*)\n\.\.\.\n(.*?)\n\.\.\.\n```", text, re.S)
    assert shown.group(1) == command
    lay_out(tmp_path)
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "tests" / "data", repo / "tests" / "data")
    (repo / ".venv").symlink_to(REPO / ".venv")
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_INDEXES"}

    def run(cmd: str) -> subprocess.CompletedProcess:
        r = subprocess.run(["bash", "-c", cmd], cwd=repo, capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr[-2000:]
        return r

    r = run(command)
    for part in shown.group(2).split("\n...\n"):  # each part as printed, in order
        assert part in r.stdout, part
    out = repo / "reports" / "study"
    rows = read_csv(out / "meta_analysis.csv")
    assert [(row["run"], row["collection"]) for row in rows] == [
        ("dirichlet", "demo"),
        ("dirichlet", "de"),
        ("dirichlet", "fixed"),
        ("dirichlet", "random"),
        ("jm", "demo"),
        ("jm", "zh"),
        ("jm", "fixed"),
        ("jm", "random"),
    ]
    assert (out / "report.html").read_text().count('<svg class="chart forest-chart"') == 2
    # the numbers the prose reads from it
    jm = {row["collection"]: row for row in rows if row["run"] == "jm"}
    assert round(f(jm["random"], "I2"), 2) == 0.34 and f(jm["random"], "tau2") > 0
    weights = {c: 1 / (f(jm[c], "variance") + f(jm["random"], "tau2")) for c in ("demo", "zh")}
    assert round(weights["demo"] / sum(weights.values()), 2) == 0.81

    run(command.replace("measures: [AP]", "measures: [RR]"))
    empty = "No compared pair has an effect on two collections or more: the warnings say why."
    md = (out / "summary.md").read_text()
    assert "## Meta-analysis across collections\n\n" in md and f"`meta_analysis.csv`.\n\n{empty}\n\n" in md
    assert "- meta-analysis of RR, jm − bm25: no rows, as only zh has an effect" in md
    assert f"<p>{empty}</p>" in (out / "report.html").read_text()
    assert f"% Meta-analysis across collections: {empty}" in (out / "report.tex").read_text()
    assert (out / "meta_analysis.csv").read_text() == ",".join(COLUMNS) + "\n"


# Each forest plot's rows as Chromium lays them out: the marker (a collection's square, a pooled
# diamond), its whisker, its label and its numbers, and the line at 0.
FOREST_JS = """() => Array.from(document.querySelectorAll('svg.forest-chart')).map(svg => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const zero = Array.from(svg.querySelectorAll('g.x-axis line')).find(l => l.getAttribute('stroke') === '#333');
  return {
    title: svg.getAttribute('aria-label'), box: box(svg), zero: zero ? box(zero) : null,
    rows: Array.from(svg.querySelectorAll('g.forest-row')).map(g => ({
      kind: g.dataset.kind, label: g.dataset.label, est: parseFloat(g.dataset.estimate),
      low: parseFloat(g.dataset.low), high: parseFloat(g.dataset.high),
      marker: box(g.querySelector('rect, polygon')), whisker: g.querySelector('line') ? box(g.querySelector('line')) : null,
      text: box(g.querySelector('text')), value: box(g.querySelector('text.value')),
      shown: g.querySelector('text.value').textContent})),
  };
})"""


@pytest.mark.browser
def test_the_forest_plots_as_the_browser_draws_them(ran, screenshots):
    """Every marker, whisker and diamond where its numbers put it on one linear x axis (the line at
    0 on it too), rows top to bottom without overlapping, labels left of the plot, numbers inside
    the picture; each plot screenshotted."""
    from playwright.sync_api import sync_playwright

    tmp, _, _ = ran
    (screenshots / "plots").mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto((tmp / "out" / "report.html").as_uri())
        charts = page.evaluate(FOREST_JS)
        for i, chart in enumerate(charts):
            slug = re.sub(r"[^A-Za-z0-9]+", "-", chart["title"]).strip("-")[:70]
            page.locator("svg.forest-chart").nth(i).screenshot(
                path=str(screenshots / "plots" / f"forest-{i:02d}-{slug}.png")
            )
        browser.close()
    assert len(charts) == len(MEASURES) * len(RUNS)
    for chart in charts:
        _check_forest(chart)


def _centre(box: list[float]) -> float:
    return (box[0] + box[2]) / 2


def _check_forest(chart: dict) -> None:
    rows, (left, top, right, bottom) = chart["rows"], chart["box"]
    # the x axis from the smallest and largest estimates; every other position must fall on it
    points = sorted({(r["est"], _centre(r["marker"])) for r in rows})
    (e0, x0), (e1, x1) = points[0], points[-1]
    scale = (x1 - x0) / (e1 - e0)
    assert scale > 0, chart["title"]

    def at(v: float) -> float:
        return x0 + (v - e0) * scale

    for r in rows:
        assert _centre(r["marker"]) == pytest.approx(at(r["est"]), abs=1), (chart["title"], r["label"])
        ends = r["whisker"] if r["kind"] == "study" else r["marker"]  # a diamond spans its interval
        assert ends[0] == pytest.approx(at(r["low"]), abs=1.5) and ends[2] == pytest.approx(at(r["high"]), abs=1.5)
        assert r["text"][2] <= min(at(r["low"]), _centre(r["marker"])) and r["value"][2] <= right + 0.5
        assert r["shown"] == f"{r['est']:.4f} [{r['low']:.4f}, {r['high']:.4f}]"
    assert _centre(chart["zero"]) == pytest.approx(at(0.0), abs=1)
    middles = [(r["marker"][1] + r["marker"][3]) / 2 for r in rows]  # each row's vertical centre, in order
    assert middles == sorted(middles) and min(b - a for a, b in zip(middles, middles[1:])) >= 14
    assert [r["kind"] for r in rows][-2:] == ["pooled", "pooled"] and left <= min(r["text"][0] for r in rows)
    assert top <= min(r["marker"][1] for r in rows) and max(r["marker"][3] for r in rows) <= bottom
