"""harness.report: the self-contained HTML page rendered by headless Chromium, with markup in the
data (topic ids, query text, document ids) shown as text; the other formats; the sweep config."""

from __future__ import annotations

import dataclasses
import doctest
import html
import html.parser
import json
import re
import struct
import subprocess
import textwrap
from pathlib import Path

import pytest

from harness.config import load_config
from harness.experiment.execute import run_experiment
from harness.report import latex, plots, render_markdown, svg

from .conftest import REPO, explorer_data, three_runs, write_full_report
from .docs import section

CHROMIUM = "/usr/bin/chromium"
EVIL_QID = "<script>alert(1)</script>&x"
EVIL_TEXT = 'wing flow <img src=x onerror="alert(2)"> & "quotes"'
EVIL_DOC = "<b>doc&1</b>"


def chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp / 'chromium-profile'}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )


def html_escaped(s: str) -> str:
    return html.escape(s, quote=True)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


class Tags(html.parser.HTMLParser):
    """Every start tag and attribute of a page, as the browser's parser sees them."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parse(page: str) -> Tags:
    t = Tags()
    t.feed(page)
    return t


@pytest.fixture(scope="module")
def evil(tmp_path_factory):
    """A tiny collection whose ids and text carry markup, run with a sweep and all-pairs tests."""
    tmp = tmp_path_factory.mktemp("evil")
    docs = [
        (EVIL_DOC, "wing flow over a flat plate in a slipstream"),
        ("d2", "boundary layer flow past a wing"),
        ("d3", "heat transfer in supersonic flow"),
        ("d4", "slipstream effects on wing lift"),
        ("d5", "flat plate boundary layer transition"),
        ("d6", "supersonic wing flutter & heat"),
    ]
    (tmp / "corpus.jsonl").write_text("".join(json.dumps({"id": i, "contents": t}) + "\n" for i, t in docs))
    topics = [(EVIL_QID, EVIL_TEXT), ("q2", "boundary layer"), ("q3", "supersonic heat"), ("q4", "slipstream lift")]
    (tmp / "topics.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in topics))
    qrels = [
        (EVIL_QID, EVIL_DOC, 1),
        (EVIL_QID, "d4", 1),
        ("q2", "d2", 1),
        ("q2", "d5", 2),
        ("q3", "d3", 1),
        ("q3", "d6", 1),
        ("q4", "d4", 2),
        ("q4", EVIL_DOC, 1),
    ]
    (tmp / "qrels.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels))
    (tmp / "c.yaml").write_text(
        textwrap.dedent("""\
        name: evil
        collection: {path: corpus.jsonl, format: jsonl}
        index: {path: index}
        topics: topics.tsv
        qrels: qrels.txt
        runs:
          - bm25: {k1: [0.9, 1.5], b: 0.4}
          - dirichlet: {mu: [10, 100]}
        measures: [AP, nDCG@10, P@5]
        compare:
          baseline: all-pairs
          test: randomization
          permutations: 2000
          cross_validation: {folds: 2}
        output: report
    """)
    )
    cfg = load_config(tmp / "c.yaml")
    result = run_experiment(cfg)
    out = write_full_report(result, cfg.output)
    return tmp, result, out


def test_html_is_self_contained_and_escapes_data(evil):
    _, result, out = evil
    page = (out / "report.html").read_text()
    tags = parse(page)
    names = {t for t, _ in tags.tags}
    assert {"table", "svg", "polyline", "rect", "style"} <= names
    assert not names & {"img", "b", "iframe", "object", "link", "base"}, names
    # two scripts, the explorer's: its JSON and its code, which is the package's file, after <main>
    scripts = [attrs for tag, attrs in tags.tags if tag == "script"]
    assert scripts == [{"type": "application/json", "id": "explorer-data"}, {}]
    code = (REPO / "harness" / "report" / "templates" / "explorer.js").read_text()
    assert page.count("<script") == 2 and f"<script>{code}</script>" in page
    assert page.index("</main>") < page.index("<script")
    assert "textContent" in code and "innerHTML" not in code and "eval(" not in code
    for tag, attrs in tags.tags:
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
        assert "src" not in attrs
        if "href" in attrs:
            assert attrs["href"].startswith("#"), attrs
    assert "http://" not in page and "https://" not in page and "url(" not in page
    # the data is there, as text
    text = "".join(tags.text)
    assert EVIL_QID in text and EVIL_TEXT in text
    assert html_escaped(EVIL_QID) in page and EVIL_QID not in page and "<script>alert" not in page
    data = explorer_data(page)  # in the JSON, as text: < and > are JSON escapes there
    assert EVIL_DOC in {d for t in data["topics"] for d, _, _ in t["docs"]}


def test_html_renders_in_headless_chromium(evil, tmp_path):
    _, result, out = evil
    url = (out / "report.html").resolve().as_uri()
    png = tmp_path / "report.png"
    chromium(tmp_path, f"--screenshot={png}", "--window-size=1280,2000", url)
    assert png_size(png) == (1280, 2000)
    assert png.stat().st_size > 60_000  # a blank 1280x2000 page compresses to a few KB
    dom = chromium(tmp_path, "--dump-dom", url).stdout
    tags = parse(dom)
    names = [t for t, _ in tags.tags]
    assert names.count("table") >= 5 and names.count("svg") >= 3
    assert names.count("script") == 2 and "img" not in names and "b" not in names
    assert EVIL_QID in "".join(tags.text)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;x" in dom


def test_every_format_is_written(evil):
    tmp, result, out = evil
    assert sorted(p.name for p in out.iterdir()) == [
        ".harness-output.json",  # the marker: the harness wrote this folder and may replace it
        "comparisons.csv",
        "comparisons.json",
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
    assert manifest["stats_policy"]["baseline"] == "all-pairs"
    assert manifest["stats_policy"]["text"] == str(result.comparisons.policy)
    page = (out / "report.html").read_text()
    for needle in (
        manifest["config"]["sha256"],
        manifest["qrels"]["sha256"],
        manifest["index"]["fingerprint"],
        str(result.comparisons.policy),
        "Coverage audit",
        "judged missing from run",
        "Provenance",
    ):
        assert html_escaped(needle) in page, needle
    comparisons = json.loads((out / "comparisons.json").read_text())
    # 4 runs and the 2 tuned runs of the two sweeps: 15 pairs, 3 measures
    assert len(comparisons["pairs"]) == 15 and len(comparisons["comparisons"]) == 45
    tex = (out / "report.tex").read_text()
    assert r"\begin{tabular}{lrrr}" in tex and "% config " in tex and "sha256" in tex and "% coverage " in tex
    assert comparisons["coverage"] == json.loads((out / "summary.json").read_text())["coverage"]
    md = render_markdown(result)
    # all-pairs, but no difference is significant at 4 topics: no mean carries a letter, so no run's
    # name does (tests/test_report_marks.py: the letters where one is)
    assert "## Comparisons" in md and "## Provenance" in md and "(a)" not in md


def test_all_pairs_marks_are_a_compact_letter_display_of_the_corrected_p_values(evil):
    _, result, out = evil
    from harness.report.tables import significance_marks

    marks = significance_marks(result)
    c = result.comparisons
    assert c.all_pairs and [g.measure for g in c.groups] == list(c.measures)
    # two runs share a letter exactly when their corrected p >= alpha (stats.grouping's display)
    for g in c.groups:
        letters = dict(zip(g.runs, g.letters))
        for row in (r for r in c.rows if r.measure == g.measure):
            share = bool(set(letters[row.baseline]) & set(letters[row.run]))
            assert share == (not row.reject), row
    # nothing differs at 4 topics: the means carry no letters (every run would share "a")
    assert not any(r.reject for r in c.rows) and marks == type(marks)((), {})


def test_runs_only_report_has_html_without_tex(tmp_path, evil):
    src, _, _ = evil
    text = (src / "c.yaml").read_text().split("measures:")[0].replace("qrels: qrels.txt\n", "")
    for name in ("corpus.jsonl", "topics.tsv"):
        (tmp_path / name).write_bytes((src / name).read_bytes())
    (tmp_path / "c.yaml").write_text(
        text.replace("index: {path: index}", f"index: {{path: {src / 'index'}}}") + "output: report\n"
    )
    cfg = load_config(tmp_path / "c.yaml")
    result = run_experiment(cfg)
    out = write_full_report(result, cfg.output)
    assert result.index.reused and all(r.reused for r in result.runs)
    assert (out / "report.html").exists() and not (out / "report.tex").exists()
    assert not (out / "comparisons.json").exists()
    assert "<svg" not in (out / "report.html").read_text()
    assert "No qrels" in (out / "report.html").read_text()


def test_sweep_config_on_the_sample_collection(tmp_path):
    cfg = load_config(REPO / "configs" / "sweep.yaml")
    assert len(cfg.runs) == 9 + 5 and cfg.compare.folds == 3
    cfg = dataclasses.replace(cfg, index_path=tmp_path / "index", output=tmp_path / "report")
    result = run_experiment(cfg)
    out = write_full_report(result, cfg.output)
    c = result.comparisons
    assert len(c.pairs) == 15 and len(c.rows) == 30  # 14 runs + 2 tuned runs against the baseline, 2 measures
    assert [s.model for s in c.sweeps] == ["bm25", "dirichlet"] and c.sweeps[0].varying == ("k1", "b")
    assert [t.model for t in c.tuning] == ["bm25", "dirichlet"]
    page = (out / "report.html").read_text()
    assert "AP: bm25, k1 × b" in page and "AP: dirichlet by mu" in page  # a grid's heatmap, a line
    assert "Interpolated precision at recall: bm25 (10 runs)" in page  # 16 runs: one panel per model family
    # PR panels (bm25, dirichlet), sweeps x measures, CI charts per measure, per-topic diffs (incl. the 2 tuned
    # runs), effectiveness against latency
    assert page.count("<svg") == 2 + 2 * 2 + 2 + 15 + 1
    assert page.count('<svg class="chart heatmap"') == 2 and page.count('<svg class="chart interval-chart"') == 2


def test_pr_curves_are_the_mean_interpolated_precisions(evil):
    _, result, _ = evil
    from harness.formats.qrels import read_qrels
    from harness.metrics import evaluate, parse_measure

    qrels = read_qrels(result.config.qrels_path)
    for r in result.runs:
        ev = evaluate(r.run, qrels, [parse_measure("IPrec@0.0"), parse_measure("IPrec@1.0")])
        curve = result.pr_curves[r.name]
        assert len(curve) == 11 and (curve[0], curve[-1]) == (ev.means["IPrec@0.0"], ev.means["IPrec@1.0"])
        assert all(a >= b for a, b in zip(curve, curve[1:]))  # interpolated: non-increasing


def test_module_examples():
    for module in (svg, plots, latex):
        assert doctest.testmod(module).failed == 0


def test_readme_example_is_the_sweep_config():
    block = section("Comparing runs and reports").split("```yaml\n", 1)[1].split("```", 1)[0]
    assert block in (REPO / "configs" / "sweep.yaml").read_text()


def test_the_coverage_audit_names_and_defines_what_each_column_counts(tmp_path):
    """Issue 47: "ties reordered 1190" counted topics, not ties. The audit's columns are named for
    what they count in every format, and report.html defines each, in a tooltip and a list
    (harness.metrics.evaluate.AUDIT_COLUMNS, docs/semantics.md's table). The flat run's count is
    the topics whose file order differs from trec_eval's (doc id descending among tied scores)."""
    from harness.metrics.evaluate import AUDIT_COLUMNS

    cfg, result = three_runs(tmp_path)
    rows: dict[str, list[str]] = {}
    for line in (tmp_path / "flat.trec").read_text().splitlines():
        qid, _, doc, *_ = line.split()
        rows.setdefault(qid, []).append(doc)
    reordered = sum(docs != sorted(docs, reverse=True) for docs in rows.values())
    assert 0 < reordered < sum(len(d) - 1 for d in rows.values())  # fewer topics than tied neighbours
    coverage = json.loads((cfg.output / "summary.json").read_text())["coverage"]
    assert {n: a["topics_reordered"] for n, a in coverage.items()} == {"bm25": 0, "copy": 0, "flat": reordered}
    md = (cfg.output / "summary.md").read_text()
    assert "| run | " + " | ".join(AUDIT_COLUMNS) + " |" in md and "ties" not in md.split("## Coverage")[1]
    assert f"topics_reordered={reordered}, docs_in_run=224" in (cfg.output / "report.tex").read_text()
    page = (cfg.output / "report.html").read_text()
    start = page.index('<section id="coverage">')
    section = page[start : page.index("</section>", start)]
    titles = [html.unescape(t) for t in re.findall(r'<th class="n" title="([^"]*)">', section)]
    names = re.findall(r"<th[^>]*>([^<]*)</th>", section)
    assert names == ["run", *(k.replace("_", " ") for k in AUDIT_COLUMNS)] and titles == list(AUDIT_COLUMNS.values())
    listed = dict(zip(re.findall(r"<dt>([^<]*)</dt>", section), re.findall(r"<dd>([^<]*)</dd>", section)))
    assert {k: html.unescape(v) for k, v in listed.items()} == dict(zip(names[1:], titles))
    assert "a count of topics, not of ties" in AUDIT_COLUMNS["topics_reordered"]
