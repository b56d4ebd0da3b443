"""MS MARCO's official MRR @10, the measure `MRR@10(msmarco)` (`harness evaluate --msmarco-mrr`
and `-m`, `harness.evaluate(...)` with `msmarco_mrr=True` or `measures=`, `harness compare -m`, a
config's `measures`, `expect` and `compare`), against msmarco_passage_eval.py
(castorini/anserini-tools scripts/msmarco/).

That script carries no licence, so it is not vendored here: the oracle below is re-derived from
what it does, step by step in its own shape (a list of 1000 positions per query filled by rank,
0 where no line gives one; every qrels line relevant; the sum over the run's queries found in the
qrels, divided by the number of queries in the qrels; each query's reciprocal rank kept too, for
the per-topic values). The harness's implementation (harness.metrics.msmarco) is written
differently (rank slots over the run's rows, ids as text); the first one was checked against the
script itself on 300 random cases when it was written (labels 0 and -1, repeated ranks, gaps,
shuffled lines, topics missing on either side: the same float, bit for bit)."""

from __future__ import annotations

import random

import pandas as pd
import pytest

import harness
from harness.cli import main
from harness.errors import DataError
from harness.metrics.judgments import evaluate_judgments, parse_judgments
from harness.verbs.compare import compare_files

from .conftest import REPO


def _official(qrels_text: str, run_text: str, per: dict | None = None, depth: int = 10) -> tuple[float, int]:
    """msmarco_passage_eval.py's MRR @10 (@``depth``) and QueriesRanked, re-derived (module
    docstring); ``per`` gets each qrels query's reciprocal rank (0 where none counts)."""
    relevant: dict[int, list[int]] = {}
    for line in qrels_text.splitlines():
        f = line.split()
        relevant.setdefault(int(f[0]), []).append(int(f[2]))
    ranked: dict[int, list[int]] = {}
    for line in run_text.splitlines():
        q, p, r = (int(x) for x in line.strip().split("\t"))
        ranked.setdefault(q, [0] * 1000)[r - 1] = p
    total, found = 0.0, 0
    if per is not None:
        per.update(dict.fromkeys(map(str, relevant), 0.0))
    for q, positions in ranked.items():
        if q in relevant:
            found += 1
            for i in range(depth):
                if positions[i] in relevant[q]:
                    total += 1 / (i + 1)
                    if per is not None:
                        per[str(q)] = 1 / (i + 1)
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


@pytest.mark.oracle("MRR(msmarco)", by="msmarco_passage_eval.py, re-derived in its own shape")
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


# --- the measure at every door --------------------------------------------------------------


def _trec(run_text: str, seed: int) -> str:
    """The run as a TREC file in the same line order: the rank column as written, scores that
    order the rows otherwise (trec_eval's order is not the rank column's)."""
    rng = random.Random(seed)
    return "".join(
        f"{q} Q0 {d} {r} {rng.random()!r} x\n" for q, d, r in (line.split("\t") for line in run_text.splitlines())
    )


