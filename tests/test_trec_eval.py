"""`harness trec_eval` against trec_eval 9.0.8 (issue 26).

Oracles, both trec_eval's own:
- its test suite (tests/data/trec_eval-9.0.8: the quicktest command lines of its Makefile that
  read qrels and TREC runs, and the output each must print), byte for byte;
- pytrec_eval (trec_eval 9.0.8's C code in a Python module) on generated judgments and runs,
  per topic, for every measure the harness computes, under -l and -J.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import main
from harness.metrics.trec_names import TREC_NAMES as TREC_MEASURES
from harness.metrics.trec_output import format_line

from .conftest import REPO, examples

SUITE = Path(__file__).parent / "data" / "trec_eval-9.0.8"
COMPUTED = list(TREC_MEASURES)  # every measure the harness computes, in trec_eval's order


def harness_trec_eval(*args, cwd=SUITE) -> subprocess.CompletedProcess:
    """`harness trec_eval ARGS` in ``cwd``, run in this process (the command line's own `main`):
    its exit code, standard output and standard error. A process each cost 0.2-0.3 s of CPU,
    starting Python and importing the harness, for some 400 cases here, in
    tests/test_trec_eval_prefs.py and tests/test_trec_eval_binary.py. The first test below runs
    the command as a process, as trec_eval's own test suite runs the binary; what else needs a
    process of its own (a closed standard output, no warning on stderr) starts one itself."""
    out, err = io.StringIO(), io.StringIO()
    before = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["trec_eval", *map(str, args)])
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(["harness", "trec_eval", *args], code, out.getvalue(), err.getvalue())


def test_official_measures_byte_for_byte():
    """`trec_eval test/qrels.test test/results.test | diff - test/out.test`: every line, printed
    by a `harness trec_eval` process."""
    r = subprocess.run(
        [sys.executable, "-m", "harness", "trec_eval", "qrels.test", "results.test"],
        cwd=SUITE,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == (SUITE / "out.test").read_text()


# The quicktest command lines of trec_eval 9.0.8's Makefile, every one (the last three read
# preference and judgment-group files, -R)
QUICKTEST = {
    "out.test.a": ["-m", "all_trec", "qrels.test", "results.test"],
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    "out.test.aqc": ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
    "out.test.aqcM": ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"],
    "out.test.aql": ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"],
    "out.test.meas_params": [
        "-q",
        "-miprec_at_recall..10,.20,.25,.75,.50",
        "-m",
        "P.5,7,3",
        "-m",
        "recall.20,2000",
        "-m",
        "Rprec_mult.5.0,0.2,0.35",
        "-mutility.2,-1,0,0",
        "-m",
        "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5",
        "-mndcg_cut.10,20,23.4",
        "-msuccess.2,5,20",
        "qrels.test",
        "results.test",
    ],
    "out.test.aqZ": ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test"],
    "out.test.prefs": ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"],
    "out.test.qrels_prefs": ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"],
    "out.test.qrels_jg": ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"],
}


@pytest.mark.parametrize("out", list(QUICKTEST))
def test_trec_eval_quicktest(out):
    """`./trec_eval ARGS | diff - test/OUT`, as trec_eval's `make quicktest` runs it."""
    r = harness_trec_eval(*QUICKTEST[out])
    assert r.returncode == 0, r.stderr
    assert r.stdout == (SUITE / out).read_text()


def test_bad_measures_and_input_are_clear_errors():
    r = harness_trec_eval("-m", "all_prefs", "qrels.test", "results.test")
    assert r.returncode == 2 and r.stdout == ""
    assert "prefs_num_prefs_poss" in r.stderr and "need -R prefs (or -R qrels_prefs) judgments" in r.stderr
    r = harness_trec_eval("-m", "nosuch", "qrels.test", "results.test")
    assert r.returncode == 2 and "trec_eval has no measure 'nosuch'" in r.stderr
    r = harness_trec_eval("-m", "P.0,5", "qrels.test", "results.test")
    assert r.returncode == 2 and "cut-offs must be positive" in r.stderr
    r = harness_trec_eval("-m", "ndcg.1=", "qrels.test", "results.test")
    assert r.returncode == 2 and "level=gain pairs" in r.stderr
    for flags, words in (
        (["-R", "prefs"], "num_ret, num_rel, num_rel_ret, map, gm_map, Rprec, bpref, recip_rank, iprec_at_recall, P"),
        (["-R", "prefs", "-m", "all_prefs"], "qrels.test:1: expected 5 fields 'qid jg jsg docno rel_level'"),
        (
            ["-R", "qrels_jg", "-m", "map"],
            "map needs -R qrels judgments, not -R qrels_jg; with -R qrels_jg, use -m qrels_jg",
        ),
        (["-R", "qrels_prefs", "-m", "map_avgjg"], "map_avgjg needs -R qrels_jg judgments"),
        (["-R", "qrelz"], "trec_eval has no rel_info format 'qrelz'"),
        (["-T", "tr"], "results format 'tr' is not read"),
        (["-Z", "no-such-file"], "no-such-file: file not found"),
        (["-Z", "results.test"], "results.test:1: expected 'qid measure mean stddev', got 6 field(s)"),
        (["-Z", "qrels.test"], "qrels.test:1: mean and stddev must be numbers"),
    ):
        r = harness_trec_eval(*flags, "qrels.test", "results.test")
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr
    r = harness_trec_eval("results.test", "qrels.test")  # the run first: its lines are not qrels
    assert r.returncode == 2 and "results.test" in r.stderr and "Traceback" not in r.stderr


def test_a_topic_without_a_judged_document_under_J_prints_nan_as_trec_eval(tmp_path):
    """-J can leave a topic with no document; trec_eval's interpolated precision there starts
    at 0/0 and it prints "-nan" (glibc, x86's NaN): the same text, and in the mean."""
    tmp = tmp_path
    (tmp / "te-q.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp / "te-r.txt").write_text("1 Q0 a 1 2.0 r\n1 Q0 z 2 1.0 r\n2 Q0 y 1 1.0 r\n")
    r = harness_trec_eval("-q", "-J", "-m", "iprec_at_recall.0,0.5", "-m", "num_ret", "te-q.txt", "te-r.txt", cwd=tmp)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "num_ret               \t1\t1",
        "iprec_at_recall_0.00  \t1\t1.0000",
        "iprec_at_recall_0.50  \t1\t1.0000",
        "num_ret               \t2\t0",
        "iprec_at_recall_0.00  \t2\t  -nan",
        "iprec_at_recall_0.50  \t2\t0.0000",
        "num_ret               \tall\t1",
        "iprec_at_recall_0.00  \tall\t  -nan",
        "iprec_at_recall_0.50  \tall\t0.5000",
    ]


def test_g_where_the_cost_of_its_gains_reaches_zero_is_inf_as_trec_eval_prints_it(tmp_path):
    """G with a gain that sorts among gains less than 1 apart (2.5 beside 2): its ideal
    ranking draws the 2s first, so the second document's discount is log2(2 + 4 - 5) = 0 and
    trec_eval 9.0.8 (built from source) divides by it in C: inf, in the mean too."""
    tmp = tmp_path
    (tmp / "te-gq.txt").write_text("".join(f"1 0 {d} {3 if d in 'ab' else 2}\n" for d in "abcdefg"))
    (tmp / "te-gr.txt").write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n")
    r = harness_trec_eval("-q", "-m", "G.3=2.5", "te-gq.txt", "te-gr.txt", cwd=tmp)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["G_3=2.5               \t1\t   inf", "G_3=2.5               \tall\t   inf"]


# ------------------------------------------------------------------- against pytrec_eval
# pytrec_eval's names of the computed measures' per-topic values (runid, num_q and gm_map have
# none); utility is left out: pytrec_eval-terrier 0.5.11 passes it no coefficients ("improper
# number of coefficients", it then scores 1.0 for a topic trec_eval's default 1,-1,0,0 scores
# 0), so utility's oracle is trec_eval's suite above (its default and 2,-1,0,0 lines); yaap is
# not in pytrec_eval 0.5.11 (its oracle is the trec_eval binary, tests/test_trec_eval_binary.py).
# relstring's per-topic value is a string, which pytrec_eval does not return (its oracle is
# out.test.aql above).
PER_TOPIC = [
    m
    for m in COMPUTED
    if TREC_MEASURES[m].per_query and TREC_MEASURES[m].rel_info == "qrels" and m not in ("utility", "relstring", "yaap")
]

LISTS = ("set_F_", "11pt_avg_")
ids = st.sampled_from([f"d{i}" for i in range(25)] + ["D1", "d1x", "é9"])


@st.composite
def collections(draw):
    qrels, run = {}, {}
    for t in range(draw(st.integers(1, 6))):
        qid = draw(st.sampled_from([str(t), f"q{t}", f"{t}0"]))
        judged = draw(st.lists(ids, min_size=1, max_size=20, unique=True))
        qrels[qid] = {d: draw(st.sampled_from([-1, 0, 0, 1, 1, 2, 3])) for d in judged}
        if max(qrels[qid].values()) < 0:
            qrels[qid][judged[0]] = 0  # trec_eval 9.0.8 stops on a topic judged only negative
        if draw(st.booleans()) or t == 0:
            docs = draw(st.lists(ids, min_size=1, max_size=25, unique=True))
            scores = st.sampled_from([1.0, 2.0, 0.5, 1.00000001, 1.00000002, 3.25, 40.0, 40.000001])
            run[qid] = {d: draw(scores) for d in docs}
    return qrels, run


def _write(tmp: Path, qrels, run):
    with open(tmp / "q.txt", "w") as f:
        for q, docs in qrels.items():
            for d, rel in docs.items():
                f.write(f"{q} 0 {d} {rel}\n")
    with open(tmp / "r.txt", "w") as f:
        for q, docs in run.items():
            for i, (d, s) in enumerate(docs.items()):
                f.write(f"{q} Q0 {d} {i + 1} {s!r} tag{q}\n")


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=collections(), level=st.integers(1, 3), judged_only=st.booleans(), seed=st.integers(0, 1000))
def test_every_computed_measure_equals_pytrec_eval_per_topic(tmp_path, data, level, judged_only, seed):
    """Each per-topic line of `harness trec_eval -q` equals trec_eval's value (pytrec_eval) as
    trec_eval formats it; random parameters for the measures that take them."""
    from harness.verbs.trec_eval import TrecEvalOptions, trec_eval

    qrels, run = data
    if not set(qrels) & set(run):
        return
    _write(tmp_path, qrels, run)
    rnd = random.Random(seed)
    params = {
        "P": ",".join(str(k) for k in rnd.sample(range(1, 30), 3)),
        "recall": "3,12",
        "ndcg_cut": ",".join(str(k) for k in rnd.sample(range(1, 30), 2)),
        "map_cut": "2,9",
        "relative_P": ",".join(str(k) for k in rnd.sample(range(1, 30), 2)),
        "success": "1,4",
        "iprec_at_recall": "0.05,0.3,1",
        "Rprec_mult": "0.5,1.5",
        "set_F": rnd.choice(["0.5", "2"]),
        "11pt_avg": "0.2,0.5,0.8",
    }  # gains by level (ndcg.1=3,2=9) crash pytrec_eval 0.5.11: out.test.meas_params has them
    requests = [m + (f".{params[m]}" if m in params and rnd.random() < 0.5 else "") for m in PER_TOPIC]
    ours = trec_eval(
        tmp_path / "q.txt",
        tmp_path / "r.txt",
        TrecEvalOptions(measures=tuple(requests), per_query=True, summary=False, level=level, judged_only=judged_only),
    )
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(requests), relevance_level=level, judged_docs_only_flag=judged_only
    )
    ref = evaluator.evaluate(run)
    got = {}
    for line in ours.text():
        name, qid, value = line.split("\t")
        got[(qid, name.rstrip())] = value
    expected = {}
    for qid, values in ref.items():
        for key, value in values.items():
            kind = "long" if key in ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret") else "float"
            expected[(qid, key)] = format_line(key, qid, kind, value).split("\t")[2]
    # pytrec_eval names a parameter list's line by the measure alone (trec_eval adds the list)
    got = {
        (q, "set_F" if n.startswith("set_F_") else "11pt_avg" if n.startswith("11pt_avg_") else n): v
        for (q, n), v in got.items()
    }
    assert got == expected


