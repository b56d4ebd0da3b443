"""Other tools' own test cases, run on the harness: ir_measures' (terrierteam/ir_measures,
tests/test_pytrec_eval.py, test_judged.py, test_measures.py, test_util.py) and pytrec_eval's
(cvangysel/pytrec_eval, tests/pytrec_eval_tests.py).

Their qrels and runs are copied here as literals. The oracle is pytrec_eval, asked for the
trec_eval measure and relevance level that ir_measures' pytrec_eval provider
(ir_measures/providers/pytrec_eval_provider.py) maps each ir_measures name to; the values their
tests expect are checked too. ir_measures is not a dependency: its judged provider, which is
not trec_eval, is ported in ``ir_measures_judged`` below.
"""

import re

import pytest
import pytrec_eval

import harness
from harness.errors import DataError
from harness.formats.qrels import Qrels
from harness.formats.run import Run
from harness.metrics import EvalPolicy, evaluate, parse_measure


def qrels(text):
    out = {}
    for line in text.strip().splitlines():
        q, _, d, rel = line.split()
        out.setdefault(q, {})[d] = int(rel)
    return out


def run(text):
    out = {}
    for line in text.strip().splitlines():
        q, _, d, _, score, _ = line.split()
        out.setdefault(q, {})[d] = float(score)
    return out


# ir_measures' tests/test_pytrec_eval.py: its runs (note the ranks disagree with the scores:
# D3 0.4 is ranked above D1 0.3, as trec_eval sorts) ...
RUN_A = run("""
0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D3 2 0.7 run
1 0 D4 3 0.3 run
1 0 D2 4 0.4 run
""")
RUN_B = run("""
0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D4 2 0.7 run
1 0 D3 3 0.3 run
1 0 D2 4 0.4 run
""")
RUN_C = run("""
0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D0 2 0.7 run
1 0 D3 3 0.3 run
1 0 D2 4 0.4 run
""")
# ... and its qrels: graded, negative labels, a judged doc no run returns (D5)
QRELS_NUMRET = qrels("""
0 0 D0 0
0 0 D1 1
0 0 D2 1
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D5 2
""")
QRELS_SET = qrels("""
0 0 D0 0
0 0 D1 1
0 0 D2 2
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D5 0
""")
QRELS_IPREC = qrels("""
0 0 D0 1
0 0 D1 1
0 0 D2 2
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D5 0
""")
QRELS_NEG = qrels("""
0 0 D0 1
0 0 D1 -1
0 0 D2 0
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D4 -1
1 0 D5 0
""")
QRELS_P = qrels("""
0 0 D0 -1
0 0 D1 1
0 0 D3 2
0 0 D4 1
1 0 D0 1
1 0 D3 0
1 0 D4 -1
""")
QRELS = {"numret": QRELS_NUMRET, "set": QRELS_SET, "iprec": QRELS_IPREC, "neg": QRELS_NEG, "p": QRELS_P}
RUNS = {"a": RUN_A, "b": RUN_B, "c": RUN_C}


def pytrec_eval_provider(name):
    """(trec_eval measure, result key, relevance_level) that ir_measures' pytrec_eval provider
    computes for an ir_measures measure written ``Name[(rel=N[,beta=B])][@k]``."""
    m = re.fullmatch(r"(\w+)(?:\(([^)]*)\))?(?:@([\d.]+))?", name)
    fam, cut = m[1], m[3]
    params = dict(p.split("=") for p in (m[2] or "").split(",") if p)
    rel = int(params.get("rel", 1))
    if fam == "IPrec":
        return f"iprec_at_recall_{float(cut):.2f}", f"iprec_at_recall_{float(cut):.2f}", rel
    if fam == "NumRet":  # NumRet(rel=N) is num_rel_ret at level N
        return ("num_rel_ret", "num_rel_ret", rel) if "rel" in params else ("num_ret", "num_ret", 1)
    if fam == "SetF" and float(params.get("beta", 1.0)) != 1.0:
        return f"set_F_{float(params['beta'])}", "set_F", rel
    if cut is not None:
        base = {"P": "P", "R": "recall", "Success": "success", "AP": "map_cut", "nDCG": "ndcg_cut"}[fam]
        return f"{base}_{cut}", f"{base}_{cut}", rel
    base = {
        "AP": "map",
        "RR": "recip_rank",
        "Rprec": "Rprec",
        "nDCG": "ndcg",
        "Bpref": "bpref",
        "infAP": "infAP",
        "SetP": "set_P",
        "SetR": "set_recall",
        "SetF": "set_F",
        "SetAP": "set_map",
        "NumRel": "num_rel",
        "NumRelRet": "num_rel_ret",
    }[fam]
    return base, base, rel


