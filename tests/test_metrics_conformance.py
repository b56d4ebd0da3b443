"""Every measure with a trec_eval counterpart equals pytrec_eval (trec_eval 9.0.x) per topic.

The synthetic data is built to hit trec_eval's corners: many score ties (so the docid
tie-break matters), judged topics missing from the run, run topics without judgments, graded
labels 0-4 plus negative labels, topics without relevant docs, short lists (P@k with fewer
than k docs), and several relevance thresholds.
"""

import math

import numpy as np
import pytest
import pytrec_eval

from harness.errors import DataError
from harness.formats.qrels import Qrels
from harness.formats.run import Run
from harness.metrics import EvalPolicy, evaluate, parse_measure
from harness.metrics.evaluate import AUDIT_COLUMNS
from harness.metrics.trec_names import trec_eval_name

MEASURES = [
    "P@1",
    "P@5",
    "P@10",
    "P@100",
    "R@5",
    "R@100",
    "AP",
    "AP@5",
    "AP@100",
    "nDCG",
    "nDCG@1",
    "nDCG@5",
    "nDCG@10",
    "nDCG@100",
    "RR",
    "Rprec",
    "bpref",
    "Success@1",
    "Success@5",
    "IPrec@0.0",
    "IPrec@0.1",
    "IPrec@0.2",
    "IPrec@0.3",
    "IPrec@0.5",
    "IPrec@0.7",
    "IPrec@1.0",
    "IPrec@0.33",
    "11pt",
    "NumRet",
    "NumRel",
    "NumRelRet",
    # trec_eval's measures that joined the registry with `harness trec_eval` (issue 26)
    "infAP",
    "SetP",
    "SetR",
    "SetF",
    "SetAP",
    "binG",
    "G",
    "ndcg_rel",
    "Rndcg",
]
CHECKED = sorted({parse_measure(m).name for m in MEASURES})  # the families pytrec_eval checks here


# doc ids of mixed lengths (prefixes like d1 < d10, > 8 and > 16 bytes, non-ASCII): the
# tie-break compares bytes like strcmp
UNIVERSE = (
    [f"d{i}" for i in range(150)]
    + [f"clueweb-{i:012d}" for i in range(150)]
    + [f"msmarco_passage_{i:04d}_é_{i * 7919 % 1000:05d}" for i in range(100)]
)


def synthetic(seed, n_topics=80):
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for t in range(n_topics):
        q = f"q{t:03d}"
        n = int(rng.integers(1, 120))
        docs = [UNIVERSE[int(x)] for x in rng.choice(400, n, replace=False)]
        scores = (rng.integers(0, 12, n) / 4).tolist()  # coarse: many ties
        if t % 9 != 4:  # some judged topics missing
            run[q] = dict(zip(docs, scores))
        if t % 10 != 7:  # some run topics unjudged
            judged = rng.choice(400, int(rng.integers(1, 150)), replace=False)
            labels = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3, 4], len(judged))
            if t % 8 == 0:
                labels = np.minimum(labels, 0)  # no relevant doc at all
            qrels[q] = {UNIVERSE[int(x)]: int(v) for x, v in zip(judged, labels)}
            qrels[q].setdefault(docs[0], 0)  # every topic has a label >= 0
    return run, qrels


def float32_order(docs: dict) -> list:
    """A topic's doc ids in trec_eval 9.0.8's order: score as a float32, descending, then doc id
    descending."""
    return sorted(docs, key=lambda k: (-np.float32(docs[k]), tuple(-b for b in k.encode())))


def harness_objects(run, qrels):
    r = Run.from_ranked({q: (list(d), list(d.values())) for q, d in run.items()})
    return r, Qrels.from_dict(qrels)


def oracle(run, qrels, measures, relevance_level=1):
    names = {trec_eval_name(m)[0] for m in measures}
    ev = pytrec_eval.RelevanceEvaluator(qrels, names, relevance_level=relevance_level)
    return ev.evaluate(run)


