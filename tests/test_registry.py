"""The measure registry owns each measure: its kernel, how trec_eval's "all" line is formed and
what a judged topic the run lacks scores. Every family is checked against an oracle somewhere."""

from __future__ import annotations

import math
import random

import pytest

from harness.formats.qrels import Qrels
from harness.formats.run import Run
from harness.metrics import MEASURES, EvalPolicy, evaluate, parse_measure
from harness.metrics.families import FAMILIES
from harness.metrics.providers import PROVIDERS, kernel

from . import test_metrics_conformance as conformance

# Where each family meets an oracle that is not our code.
ORACLES = {
    **{parse_measure(m).name: "test_metrics_conformance (pytrec_eval)" for m in conformance.MEASURES},
    "F1": "test_metrics_conformance.test_rr_at_k_and_f1_at_k_equal_trec_eval_on_truncated_runs (set_F)",
    "Judged": "test_metrics_conformance.test_judged_at_k_like_ir_measures",
    "DCG": "here: a plain loop over the ranking",
    "CG": "here: a plain loop over the ranking",
    "MRR(msmarco)": "test_msmarco_mrr (msmarco_passage_eval.py, re-derived in its own shape)",
}


def test_every_family_has_a_kernel_a_summary_and_a_missing_topic_rule():
    for name, info in MEASURES.items():
        assert callable(kernel(name)), name
        assert info.summary in ("mean", "sum") and info.on_missing in ("zero", "keep"), name
    # trec_eval sums exactly its num_* counts over topics ("summary figure is sum of individual topics")
    assert {n for n, i in MEASURES.items() if i.summary == "sum"} == {"NumRet", "NumRel", "NumRelRet"}
    assert {i.trec for i in MEASURES.values() if i.summary == "sum"} == {"num_ret", "num_rel", "num_rel_ret"}
    # trec_eval -c: a missing topic keeps its judged relevant count and scores 0 on the rest
    assert {n for n, i in MEASURES.items() if i.on_missing == "keep"} == {"NumRel"}


def test_every_family_has_one_provider_that_reads_its_judgments():
    """One implementation of each measure at run time: each family of the table is computed by
    exactly one provider, of the judgments the family reads; num_q (the number of topics) by none."""
    for name, info in FAMILIES.items():
        owners = [p for p in PROVIDERS if name in p.families]
        if name == "num_q":
            assert not owners and info.summary == "count"
            continue
        assert len(owners) == 1, (name, [p.name for p in owners])
        assert owners[0].judgments == info.judgments, name
    assert set().union(*(p.families for p in PROVIDERS)) <= set(FAMILIES)
    assert set(MEASURES) <= set(FAMILIES) and all(info.offered for info in MEASURES.values())


def test_every_family_meets_an_oracle():
    assert set(ORACLES) == set(MEASURES)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dcg_and_cg_equal_a_plain_loop(seed):
    rng = random.Random(seed)
    ranked, judged = {}, {}
    for t in range(6):
        docs = [f"d{i}" for i in range(rng.randint(0, 30))]
        rng.shuffle(docs)
        ranked[f"t{t}"] = (docs, [float(len(docs) - i) for i in range(len(docs))])
        judged[f"t{t}"] = {f"d{i}": rng.choice([0, 0, 1, 2, 3]) for i in range(0, 40, 2)}
    run, qrels = Run.from_ranked({q: r for q, r in ranked.items() if r[0]}), Qrels.from_dict(judged)
    ev = evaluate(run, qrels, ["DCG@10", "CG@10", "DCG"], EvalPolicy())
    for t, (docs, _) in ranked.items():
        gains = [judged[t].get(d, 0) for d in docs]
        assert ev.per_topic["CG@10"][t] == pytest.approx(sum(gains[:10]), abs=1e-12)
        want = sum(g / math.log2(i + 2) for i, g in enumerate(gains[:10]))
        assert ev.per_topic["DCG@10"][t] == pytest.approx(want, abs=1e-12)
        assert ev.per_topic["DCG"][t] == pytest.approx(sum(g / math.log2(i + 2) for i, g in enumerate(gains)))
