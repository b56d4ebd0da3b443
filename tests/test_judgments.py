"""Rank-position judgments give the same numbers as the equivalent doc-id qrels."""

import pytest

from harness.errors import DataError
from harness.formats.qrels import Qrels
from harness.formats.run import Run
from harness.metrics import EvalPolicy, evaluate
from harness.metrics.judgments import evaluate_judgments, parse_judgments, read_judgments, to_qrels, to_ranked_labels

MEASURES = [
    "P@3",
    "P@10",
    "R@5",
    "AP",
    "AP@5",
    "nDCG",
    "nDCG@5",
    "RR",
    "RR@2",
    "Rprec",
    "bpref",
    "Success@1",
    "IPrec@0.5",
    "11pt",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "Judged@5",
    "DCG@5",
    "CG@5",
    "F1@5",
    "nDCG(gain=exp)@5",
    "AP(rel=2)",
    "bpref(rel=2)",
]

TEXT = """
# week 2 lab
vector space model: 1,0,1,0,0
boolean retrieval: 0, 2, ?, 3, 0, 1 ; R=6
probabilistic model: 0,0,0
bm25: 4 3 0 ? 1 ; R=3
"""


def equivalent_qrels_and_run(j):
    """Built by hand here, not by harness code: doc r<i> at rank i gets label i; R adds
    relevant docs the list never returned."""
    run, qrels = {}, {}
    for t, (topic, labels) in enumerate(j.labels.items()):
        docs = [f"t{t}-r{i}" for i in range(1, len(labels) + 1)]
        run[topic] = (docs, [float(len(docs) - i) for i in range(len(docs))])
        qrels[topic] = {d: int(v) for d, v in zip(docs, labels) if v >= 0}
        extra = (j.R[topic] or 0) - sum(1 for v in labels if v >= 1)
        for n in range(max(extra, 0)):
            qrels[topic][f"t{t}-missing{n}"] = 1
    return Run.from_ranked(run), Qrels.from_dict(qrels)


def test_rank_judgments_equal_doc_id_qrels():
    j = parse_judgments(TEXT)
    ours = evaluate_judgments(j, MEASURES)
    run, qrels = equivalent_qrels_and_run(j)
    ref = evaluate(run, qrels, MEASURES, EvalPolicy(missing_topics="drop"))
    assert ours.topics == ref.topics == ["vector space model", "boolean retrieval", "probabilistic model", "bm25"]
    for m in ref.per_topic:
        for t in ref.topics:
            assert ours.per_topic[m][t] == pytest.approx(ref.per_topic[m][t], abs=1e-15), (m, t)


def test_to_qrels_feeds_the_doc_id_path_with_the_same_numbers():
    j = parse_judgments(TEXT)
    run, _ = equivalent_qrels_and_run(j)
    a = evaluate(run, to_qrels(run, j), MEASURES, EvalPolicy(missing_topics="drop"))
    b = evaluate_judgments(j, MEASURES)
    for m in a.per_topic:
        for t in a.topics:
            assert a.per_topic[m][t] == pytest.approx(b.per_topic[m][t], abs=1e-15), (m, t)


def test_hand_computed_values():
    # vector space model: 1,0,1,0,0 -> P@3 = 2/3, AP = (1 + 2/3) / 2, RR = 1
    ev = evaluate_judgments(parse_judgments("vsm: 1,0,1,0,0"), ["P@3", "AP", "RR", "Judged@10"])
    assert ev.per_topic["P@3"]["vsm"] == 2 / 3
    assert ev.per_topic["AP"]["vsm"] == (1 + 2 / 3) / 2
    assert ev.per_topic["RR"]["vsm"] == 1.0
    assert ev.per_topic["Judged@10"]["vsm"] == 1.0  # 5 judged of min(k=10, 5 returned)
    # '?' is unjudged: not relevant, not judged
    ev = evaluate_judgments(parse_judgments("q: ?,1,0,?"), ["Judged@4", "bpref", "P@4"])
    assert ev.per_topic["Judged@4"]["q"] == 0.5
    assert ev.per_topic["bpref"]["q"] == 1.0
    assert ev.per_topic["P@4"]["q"] == 0.25