def _with(fam, rel, cut=None):
    opts = f"(rel={rel})" if rel is not None else ""
    return fam + opts + (f"@{cut}" if cut is not None else "")


# Every ir_measures name the harness accepts with a pytrec_eval provider mapping.
IR_MEASURES_NAMES = (
    [_with(f, r, k) for f in ("P", "R", "Success", "AP") for r in (None, 1, 2, 3) for k in (1, 2, 3, 4, 5, 10, 1000)]
    + [f"nDCG@{k}" for k in (1, 2, 3, 4, 5, 10, 1000)]
    + [
        _with(f, r)
        for f in ("AP", "RR", "Rprec", "Bpref", "infAP", "SetP", "SetR", "SetF", "SetAP")
        for r in (None, 2, 3)
    ]
    + ["nDCG", "NumRet", "NumRel", "NumRelRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumRet(rel=3)"]
    + ["SetF(beta=0.5)", "SetF(beta=2.0)", "SetF(rel=2,beta=0.5)", "SetF(beta=2.4)"]
    + [_with("IPrec", r, x) for r in (None, 2) for x in (0.0, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0)]
)


DROP = EvalPolicy(missing_topics="drop")  # ir_measures' providers score the run's topics


def _harness(run_dict, qrels_dict, names, policy=DROP):
    r = Run.from_ranked({q: (list(d), list(d.values())) for q, d in run_dict.items()})
    return evaluate(r, Qrels.from_dict(qrels_dict), [parse_measure(n) for n in names], policy)


@pytest.mark.parametrize("qrels_name", sorted(QRELS))
@pytest.mark.parametrize("run_name", sorted(RUNS))
def test_ir_measures_names_give_its_pytrec_eval_numbers(qrels_name, run_name):
    qr, rn = QRELS[qrels_name], RUNS[run_name]
    ev = _harness(rn, qr, IR_MEASURES_NAMES)
    for name in IR_MEASURES_NAMES:
        request, key, level = pytrec_eval_provider(name)
        ref = pytrec_eval.RelevanceEvaluator(qr, {request}, relevance_level=level).evaluate(rn)
        got = ev.per_topic[str(parse_measure(name))]
        assert got == {q: v[key] for q, v in ref.items()}, name


def test_ir_measures_spellings_parse_to_the_same_measure():
    pairs = {
        "MAP": "AP",
        "MRR": "RR",
        "NDCG@10": "nDCG@10",
        "RPrec": "Rprec",
        "BPref": "bpref",
        "Bpref(rel=2)": "bpref(rel=2)",
        "Precision@5": "P@5",
        "Recall@5": "R@5",
        "P(rel=2)@10": "P(rel=2)@10",
        "IPrec(rel=2)@0.2": "IPrec(rel=2)@0.2",
        "NumRet(rel=1)": "NumRelRet",
        "NumRet(rel=2)": "NumRelRet(rel=2)",
        "SetF(rel=1)": "SetF",
        "SetF(beta=1.0)": "SetF",
        "SetF(beta=0.5)": "SetF(beta=0.5)",
        "SetF(beta=2.0, rel=2)": "SetF(beta=2.0,rel=2)",
        "set_F.0.5": "SetF(beta=0.5)",
        "set_F_2.4": "SetF(beta=2.4)",
        "Judged": "Judged",
        "Judged@10": "Judged@10",
    }
    for text, canonical in pairs.items():
        m = parse_measure(text)
        assert str(m) == canonical and parse_measure(canonical) == m, text