def test_cli_adapter_is_the_verb():
    """`harness trec_eval` prints what the verb returns; the README's example line works."""
    from harness.verbs.trec_eval import TrecEvalOptions, trec_eval

    r = harness_trec_eval("-q", "-c", "-M", "100", "-m", "map", "-m", "P.5,10", "qrels.test", "results.trunc")
    res = trec_eval(
        SUITE / "qrels.test",
        SUITE / "results.trunc",
        TrecEvalOptions(measures=("map", "P.5,10"), per_query=True, complete=True, max_docs=100),
    )
    assert r.stdout.splitlines() == res.text()
    reference = (SUITE / "out.test.aqcM").read_text().splitlines()  # the same flags, all_trec
    assert r.stdout.splitlines() == [ln for ln in reference if ln.split()[0] in ("map", "P_5", "P_10")]


def test_trec_eval_is_in_the_cli_help():
    r = subprocess.run([sys.executable, "-m", "harness", "--help"], cwd=REPO, capture_output=True, text=True)
    assert "trec_eval" in r.stdout


def test_the_run_id_is_the_last_lines_however_long(tmp_path):
    """Words after the tag are allowed, so the last line may be longer than a block read from
    the end: its tag is still the run id (the harness read a word of the line's tail as it)."""
    (tmp_path / "q.txt").write_text("1 0 a 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 last " + "w " * 40_000 + "\n\n \n")
    r = subprocess.run(
        [sys.executable, "-m", "harness", "trec_eval", "-m", "runid", str(tmp_path / "q.txt"), str(tmp_path / "r.txt")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == "runid                 \tall\tlast\n"