def test_yaml_mapping_and_file(tmp_path):
    j = parse_judgments({"vsm": "1,0,1", "bm25": [2, 0], "lm": {"labels": "0,1", "R": 4}})
    assert j.labels["bm25"].tolist() == [2, 0] and j.R["lm"] == 4 and j.R["vsm"] is None
    p = tmp_path / "j.yaml"
    p.write_text("vsm: 1,0,1\nlm:\n  labels: [0, 1]\n  R: 4\n")
    j2 = read_judgments(p)
    assert j2.labels["lm"].tolist() == [0, 1] and j2.R["lm"] == 4
    t = tmp_path / "j.txt"
    t.write_text(TEXT)
    assert read_judgments(t).topics() == parse_judgments(TEXT).topics()
    assert to_ranked_labels(j2).labels.tolist() == [1, 0, 1, 0, 1]


@pytest.mark.parametrize(
    "text, where",
    [
        ("q1: 1,0,x,1", ("q1", "'x'", ":1")),
        ("q1: 1,0\nq2: 1,-3", ("q2", "'-3'", ":2")),
        ("q1: 1,0,1; R=1", ("q1", "R=1", ":1")),
        ("q1: 1,0; X=3", ("q1", "R=", ":1")),
        ("just labels 1 0 1", ("topic: labels", ":1")),
        ("q1: 1\nq1: 0", ("judged twice", ":2")),
    ],
)
def test_malformed_judgments_name_topic_and_token(text, where):
    with pytest.raises(DataError) as e:
        parse_judgments(text, source="lab.txt")
    for part in where:
        assert part in str(e.value)


def test_malformed_mapping():
    with pytest.raises(DataError, match=r"topic 'q'.*'1\.5'"):
        parse_judgments({"q": "1,1.5"})
    with pytest.raises(DataError, match="labels"):
        parse_judgments({"q": {"lab": [1]}})


def test_negative_label_in_text_is_an_error_like_in_a_list():
    # -1 is the internal code for '?'; written out it must not slip through as "unjudged".
    for data in ("q1: 1,0,-1", {"q1": [1, 0, -1]}, {"q1": "1,0,-1"}):
        with pytest.raises(DataError, match=r"bad relevance label '-1' at rank 3"):
            parse_judgments(data)
    assert parse_judgments("q1: 1,0,?").labels["q1"].tolist()[:2] == [1, 0]


def test_cranfield_rank_judgments_equal_trec_eval_on_doc_ids(cranfield_index, cranfield_topics):
    """A BM25 Cranfield run, judged by rank position (each rank's qrels grade, '?' when
    unjudged, R = relevant docs in the qrels), gives trec_eval's numbers on the doc-id qrels.
    (nDCG is left out: its ideal needs the grades of relevant docs the run never returned,
    which rank-position judgments do not carry; R says only how many there are.)"""
    import pytrec_eval

    from harness.engine.index import IndexOptions
    from harness.engine.search import Searcher
    from harness.specs.similarity import Similarity

    from .conftest import shared_path

    qrels = {}
    for line in open(shared_path("collections", "cranfield", "qrels.txt")):
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    ranked = Searcher(cranfield_index.path, IndexOptions()).search(
        [t for _, t in cranfield_topics], Similarity.parse("bm25"), 1000
    )
    lines = []
    for (qid, _), (docs, _) in zip(cranfield_topics, ranked):
        labels = ",".join(str(qrels[qid][d]) if d in qrels[qid] else "?" for d in docs)
        lines.append(f"{qid}: {labels}; R={sum(1 for g in qrels[qid].values() if g >= 1)}")
    ours = evaluate_judgments(
        parse_judgments("\n".join(lines)), ["P@10", "AP", "RR", "R@1000", "Rprec", "bpref", "NumRelRet"]
    )
    run = {
        qid: {d: float(s) for d, s in zip(docs, scores)} for (qid, _), (docs, scores) in zip(cranfield_topics, ranked)
    }
    names = {
        "P@10": "P_10",
        "AP": "map",
        "RR": "recip_rank",
        "R@1000": "recall_1000",
        "Rprec": "Rprec",
        "bpref": "bpref",
        "NumRelRet": "num_rel_ret",
    }
    oracle = pytrec_eval.RelevanceEvaluator(qrels, set(names.values())).evaluate(run)
    assert len(oracle) == 225
    for m, name in names.items():
        for qid, values in oracle.items():
            assert ours.per_topic[m][qid] == pytest.approx(values[name], abs=1e-12), (m, qid)
