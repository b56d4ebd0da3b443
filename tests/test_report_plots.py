"""The report's plots in a real browser (Playwright driving Debian's /usr/bin/chromium), checked
against the report's own data files (summary.csv, per_topic.csv, comparisons.csv, the tables of
the page): axes zoomed to the data, heatmap cells equal to the means, legends whose entries do
not overlap, CIs and significance that agree with the comparisons table, per-topic panels on
their own scales. Every plot is screenshotted (tests/conftest.py's `screenshots`) for a person to look at."""

from __future__ import annotations

import csv
import dataclasses
import json
import re
import struct
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from harness.config import load_config
from harness.experiment.execute import run_experiment
from harness.experiment.names import with_names
from harness.report.plots import MAX_DIFF_PLOTS, MIN_SPAN, SINGLE_CHART_RUNS
from harness.report.svg import Series, line_chart

from .conftest import REPO, three_runs, write_full_report
from .docs import section

CHROMIUM = "/usr/bin/chromium"

# Every chart's geometry and data attributes, as the browser laid them out.
CHARTS_JS = """() => Array.from(document.querySelectorAll('svg.chart')).map(svg => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const yAxis = svg.querySelector('g.y-axis');
  const xAxis = svg.querySelector('g.x-axis');
  return {
    kind: svg.getAttribute('class').replace('chart ', ''),
    title: svg.querySelector('title').textContent,
    box: box(svg),
    y: yAxis ? [parseFloat(yAxis.dataset.yMin), parseFloat(yAxis.dataset.yMax)] : null,
    x: xAxis ? [parseFloat(xAxis.dataset.xMin), parseFloat(xAxis.dataset.xMax)] : null,
    ticks: Array.from(svg.querySelectorAll('text.tick')).map(t => t.textContent),
    grid: yAxis ? Array.from(yAxis.querySelectorAll('line[stroke="#ddd"]')).map(box) : [],
    points: Array.from(svg.querySelectorAll('circle')).map(c => [box(c), c.querySelector('title') ?
      c.querySelector('title').textContent : '']),
    lines: Array.from(svg.querySelectorAll('polyline > title')).map(t => t.textContent),
    references: Array.from(svg.querySelectorAll('line.reference')).map(l => [box(l), l.textContent]),
    legend: Array.from(svg.querySelectorAll('g.legend-entry, text.legend-group')).map(e => [box(e),
      (e.tagName === 'text' ? e : e.querySelector('text')).textContent]),
    bars: Array.from(svg.querySelectorAll('rect.bar')).map(r => [parseFloat(r.dataset.value),
      r.querySelector('title').textContent, box(r)]),
    cells: Array.from(svg.querySelectorAll('g.cell')).map(g => ({col: +g.dataset.col, row: +g.dataset.row,
      value: g.querySelector('text.value').textContent, fill: g.querySelector('rect').getAttribute('fill'),
      title: g.querySelector('title').textContent})),
    grid_size: svg.querySelector('g.cells') ? [+svg.querySelector('g.cells').dataset.rows,
      +svg.querySelector('g.cells').dataset.cols] : null,
    notes: Array.from(svg.querySelectorAll('text.note')).map(t => t.textContent),
    x_values: Array.from(svg.querySelectorAll('text.x-value')).map(t => t.textContent),
    y_values: Array.from(svg.querySelectorAll('text.y-value')).map(t => t.textContent),
    intervals: Array.from(svg.querySelectorAll('g.interval')).map(g => ({
      est: parseFloat(g.dataset.estimate), low: parseFloat(g.dataset.low), high: parseFloat(g.dataset.high),
      kind: g.dataset.kind, fill: g.querySelector('circle').getAttribute('fill'),
      label: g.querySelector('text').textContent, title: g.querySelector('title').textContent})),
  };
})"""


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _report(config: str, tmp: Path):
    cfg = load_config(REPO / "configs" / config)
    cfg = dataclasses.replace(cfg, index_path=tmp / "index", output=tmp / "report")
    result = with_names(run_experiment(cfg))  # as the run verb: the plots call runs by their names
    return result, write_full_report(result, cfg.output)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """configs/sweep.yaml: 14 runs (a 3 x 3 bm25 grid, 5 Dirichlet mus) and 2 cross-validated runs."""
    return _report("sweep.yaml", tmp_path_factory.mktemp("sweep"))


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """configs/demo.yaml: 5 runs of three models, no comparisons."""
    return _report("demo.yaml", tmp_path_factory.mktemp("demo"))