def assert_same(ours, ref, measures, fill_missing=None, qrels=None):
    """``fill_missing``: topics scored as trec_eval -c scores a topic without results (an empty
    ranking, trec_eval.c's bogus_ranking): 0 on every measure but num_rel, which still counts
    the topic's judged relevant documents (test/out.test.aqc: num_rel 302 = 77, num_ret 302 = 0)."""
    for m in measures:
        key = trec_eval_name(m)[1]
        got = ours.per_topic[str(m)]
        expected = {q: v[key] for q, v in ref.items()}
        if fill_missing is not None:
            for q in fill_missing:
                expected[q] = float(sum(v >= m.rel for v in qrels[q].values())) if key == "num_rel" else 0.0
        assert set(got) == set(expected), m
        bad = {q: (got[q], expected[q]) for q in expected if abs(got[q] - expected[q]) > 1e-12}
        assert not bad, f"{m}: {len(bad)} topics differ, e.g. {list(bad.items())[:3]}"
        assert ours.means[str(m)] == pytest.approx(sum(expected.values()) / len(expected), abs=1e-12)


@pytest.mark.oracle(*CHECKED, by="pytrec_eval (trec_eval 9.0.x), trec_eval -c")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_default_policy_equals_trec_eval_c(seed):
    run, qrels = synthetic(seed)
    measures = [parse_measure(m) for m in MEASURES]
    ours = evaluate(*harness_objects(run, qrels), measures)
    ref = oracle(run, qrels, measures)
    missing = [q for q in qrels if q not in run]
    assert missing and [q for q in run if q not in qrels]
    # trec_eval -c: missing topics add 0 to every measure's sum, and count in the mean
    assert_same(ours, ref, measures, fill_missing=missing, qrels=qrels)
    a = ours.audit
    assert a["topics_evaluated"] == len(qrels) == a["topics_judged"]
    assert a["judged_missing_from_run"] == a["judged_missing_scored_zero"] == len(missing)
    assert a["run_topics_without_judgments"] == len([q for q in run if q not in qrels])
    # each counter counts what docs/semantics.md says (harness.metrics.evaluate.AUDIT_COLUMNS)
    assert list(a) == list(AUDIT_COLUMNS)
    assert a["evaluated_without_relevant"] == sum(not any(v >= 1 for v in j.values()) for j in qrels.values()) > 0
    # topics, not ties: those whose documents trec_eval's order (float32 score desc, doc id desc) moves
    reordered = [q for q, d in run.items() if list(d) != float32_order(d)]
    assert a["topics_reordered"] == len(reordered) > 0
    assert a["docs_in_run"] == sum(len(d) for d in run.values()) and a["topics_in_run"] == len(run)


def test_topics_reordered_counts_topics_not_ties():
    """Issue 47: the audit's "ties reordered 1190" was read as ties. Four topics: two of tied
    scores, one already in trec_eval's order (doc id descending among ties) and one not; two
    without ties, one with its scores ascending (sorted all the same) and one in order. Two topics
    are reordered, however many tied pairs there are (twelve)."""
    run = {
        "t1": {"d9": 1.0, "d8": 1.0, "d7": 1.0, "d6": 1.0},  # six tied pairs, already in order
        "t2": {"d1": 1.0, "d2": 1.0, "d3": 1.0, "d4": 1.0},  # six tied pairs, reversed by the policy
        "t3": {"d5": 1.0, "d6": 2.0},  # no tie: scores ascending in the file
        "t4": {"d6": 2.0, "d5": 1.0},
    }
    qrels = {q: {"d1": 1} for q in run}
    ours = evaluate(*harness_objects(run, qrels), ["AP"])
    assert ours.audit["topics_reordered"] == 2 == sum(list(d) != float32_order(d) for d in run.values())
    assert ours.per_topic["AP"] == pytest.approx(
        {q: v["map"] for q, v in oracle(run, qrels, [parse_measure("AP")]).items()}
    )
    ours = evaluate(*harness_objects(run, qrels), ["AP"], EvalPolicy(ties="as-ranked"))
    assert ours.audit["topics_reordered"] == 0


