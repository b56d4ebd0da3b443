"""Every golden output (tests/golden.py) is reproduced: run files, per-topic values, means,
p-values, reports and CLI transcripts, after normalising only paths, timings and versions."""

from __future__ import annotations

import pytest

from . import golden
from .conftest import shared_path

# Every case searches BM25, Dirichlet and JM alone: its processes' JVMs compile with C1 alone
# (tests/conftest.py, sparse_only_processes), which changes no run file (the goldens are the same)
pytestmark = [pytest.mark.java, pytest.mark.slow, pytest.mark.usefixtures("sparse_only_processes")]


@pytest.mark.parametrize("case", golden.CASES, ids=[c.name for c in golden.CASES])
def test_golden_outputs_are_reproduced(case, tmp_path):
    if case.needs_shared:
        shared_path("collections", "cranfield")
    golden.lay_out(tmp_path.resolve())
    got = golden.run_case(case, tmp_path.resolve())
    assert got, "the case produced nothing"
    problems = golden.differences(case, got)
    assert not problems, "\n\n".join(problems)


def test_normalisation_masks_only_timings_paths_and_versions():
    """The normaliser is itself checked: timings and the seconds column go, numbers stay."""
    subs = [("/tmp/x/repo", "<REPO>")]
    text = (
        "run bm25: searched 15 topics in 0.04 s\n| run | AP | seconds |\n|---|---:|---:|\n| bm25 | 0.8283 | 0.04 |\n"
        "- versions: python 3.12.1\nindex /tmp/x/repo/indexes/a\n"
    )
    assert golden.normalise_text(text, subs) == (
        "run bm25: searched 15 topics in <S> s\n| run | AP | seconds |\n|---|---:|---:|\n| bm25 | 0.8283 | <S> |\n"
        "- versions: <VERSIONS>\nindex <REPO>/indexes/a\n"
    )
    page = "<table><tr><th>run</th><th>seconds</th></tr><tr><td>a&amp;b</td><td>0.04</td></tr></table>"
    assert golden.dom(page) == [
        "<table>", "<tr>", "<th>", "#text run", "</th>", "<th>", "#text seconds", "</th>", "</tr>",
        "<tr>", "<td>", "#text a&b", "</td>", "<td>", "#text <MASKED>", "</td>", "</tr>", "</table>",
    ]  # fmt: skip


def test_normalisation_masks_the_search_times_and_keeps_what_is_stable():
    """The latency figures that vary from run to run are masked in every format, their keys and
    columns kept, and the queries, threads and batches compared; a cell left empty (a run not
    searched) stays empty; the latency chart is masked whole but for its tag."""
    head = "| run | search | queries | threads | qps | mean ms | p50 ms | p95 ms | p99 ms | index MB |\n"
    rule = "|---|---|" + "---:|" * 8 + "\n"
    text = head + rule + "| bm25 | searched | 15 | 2 | 36.8 | 50.56 | 0.82 | 361.39 | 363.25 | 0.1 |\n"
    text += "| copy | not searched |  |  |  |  |  |  |  |  |\n"
    assert golden.normalise_text(text, []) == head + rule + (
        "| bm25 | searched | 15 | 2 | <S> | <S> | <S> | <S> | <S> | <S> |\n| copy | not searched |  |  |  |  |  |  |  |  |\n"
    )
    entry = {"name": "bm25", "seconds": 0.1, "latency": {"queries": 15, "threads": 2, "qps": 36.76, "mean_ms": 1.0}}
    assert golden._json(entry) == {
        "name": "bm25",
        "latency": {"queries": 15, "threads": 2, "qps": "<MASKED>", "mean_ms": "<MASKED>"},
    }
    assert golden._json({"latency": None}) == {"latency": None}
    page = (
        '<p>a</p><svg class="chart scatter-chart" width="560"><title>AP</title><line x1="3"/>'
        '<circle cx="1.5"><title>bm25: 2 ms</title></circle></svg><p>b</p>'
    )
    assert golden.dom(page) == [
        "<p>", "#text a", "</p>", "<svg class='chart scatter-chart' width='560'>", "#svg <MASKED>", "</svg>",
        "<p>", "#text b", "</p>",
    ]  # fmt: skip