@pytest.mark.parametrize(
    "text",
    [
        "nDCG(dcg=exp-log2)@10",
        "nDCG(gains={0:1,1:2})",
        "P(judged_only=True)@4",
        "SetRelP",
        "NumQ",
        "ERR@20",
        "nDCG(cutoff=20)",
        "IPrec(recall=0.4)",
        "SetF(beta=-1)",
        "SetF(beta=inf)",
        "AP(beta=2)",
    ],
)
def test_ir_measures_forms_the_harness_does_not_compute_are_refused(text):
    with pytest.raises(ValueError):
        parse_measure(text)


def test_values_ir_measures_tests_expect():
    """The literal expectations of ir_measures' tests/test_pytrec_eval.py, independently of
    pytrec_eval (sums for the counts, as its SumAgg; means for the rest)."""
    ev = _harness(RUN_A, QRELS_NUMRET, ["NumRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumRet(rel=3)"])
    assert ev.per_topic["NumRet"] == {"0": 5, "1": 4} and ev.summary["NumRet"] == 9
    assert ev.per_topic["NumRelRet"] == {"0": 3, "1": 1} and ev.summary["NumRelRet"] == 4
    assert ev.per_topic["NumRelRet(rel=2)"] == {"0": 1, "1": 1} and ev.summary["NumRelRet(rel=2)"] == 2
    assert ev.summary["NumRelRet(rel=3)"] == 0

    ev = _harness(RUN_B, QRELS_SET, ["Success@2", "Success(rel=2)@2", "SetP", "SetP(rel=2)", "SetR", "SetAP"])
    assert ev.per_topic["Success@2"] == {"0": 1, "1": 0} and ev.means["Success(rel=2)@2"] == 0.5
    assert ev.per_topic["SetP"] == {"0": 0.6, "1": 0.25} and ev.means["SetP"] == 0.425
    assert ev.per_topic["SetP(rel=2)"] == {"0": 0.4, "1": 0.25}
    assert ev.per_topic["SetR"] == {"0": 1.0, "1": 0.5} and ev.per_topic["SetAP"] == {"0": 0.6, "1": 0.125}

    ev = _harness(RUN_B, QRELS_SET, ["SetF", "SetF(beta=0.5)", "SetF(beta=2.0)", "SetF(rel=3)"])
    for name, per_topic, mean in [
        ("SetF", (0.75, 1 / 3), 0.5417),
        ("SetF(beta=0.5)", (0.6923, 0.3), 0.49615),
        ("SetF(beta=2.0)", (0.81818, 0.375), 0.59659),
    ]:
        assert [ev.per_topic[name][q] for q in "01"] == pytest.approx(per_topic, abs=1e-4), name
        assert ev.means[name] == pytest.approx(mean, abs=1e-4), name
    assert ev.means["SetF(rel=3)"] == 0

    ev = _harness(RUN_B, QRELS_IPREC, ["IPrec@0.25", "IPrec@0.75", "IPrec(rel=2)@0.1"])
    assert ev.per_topic["IPrec@0.25"] == {"0": 1.0, "1": 0.25} and ev.means["IPrec@0.75"] == 0.5
    assert ev.means["IPrec(rel=2)@0.1"] == pytest.approx(0.4583, abs=1e-4)

    ev = _harness(RUN_B, QRELS_NEG, ["AP", "infAP", "AP(rel=2)", "infAP(rel=2)", "nDCG", "nDCG@3"])
    assert ev.per_topic["infAP"]["1"] == 0.1875 and ev.means["infAP"] == pytest.approx(0.510416, abs=1e-4)
    assert ev.means["AP(rel=2)"] == pytest.approx(0.2917, abs=1e-4)
    assert ev.per_topic["infAP(rel=2)"]["1"] == pytest.approx(0.375, abs=1e-4)
    assert [ev.per_topic["nDCG"][q] for q in "01"] == pytest.approx([0.76018, 0.32739], abs=1e-5)
    assert [ev.per_topic["nDCG@3"][q] for q in "01"] == pytest.approx([0.76018, 0.0], abs=1e-5)

    ev = _harness(RUN_C, QRELS_P, ["P@4"])
    assert ev.per_topic["P@4"] == {"0": 0.5, "1": 0.25}