@pytest.mark.parametrize("seed", range(6))
def test_the_measure_is_the_official_number_at_every_evaluate_door(tmp_path, capsys, seed):
    """-m MRR@10(msmarco) prints the script's number (and -q its per-topic values); the API's
    measures= gives it bit for bit, as msmarco_mrr=True does, whatever the tie and missing-topic
    policies; a TREC file is read by its rank column, not its scores."""
    run, qrels = _case(seed)
    (tmp_path / "run.tsv").write_text(run)
    (tmp_path / "run.trec").write_text(_trec(run, seed))
    (tmp_path / "qrels.tsv").write_text(qrels)
    per: dict = {}
    mrr, ranked = _official(qrels, run, per)
    mrr100, _ = _official(qrels, run, depth=100)
    for path, layout in ((tmp_path / "run.tsv", "msmarco"), (tmp_path / "run.trec", "trec")):
        code, out, err = _harness(
            capsys, "evaluate", path, tmp_path / "qrels.tsv", "--run-format", layout, "-m", "MRR@10(msmarco)", "-q"
        )
        assert code == 0, err
        lines = out.splitlines()
        assert lines[-1] == f"MRR@10(msmarco)\tall\t{mrr:.4f}"
        assert lines[:-1] == [f"MRR@10(msmarco)\t{q}\t{per[q]:.4f}" for q in sorted(per)]
        with pytest.warns(Warning):  # topics on one side only, repeated ranks
            for policy in ({}, {"ties": "as-ranked"}, {"missing_topics": "drop"}):
                pt, means = harness.evaluate(
                    path,
                    tmp_path / "qrels.tsv",
                    ["RR@10", "MRR@10(msmarco)", "MRR@100(msmarco)"],
                    run_format=layout,
                    **policy,
                )
                assert means.loc["run", "MRR@10(msmarco)"] == mrr, policy
                assert means.loc["run", "MRR@100(msmarco)"] == mrr100, policy
                assert means.attrs["QueriesRanked"] == ranked
                official = pt[pt.measure == "MRR@10(msmarco)"]
                assert dict(zip(official.qid, official.value)) == per
            flag = harness.evaluate(path, tmp_path / "qrels.tsv", "RR@10", run_format=layout, msmarco_mrr=True)
            named = harness.evaluate(path, tmp_path / "qrels.tsv", ["RR@10", "MRR@10(msmarco)"], run_format=layout)
        for a, b in zip(flag, named):
            pd.testing.assert_frame_equal(a, b)
            assert a.attrs == b.attrs


def test_compare_takes_the_measure_and_reads_the_rank_column(tmp_path, capsys):
    """harness compare -m MRR@10(msmarco): each run's values are the script's, per topic and
    mean, and the comparison's difference is theirs; TREC files read by their rank column."""
    (tmp_path / "qrels.tsv").write_text(_case(0)[1])
    qrels = _case(0)[1]
    want, per = {}, {}
    for seed, name in ((0, "a"), (5, "b")):
        run = _case(seed)[0]
        (tmp_path / f"{name}.trec").write_text(_trec(run, seed))
        per[name] = {}
        want[name] = _official(qrels, run, per[name])[0]
    files = [tmp_path / "a.trec", tmp_path / "b.trec"]
    with pytest.warns(Warning):
        got = compare_files(files, tmp_path / "qrels.tsv", baseline="a", measures=["MRR@10(msmarco)", "RR@10"])
    for name in ("a", "b"):
        assert got.evaluations[name].means["MRR@10(msmarco)"] == want[name]
        assert got.evaluations[name].per_topic["MRR@10(msmarco)"] == per[name]
    (row,) = [r for r in got.table.rows if r.measure == "MRR@10(msmarco)"]
    assert row.diff == pytest.approx(want["b"] - want["a"], abs=1e-12)
    code, out, err = _harness(
        capsys, "compare", *files, "--qrels", tmp_path / "qrels.tsv", "--baseline", "a", "-m", "MRR@10(msmarco)"
    )
    assert code == 0 and "MRR@10(msmarco)" in out, err


def test_judgments_by_rank_and_a_reproduction_refuse_it():
    """Rankings judged by position have no rank column or qrels to read as the script does, and a
    reproduction scores runs in trec_eval's order: both say so rather than give another number."""
    with pytest.raises(DataError, match=r"MRR@10\(msmarco\) reads a run's rank column"):
        evaluate_judgments(parse_judgments("q1: 1,0,1"), ["RR@10", "MRR@10(msmarco)"])
    with pytest.raises(DataError, match=r"MRR@10\(msmarco\) reads a run's rank column .* harness evaluate"):
        harness.reproduce("a.trec", "b.trec", "c.trec", "d.trec", "q.txt", measures=["MRR@10(msmarco)"])


