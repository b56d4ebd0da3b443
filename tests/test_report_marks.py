"""The significance marks of the reports' means tables and the comparisons' *significant* column
say which way a significant difference goes (better ▲, worse ▼), with a legend line for each mark
used and none for a mark no mean carries (no Java, but for the reports written in every format)."""

from __future__ import annotations

import html
import re
from types import SimpleNamespace

import pytest

from harness.report import latex
from harness.report.tables import significance, significance_marks
from harness.stats.compare import Comparison

from .conftest import three_runs


def _row(run, baseline, diff, reject, measure="AP"):
    return Comparison(measure, baseline, run, 10, 0.3, 0.3 + diff, diff, diff, diff, 0.5, 0.01, 0.02, reject, 5, 0, 5)


def _result(rows, baselines=("bm25", "ql")):
    comparisons = SimpleNamespace(
        all_pairs=False, baselines=baselines, rows=tuple(rows), policy=SimpleNamespace(alpha=0.05, test="t"), groups=()
    )
    runs = [SimpleNamespace(name=n) for n in ("bm25", "ql", "rm3", "bad")]
    return SimpleNamespace(comparisons=comparisons, runs=runs)


def test_means_marks_say_better_or_worse_with_a_legend():
    rows = [
        _row("rm3", "bm25", +0.05, True),
        _row("bad", "bm25", -0.05, True),
        _row("bad", "ql", -0.01, False),
        _row("rm3", "ql", +0.02, True, measure="P@10"),
    ]
    marks = significance_marks(_result(rows))
    assert marks.cells == {("rm3", "AP"): ["†▲"], ("bad", "AP"): ["†▼"], ("rm3", "P@10"): ["‡▲"]}
    assert marks.legend == (
        ("†▲", "significantly better than bm25 (corrected p < 0.05)"),
        ("†▼", "significantly worse than bm25 (corrected p < 0.05)"),
        ("‡▲", "significantly better than ql (corrected p < 0.05)"),
    )  # no run is significantly worse than ql: no line for ‡▼
    assert latex._mark(["†▲", "‡▼"]) == r"$^{\dagger\uparrow\ddagger\downarrow}$"


def test_a_significant_difference_of_equal_means_has_no_direction():
    marks = significance_marks(_result([_row("rm3", "bm25", 0.0, True)], baselines=("bm25",)))
    assert marks.cells == {("rm3", "AP"): ["†"]}
    assert marks.legend == (("†", "significantly different from bm25, with the same mean (corrected p < 0.05)"),)


def test_no_significant_difference_has_no_legend():
    rows = [_row("rm3", "bm25", +0.05, False), _row("bad", "ql", -0.05, False)]
    marks = significance_marks(_result(rows))
    assert marks.cells == {} and marks.legend == ()


def test_the_significant_column_in_words():
    assert [significance(_row("a", "b", d, r)) for d, r in ((0.1, True), (-0.1, True), (0.1, False))] == [
        "▲ better",
        "▼ worse",
        "",
    ]


def _legends(out) -> dict[str, list[str]]:
    """The legend lines of the means table in each format of a report folder: summary.md's lines
    "MARK: text" under the table, report.html's marks under it, report.tex's marks in the caption."""
    md = (out / "summary.md").read_text(encoding="utf-8")
    means = md[md.index("| run |") :].split("\n\n", 2)
    page = (out / "report.html").read_text(encoding="utf-8")
    section = page[page.index('<section id="means">') : page.index("</section>", page.index('<section id="means">'))]
    caption = re.search(r"\\caption\{(.*)\}", (out / "report.tex").read_text(encoding="utf-8")).group(1)
    return {
        "md": re.findall(r"^(\S+): significantly (?:better|worse|different)", means[1], re.M),
        "html": re.findall(r'<span class="mark">([^<]*)</span> ', section),
        "tex": re.findall(r"(\$\^\{[^$]*\}\$): ", caption),
    }


@pytest.mark.java
def test_every_format_explains_the_marks_used_and_no_other(tmp_path):
    """Issue 47: "†▲: significantly better than bm25" was printed where no run is better. Three
    runs against bm25: an identical copy (not significant) and a far worse one: one mark, †▼,
    and one legend line for it in summary.md, report.html and report.tex."""
    cfg, result = three_runs(tmp_path)
    rows = {(r.run, r.measure): r for r in result.comparisons.rows}
    assert not rows[("copy", "AP")].reject and rows[("flat", "AP")].reject and rows[("flat", "AP")].diff < 0
    md = (cfg.output / "summary.md").read_text(encoding="utf-8")
    assert "| flat | 0.4931†▼ | 0.5257†▼ |" in md
    assert _legends(cfg.output) == {"md": ["†▼"], "html": ["†▼"], "tex": [r"$^{\dagger\downarrow}$"]}
    assert "†▼: significantly worse than bm25 (corrected p < 0.05)" in md and "†▲" not in md
    assert "†▲" not in (cfg.output / "report.html").read_text(encoding="utf-8")
    assert r"\uparrow" not in (cfg.output / "report.tex").read_text(encoding="utf-8")
    # the interval charts' note names the dots drawn: orange-red (flat) and hollow grey (copy)
    page = html.unescape((cfg.output / "report.html").read_text(encoding="utf-8"))
    assert "corrected p < 0.05): orange-red worse; hollow grey dots are not." in page and "green" not in page
    assert "Significant rows are red: the run is worse than the baseline." in page


@pytest.mark.java
def test_no_legend_without_a_significant_difference(tmp_path):
    """bm25 against its identical copy, and all-pairs letters: no mark in any table, no legend."""
    cfg, _ = three_runs(tmp_path / "one", runs=("bm25", "copy"))
    assert _legends(cfg.output) == {"md": [], "html": [], "tex": []}
    md = (cfg.output / "summary.md").read_text(encoding="utf-8")
    assert "significantly" not in md.split("## Comparisons")[0]  # nothing under the means table
    page = html.unescape((cfg.output / "report.html").read_text(encoding="utf-8"))
    assert "No difference is significant after the p-values' Holm-Bonferroni correction" in page
    assert "Filled dots" not in page and "green" not in page and "orange-red" not in page
    assert "Significant rows" not in page  # the comparisons table has none
    cfg, _ = three_runs(tmp_path / "all", "{baseline: all-pairs}")
    # all-pairs: bm25 and copy are each significantly better than flat, never than each other: a
    # compact letter display, bm25 and copy share a, flat alone has b
    md = (cfg.output / "summary.md").read_text(encoding="utf-8")
    assert "| bm25 | 0.8283a | 0.9123a |" in md and "| copy | 0.8283a | 0.9123a |" in md
    assert "| flat | 0.4931b | 0.5257b |" in md
    assert "\na, b, ...: two means of a measure that share a letter are not significantly different" in md
    assert "| AP | bm25 | 0.8283 | bm25, copy (2 of 3) |" in md  # indistinguishable from the best
    # no letters, no legend and no groups without a significant difference (every run would share a)
    cfg, _ = three_runs(tmp_path / "none", "{baseline: all-pairs}", runs=("bm25", "copy"))
    md = (cfg.output / "summary.md").read_text(encoding="utf-8")
    assert "| bm25 | 0.8283 | 0.9123 |" in md and "share a letter" not in md
    assert "Indistinguishable from the best" not in md
