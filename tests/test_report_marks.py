"""The significance marks of the reports' means tables and the comparisons' *significant* column
say which way a significant difference goes (better ▲, worse ▼), with a legend line each; no Java."""

from __future__ import annotations

from types import SimpleNamespace

from harness.report import latex
from harness.report.tables import significance, significance_marks
from harness.stats.compare import Comparison


def _row(run, baseline, diff, reject, measure="AP"):
    return Comparison(measure, baseline, run, 10, 0.3, 0.3 + diff, diff, diff, diff, 0.5, 0.01, 0.02, reject, 5, 0, 5)


def _result(rows, baselines=("bm25", "ql")):
    comparisons = SimpleNamespace(
        all_pairs=False, baselines=baselines, rows=tuple(rows), policy=SimpleNamespace(alpha=0.05)
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
        ("‡▼", "significantly worse than ql (corrected p < 0.05)"),
    )
    assert latex._mark(["†▲", "‡▼"]) == r"$^{\dagger\uparrow\ddagger\downarrow}$"


def test_a_significant_difference_of_equal_means_has_no_direction():
    marks = significance_marks(_result([_row("rm3", "bm25", 0.0, True)], baselines=("bm25",)))
    assert marks.cells == {("rm3", "AP"): ["†"]}
    assert marks.legend[-1] == ("†", "significantly different from bm25, with the same mean (corrected p < 0.05)")


def test_the_significant_column_in_words():
    assert [significance(_row("a", "b", d, r)) for d, r in ((0.1, True), (-0.1, True), (0.1, False))] == [
        "▲ better",
        "▼ worse",
        "",
    ]