def _open(browser, report: Path, name: str, screenshots: Path):
    """The report's charts as laid out by Chromium; each one screenshotted into ``screenshots``/plots."""
    (screenshots / "plots").mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto((report / "report.html").as_uri())
    charts = page.evaluate(CHARTS_JS)
    svgs = page.locator("svg.chart")
    assert svgs.count() == len(charts) > 0
    for i, chart in enumerate(charts):
        slug = re.sub(r"[^A-Za-z0-9]+", "-", chart["title"]).strip("-")[:70]
        png = screenshots / "plots" / f"{name}-{i:02d}-{slug}.png"
        svgs.nth(i).screenshot(path=str(png))
        w, h = struct.unpack(">II", png.read_bytes()[16:24])
        left, top, right, bottom = chart["box"]
        assert abs(w - (right - left)) <= 1 and abs(h - (bottom - top)) <= 1, png
        assert png.stat().st_size > 5_000, png  # not blank
    tables = page.evaluate(
        """() => Array.from(document.querySelectorAll('#comparisons tbody tr')).map(tr =>
             [tr.className, Array.from(tr.cells).map(td => td.textContent)])"""
    )
    head = page.evaluate("() => Array.from(document.querySelectorAll('#comparisons thead th')).map(t => t.textContent)")
    page.close()
    return charts, tables, head


@pytest.fixture(scope="module")
def sweep_page(browser, sweep, screenshots):
    return _open(browser, sweep[1], "sweep", screenshots)


@pytest.fixture(scope="module")
def demo_page(browser, demo, screenshots):
    return _open(browser, demo[1], "demo", screenshots)


def _csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _means(report: Path) -> dict[str, dict[str, float]]:
    return {r["run"]: {k: float(v) for k, v in r.items() if k != "run"} for r in _csv(report / "summary.csv")}


def _check_axis(chart: dict, values: list[float], bounds=(0.0, 1.0), min_span=MIN_SPAN) -> None:
    """The y axis covers the data, stays inside the bounds, and is zoomed: at most about twice the
    data's span (or the minimum span) tall; every drawn point lies between the outer grid lines."""
    lo, hi = chart["y"]
    vmin, vmax = min(values), max(values)
    assert lo <= vmin and hi >= vmax, (chart["title"], lo, hi, vmin, vmax)
    assert bounds[0] <= lo and hi <= bounds[1], chart["title"]
    assert hi - lo <= 2.1 * max(vmax - vmin, min_span), (chart["title"], lo, hi, vmin, vmax)
    assert lo > 0.0 or vmin < 0.3  # zoomed in: not the whole [0, 1] when the data sit high
    tops = [g[1] for g in chart["grid"]]
    for (_l, top, _r, bottom), _ in chart["points"]:
        assert min(tops) - 0.5 <= (top + bottom) / 2 <= max(tops) + 0.5, chart["title"]
    for t in chart["ticks"]:
        assert t != "-0" and float(t) == float(t)  # a number, never "-0"


def test_line_charts_are_zoomed_to_their_data(sweep, sweep_page, demo, demo_page):
    for (result, report), (charts, _, _) in ((sweep, sweep_page), (demo, demo_page)):
        means = _means(report)
        pr = [y for curve in result.pr_curves.values() for y in curve]
        lines = [c for c in charts if c["kind"] == "line-chart"]
        assert lines
        for chart in lines:
            if chart["title"].startswith("Interpolated precision at recall"):
                _check_axis(chart, pr)  # every PR panel shares one scale: the data of all runs
                continue
            measure, model = re.match(r"(\S+): (\w+) by \w+$", chart["title"]).groups()
            specs = {r.name: str(r.spec) for r in result.runs}  # runs go by names; specs name the model
            values = [
                m[measure] for run, m in means.items() if specs[run].startswith(model + "(") and "cv:" not in specs[run]
            ]
            assert len(chart["points"]) == len(values) == (5 if result.config.name == "sweep" else 3)
            # each point shows a mean of summary.csv
            assert sorted(float(t.rsplit("→ ", 1)[1]) for _, t in chart["points"]) == [
                float(f"{v:.4f}") for v in sorted(values)
            ]
            refs = [float(t.rsplit(": ", 1)[1]) for _, t in chart["references"]]
            _check_axis(chart, values + refs)


