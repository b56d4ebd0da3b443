"""Measure names: canonical text, round trips, helpful errors; policy validation."""

import pytest

from harness.metrics import MEASURES, EvalPolicy, Measure, parse_measure
from harness.metrics.trec_names import trec_eval_name


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("nDCG@10", "nDCG@10"),
        ("ndcg@10", "nDCG@10"),
        ("AP", "AP"),
        ("map", "AP"),
        ("MAP", "AP"),
        ("ndcg_cut_10", "nDCG@10"),
        ("ndcg_cut.10", "nDCG@10"),
        ("ndcg", "nDCG"),
        ("P_5", "P@5"),
        ("P.5", "P@5"),
        ("recip_rank", "RR"),
        ("MRR", "RR"),
        ("MRR@10", "RR@10"),
        ("recall_100", "R@100"),
        ("recall@100", "R@100"),
        ("R@100", "R@100"),
        ("map_cut_10", "AP@10"),
        ("success_1", "Success@1"),
        ("iprec_at_recall_0.50", "IPrec@0.5"),
        ("11pt_avg", "11pt"),
        ("num_ret", "NumRet"),
        ("num_rel", "NumRel"),
        ("num_rel_ret", "NumRelRet"),
        ("Bpref", "bpref"),
        ("R-prec", "Rprec"),
        ("Map", "AP"),
        ("mapp", None),
        ("P(rel=2)@5", "P(rel=2)@5"),
        ("P@5(rel=2)", "P(rel=2)@5"),
        ("P(rel=1)@5", "P@5"),
        ("nDCG(rel=2,gain=exp)@10", "nDCG(gain=exp,rel=2)@10"),
        ("IPrec@0.50", "IPrec@0.5"),
        ("IPrec@1", "IPrec@1.0"),
        ("11pt", "11pt"),
        ("Judged@10", "Judged@10"),
        ("AP@100", "AP@100"),
        # ir_measures: NumRet(rel=N) counts the relevant returned docs (its NumRelRet = NumRet(rel=1))
        ("NumRet(rel=1)", "NumRelRet"),
        ("NumRet(rel=2)", "NumRelRet(rel=2)"),
        ("SetF(beta=0.5)", "SetF(beta=0.5)"),
        ("SetF(rel=2,beta=2)", "SetF(beta=2.0,rel=2)"),
        ("set_F.0.5", "SetF(beta=0.5)"),
        ("Judged", "Judged"),
        # MS MARCO's official MRR: a family of its own, the cut-off before the evaluation's name
        ("MRR@10(msmarco)", "MRR@10(msmarco)"),
        ("MRR(msmarco)@10", "MRR@10(msmarco)"),
        ("mrr@100(MSMARCO)", "MRR@100(msmarco)"),
    ],
)
def test_canonical_round_trip(text, canonical):
    if canonical is None:
        with pytest.raises(ValueError, match="Valid measures: P@k"):
            parse_measure(text)
        return
    m = parse_measure(text)
    assert str(m) == canonical and parse_measure(str(m)) == m
    assert hash(m) == hash(parse_measure(canonical))


@pytest.mark.parametrize(
    "text, msg",
    [
        ("P", "needs a cut-off"),
        ("bpref@10", "takes no cut-off"),
        ("P@0", "integer k >= 1"),
        ("IPrec@1.5", "0 <= r <= 1"),
        ("P(gain=exp)@5", "no gain"),
        ("nDCG(gain=log)", "gain must"),
        ("AP(rel=0)", "rel must"),
        ("AP(foo=1)", "bad option"),
        ("Nope@3", "unknown measure"),
        ("mapp", "did you mean 'map' \\(= AP\\)"),
        ("ndcg_cutt_10", "did you mean 'ndcg_cut' \\(= nDCG\\)"),
        ("ERR@10", "did you mean 'RR'"),
        ("gm_map", "unknown measure"),
        ("P@x", "cannot parse"),
        ("G(rel=2)", "no rel"),
        ("SetF(beta=x)", "beta must"),
        ("P(beta=2)@5", "no beta"),
        ("MRR(msmarco)", r"needs a cut-off, e.g. MRR@10\(msmarco\)"),
        ("MRR@10(msmarco,rel=2)", "bad option 'msmarco'"),
        ("MRR(msmarco)@10(rel=2)", "takes no rel="),
        ("RR@10(msmarco)", r"\(msmarco\) is MRR@10\(msmarco\), a measure of its own"),
    ],
)
def test_bad_measures_say_what_is_allowed(text, msg):
    with pytest.raises(ValueError, match=msg):
        parse_measure(text)


def test_every_registry_entry_parses_and_is_frozen():
    for info in MEASURES.values():
        text = info.written("" if info.cutoff != "required" else f"@{'0.5' if info.float_cutoff else 3}")
        m = parse_measure(text)
        assert str(m) == text
        with pytest.raises(AttributeError):
            m.cutoff = 5


def test_trec_eval_table():
    assert trec_eval_name(parse_measure("AP")) == ("map", "map")
    assert trec_eval_name(parse_measure("AP@10")) == ("map_cut.10", "map_cut_10")
    assert trec_eval_name(parse_measure("IPrec@0.1")) == ("iprec_at_recall.0.1", "iprec_at_recall_0.10")
    assert trec_eval_name(parse_measure("Judged@10")) is None


def test_policy_is_validated_and_printable():
    assert str(EvalPolicy()) == "ties=trec_eval, missing_topics=zero, nDCG_threshold=False"
    with pytest.raises(ValueError, match="as-ranked"):
        EvalPolicy(ties="random")
    with pytest.raises(ValueError, match="drop"):
        EvalPolicy(missing_topics="skip")
    assert Measure("P", 5) == parse_measure("P@5")
