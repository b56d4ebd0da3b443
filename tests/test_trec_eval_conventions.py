"""trec_eval's summary conventions, through `harness evaluate` as a user runs it.

The expected numbers come from trec_eval itself, not from our code:

- test/out.test.aqc of trec_eval 9.0.8 (``trec_eval -m all_trec -q -c test/qrels.test
  test/results.trunc``): topics 301 and 303 have results, 302 is judged but has none. Its lines
  num_ret 301 = 500, 303 = 84, all = 584; num_rel 301 = 474, 303 = 10, all = 561 (302 has 77);
  num_rel_ret 301 = 71, 303 = 6, all = 77; P_5 301 = 0.0, 303 = 0.6, all = 0.2000.
  ``make_suite_case`` rebuilds files with exactly these counts (the suite's files are 100 KB; the
  counts are all these measures depend on), so trec_eval's printed values are the oracle.
- Without -c, trec_eval 9.0.8 on the same files prints num_rel all = 484 (474 + 10: only topics
  with results are accumulated) and P_5 all = 0.3000 (m_num_rel.c: te_calc_avg_num_rel recounts
  the whole qrels only when -c is given).
"""

from __future__ import annotations

import pytest

from harness.cli import main


def make_suite_case(tmp_path):
    """qrels and run with the counts of trec_eval's test/out.test.aqc (see the module docstring)."""
    qrels, run = [], []
    # topic: (relevant judged, retrieved, relevant retrieved, relevant among the top 5)
    shape = {"301": (474, 500, 71, 0), "302": (77, 0, 0, 0), "303": (10, 84, 6, 3)}
    for t, (n_rel, n_ret, n_rel_ret, top5) in shape.items():
        rel = [f"{t}-R{i:04d}" for i in range(n_rel)]
        non = [f"{t}-N{i:04d}" for i in range(n_ret)]
        qrels += [f"{t} 0 {d} 1" for d in rel] + [f"{t} 0 {d} 0" for d in non[:50]]
        if not n_ret:
            continue
        # the top 5 holds `top5` relevant docs, the rest of the relevant ones come after rank 5
        ranking = rel[:top5] + non[: 5 - top5] + rel[top5:n_rel_ret] + non[5 - top5 :]
        ranking = ranking[:n_ret]
        assert sum(d in rel for d in ranking) == n_rel_ret and len(ranking) == n_ret
        run += [f"{t} Q0 {d} {i + 1} {1000 - i} STANDARD" for i, d in enumerate(ranking)]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    return str(tmp_path / "run"), str(tmp_path / "qrels")


def evaluate(capsys, *args) -> dict[tuple[str, str], str]:
    assert main(["evaluate", *args]) == 0
    out = {}
    for line in capsys.readouterr().out.splitlines():
        name, topic, value = line.split("\t")
        out[name, topic] = value
    return out


def test_counts_are_summed_and_c_counts_relevant_of_topics_without_results(tmp_path, capsys):
    run, qrels = make_suite_case(tmp_path)
    out = evaluate(capsys, run, qrels, "-q", "-m", "num_ret", "num_rel", "num_rel_ret", "P_5")
    # names are printed canonically; trec_eval's are accepted as input
    assert out["NumRet", "all"] == "584"
    assert out["NumRel", "all"] == "561"
    assert out["NumRelRet", "all"] == "77"
    assert out["P@5", "all"] == "0.2000"  # a mean over the 3 judged topics, 302 counting 0
    assert (out["NumRet", "301"], out["NumRel", "301"], out["NumRelRet", "301"]) == ("500", "474", "71")
    assert (out["NumRet", "303"], out["NumRel", "303"], out["NumRelRet", "303"]) == ("84", "10", "6")
    # 302 has no results: scored on an empty ranking, its judged relevant documents still count
    # (the per-topic line is what trec_eval 10.0's out.test.aqc prints; 9.0.8 prints none)
    assert (out["NumRet", "302"], out["NumRel", "302"], out["NumRelRet", "302"]) == ("0", "77", "0")
    assert out["P@5", "302"] == "0.0000"


def test_without_c_only_topics_with_results_are_accumulated(tmp_path, capsys):
    run, qrels = make_suite_case(tmp_path)
    out = evaluate(capsys, run, qrels, "--missing-topics", "drop", "-m", "num_rel", "num_ret", "P.5")
    assert out == {("NumRel", "all"): "484", ("NumRet", "all"): "584", ("P@5", "all"): "0.3000"}


def test_summary_property_sums_counts_and_averages_the_rest():
    from harness.formats.qrels import Qrels
    from harness.formats.run import Run
    from harness.metrics import evaluate as ev

    run = Run.from_ranked({"a": (["d1", "d2"], [2.0, 1.0]), "b": (["d3"], [1.0])})
    qrels = Qrels.from_dict({"a": {"d1": 1, "d9": 1}, "b": {"d3": 0}, "c": {"d4": 2, "d5": 1}})
    e = ev(run, qrels, ["NumRel", "NumRet", "NumRelRet", "NumRel(rel=2)", "P@1"])
    # hand count: NumRel a=2, b=0, c=2 (c has no results: trec_eval -c keeps its judged relevant)
    assert e.per_topic["NumRel"] == {"a": 2.0, "b": 0.0, "c": 2.0}
    assert e.summary["NumRel"] == 4.0 and e.means["NumRel"] == pytest.approx(4 / 3)
    assert e.summary["NumRet"] == 3.0 and e.summary["NumRelRet"] == 1.0
    assert e.summary["NumRel(rel=2)"] == 1.0
    assert e.summary["P@1"] == e.means["P@1"] == pytest.approx(1 / 3)