def test_sweep_pr_curves_are_split_by_model_family_with_the_baseline(sweep, sweep_page):
    result, _ = sweep
    charts, _, _ = sweep_page
    pr = [c for c in charts if c["title"].startswith("Interpolated precision at recall")]
    assert [c["title"] for c in pr] == [
        "Interpolated precision at recall: bm25 (10 runs)",
        "Interpolated precision at recall: dirichlet (6 runs)",
    ]
    family = lambda m: [r.name for r in result.runs if str(r.spec).startswith(m + "(")]  # noqa: E731
    assert pr[0]["lines"] == family("bm25")  # the 9 settings and the cross-validated run, by their names
    assert pr[1]["lines"] == family("dirichlet") + ["bm25 k1=0.9 b=0.4 (baseline)"]
    assert [t for _, t in pr[0]["legend"]][0] == "bm25" and "k1=0.9 b=0.4 (baseline)" in [t for _, t in pr[0]["legend"]]
    assert pr[0]["y"] == pr[1]["y"]  # the same scale in every panel


def _disjoint(a, b) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def _check_legend(chart: dict) -> None:
    boxes = chart["legend"]
    for i, (a, ta) in enumerate(boxes):
        sl, st, sr, sb = chart["box"]
        assert sl <= a[0] and a[2] <= sr + 0.5 and st <= a[1] and a[3] <= sb + 0.5, (chart["title"], ta)
        for b, tb in boxes[i + 1 :]:
            assert _disjoint(a, b), (chart["title"], ta, tb, a, b)


def test_legends_do_not_overlap(sweep_page, demo, demo_page):
    checked = 0
    for charts, _, _ in (sweep_page, demo_page):
        for chart in charts:
            _check_legend(chart)
            assert not any(t.endswith("…") for _, t in chart["legend"])  # nothing cut in these reports
            checked += len(chart["legend"])
    assert checked > 30
    demo_pr = next(c for c in demo_page[0] if c["kind"] == "line-chart")
    # five runs of three models: one legend column per model, entries showing their setting; mu=2000
    # has mu=1000's curve (to every digit, 11 points; AP differs), and its entry says so
    demo_result, _ = demo
    assert demo_result.pr_curves["dirichlet mu=1000"] == demo_result.pr_curves["dirichlet mu=2000"]
    assert [t for _, t in demo_pr["legend"]] == [
        "bm25",
        "k1=0.9, b=0.4",
        "dirichlet",
        "mu=500",
        "mu=1000",
        "mu=2000 (identical to dirichlet mu=1000)",
        "jm",
        "lambda=0.1",
    ]


def test_the_latency_chart_puts_each_run_at_its_mean_time_and_measure(demo, demo_page):
    """Effectiveness against latency: one dot per searched run (the demo's five), at its mean search
    time (manifest.json's mean_ms) and its first measure (summary.csv), the y axis zoomed to the
    means, the x axis from 0 past the slowest run, the dots left to right as the times grow."""
    result, report = demo
    (chart,) = [c for c in demo_page[0] if c["kind"] == "scatter-chart"]
    runs = {e["name"]: e["latency"] for e in json.loads((report / "manifest.json").read_text())["runs"]}
    m, means = result.config.measure_names[0], _means(report)
    assert len(chart["points"]) == len(runs) == 5
    _check_axis(chart, [means[name][m] for name in runs])
    assert chart["x"][0] == 0 and chart["x"][1] >= max(f["mean_ms"] for f in runs.values())
    for (_, title), (name, f) in zip(chart["points"], runs.items()):
        assert title.startswith(f"{name}: {m} {means[name][m]:.4f}; mean {f['mean_ms']:.2f} ms a query")
    centres = [(left + right) / 2 for (left, _, right, _), _ in chart["points"]]
    times = [f["mean_ms"] for f in runs.values()]
    if len(set(times)) == len(times):
        assert sorted(range(5), key=centres.__getitem__) == sorted(range(5), key=times.__getitem__)


