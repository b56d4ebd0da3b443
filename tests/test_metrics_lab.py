"""The course lab's functions against every reference case of the lab
(../shared/lab/course_lab_cases.json): the lab is the oracle here."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from harness.eval_metrics import average_precision, interpolate, ndcg, precision, reciprocal_rank
from harness.metrics.judgments import evaluate_judgments, parse_judgments

CASES_PATH = Path(__file__).resolve().parents[2] / "shared/lab/course_lab_cases.json"


def load_cases():
    # fail, don't skip: CI checks the lab cases out beside the repo
    assert CASES_PATH.exists(), f"missing lab cases {CASES_PATH}: check out ../shared beside the repo"
    return json.loads(CASES_PATH.read_text())


CASES = load_cases()


def close(actual, case):
    if "decimals" in case:
        return round(actual, case["decimals"]) == round(case["expected"], case["decimals"])
    return actual == pytest.approx(case["expected"], abs=1e-12)


def test_the_same_cases_through_the_registry_measures():
    """The measures (and rank judgments) agree with the lab where conventions agree: P@k when
    k <= len(list), R@k with R = relevant in the list, RR@k, DCG@k, nDCG@k."""
    names = {"precision": "P", "recall": "R", "reciprocal_rank": "RR", "dcg": "DCG", "ndcg": "nDCG"}
    for kind, name in names.items():
        for case in CASES[kind]:
            if kind == "precision" and case["k"] > len(case["labels"]):
                continue  # the lab divides by len(list), trec_eval by k
            labels = ",".join(map(str, case["labels"]))
            ev = evaluate_judgments(parse_judgments(f"t: {labels}"), [f"{name}@{case['k']}"])
            assert close(ev.per_topic[f"{name}@{case['k']}"]["t"], case), (kind, case)


def test_interpolate_cases():
    assert CASES["interpolate"]
    for case in CASES["interpolate"]:
        got = interpolate(case["precision"], case["recall"], case["recall_levels"])
        d = case.get("decimals")
        if d is not None:
            assert [round(x, d) for x in got] == [round(x, d) for x in case["expected"]], case
        else:
            assert got == pytest.approx(case["expected"], abs=1e-12), case


def test_contrast_mrr_ndcg():
    """The case: with labels 0-4 and only label 4 relevant for RR, a ranking with higher MRR but
    lower nDCG@5 than another. A = 4 0 1 2 3 (RR 1) against B = 3 4 2 1 0 (RR 1/2); nDCG@5 from
    the lab's formula (linear gain, log2(rank + 1), ideal = the labels sorted)."""
    labels = CASES["contrast_mrr_ndcg"]["labels"]
    a, b = [4, 0, 1, 2, 3], [3, 4, 2, 1, 0]
    assert sorted(a) == sorted(b) == sorted(labels)

    def by_hand(ranking):
        dcg_ = sum(g / math.log2(r + 2) for r, g in enumerate(ranking))
        ideal = sum(g / math.log2(r + 2) for r, g in enumerate(sorted(ranking, reverse=True)))
        return dcg_ / ideal

    assert (reciprocal_rank(a, 5, rel=4), reciprocal_rank(b, 5, rel=4)) == (1.0, 0.5)
    assert ndcg(a, 5) == pytest.approx(by_hand(a), abs=1e-15) and ndcg(b, 5) == pytest.approx(by_hand(b), abs=1e-15)
    assert round(by_hand(a), 4) == 0.8905 and round(by_hand(b), 4) == 0.9496  # A: higher MRR, lower nDCG@5


def test_precision_conventions_differ_only_for_short_lists():
    assert precision([1, 0, 0, 0, 0], 100) == 0.2
    assert precision([1, 0, 0, 0, 0], 100, short_list="trec_eval") == 0.01
    assert precision([1, 0, 1], 2) == precision([1, 0, 1], 2, short_list="trec_eval") == 0.5
    with pytest.raises(ValueError, match="short_list"):
        precision([1], 1, short_list="other")


def test_average_precision_and_the_ideal_of_ndcg():
    assert average_precision([1, 0, 1, 0]) == (1 + 2 / 3) / 2
    assert average_precision([1, 0, 1, 0], R=4) == (1 + 2 / 3) / 4
    assert average_precision([1, 0, 1, 0], k=2) == 1 / 2
    assert average_precision([0, 0]) == 0.0
    assert ndcg([0, 1], ideal_labels=[3, 1, 0]) == pytest.approx((1 / np.log2(3)) / (3 + 1 / np.log2(3)))


def test_the_old_names_in_harness_metrics_forward_with_a_warning():
    import harness.eval_metrics
    import harness.metrics

    with pytest.warns(DeprecationWarning, match="moved to harness.eval_metrics.precision"):
        assert harness.metrics.precision is harness.eval_metrics.precision
    with pytest.raises(AttributeError):
        harness.metrics.rank_by_scores  # noqa: B018  deleted (only tests used it)