@pytest.mark.parametrize("seed", [5, 6])
def test_scores_tie_as_trec_eval_holds_them_in_float32(seed):
    """trec_eval 9.0.8 keeps a score as ``float sim`` (trec_format.h): scores that differ only
    beyond float32's precision tie there and go by doc id (pytrec_eval, the same code, too).
    Long scores as BM25 runs write them (1.00000002 against 1.00000001) are such ties."""
    run, qrels = synthetic(seed)
    rng = np.random.default_rng(seed)
    for d in run.values():
        for doc in d:  # float64 scores a few ulps of float32 apart around a few distinct values
            d[doc] = float(np.float32(rng.integers(1, 6) / 3)) * (1 + float(rng.integers(-3, 4)) * 1e-9)
    measures = [parse_measure(m) for m in MEASURES]
    ours = evaluate(*harness_objects(run, qrels), measures, EvalPolicy(missing_topics="drop"))
    assert_same(ours, oracle(run, qrels, measures), measures)
    by_float64 = {q: sorted(d, key=lambda k: (-d[k], k)) for q, d in run.items()}
    by_float32 = {q: float32_order(d) for q, d in run.items()}
    assert by_float64 != by_float32  # the case is real: float64 order would give other numbers


def test_drop_policy_equals_trec_eval_default():
    run, qrels = synthetic(4)
    measures = [parse_measure(m) for m in MEASURES]
    ours = evaluate(*harness_objects(run, qrels), measures, EvalPolicy(missing_topics="drop"))
    assert_same(ours, oracle(run, qrels, measures), measures)
    assert ours.audit["judged_missing_dropped"] == ours.audit["judged_missing_from_run"] > 0
    # evaluated topics only: a judged topic without a relevant document that the run lacks is dropped
    evaluated = [j for q, j in qrels.items() if q in run]
    assert ours.audit["evaluated_without_relevant"] == sum(not any(v >= 1 for v in j.values()) for j in evaluated)
    assert ours.audit["evaluated_without_relevant"] < sum(not any(v >= 1 for v in j.values()) for j in qrels.values())


@pytest.mark.parametrize("level", [2, 3])
def test_relevance_thresholds(level):
    run, qrels = synthetic(5)
    measures = [
        parse_measure(f"{m}(rel={level})" if "@" not in m else m.replace("@", f"(rel={level})@"))
        for m in MEASURES
        if not m.startswith(("NumRet", "nDCG", "G", "ndcg_rel"))
    ]
    # nDCG ignores the threshold, exactly like trec_eval -l
    measures += [parse_measure(f"nDCG(rel={level})@10"), parse_measure(f"nDCG(rel={level})")]
    # trec_eval's G and ndcg_rel do not depend on -l (the registry's take no rel=)
    measures += [parse_measure("G"), parse_measure("ndcg_rel")]
    ours = evaluate(*harness_objects(run, qrels), measures, EvalPolicy(missing_topics="drop"))
    assert_same(ours, oracle(run, qrels, measures, relevance_level=level), measures)


def test_exp_gain_equals_trec_eval_on_relabelled_qrels():
    run, qrels = synthetic(6)
    measures = [parse_measure("nDCG(gain=exp)"), parse_measure("nDCG(gain=exp)@10")]
    ours = evaluate(*harness_objects(run, qrels), measures, EvalPolicy(missing_topics="drop"))
    # trec_eval's gain is the label: relabel l -> 2**l - 1 to get exponential gain
    relabelled = {q: {d: (2**v - 1 if v > 0 else v) for d, v in j.items()} for q, j in qrels.items()}
    ref = pytrec_eval.RelevanceEvaluator(relabelled, {"ndcg", "ndcg_cut.10"}).evaluate(run)
    for m, key in zip(measures, ["ndcg", "ndcg_cut_10"]):
        for q in ref:
            assert ours.per_topic[str(m)][q] == pytest.approx(ref[q][key], abs=1e-12)


def trec_sorted(run):
    """Each topic in trec_eval's order (score desc, docid desc), as the oracle for cut-offs."""
    return {q: sorted(d.items(), key=lambda kv: (kv[1], kv[0]), reverse=True) for q, d in run.items()}