def test_crowded_legends_stay_readable(browser, tmp_path, screenshots):
    """Legends of many series with short, long and wide names, grouped (columns per group, long
    groups split into sub-columns, wrapping onto bands) and ungrouped (equal columns): entries never
    overlap and stay inside the chart."""
    labels = {
        "dirichlet": [f"mu={m}" for m in (10, 50, 100, 250, 500, 1000, 2000, 5000, 10000)],
        "jm": [f"lambda=0.{i}" for i in range(1, 8)],
        "WIDE": [f"WWWW mmmm {i}" * (1 + i % 2) for i in range(4)],
        "bm25": [f"k1={k}, b=0.{b}" for k in (0.3, 0.9, 1.2, 3) for b in (1, 4, 9)],
        "long": ["x" * 120, "cross-validated (nDCG@10, 10 folds)"],
    }
    grouped = [
        Series(f"{g}({label})", [0, 1], [0.1 * k, 0.02 * i], label=label, group=g)
        for k, (g, names) in enumerate(labels.items())
        for i, label in enumerate(names)
    ]
    flat = [dataclasses.replace(s, label=s.name, group="") for s in grouped[:20]]
    charts = []
    for i, (series, width) in enumerate(((grouped, 560), (grouped, 1100), (flat, 1100), (flat, 380))):
        svg = line_chart(f"crowded {i}", "x", "y", series, width=width, references=[("a reference", 0.3)])
        (tmp_path / "c.html").write_text(f"<!DOCTYPE html><html><body>{svg}</body></html>")
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.goto((tmp_path / "c.html").as_uri())
        chart = page.evaluate(CHARTS_JS)[0]
        page.locator("svg.chart").screenshot(path=str(screenshots / "plots" / f"crowded-legend-{i}.png"))
        page.close()
        _check_legend(chart)
        charts.append(chart)
    headers = [t for _, t in charts[0]["legend"] if t in labels or t == "reference"]
    assert headers == [*labels, "reference"]
    assert len(charts[0]["legend"]) == len(grouped) + len(labels) + 2
    assert charts[0]["legend"][-4][1].endswith("…")  # 120 characters cannot fit: cut, full name in the tooltip
    assert len(charts[2]["legend"]) == 21
    # with room, columns sit side by side: the wide chart's legend is shorter than the narrow one's
    height = lambda c: max(b[3] for b, _ in c["legend"]) - min(b[1] for b, _ in c["legend"])  # noqa: E731
    assert height(charts[1]) < height(charts[0]) and height(charts[2]) < height(charts[3])


def test_the_bm25_grid_is_a_heatmap_of_the_means(sweep, sweep_page):
    _, report = sweep
    charts, _, _ = sweep_page
    means = _means(report)
    maps = [c for c in charts if c["kind"] == "heatmap"]
    assert [c["title"] for c in maps] == ["AP: bm25, k1 × b", "nDCG@10: bm25, k1 × b"]
    for chart in maps:
        measure = chart["title"].split(":")[0]
        assert chart["grid_size"] == [3, 3] and len(chart["cells"]) == 9
        assert chart["x_values"] == ["0.3", "0.9", "3"] and chart["y_values"] == ["0.1", "0.4", "0.9"]
        shown = {}
        for cell in chart["cells"]:
            k1, b = chart["x_values"][cell["col"]], chart["y_values"][cell["row"]]
            run = f"bm25 k1={k1} b={b}"  # the run's name
            assert cell["value"] == f"{means[run][measure]:.4f}", (run, cell)
            assert cell["title"].startswith(run)
            shown[run] = (means[run][measure], cell["fill"])

        def darkness(fill):  # higher means are darker cells
            r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
            return -(0.299 * r + 0.587 * g + 0.114 * b)

        # the cross-validated run's mean, out of fold, under the grid
        assert chart["notes"] == [f"bm25 tuned: {means['bm25 tuned'][measure]:.4f} (cross-validated: out-of-fold)"]
        ordered = sorted(shown.values())
        assert all(darkness(a[1]) <= darkness(b[1]) for a, b in zip(ordered, ordered[1:]))
    lines = [c["title"] for c in charts if c["kind"] == "line-chart" and " by " in c["title"]]
    assert lines == ["AP: dirichlet by mu", "nDCG@10: dirichlet by mu"]  # a one-parameter sweep stays a line


