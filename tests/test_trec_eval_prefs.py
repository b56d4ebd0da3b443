"""`harness trec_eval -R prefs|qrels_prefs|qrels_jg` (issue 26): the examples of trec_eval's own
format description, and bad input as the harness's sentences (file and line, exit 2).

Oracles: trec_eval 9.0.8's documentation of the prefs format (get_prefs.c: "establishes a total
of 13 preferences", "expresses 5 preferences (1>2, 1>3, 2>3, 2>4, 1>4)") and its output for
the same files (the binary built from its source, v9.0.8, printed the lines below). Its own
test files run in tests/test_trec_eval.py; generated cases against the binary in
tests/test_trec_eval_binary.py.
"""

from __future__ import annotations

import pytest

from .test_trec_eval import harness_trec_eval

RUN = "q1 Q0 d4 1 9 r\nq1 Q0 d3 2 8 r\nq1 Q0 d1 3 7 r\nq1 Q0 x 4 6 r\nq1 Q0 d2 5 5 r\n"
# "qid1 ujg1 sub1 docno1 3.0 ... establishes a total of 13 preferences": one sub-group
EC = "q1 u1 s1 d1 3.0\nq1 u1 s1 d2 2.0\nq1 u1 s1 d3 0.0\nq1 u1 s1 d4 6.0\nq1 u1 s1 d5 0.0\nq1 u1 s1 d6 2.0\n"
# "Within a single JG, preferences are transitive ... expresses 5 preferences": two sub-groups
PA = "q1 u1 s1 d1 3.0\nq1 u1 s1 d2 2.0\nq1 u1 s1 d3 1.0\nq1 u1 s2 d2 5.0\nq1 u1 s2 d4 4.0\n"
EC_VALUES = "13 9 4 0.6923 0.6923 0.6923 0.7143 0.6667 0.6667 0.6667 0.7143 0.7500 0.7500 0.7500"
PA_VALUES = "5 1 1 0.2000 0.2000 0.2000 0.8095 0.2000 0.2000 0.2000 0.8095 0.2000 0.2000 0.2000"
NAMES = (
    "prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret prefs_simp prefs_pair prefs_avgjg "
    "prefs_avgjg_Rnonrel prefs_simp_ret prefs_pair_ret prefs_avgjg_ret prefs_avgjg_Rnonrel_ret prefs_simp_imp "
    "prefs_pair_imp prefs_avgjg_imp"
).split()


def _expected(values: str) -> str:
    """The lines trec_eval prints (counts as %ld, the rest %6.4f, here all 6 wide)."""
    per_topic = [f"{n:<22}\tq1\t{v}" for n, v in zip(NAMES, values.split())]
    summary = ["runid                 \tall\tr", "num_q                 \tall\t1"]
    summary += [f"{n:<22}\tall\t{v}" for n, v in zip(NAMES, values.split())]
    return "\n".join(per_topic + summary) + "\n"


@pytest.mark.parametrize("judged, values", [(EC, EC_VALUES), (PA, PA_VALUES)], ids=["one-sub-group", "transitive"])
def test_the_format_description_s_examples(tmp_path, judged, values):
    (tmp_path / "p.txt").write_text(judged)
    (tmp_path / "r.txt").write_text(RUN)
    r = harness_trec_eval("-q", "-R", "prefs", "-m", "all_prefs", "p.txt", "r.txt", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == _expected(values)


def test_qrels_prefs_is_a_qrels_file_whose_second_field_is_the_group(tmp_path):
    """The one-sub-group example as qrels (``qid jg docno level``) is the same preferences."""
    (tmp_path / "q.txt").write_text("".join(" ".join(ln.split()[:2] + ln.split()[3:]) + "\n" for ln in EC.splitlines()))
    (tmp_path / "r.txt").write_text(RUN)
    r = harness_trec_eval("-q", "-R", "qrels_prefs", "-m", "all_prefs", "q.txt", "r.txt", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == _expected(EC_VALUES)


BAD = [
    ("prefs", "q1 u1 d1 3.0\n", "p.txt:1: expected 5 fields 'qid jg jsg docno rel_level' (trec_eval -R prefs), got 4"),
    ("prefs", "q1 u1 s1 d1 3.0\nq1 u1 s1 d2 high\n", "p.txt:2: rel_level must be a decimal number"),
    ("prefs", "q1 u1 s1 d1 nan\n", "p.txt:1: rel_level must be a decimal number"),
    (
        "prefs",
        "q1 u1 s1 d1 3\nq1 u1 s2 d1 2\nq1 u1 s1 d1 1\n",
        "p.txt:3: topic 'q1', judgment group 'u1', sub-group 's1': document 'd1' is given twice (lines 1 and 3)",
    ),
    ("prefs", "", "p.txt: no judgments: the file is empty"),
    ("prefs", "q1 u1 s1 d\x011 3\n", "p.txt:1: doc id 'd\\x011' contains a control character"),
    ("qrels_prefs", "q1 0 s1 d1 3\n", "p.txt:1: expected 4 fields 'qid jg docno rel_level' (trec_eval -R qrels_prefs)"),
    ("qrels_jg", "q1 0 d1 2.5\n", "p.txt:1: relevance label (field 4) must be an integer (got '2.5')"),
    (
        "qrels_jg",
        "q1 0 d1 1\nq1 1 d1 1\nq1 0 d1 0\n",
        "p.txt:3: topic 'q1', judgment group '0': document 'd1' is judged twice",
    ),
    # trec_eval: "doc 'd1' has both 0 and non-0 rel_level assigned", Can't calculate measure
    ("prefs", "q1 u1 s1 d1 0\nq1 u1 s1 d2 1\nq1 u1 s2 d1 2\nq1 u1 s2 d3 1\n", "document 'd1' has rel_level 0"),
    # trec_eval: "Pref inconsistency found", abort() (exit 134)
    (
        "prefs",
        "q1 u1 s1 d1 2\nq1 u1 s1 d2 1\nq1 u1 s2 d2 2\nq1 u1 s2 d1 1\n",
        "topic 'q1', judgment group 'u1': its sub-groups prefer 'd1' to 'd2' and 'd2' to 'd1'",
    ),
]


@pytest.mark.parametrize("fmt, text, words", BAD)
def test_bad_judgments_are_sentences_naming_the_file_and_line(tmp_path, fmt, text, words):
    (tmp_path / "p.txt").write_text(text)
    (tmp_path / "r.txt").write_text(RUN + "q1 Q0 d6 6 1 r\n")
    m = "qrels_jg" if fmt == "qrels_jg" else "all_prefs"
    r = harness_trec_eval("-R", fmt, "-m", m, "p.txt", "r.txt", cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    assert words in r.stderr, r.stderr


def test_measures_need_their_kind_of_judgments(tmp_path):
    """trec_eval stops on a measure over judgments of another kind ("Can't calculate measure");
    the harness names the measures and the -R they need before reading a file."""
    r = harness_trec_eval("-R", "prefs", "-m", "map", "-m", "prefs_simp", "none.txt", "none.txt", cwd=tmp_path)
    assert (
        r.returncode == 2 and "map needs -R qrels judgments, not -R prefs; with -R prefs, use -m all_prefs" in r.stderr
    )
    r = harness_trec_eval("-R", "prefs", "none.txt", "none.txt", cwd=tmp_path)
    assert r.returncode == 2 and "(the default, official) need -R qrels judgments" in r.stderr
