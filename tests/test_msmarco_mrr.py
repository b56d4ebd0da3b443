"""MS MARCO's official MRR @10 (`harness evaluate --msmarco-mrr`, `harness.evaluate(...,
msmarco_mrr=True)`) against msmarco_passage_eval.py (castorini/anserini-tools scripts/msmarco/).

That script carries no licence, so it is not vendored here: the oracle below is re-derived from
what it does, step by step in its own shape (a list of 1000 positions per query filled by rank,
0 where no line gives one; every qrels line relevant; the sum over the run's queries found in the
qrels, divided by the number of queries in the qrels). The harness's implementation
(harness.metrics.msmarco) is written differently (a map of ranks, ids as text); both were checked
against the script itself on 300 random cases when this was written (labels 0 and -1, repeated
ranks, gaps, shuffled lines, topics missing on either side: the same float, bit for bit)."""

from __future__ import annotations

import random

import pytest

import harness
from harness.cli import main


def _official(qrels_text: str, run_text: str) -> tuple[float, int]:
    """msmarco_passage_eval.py's MRR @10 and QueriesRanked, re-derived (module docstring)."""
    relevant: dict[int, list[int]] = {}
    for line in qrels_text.splitlines():
        f = line.split()
        relevant.setdefault(int(f[0]), []).append(int(f[2]))
    ranked: dict[int, list[int]] = {}
    for line in run_text.splitlines():
        q, p, r = (int(x) for x in line.strip().split("\t"))
        ranked.setdefault(q, [0] * 1000)[r - 1] = p
    total, found = 0.0, 0
    for q, positions in ranked.items():
        if q in relevant:
            found += 1
            for i in range(10):
                if positions[i] in relevant[q]:
                    total += 1 / (i + 1)
                    break
    assert found, "the script raises: No matching QIDs found"
    return total / len(relevant), len(ranked)


def _case(seed: int, labels=(0, 1, 2, -1), messy: bool = True) -> tuple[str, str]:
    rng = random.Random(seed)
    topics = [str(t) for t in rng.sample(range(1, 60), 12)]
    lines = []
    for q in topics[:9]:
        rank = 0
        for d in rng.sample(range(1, 80), rng.randint(1, 14)):
            rank += rng.choice([1, 1, 1, 2]) if messy else 1
            if messy and rank > 1 and rng.random() < 0.15:
                rank -= 1  # the rank of the line before
            lines.append(f"{q}\t{d}\t{rank}\n")
    if messy:
        rng.shuffle(lines)
    qrels = "".join(
        f"{q} 0 {d} {rng.choice(labels)}\n"
        for q in (topics[3:] if messy else topics[:9])
        for d in rng.sample(range(1, 80), 10)
    )
    return "".join(lines), qrels


def _harness(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("seed", range(12))
def test_msmarco_mrr_equals_the_official_script(tmp_path, capsys, seed):
    run, qrels = _case(seed)
    (tmp_path / "run.tsv").write_text(run)
    (tmp_path / "qrels.tsv").write_text(qrels)
    mrr, ranked = _official(qrels, run)
    code, out, err = _harness(
        capsys, "evaluate", tmp_path / "run.tsv", tmp_path / "qrels.tsv", "--run-format", "msmarco", "--msmarco-mrr"
    )
    assert code == 0, err
    assert out == f"#####################\nMRR @10: {mrr}\nQueriesRanked: {ranked}\n#####################\n"
    with pytest.warns(Warning):  # topics on one side only, repeated ranks
        per_topic, means = harness.evaluate(
            tmp_path / "run.tsv", tmp_path / "qrels.tsv", "RR@10", run_format="msmarco", msmarco_mrr=True
        )
    assert means.loc["run", "MRR@10(msmarco)"] == mrr and means.attrs["QueriesRanked"] == ranked
    official = per_topic[per_topic.measure == "MRR@10(msmarco)"]
    assert len(official) == len({line.split()[0] for line in qrels.splitlines()})
    assert official.value.sum() / len(official) == pytest.approx(mrr, rel=1e-15)


def test_rr_at_10_is_the_official_number_when_labels_are_positive_and_ranks_clean(tmp_path, capsys):
    """trec_eval's RR@10 under -c (the default) equals MRR @10 when every qrels label is >= 1 and
    the ranks are 1..n once each; with labels 0 (counted relevant by the script only) they differ."""
    for labels, equal in (((1, 2), True), ((0, 1), False)):
        run, qrels = _case(3, labels=labels, messy=False)
        (tmp_path / "run.tsv").write_text(run)
        (tmp_path / "qrels.tsv").write_text(qrels)
        mrr, _ = _official(qrels, run)
        _, means = harness.evaluate(tmp_path / "run.tsv", tmp_path / "qrels.tsv", "RR@10", run_format="msmarco")
        assert (abs(means.loc["run", "RR@10"] - mrr) < 1e-12) == equal, labels


def test_no_run_topic_in_the_qrels_is_an_error(tmp_path, capsys):
    (tmp_path / "run.tsv").write_text("1\t5\t1\n")
    (tmp_path / "qrels.tsv").write_text("2 0 5 1\n")
    code, _, err = _harness(
        capsys, "evaluate", tmp_path / "run.tsv", tmp_path / "qrels.tsv", "--run-format", "msmarco", "--msmarco-mrr"
    )
    assert code == 2 and "run.tsv" in err