def test_intervals_agree_with_the_comparisons_table(sweep, sweep_page):
    _, report = sweep
    charts, table, head = sweep_page
    rows = _csv(report / "comparisons.csv")
    intervals = [c for c in charts if c["kind"] == "interval-chart"]
    assert [c["title"] for c in intervals] == [
        "AP: run − bm25 k1=0.9 b=0.4, mean difference and 95% CI (uncorrected)",
        "nDCG@10: run − bm25 k1=0.9 b=0.4, mean difference and 95% CI (uncorrected)",
    ]
    assert "95% CI (uncorrected)" in head  # the table's CI column says the same, in HTML and Markdown
    assert "| 95% CI (uncorrected) |" in (report / "summary.md").read_text()
    for chart in intervals:
        measure = chart["title"].split(":")[0]
        mine = [r for r in rows if r["measure"] == measure]
        assert len(chart["intervals"]) == len(mine) == 15
        lo, hi = chart["x"]
        for iv, r in zip(chart["intervals"], mine):
            assert iv["label"] == r["run"]
            assert (iv["est"], iv["low"], iv["high"]) == (float(r["diff"]), float(r["ci_low"]), float(r["ci_high"]))
            assert lo <= iv["low"] and iv["high"] <= hi
            significant = r["reject"] == "True"
            want = ("better" if float(r["diff"]) > 0 else "worse") if significant else "ns"
            assert iv["kind"] == want and (iv["fill"] != "#fff") == significant
        assert lo <= 0 <= hi and hi - lo <= 2.1 * (
            max(i["high"] for i in chart["intervals"] + [{"high": 0}])
            - min(i["low"] for i in chart["intervals"] + [{"low": 0}])
        )
    # the same rows are marked in the table: green (better) or red (worse) exactly where the chart says
    kinds = {(c["title"].split(":")[0], iv["label"]): iv["kind"] for c in intervals for iv in c["intervals"]}
    for cls, cells in table:
        measure, run = cells[0], cells[2]
        assert {"sig better": "better", "sig worse": "worse", "": "ns"}[cls] == kinds[(measure, run)]
    # this sweep has uncorrected CIs that miss 0 for differences the Holm correction does not call significant
    assert any(iv["kind"] == "ns" and iv["high"] < 0 for c in intervals for iv in c["intervals"])


def test_per_topic_panels_each_have_their_own_symmetric_scale(sweep, sweep_page):
    result, report = sweep
    charts, _, _ = sweep_page
    per_topic = {}
    for r in _csv(report / "per_topic.csv"):
        per_topic[(r["run"], r["qid"])] = float(r["AP"])
    panels = [c for c in charts if c["kind"] == "bar-chart"]
    assert len(panels) == len(result.comparisons.pairs) == 15
    scales = set()
    for chart, (base, run) in zip(panels, result.comparisons.pairs):
        assert chart["title"].startswith(f"{run} − {base}")
        diffs = {q: per_topic[(run, q)] - per_topic[(base, q)] for q in result.comparisons.topics}
        shown = {re.match(r"topic (\S+):", t).group(1): v for v, t, _ in chart["bars"]}
        assert shown.keys() == diffs.keys() and all(shown[q] == pytest.approx(d, abs=1e-12) for q, d in diffs.items())
        assert [v for v, _, _ in chart["bars"]] == sorted(shown.values(), reverse=True)
        lo, hi = chart["y"]
        top = max(abs(d) for d in diffs.values())
        if top == 0:
            assert chart["ticks"] == []  # "no difference on any topic", no made-up scale
            continue
        assert lo == -hi and top <= hi <= 1.7 * top, (chart["title"], lo, hi, top)
        scales.add(hi)
        grid = [g[1] for g in chart["grid"]]
        for _, _, (_l, btop, _r, bbottom) in chart["bars"]:
            assert min(grid) - 0.5 <= btop and bbottom <= max(grid) + 0.5
    assert len(scales) >= 3  # the panels' scales differ with their data


def test_readme_states_the_plots_constants():
    text = section("The report's plots", level=3)
    assert f"Up to {SINGLE_CHART_RUNS} runs share one chart" in text
    assert f"(at most {MAX_DIFF_PLOTS})" in text
    assert f"at least {MIN_SPAN:g} tall" in text


def test_a_third_varying_parameter_gives_one_heatmap_per_value():
    """A model with three swept parameters (none ships yet; similarity families may add one): one
    heatmap of the first two per value of the third, each cell printing its run's mean."""
    import html
    import itertools

    from harness.report.plots import sweep_heatmaps
    from harness.specs.similarity import Similarity

    group = [
        Similarity("m", (("a", a), ("b", b), ("c", c)))
        for a, b, c in itertools.product((0.5, 1.0), (0.1, 0.2, 0.3), (10.0, 20.0))
    ]
    means = {str(r): round(0.1 * r.params["a"] + r.params["b"] + r.params["c"] / 1000, 6) for r in group}
    maps = sweep_heatmaps("AP", "m", group, ["a", "b", "c"], means, None, [])
    assert len(maps) == 2
    for svg, c in zip(maps, ("10", "20")):
        assert f"AP: m, a × b, c={c}</title>" in svg
        shown = re.findall(r'<title>([^<]*)</title><rect[^>]*/><text class="value"[^>]*>([0-9.]+)</text>', svg)
        assert len(shown) == 6
        for title, value in shown:
            run = html.unescape(title).split(":")[0]
            assert run.endswith(f"c={c})") and value == f"{means[run]:.4f}"
        assert svg.count(">best<") == 1