def ir_measures_judged(run_dict, qrels_dict, cutoff=None):
    """ir_measures' JudgedEvaluator (providers/judged_provider.py), ported: score descending,
    ties by doc id *ascending*; any qrels entry counts; topics of the run with judgments."""
    out = {}
    for q, docs in run_dict.items():
        if not qrels_dict.get(q):
            continue
        ranked = sorted(docs.items(), key=lambda x: (-x[1], x[0]))
        k = len(ranked) if cutoff is None else cutoff
        top = ranked[:k]
        out[q] = sum(d in qrels_dict[q] for d, _ in top) / min(k, len(top)) if top else 0.0
    return out


def test_judged_equals_ir_measures_judged_provider():
    # ir_measures' tests/test_judged.py
    ev = _harness(RUN_A, QRELS_NUMRET, ["Judged", "Judged@1000", "Judged@10", "Judged@3", "Judged@1"])
    expected = {
        "Judged": (1.0, 1 / 4),
        "Judged@1000": (1.0, 1 / 4),
        "Judged@10": (1.0, 1 / 4),
        "Judged@3": (1.0, 1 / 3),
        "Judged@1": (1.0, 0.0),
    }
    for name, (v0, v1) in expected.items():
        assert ev.per_topic[name] == {"0": v0, "1": v1}, name
        k = parse_measure(name).cutoff
        assert ev.per_topic[name] == ir_measures_judged(RUN_A, QRELS_NUMRET, k), name
    for rn in RUNS.values():
        for qr in QRELS.values():
            ev = _harness(rn, qr, ["Judged", "Judged@2", "Judged@4"])
            for k in (None, 2, 4):
                assert ev.per_topic[str(parse_measure("Judged" if k is None else f"Judged@{k}"))] == (
                    ir_measures_judged(rn, qr, k)
                )


def test_judged_reads_the_ties_policys_ranking_not_ir_measures_tie_order():
    """A tie straddling rank k: ir_measures' judged provider keeps doc id ascending (a, then b);
    the harness reads trec_eval's ranking (b, then a), as its P@k and every other measure do."""
    rn = {"q": {"a": 1.0, "b": 1.0, "c": 0.5}}
    qr = {"q": {"a": 0, "z": 1}}
    ev = _harness(rn, qr, ["Judged@1", "P@1"])
    assert ir_measures_judged(rn, qr, 1) == {"q": 1.0}
    assert ev.per_topic["Judged@1"] == {"q": 0.0}
    as_ranked = _harness(
        {"q": {"a": 1.0, "b": 1.0, "c": 0.5}}, qr, ["Judged@1"], EvalPolicy(ties="as-ranked", missing_topics="drop")
    )
    assert as_ranked.per_topic["Judged@1"] == {"q": 1.0}  # the run's own order: a first