# --- in a config: measures, expect, compare -------------------------------------------------
DOCS = sorted(f"sample_docs/{p.name}" for p in (REPO / "corpora" / "sample_docs").glob("*.txt"))
TOPICS = [line.split("\t")[0] for line in (REPO / "topics" / "demo.tsv").read_text().splitlines() if line]


def _demo_run(seed: int) -> str:
    """A messy MS MARCO run of 11 of the demo's topics over its documents (as :func:`_case`)."""
    rng = random.Random(seed)
    lines = []
    for q in rng.sample(TOPICS, 11):
        rank = 0
        for d in rng.sample(DOCS, rng.randint(1, 14)):
            rank += rng.choice([1, 1, 1, 2])
            if rank > 1 and rng.random() < 0.15:
                rank -= 1
            lines.append(f"{q}\t{d}\t{rank}\n")
    rng.shuffle(lines)
    return "".join(lines)


def _as_numbers(text: str) -> str:
    """Doc ids as the integers the script reads (each document its own number)."""
    number = {d: str(i) for i, d in enumerate(DOCS, 1)}
    sep = "\t" if "\t" in text else " "
    return "".join(sep.join(number.get(f, f) for f in line.split(sep)) + "\n" for line in text.splitlines())


@pytest.mark.java
def test_a_config_measures_expects_and_compares_the_official_number(tmp_path):
    """MRR@10(msmarco) in a config's measures, expect and compare.measures: a `file:` run in MS
    MARCO's layout and in TREC's (read by its rank column) and a searched run (ranked 1..n as
    searched) each get the script's number, bit for bit; the report's copy of a run gives it too."""
    run = _demo_run(3)
    (tmp_path / "mine.tsv").write_text(run)
    (tmp_path / "mine.trec").write_text(_trec(run, 3))
    (tmp_path / "indexes").mkdir()
    qrels = (REPO / "qrels" / "demo.txt").read_text()
    want = _official(_as_numbers(qrels), _as_numbers(run))[0]
    config = f"""\
name: msmarco-measure
collection: {{path: {REPO}/corpora, format: text-folder}}
index: {{stemmer: porter, stopwords: true}}
topics: {{path: {REPO}/topics/demo.tsv, format: tsv}}
qrels: {REPO}/qrels/demo.txt
output: {tmp_path}/out
measures: [RR@10, MRR@10(msmarco)]
runs:
  - {{name: base, bm25: {{k1: 0.9, b: 0.4}}}}
  - {{name: tsv, file: mine.tsv, format: msmarco}}
  - {{name: trec, file: mine.trec}}
expect: {{tsv: {{MRR@10(msmarco): {want!r}}}, trec: {{"MRR@10(msmarco)": {want!r}}}}}
compare: {{baseline: base, measures: [MRR@10(msmarco)], test: t, correction: none}}
"""
    (tmp_path / "c.yaml").write_text(config)
    with pytest.warns(Warning):  # the file runs' repeated ranks, topics the run lacks
        result = harness.run(tmp_path / "c.yaml")
    assert result.ok and list(result.checks["actual"]) == [want, want]
    searched = "".join(
        f"{q}\t{d}\t{r}\n" for q, d, r in result.runs["base"][["qid", "docno", "rank"]].itertuples(index=False)
    )
    base = _official(_as_numbers(qrels), _as_numbers(searched))[0]
    assert result.means["MRR@10(msmarco)"].to_dict() == {"base": base, "tsv": want, "trec": want}
    rows = result.comparisons.set_index("run")
    assert list(rows["measure"]) == ["MRR@10(msmarco)"] * 2
    assert rows.loc["tsv", "diff"] == pytest.approx(want - base, abs=1e-12)
    copy = result.output / next(r["file"] for r in result.manifest["runs"] if r["name"] == "tsv")
    with pytest.warns(Warning, match="judged topics are not in the run"):
        _, means = harness.evaluate(copy, REPO / "qrels" / "demo.txt", "MRR@10(msmarco)")
    assert means.iloc[0, 0] == want