def _colours(png: bytes) -> dict[tuple[int, int, int], int]:
    """How many pixels of a PNG (8 bits per channel, RGB or RGBA, not interlaced: what Chromium
    writes) have each colour; a pixel's alpha is dropped."""
    import zlib
    from collections import Counter

    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, data, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(png):
        size, kind = struct.unpack(">I4s", png[pos : pos + 8])
        body = png[pos + 8 : pos + 8 + size]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            data += body
        pos += 12 + size
    raw, stride, prev, counts = zlib.decompress(data), width * channels, bytearray(width * channels), Counter()
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):  # PNG's five filters, each undone against the left and upper bytes
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        counts.update(tuple(line[i : i + 3]) for i in range(0, stride, channels))
        prev = line
    return dict(counts)


def test_identical_curves_are_all_visible(browser, tmp_path, screenshots):
    """Issue 47: two runs with identical precision-recall curves drew one line over the other, so
    a run seemed missing. The later line is dashed, its dashes offset so that the first shows in
    its gaps, and its legend entry says whose curve it repeats: in Chromium, each run's colour is
    seen along the curve (the pixels of the plot area, counted), and the legend names both."""
    _, result = three_runs(tmp_path)
    assert result.pr_curves["bm25"] == result.pr_curves["copy"] != result.pr_curves["flat"]
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto((result.config.output / "report.html").as_uri())
    chart = page.locator("svg.chart").first
    chart.locator("polyline").nth(2).wait_for(state="attached")  # the three curves are in the page
    styles = page.evaluate(
        """() => Array.from(document.querySelector('svg.chart').querySelectorAll('polyline')).map(p =>
             [p.querySelector('title').textContent, p.getAttribute('stroke')])"""
    )
    legend = page.evaluate(
        "() => Array.from(document.querySelector('svg.chart').querySelectorAll('g.legend-entry text'))"
        ".map(t => t.textContent)"
    )
    chart.screenshot(path=str(screenshots / "plots" / "identical-curves.png"))
    # what is painted where the bm25 curve runs (the plot area; the legend lies below it)
    colours = _colours(chart.locator("polyline").first.screenshot())
    page.close()
    assert [name for name, _ in styles] == ["bm25", "copy", "flat"]
    seen = {name: colours.get(tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5)), 0) for name, colour in styles}
    assert min(seen.values()) > 100, seen  # every run's own colour, along a few hundred pixels of line
    assert legend == ["k1=0.9, b=0.4 (baseline)", "copy (identical to bm25)", "flat"]


def test_identical_lines_take_turns_along_the_curve():
    """Of n identical lines the first is drawn whole and the k-th later one in dashes of d px
    every n·d, begun (n−k)·d into the pattern: along the curve, the n lines' dashes tile it in
    turn (line k paints [k·d, (k+1)·d) of every n·d px), so each shows; a different line keeps its style."""
    from harness.report.plots import _IDENTICAL_DASH as d
    from harness.report.plots import _show_identical

    same = [0.9, 0.5, 0.1]
    series = [Series(n, [0, 1, 2], list(same), label=f"label {n}") for n in ("a", "b", "c")]
    series.append(Series("other", [0, 1, 2], [0.8, 0.4, 0.1], dash="2 3"))
    shown = _show_identical(series)
    assert shown[0] == series[0] and shown[3] == series[3]
    assert [(s.dash, s.dash_offset, s.label) for s in shown[1:3]] == [
        (f"{d} {2 * d}", 2 * d, "label b (identical to a)"),
        (f"{d} {2 * d}", d, "label c (identical to a)"),
    ]
    # where each line's dashes fall along the first 3·d px: the pattern begun `offset` into it
    painted = [{x for x in range(3 * d) if (x + s.dash_offset) % (3 * d) < d} for s in shown[1:3]]
    assert painted == [set(range(d, 2 * d)), set(range(2 * d, 3 * d))]  # [0, d) left to the first line
    svg = line_chart("t", "x", "y", shown)
    assert f'stroke-dasharray="{d} {2 * d}" stroke-dashoffset="{2 * d}"' in svg and "label c (identical to a)" in svg