# pytrec_eval's tests/pytrec_eval_tests.py (test_ndcg, test_ndcg_cut): one qrels, runs whose
# q2 is an empty dict
PTE_QRELS = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
PTE_RUNS = [
    ({"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}}, 0.5),
    ({"q1": {"d1": 1.0, "d2": 2.0, "d3": 1.5}, "q2": {}}, 1.0),
    ({"q1": {"d1": 4.0, "d2": 2.0, "d3": 1.5}, "q2": {}}, 0.6309297535714575),
    ({"q1": {"d1": 1.0, "d2": 2.0, "d3": 1.5}}, 1.0),
]
PTE_MEASURES = {"AP": "map", "nDCG": "ndcg", "nDCG@1": "ndcg_cut_1", "nDCG@2": "ndcg_cut_2", "nDCG@3": "ndcg_cut_3"}
PTE_MEASURES |= {"nDCG@1000": "ndcg_cut_1000", "NumRet": "num_ret", "NumRel": "num_rel", "P@5": "P_5"}


@pytest.mark.parametrize("case", range(len(PTE_RUNS)))
def test_pytrec_eval_cases_through_the_python_api(case):
    rn, q1_ndcg = PTE_RUNS[case]
    requests = {"map", "ndcg", "ndcg_cut.1,2,3,1000", "num_ret", "num_rel", "P.5"}
    ref = pytrec_eval.RelevanceEvaluator(PTE_QRELS, requests).evaluate(rn)
    assert ref["q1"]["ndcg"] == pytest.approx(q1_ndcg)  # what pytrec_eval's test asserts
    per_topic, means = harness.evaluate(rn, PTE_QRELS, list(PTE_MEASURES))
    got = {(r.qid, r.measure): r.value for r in per_topic.itertuples()}
    # the default (trec_eval -c) scores a judged topic without documents as an empty ranking,
    # exactly as pytrec_eval scores an empty dict
    for q in PTE_QRELS:
        want = ref.get(q) or {k: (2.0 if k == "num_rel" else 0.0) for k in PTE_MEASURES.values()}
        for m, key in PTE_MEASURES.items():
            assert got[(q, m)] == want[key], (q, m)
    assert means["AP"].iloc[0] == (ref["q1"]["map"] + (ref["q2"]["map"] if "q2" in ref else 0.0)) / 2


def test_an_empty_topic_in_a_pytrec_eval_dict_is_a_missing_topic():
    """pytrec_eval evaluates ``{"q2": {}}`` (zeros); the harness has no empty ranking distinct
    from a missing one: ``drop`` leaves q2 out, ``zero`` scores it as pytrec_eval does."""
    rn = PTE_RUNS[0][0]
    ref = pytrec_eval.RelevanceEvaluator(PTE_QRELS, {"map"}).evaluate(rn)
    assert set(ref) == {"q1", "q2"} and ref["q2"]["map"] == 0.0
    zero, _ = harness.evaluate(rn, PTE_QRELS, ["AP"])
    drop, _ = harness.evaluate(rn, PTE_QRELS, ["AP"], missing_topics="drop")
    assert dict(zip(zero.qid, zero.value)) == {q: v["map"] for q, v in ref.items()}
    assert dict(zip(drop.qid, drop.value)) == {"q1": ref["q1"]["map"]}


def test_pytrec_eval_empty_inputs():
    """pytrec_eval's test_empty: an empty run gives no topics there; here every judged topic
    scores 0 under the default (trec_eval -c) and none under drop; empty qrels are an error."""
    assert pytrec_eval.RelevanceEvaluator(PTE_QRELS, {"map"}).evaluate({}) == {}
    per_topic, _ = harness.evaluate({}, PTE_QRELS, ["AP"])
    assert dict(zip(per_topic.qid, per_topic.value)) == {"q1": 0.0, "q2": 0.0}
    per_topic, _ = harness.evaluate({}, PTE_QRELS, ["AP"], missing_topics="drop")
    assert per_topic.empty
    with pytest.raises(DataError, match="no judgments"):
        harness.evaluate(PTE_RUNS[0][0], {}, ["AP"])


@pytest.mark.parametrize("level", [1, 2])
def test_setf_beta_equals_trec_eval_set_F_beta_on_synthetic_runs(level):
    from . import test_metrics_conformance as conformance

    rn, qr = conformance.synthetic(21 + level)
    for beta in (0.0, 0.25, 0.5, 2.0, 2.4, 10.0):
        name = f"SetF(beta={beta},rel={level})"
        ev = _harness(rn, qr, [name])
        ref = pytrec_eval.RelevanceEvaluator(qr, {f"set_F.{beta}"}, relevance_level=level).evaluate(rn)
        assert ev.per_topic[str(parse_measure(name))] == {q: v["set_F"] for q, v in ref.items()}, name
