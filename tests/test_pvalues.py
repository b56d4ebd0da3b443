"""p-values are written by one rule everywhere (harness.policies.format_p): `harness compare`'s
table, summary.md, report.html and the API's HTML tables; never a p of 0. The p-values themselves
come from scipy, the oracle."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from scipy import stats as sps

from harness.policies import P_FLOOR, format_p

from .conftest import REPO

NO_JVM = {"HARNESS_JAVA_OPTS": "-Xno-such-option"}  # comparing files starts no Java


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (1.0, "1.0000"),
        (0.05, "0.0500"),
        (0.001, "0.0010"),
        (0.000999, "9.990e-04"),
        (4.508e-06, "4.508e-06"),
        (2.3e-16, "2.300e-16"),
        (P_FLOOR, "2.220e-16"),
        (1e-17, "<2.2e-16"),
        (5e-324, "<2.2e-16"),
        (0.0, "<2.2e-16"),
        (float("nan"), "nan"),
    ],
)
def test_the_rule(p, text):
    assert format_p(p) == text


def _compare(tmp_path, ranks_b: list[int]) -> list[str]:
    """`harness compare` of a run with the one relevant document at rank 2 for every topic against
    one with it at ``ranks_b``: the RR row's cells."""
    n = len(ranks_b)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 rel 1\n" for q in range(1, n + 1)))
    docs = ["x1", "x2", "x3", "x4"]

    def run(path, ranks, tag):
        lines = []
        for q, rank in zip(range(1, n + 1), ranks):
            ranking = docs[: rank - 1] + ["rel"] + docs[rank - 1 :]
            lines += [f"{q} Q0 {d} {i} {10 - i} {tag}\n" for i, d in enumerate(ranking, start=1)]
        path.write_text("".join(lines))
        return path

    a, b = run(tmp_path / "a.trec", [2] * n, "a"), run(tmp_path / "b.trec", ranks_b, "b")
    r = subprocess.run(
        [sys.executable, "-m", "harness", "compare", str(a), str(b), "--qrels", str(qrels), "--baseline", "a"]
        + ["-m", "RR", "--correction", "none"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, **NO_JVM},
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    return next(line.split() for line in r.stdout.splitlines() if line.startswith("RR "))


def test_compare_writes_a_small_p_as_the_report_does(tmp_path):
    ranks = [1] * 30 + [3] * 10  # RR differences: +0.5 thirty times, -1/6 ten times
    row = _compare(tmp_path, ranks)
    expected = sps.ttest_rel([1.0 / r for r in ranks], [0.5] * len(ranks)).pvalue
    assert P_FLOOR < expected < 1e-3  # the scientific branch (was printed 0.0000)
    assert row[7] == row[8] == format_p(expected) == f"{expected:.3e}"


def test_compare_never_prints_a_p_of_zero(tmp_path):
    # constant differences: the t statistic is infinite and the harness's t-test gives 0.0
    row = _compare(tmp_path, [1] * 12)
    assert row[7] == row[8] == "<2.2e-16"
