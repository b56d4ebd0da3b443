"""The course lab's functions against every reference case of the lab
(../shared/lab/course_lab_cases.json): the lab is the oracle here."""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from harness.metrics import (
    average_precision,
    dcg,
    evaluate_frame,
    interpolate,
    ndcg,
    precision,
    rank_by_scores,
    recall,
    reciprocal_rank,
)
from harness.metrics.judgments import evaluate_judgments, parse_judgments

CASES_PATH = Path(__file__).resolve().parents[2] / "shared/lab/course_lab_cases.json"


def load_cases():
    # fail, don't skip: CI checks the lab cases out beside the repo
    assert CASES_PATH.exists(), f"missing lab cases {CASES_PATH}: check out ../shared beside the repo"
    return json.loads(CASES_PATH.read_text())


CASES = load_cases()
FUNCS = {"precision": precision, "recall": recall, "reciprocal_rank": reciprocal_rank, "dcg": dcg, "ndcg": ndcg}


def close(actual, case):
    if "decimals" in case:
        return round(actual, case["decimals"]) == round(case["expected"], case["decimals"])
    return actual == pytest.approx(case["expected"], abs=1e-12)


def test_every_case_kind_is_known():
    assert set(CASES) - {"about"} == set(FUNCS) | {"interpolate", "contrast_mrr_ndcg"}


@pytest.mark.parametrize("kind", sorted(FUNCS))
def test_label_cases(kind):
    assert CASES[kind], kind
    for case in CASES[kind]:
        got = FUNCS[kind](case["labels"], case["k"])
        assert close(got, case), (kind, case, got)


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
    """Some ranking A of the case's labels has higher MRR (only label 4 relevant) but lower
    nDCG@5 than a ranking B."""
    labels = CASES["contrast_mrr_ndcg"]["labels"]
    perms = [list(p) for p in itertools.permutations(labels)]
    rr = {tuple(p): reciprocal_rank(p, 5, rel=4) for p in perms}
    nd = {tuple(p): ndcg(p, 5) for p in perms}
    pair = next(((a, b) for a in rr for b in rr if rr[a] > rr[b] and nd[a] < nd[b]), None)
    assert pair is not None
    a, b = pair
    assert rr[a] > rr[b] and nd[a] < nd[b]


def test_precision_conventions_differ_only_for_short_lists():
    assert precision([1, 0, 0, 0, 0], 100) == 0.2
    assert precision([1, 0, 0, 0, 0], 100, short_list="trec_eval") == 0.01
    assert precision([1, 0, 1], 2) == precision([1, 0, 1], 2, short_list="trec_eval") == 0.5
    with pytest.raises(ValueError, match="short_list"):
        precision([1], 1, short_list="other")


def test_average_precision_and_ranking_by_scores():
    assert average_precision([1, 0, 1, 0]) == (1 + 2 / 3) / 2
    assert average_precision([1, 0, 1, 0], R=4) == (1 + 2 / 3) / 4
    assert average_precision([1, 0, 1, 0], k=2) == 1 / 2
    assert average_precision([0, 0]) == 0.0
    # stable: equal scores keep the given order
    assert rank_by_scores([0, 1, 2, 3], [0.5, 0.9, 0.5, 0.1]).tolist() == [1, 0, 2, 3]
    assert ndcg([0, 1], ideal_labels=[3, 1, 0]) == pytest.approx((1 / np.log2(3)) / (3 + 1 / np.log2(3)))


class Columns(dict):
    """A minimal table with column access (what a pandas DataFrame offers)."""


def test_evaluate_frame_takes_columns():
    run = Columns(qid=["q1", "q1", "q2"], docno=["a", "b", "c"], score=[2.0, 1.0, 5.0])
    qrels = Columns(query_id=["q1", "q2", "q2"], doc_id=["b", "c", "d"], relevance=[1, 0, 2])
    ev = evaluate_frame(run, qrels, ["RR", "P@1"])
    assert ev.per_topic["RR"] == {"q1": 0.5, "q2": 0.0}
    assert ev.per_topic["P@1"] == {"q1": 0.0, "q2": 0.0}
    with pytest.raises(ValueError, match="score"):
        evaluate_frame(Columns(qid=["q"], docno=["a"]), qrels, ["RR"])
