"""harness.eval_metrics: the course's helper names, against the course lab's own reference cases
(../shared/lab/course_lab_cases.json) and, where the conventions agree, trec_eval (pytrec_eval)."""

from __future__ import annotations

import doctest
import json

import numpy as np
import pytest
import pytrec_eval

import harness.eval_metrics as em
from harness.eval_metrics import (
    average_precision,
    dcg_at_k,
    mean_average_precision,
    mrr,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)

from .conftest import shared_path

CASES = json.loads(shared_path("lab", "course_lab_cases.json").read_text())
BY_KIND = {
    "precision": precision_at_k,
    "recall": recall_at_k,
    "reciprocal_rank": reciprocal_rank,
    "dcg": dcg_at_k,
    "ndcg": ndcg_at_k,
}


def _close(actual, case):
    if "decimals" in case:
        return round(actual, case["decimals"]) == round(case["expected"], case["decimals"])
    return actual == pytest.approx(case["expected"], abs=1e-12)


def test_every_case_kind_is_known():
    assert set(CASES) - {"about"} == set(BY_KIND) | {"interpolate", "contrast_mrr_ndcg"}


@pytest.mark.parametrize("kind", sorted(BY_KIND))
def test_the_lab_cases_through_the_course_names(kind):
    assert CASES[kind]
    for case in CASES[kind]:
        got = BY_KIND[kind](case["labels"], case["k"])
        assert type(got) is float
        assert _close(got, case), (kind, case, got)


def test_mrr_of_one_query_is_its_reciprocal_rank_and_interpolate():
    for case in CASES["reciprocal_rank"]:
        assert _close(mrr([case["labels"]], case["k"]), case)
    for case in CASES["interpolate"]:
        got = em.interpolate(case["precision"], case["recall"], case["recall_levels"])
        d = case.get("decimals", 12)
        assert [round(x, d) for x in got] == [round(x, d) for x in case["expected"]]


def _trec_eval(label_lists, measures):
    """pytrec_eval on runs whose doc at rank i has the i-th label, every judged doc retrieved."""
    run, qrels = {}, {}
    for q, labels in enumerate(label_lists):
        qid = f"q{q}"
        run[qid] = {f"d{i}": float(len(labels) - i) for i in range(len(labels))}
        qrels[qid] = {f"d{i}": int(x) for i, x in enumerate(labels)}
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)


LISTS = [
    [1, 0, 0, 0, 1, 0, 0, 1, 1, 1],
    [0, 0, 0, 1, 1, 0, 0, 1, 1, 1],
    [0, 2, 3, 0, 1, 0, 4, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    [3, 0, 0, 2, 0, 1, 0, 0, 0, 0],
]


def test_equal_to_trec_eval_where_the_conventions_agree():
    """Every judged doc retrieved and k <= the list's length: the lab's and trec_eval's
    denominators coincide, so the numbers must be trec_eval's exactly."""
    res = _trec_eval(LISTS, {"P_5", "recall_5", "map", "ndcg_cut_5", "ndcg_cut_10", "recip_rank"})
    for q, labels in enumerate(LISTS):
        t = res[f"q{q}"]
        assert precision_at_k(labels, 5) == pytest.approx(t["P_5"], abs=1e-12)
        assert recall_at_k(labels, 5) == pytest.approx(t["recall_5"], abs=1e-12)
        assert average_precision(labels) == pytest.approx(t["map"], abs=1e-12)
        assert ndcg_at_k(labels, 5) == pytest.approx(t["ndcg_cut_5"], abs=1e-12)
        assert ndcg_at_k(labels, 10) == pytest.approx(t["ndcg_cut_10"], abs=1e-12)
        assert reciprocal_rank(labels) == pytest.approx(t["recip_rank"], abs=1e-12)
    assert mean_average_precision(LISTS) == pytest.approx(np.mean([v["map"] for v in res.values()]), abs=1e-12)
    assert mrr(LISTS) == pytest.approx(np.mean([v["recip_rank"] for v in res.values()]), abs=1e-12)
    assert mrr({f"q{i}": x for i, x in enumerate(LISTS)}) == mrr(LISTS)


def test_where_the_conventions_differ():
    # a 5-doc list at k=10: the lab divides by 5, trec_eval (P_10) by 10
    labels = [1, 0, 0, 0, 0]
    assert precision_at_k(labels, 10) == 0.2
    assert _trec_eval([labels], {"P_10"})["q0"]["P_10"] == 0.1
    # recall and AP over R relevant documents in the collection, 3 of them unretrieved
    assert recall_at_k([1, 0, 1], 3, R=5) == 0.4
    assert average_precision([1, 0, 1], R=5) == pytest.approx((1 + 2 / 3) / 5)


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="one list of labels per query"):
        mrr([1, 0, 1])
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        precision_at_k([1, 0], 0)
    assert mrr([]) == 0.0 and mean_average_precision([]) == 0.0


def test_a_students_notebook_runs_with_only_its_import_line_changed():
    cell = (
        "from eval_metrics import precision_at_k, recall_at_k, average_precision, "
        "mean_average_precision, ndcg_at_k, mrr\n"
        "rels = [[1, 0, 1, 0, 0], [0, 1, 0, 0, 0]]\n"
        "out = (precision_at_k(rels[0], 3), recall_at_k(rels[0], 3), average_precision(rels[0]),\n"
        "       mean_average_precision(rels), ndcg_at_k(rels[1], 5), mrr(rels))\n"
    ).replace("from eval_metrics import", "from harness.eval_metrics import")
    ns: dict = {}
    exec(cell, ns)
    assert ns["out"] == pytest.approx((2 / 3, 1.0, (1 + 2 / 3) / 2, ((1 + 2 / 3) / 2 + 0.5) / 2, 1 / np.log2(3), 0.75))


def test_doctests():
    assert doctest.testmod(em).failed == 0