@pytest.mark.oracle("RR", "F1", by="pytrec_eval's recip_rank and set_F on the run cut to k")
def test_rr_at_k_and_f1_at_k_equal_trec_eval_on_truncated_runs():
    run, qrels = synthetic(7)
    k = 5
    top = {q: dict(items[:k]) for q, items in trec_sorted(run).items()}
    ours = evaluate(*harness_objects(run, qrels), ["RR@5", "F1@5"], EvalPolicy(missing_topics="drop"))
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "set_F", "set_P", "set_recall"}).evaluate(top)
    for q, v in ref.items():
        assert ours.per_topic["RR@5"][q] == pytest.approx(v["recip_rank"], abs=1e-12)
        if len(top[q]) == k:  # set_F uses P over the returned set, P@k over k
            assert ours.per_topic["F1@5"][q] == pytest.approx(v["set_F"], abs=1e-12)
        else:
            p, r = v["set_P"] * len(top[q]) / k, v["set_recall"]
            assert ours.per_topic["F1@5"][q] == pytest.approx(2 * p * r / (p + r) if p + r else 0.0, abs=1e-12)


def test_as_ranked_keeps_the_run_order():
    run, qrels = synthetic(8)
    # the oracle sees the run with scores rewritten to its own order, so no ties remain
    ordered = {q: {d: float(len(s) - i) for i, d in enumerate(s)} for q, s in run.items()}
    measures = [parse_measure(m) for m in ["AP", "nDCG@10", "P@5", "RR", "bpref"]]
    ours = evaluate(*harness_objects(run, qrels), measures, EvalPolicy(ties="as-ranked", missing_topics="drop"))
    assert_same(ours, oracle(ordered, qrels, measures), measures)
    assert ours.audit["topics_reordered"] == 0


def test_unsorted_run_is_sorted_like_trec_eval():
    run, qrels = synthetic(9)
    rng = np.random.default_rng(0)
    shuffled = {q: dict(rng.permutation(list(d.items())).tolist()) for q, d in run.items()}
    shuffled = {q: {k: float(v) for k, v in d.items()} for q, d in shuffled.items()}
    measures = [parse_measure(m) for m in ["AP", "nDCG@10", "P@5", "RR", "bpref", "IPrec@0.2"]]
    ours = evaluate(*harness_objects(shuffled, qrels), measures, EvalPolicy(missing_topics="drop"))
    assert_same(ours, oracle(run, qrels, measures), measures)


def test_no_topics_gives_nan_means_not_an_error():
    ev = evaluate(
        Run.from_ranked({"a": (["d"], [1.0])}),
        Qrels.from_dict({"b": {"d": 1}}),
        ["AP"],
        EvalPolicy(missing_topics="drop"),
    )
    assert ev.topics == [] and math.isnan(ev.means["AP"])


def test_files_end_to_end(tmp_path):
    """read_run + read_qrels + evaluate on TREC files equals pytrec_eval on the same data."""
    from harness.formats.qrels import read_qrels
    from harness.formats.runs import read_run

    run, qrels = synthetic(10)
    (tmp_path / "run").write_text(
        "".join(
            f"{q} Q0 {d} {i} {s!r} tag\n" for q, docs in run.items() for i, (d, s) in enumerate(docs.items(), start=1)
        ),
        encoding="utf-8",
    )
    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 {d} {v}\n" for q, j in qrels.items() for d, v in j.items()), encoding="utf-8"
    )
    measures = [parse_measure(m) for m in MEASURES]
    ours = evaluate(
        read_run(tmp_path / "run"), read_qrels(tmp_path / "qrels"), measures, EvalPolicy(missing_topics="drop")
    )
    assert_same(ours, oracle(run, qrels, measures), measures)


def test_empty_topics_and_empty_runs():
    run = {"a": {}, "b": {"x": 1.0, "y": 1.0, "z": 1.0}}
    qrels = {"a": {"x": 1}, "b": {"y": 1, "z": 2}}
    r = Run.from_ranked({q: (list(d), list(d.values())) for q, d in run.items()})
    ev = evaluate(r, Qrels.from_dict(qrels), ["AP", "RR", "P@1"])
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank", "P.1"}).evaluate({"b": run["b"]})
    assert ev.per_topic["RR"] == {"b": ref["b"]["recip_rank"], "a": 0.0}  # z > y > x
    assert ev.per_topic["AP"]["b"] == ref["b"]["map"] and ev.audit["judged_missing_from_run"] == 1
    empty = evaluate(Run.from_ranked({}), Qrels.from_dict(qrels), ["AP", "NumRet"])
    assert empty.per_topic["AP"] == {"a": 0.0, "b": 0.0} and empty.means["NumRet"] == 0.0


