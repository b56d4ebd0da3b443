"""Topic ids against the qrels': one rule at every door (issue 36). A config whose topics match
no judged topic exited 0 with a report of zeros and a t-test on them; zero-padded topics (`001`
against `1`) gave Cranfield's BM25 an AP of .1736 for .2878, with exit 0. Now, at `harness run`,
`search`, `validate`, `run --dry-run`, `harness.run`, `harness evaluate`, `compare` and
`harness.evaluate`: no topic in common is exit 2 naming both files and their ids; ids written two
ways (leading zeros, a prefix, case) are exit 2 saying how ("leading zeros: topic 001 vs qrels
1"); a partial overlap is evaluated with a warning naming how many and which. `harness trec_eval`
stays trec_eval (checked against the binary) and only says how the ids differ when it refuses."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings

import pytest

import harness
from harness.errors import DataError, HarnessWarning
from harness.formats.topic_ids import diagnosis, match_topic_ids

from .conftest import REPO
from .test_trec_eval_binary import trec_eval  # noqa: F401 (the fixture)

NO_JVM = {"HARNESS_JAVA_OPTS": "-Xno-such-option"}  # any JVM start would fail: proves none starts


@pytest.mark.parametrize(
    "ours, judged, said",
    [
        (["001", "002", "100"], ["1", "2", "100"], "leading zeros: topic 001 vs qrels 1 (and 1 more like it)"),
        (["Q1", "Q2"], ["1", "2"], "a prefix: topic Q1 vs qrels 1 (and 1 more like it)"),
        (["q-007"], ["7"], "a prefix and leading zeros: topic q-007 vs qrels 7"),
        (["a1", "b2"], ["A1", "B2"], "case: topic a1 vs qrels A1 (and 1 more like it)"),
        (["Q1"], ["q1"], "case: topic Q1 vs qrels q1"),
        ([" 1", "2"], ["1", "2"], "surrounding spaces: topic ' 1' vs qrels 1"),
        (["1", "2"], ["3", "4"], ""),  # different topics, not one written two ways
        (["1", "01"], ["001"], ""),  # ambiguous: 1 or 01? no guess
        (["401-AH", "7"], ["401", "7"], ""),
    ],
)
def test_ids_written_two_ways_are_said_in_words(ours, judged, said):
    assert diagnosis(match_topic_ids(ours, judged)) == said


# ------------------------------------------------------------------------- a config's doors
@pytest.fixture
def project(tmp_path):
    """The demo's data with its topics' ids rewritten by a test; the config runs from its folder."""
    for d in ("configs", "corpora", "topics", "qrels"):
        shutil.copytree(REPO / d, tmp_path / d)
    (tmp_path / "indexes").mkdir()
    return tmp_path


def _topics(project, rename) -> None:
    lines = (REPO / "topics" / "demo.tsv").read_text().splitlines()
    (project / "topics" / "demo.tsv").write_text(
        "".join(f"{rename(q)}\t{text}\n" for q, text in (ln.split("\t", 1) for ln in lines))
    )


def _cli(project, *args):
    env = {**os.environ, "PYTHONPATH": str(REPO), **NO_JVM}
    return subprocess.run(
        [sys.executable, "-m", "harness", *args], cwd=project, capture_output=True, text=True, env=env, timeout=600
    )


@pytest.mark.parametrize(
    "rename, words",
    [
        (lambda q: f"Q{q}", "none of the 15 topics ('Q1', 'Q2', 'Q3' and 12 more) is judged in"),
        (lambda q: f"{int(q):03d}", "15 topics"),
        (lambda q: f"{int(q):02d}", "9 of the 15 topics are judged in"),
    ],
    ids=["prefix: no overlap", "leading zeros: no overlap", "leading zeros: partial"],
)
def test_every_config_door_refuses_topics_the_qrels_judge_under_other_ids(project, rename, words):
    _topics(project, rename)
    config = "configs/demo.yaml"
    expected = {
        "Q1": "a prefix: topic Q1 vs qrels 1",
        "001": "leading zeros: topic 001 vs qrels 1",
        "01": "leading zeros: topic 01 vs qrels 1",
    }[rename("1")]
    # no Java: every door refuses before the JVM could start (tsv topics), nothing is written.
    # Every door for the first case; validate and the API for the others: the doors all call
    # experiment.sanity.refuse_unmatched_topics, which matches the ids and words the message
    # (formats/topic_ids.py), so a door gives every case's message once it gives one.
    doors = (["validate", config], ["run", config], ["run", "--dry-run", config], ["search", config])
    for args in doors if rename("1") == "Q1" else doors[:1]:
        r = _cli(project, *args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert r.stderr.startswith(f"harness: error: {project / 'topics' / 'demo.tsv'}: "), (args, r.stderr)
        assert words in r.stderr and str(project / "qrels" / "demo.txt") in r.stderr, (args, r.stderr)
        assert expected in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
    assert not [p for p in project.glob("reports/**/*") if p.is_file()] and list((project / "indexes").iterdir()) == []
    cwd = os.getcwd()
    os.chdir(project)
    try:
        with pytest.raises(DataError, match=expected):
            harness.run(config)
    finally:
        os.chdir(cwd)


def test_a_partial_overlap_validates_with_a_warning_naming_the_topics(project):
    """Topics the qrels do not judge and judged topics the file lacks: each said, with how many."""
    lines = (REPO / "topics" / "demo.tsv").read_text().splitlines()
    (project / "topics" / "demo.tsv").write_text("\n".join([*lines[1:], "99\tunjudged topic"]) + "\n")
    r = _cli(project, "validate", "configs/demo.yaml")
    assert r.returncode == 0, r.stderr
    assert f"{project / 'topics' / 'demo.tsv'}: 1 of 15 topics have no judgments in " in r.stderr
    assert "('99'): they are searched but not evaluated" in r.stderr
    assert "1 judged topics are not in the topics file" in r.stderr and "('1'): they score 0" in r.stderr


# ------------------------------------------------------------------------- run files' doors
QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d4 1\n2 0 d5 1\n10 0 d6 1\n"
RUN = "1 Q0 d1 1 1.5 r\n1 Q0 d9 2 1.0 r\n2 Q0 d5 1 3 r\n2 Q0 d4 2 2 r\n10 Q0 d6 1 1 r\n"


def _files(tmp_path, qrels: str, run: str):
    (tmp_path / "q.txt").write_text(qrels)
    (tmp_path / "r.txt").write_text(run)
    (tmp_path / "b.txt").write_text(RUN)
    return tmp_path / "r.txt", tmp_path / "q.txt"


def test_evaluate_compare_and_the_api_refuse_a_run_whose_ids_are_written_another_way(tmp_path, trec_eval):  # noqa: F811
    run_file, qrels_file = _files(tmp_path, QRELS, RUN.replace("1 Q0", "01 Q0").replace("01 Q0 d6", "10 Q0 d6"))
    said = "leading zeros: run 01 vs qrels 1"
    for args in (
        ["evaluate", "r.txt", "q.txt", "-m", "AP"],
        ["compare", "b.txt", "r.txt", "--qrels", "q.txt", "--baseline", "b.txt", "-m", "AP"],
    ):
        r = _cli(tmp_path, *args)
        assert r.returncode == 2 and not r.stdout, (args, r.stderr)
        assert "1 of the run's 3 topics are judged in q.txt only under another id: " + said in r.stderr, r.stderr
    with pytest.raises(DataError, match=said):
        harness.evaluate(run_file, qrels_file, ["AP"])
    # trec_eval's command line stays trec_eval's: the topic 01 is another topic, evaluated as it is
    ref = subprocess.run([trec_eval, "-c", "-m", "map", "q.txt", "r.txt"], cwd=tmp_path, capture_output=True, text=True)
    r = _cli(tmp_path, "trec_eval", "-c", "-m", "map", "q.txt", "r.txt")
    assert (r.returncode, r.stdout) == (0, ref.stdout), r.stderr
    # ... and when it refuses, as trec_eval does, it says why
    _files(tmp_path, QRELS, "".join(f"Q{line}" for line in RUN.splitlines(keepends=True)))
    r = _cli(tmp_path, "trec_eval", "-m", "map", "q.txt", "r.txt")
    assert r.returncode == 2 and "nothing to evaluate (ids written two ways: a prefix: run Q1 vs qrels 1" in r.stderr


def test_a_partial_overlap_is_evaluated_as_trec_eval_with_a_warning_naming_the_topics(tmp_path, trec_eval):  # noqa: F811
    run_file, qrels_file = _files(tmp_path, QRELS, RUN.replace("10 Q0 d6", "11 Q0 d6"))
    ref = subprocess.run([trec_eval, "-c", "-m", "map", "q.txt", "r.txt"], cwd=tmp_path, capture_output=True, text=True)
    ap = next(line.split()[2] for line in ref.stdout.splitlines() if line.startswith("map"))
    r = _cli(tmp_path, "evaluate", "r.txt", "q.txt", "-m", "AP")
    assert (r.returncode, r.stdout) == (0, f"AP\tall\t{ap}\n"), r.stderr
    assert (
        "harness: warning: r.txt: 1 of the run's 3 topics have no judgments in q.txt ('11'): they are not evaluated"
        in r.stderr
    )
    assert "harness: warning: q.txt: 1 judged topics are not in the run ('10'): they score 0 in every mean" in r.stderr
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HarnessWarning)
        _, means = harness.evaluate(run_file, qrels_file, ["AP"])
    assert f"{means.loc['r', 'AP']:.4f}" == ap
    assert sum("have no judgments" in str(w.message) or "not in the run" in str(w.message) for w in caught) == 2