def test_nDCG_threshold_policy_drops_gains_below_rel():
    run, qrels = synthetic(11)
    measures = [parse_measure("nDCG(rel=2)"), parse_measure("nDCG(rel=2)@10")]
    ours = evaluate(*harness_objects(run, qrels), measures, EvalPolicy(missing_topics="drop", nDCG_threshold=True))
    cut = {q: {d: (v if v >= 2 else min(v, 0)) for d, v in j.items()} for q, j in qrels.items()}
    ref = pytrec_eval.RelevanceEvaluator(cut, {"ndcg", "ndcg_cut.10"}).evaluate(run)
    for m, key in zip(measures, ["ndcg", "ndcg_cut_10"]):
        for q in ref:
            assert ours.per_topic[str(m)][q] == pytest.approx(ref[q][key], abs=1e-12)


def test_hash_collisions_never_change_a_number(monkeypatch):
    """With a degenerate doc-id hash every (topic, doc) key collides: the join and the
    duplicate check must fall back on the bytes and still agree with trec_eval."""
    import harness.formats.keys as keys
    import harness.formats.runs as runs

    for module in (runs, keys):
        monkeypatch.setattr(module, "id_hash", lambda ids: np.zeros(len(ids), dtype=np.uint64))
    run, qrels = synthetic(12, n_topics=15)
    measures = [parse_measure(m) for m in ["AP", "nDCG@10", "bpref", "P@5"]]
    ours = evaluate(*harness_objects(run, qrels), measures, EvalPolicy(missing_topics="drop"))
    assert_same(ours, oracle(run, qrels, measures), measures)
    with pytest.raises(DataError, match="duplicate document for topic 'q', document 'b'"):
        Run.from_ranked({"q": (["a", "b", "c", "b"], [4, 3, 2, 1])})


@pytest.mark.oracle("Judged", by="ir_measures' JudgedEvaluator, computed by hand")
def test_judged_at_k_like_ir_measures():
    """Hand-computed, following ir_measures' JudgedEvaluator: docs of the top k that have any
    qrels entry (negative labels included) / min(k, returned)."""
    run = Run.from_ranked({"q": (["a", "b", "c", "d"], [4.0, 3.0, 2.0, 1.0]), "e": ([], [])})
    qrels = Qrels.from_dict({"q": {"a": 0, "c": -1, "z": 1}, "e": {"a": 1}})
    ev = evaluate(run, qrels, ["Judged@2", "Judged@3", "Judged@10"])
    assert ev.per_topic["Judged@2"]["q"] == 1 / 2
    assert ev.per_topic["Judged@3"]["q"] == 2 / 3
    assert ev.per_topic["Judged@10"]["q"] == 2 / 4
    assert ev.per_topic["Judged@10"]["e"] == 0.0


@pytest.mark.parametrize("threads", ["1", "2"])
def test_row_slices_in_parallel_change_nothing(monkeypatch, threads):
    import importlib

    ev_module = importlib.import_module("harness.metrics.evaluate")
    monkeypatch.setattr(ev_module, "_SLICE_ROWS", 50)  # many slices of a few topics
    monkeypatch.setenv("HARNESS_THREADS", threads)
    run, qrels = synthetic(13)
    measures = [parse_measure(m) for m in MEASURES]
    ours = evaluate(*harness_objects(run, qrels), measures)
    missing = [q for q in qrels if q not in run]
    assert_same(ours, oracle(run, qrels, measures), measures, fill_missing=missing, qrels=qrels)
    rng = np.random.default_rng(1)
    shuffled = {q: {d: run[q][d] for d in rng.permutation(list(run[q]))} for q in run}
    ours = evaluate(*harness_objects(shuffled, qrels), measures)
    assert_same(ours, oracle(run, qrels, measures), measures, fill_missing=missing, qrels=qrels)
