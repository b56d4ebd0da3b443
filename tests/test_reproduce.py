"""`harness reproduce`, harness.reproduce and their measures against repro_eval 0.5.0 (Breuer et
al., SIGIR 2020), run live on the same files: KTU, RBO, RMSE, nRMSE, ER, DRI and the t-test's p
equal repro_eval's to 1e-9, for a reproduction (the same qrels) and a replication (another
collection's qrels), on runs of ../shared/bench/gen_synth.py (1000 documents a topic, tied scores
in random file order) and, with the JVM, on Cranfield runs searched with other BM25 parameters.
Where the harness departs from repro_eval (docs/reproduce.md), the case that shows it."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

import harness
from harness.cli import main
from harness.errors import DataError
from harness.formats.ir_metadata import yml_name
from harness.formats.run import Run
from harness.formats.runs import read_run, write_run
from harness.metrics import parse_measure
from harness.metrics.agreement import ktu, rbo
from harness.policies import DEFAULT_MEASURES
from harness.verbs.reproduce import reproduce, reproduce_policy

from .conftest import CRANFIELD, REPO, shared_path

with warnings.catch_warnings():  # repro_eval 0.5.0 imports from scipy.stats.stats, deprecated
    warnings.simplefilter("ignore", DeprecationWarning)
    from repro_eval.Evaluator import RpdEvaluator, RplEvaluator
    from repro_eval.measure.document_order import KTU, RBO

# trec_eval's measures as the harness names them; repro_eval computes each under ir_measures' name
MEASURES = [
    "AP",
    "P@10",
    "P@100",
    "nDCG@10",
    "nDCG",
    "RR",
    "R@100",
    "R@1000",
    "bpref",
    "Rprec",
    "infAP",
    "AP@100",
    "IPrec@0.5",
    "SetP",
    "SetF",
]
TOL = 1e-9
# repro_eval 0.5.0 calls ir_measures' convert_trec_name, deprecated
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
TREC_EVAL = REPO / "tests" / "data" / "trec_eval-9.0.8"


# Topics a synthetic run ranks (1000 documents each): repro_eval's KTU and RBO, the oracle, take
# the square of the depth per topic in Python. 20 topics (15 for the replication's other
# collection) were 40 (30): the same kinds of ties, judgments and cases, and the module's tests
# without the JVM in one process 18.5 -> 11.1 s of CPU.
TOPICS = 20


def _synth(folder: Path, name: str, seed: int, tie_frac: float, queries: int = TOPICS) -> dict[str, Path]:
    """gen_synth.py's qrels and runs: run2 is run1 re-scored (an "advanced" run over the same
    documents). The same seed with another fraction of tied scores draws the same documents,
    judgments and scores but for which scores tie: a reproduction that differs in its ties."""
    subprocess.run(
        [sys.executable, str(shared_path("bench", "gen_synth.py")), "--name", name, "--queries", str(queries)]
        + ["--depth", "1000", "--seed", str(seed), "--tie-frac", str(tie_frac), "--out", str(folder)],
        check=True,
        capture_output=True,
    )
    return {k: folder / f"{name}.{k}" for k in ("qrels", "run1", "run2")}


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    folder = tmp_path_factory.mktemp("synth")
    return {
        "orig": _synth(folder, "orig", 1, 0.02),
        "rep": _synth(folder, "rep", 1, 0.10),
        "other": _synth(folder, "other", 2, 0.02, queries=TOPICS * 3 // 4),
    }


def oracle(b, a, rb, ra, qrels, rep_qrels=None, depth=1000, p=0.95, rankings=True) -> dict:
    """repro_eval 0.5.0's numbers, as its README runs it (trim, then evaluate), in harness
    reproduce's shape; its measures named as the harness names them. ``rankings=False``: without
    KTU and RBO."""
    paths = {"run_b_orig_path": str(b), "run_a_orig_path": str(a), "run_b_rep_path": str(rb), "run_a_rep_path": str(ra)}
    if rep_qrels is None:
        e = RpdEvaluator(qrels_orig_path=str(qrels), **paths)
    else:
        e = RplEvaluator(qrels_orig_path=str(qrels), qrels_rpl_path=str(rep_qrels), **paths)
    e.trim(depth)
    e.evaluate()
    names = {}
    for name in e.run_b_orig_score[next(iter(e.run_b_orig_score))]:
        try:
            names[str(parse_measure(name))] = name
        except ValueError:  # SetP(relative=True): a measure the harness has not
            pass
    with np.errstate(divide="ignore", invalid="ignore"):
        out = {"er": e.er(), "dri": e.dri(), "p": e.ttest()}
        if rep_qrels is None:
            out |= {"rmse": e.rmse(), "nrmse": e.nrmse()}
            if rankings:
                out |= {"ktu": e.ktu(), "rbo": e.rbo(p=p, depth=depth)}

    def ours(values: dict) -> dict:
        return {m: values[theirs] for m, theirs in names.items()}

    for key in ("rmse", "nrmse", "p"):
        if key in out:
            out[key] = {side: ours(values) for side, values in out[key].items()}
    for key in ("er", "dri"):
        out[key] = ours(out[key])
    return out


def assert_equal(ours: dict, theirs: dict, measures: list[str]) -> int:
    """``ours`` (harness reproduce --json's shape) equals repro_eval's ``theirs`` to 1e-9;
    returns how many numbers were compared. repro_eval's p is NaN where a measure's per-topic
    scores are the same in both runs and another measure's are not; the harness's is 1.0 there
    (docs/reproduce.md)."""
    checked = 0
    for key in ("ktu", "rbo"):
        if key in theirs:
            for side in ("baseline", "advanced"):
                assert ours[key][side] == pytest.approx(theirs[key][side], abs=TOL, rel=0), (key, side)
                checked += 1
    for key in ("rmse", "nrmse", "p"):
        if key not in theirs:
            continue
        for side in ("baseline", "advanced"):
            for m in measures:
                want = theirs[key][side][m]
                if key == "p" and math.isnan(want):
                    assert ours[key][side][m] == 1.0 and (ours["rmse"][side][m] in (0.0, None)), (key, side, m)
                    continue
                assert ours[key][side][m] == pytest.approx(want, abs=TOL, rel=0), (key, side, m)
                checked += 1
    for key in ("er", "dri"):
        for m in measures:
            want = theirs[key][m]
            if math.isfinite(want):
                assert ours[key][m] == pytest.approx(want, abs=TOL, rel=0), (key, m)
                checked += 1
            else:  # no effect in the original: no ratio
                assert ours[key][m] is None, (key, m)
    return checked


# --- against repro_eval ------------------------------------------------------------------------


def test_a_reproduction_equals_repro_eval(synth):
    o, r = synth["orig"], synth["rep"]
    runs = (o["run1"], o["run2"], r["run1"], r["run2"])
    ours = reproduce(*runs, o["qrels"], measures=MEASURES).as_dict()
    theirs = oracle(*runs, o["qrels"])
    assert assert_equal(ours, theirs, MEASURES) >= 4 + 6 * len(MEASURES) - 4
    # a reproduction close to its original, but not the same run
    assert 0.5 < ours["ktu"]["baseline"] < 1 and 0.9 < ours["rbo"]["baseline"] < 1
    assert ours["rmse"]["baseline"]["AP"] > 0


def test_a_replication_equals_repro_eval(synth):
    o, other = synth["orig"], synth["other"]
    runs = (o["run1"], o["run2"], other["run1"], other["run2"])
    ours = reproduce(*runs, o["qrels"], other["qrels"], measures=MEASURES).as_dict()
    theirs = oracle(*runs, o["qrels"], other["qrels"])
    # the ER of R@1000, SetP and SetF has no value: run2 ranks run1's documents, the same sets
    assert assert_equal(ours, theirs, MEASURES) == 4 * len(MEASURES) - 3
    # what pairs documents or topics across the collections has no value
    for key in ("ktu", "rbo"):
        assert ours[key] == {"baseline": None, "advanced": None}
    for key in ("rmse", "nrmse"):
        assert ours[key] == {side: dict.fromkeys(MEASURES) for side in ("baseline", "advanced")}


def test_depth_and_rbo_p_are_repro_evals_trim_and_rbo_parameters(synth):
    o, r = synth["orig"], synth["rep"]
    runs = (o["run1"], o["run2"], r["run1"], r["run2"])
    measures = ["AP", "P@10", "nDCG@10", "R@1000"]
    ours = reproduce(*runs, o["qrels"], measures=measures, policy=reproduce_policy(depth=100, rbo_p=0.8)).as_dict()
    theirs = oracle(*runs, o["qrels"], depth=100, p=0.8)
    assert_equal(ours, theirs, measures)
    default = reproduce(*runs, o["qrels"], measures=measures).as_dict()
    assert ours["rbo"]["baseline"] != default["rbo"]["baseline"]
    # run2 ranks run1's 1000 documents: no effect on R@1000, but on the first 100 the runs evaluate
    assert default["er"]["R@1000"] is None and ours["er"]["R@1000"] > 0


def test_the_harness_ranks_a_topic_as_trec_eval_where_repro_eval_keeps_the_file_order(tmp_path):
    """trec_eval's results.test is not sorted by score. repro_eval's KTU and RBO read it in file
    order (it only sorts runs of equal scores), its evaluation in trec_eval's; the harness ranks
    every topic as trec_eval does: equal to repro_eval given the file sorted."""
    lines = (TREC_EVAL / "results.test").read_text().splitlines()
    rows = [line.split() for line in lines]
    rows.sort(key=lambda f: (f[0], -float(f[4])))  # topic, then score descending...
    rows.sort(key=lambda f: f[2], reverse=True)  # ...ties by doc id descending (stable sorts)
    rows.sort(key=lambda f: (f[0], -float(f[4])))
    ranked = tmp_path / "ranked.test"
    ranked.write_text("".join(" ".join(f) + "\n" for f in rows))
    original = TREC_EVAL / "results.test"
    ours = reproduce(original, original, ranked, ranked, TREC_EVAL / "qrels.test", measures=["AP"]).as_dict()
    theirs = oracle(ranked, ranked, ranked, ranked, TREC_EVAL / "qrels.test")
    assert ours["ktu"] == {"baseline": 1.0, "advanced": 1.0} == theirs["ktu"]
    assert ours["rbo"]["baseline"] == pytest.approx(theirs["rbo"]["baseline"], abs=TOL, rel=0)
    assert ours["rmse"]["baseline"]["AP"] == 0.0 and ours["p"]["baseline"]["AP"] == 1.0
    as_written = oracle(original, original, ranked, ranked, TREC_EVAL / "qrels.test")
    assert as_written["ktu"]["baseline"] < 0.2  # the same ranking, read in two orders
    assert as_written["rmse"]["baseline"]["AP"] == 0.0  # while its evaluation sorts


def _cut(run: Run, lengths: dict[str, int]) -> Run:
    return Run.from_ranked(
        {t: tuple(x[: lengths.get(t, 10**9)] for x in run.ranked(t)) for t in run.topics()}, source=run.source
    )


def test_rankings_of_different_lengths_are_compared_on_the_shorter(synth, tmp_path):
    """repro_eval's KTU refuses them (scipy: "All inputs to kendalltau must be of the same size");
    the harness's equals repro_eval's on the longer ranking cut to the shorter's length. RBO
    needs no cut: it equals repro_eval's on the uncut files."""
    o, r = synth["orig"], synth["rep"]
    rep = read_run(r["run1"])
    lengths = {t: 1000 - 17 * i for i, t in enumerate(rep.topics())}
    short = tmp_path / "short.run"
    write_run(short, _cut(rep, lengths), "short")
    orig_cut = tmp_path / "orig-cut.run"
    write_run(orig_cut, _cut(read_run(o["run1"]), lengths), "orig")
    ours = reproduce(o["run1"], o["run2"], short, r["run2"], o["qrels"], measures=["AP"]).as_dict()
    with pytest.raises(ValueError, match="same size|incompatible"):
        oracle(o["run1"], o["run2"], short, r["run2"], o["qrels"])["ktu"]
    theirs = oracle(orig_cut, o["run2"], short, r["run2"], o["qrels"])
    assert ours["ktu"]["baseline"] == pytest.approx(theirs["ktu"]["baseline"], abs=TOL, rel=0)
    e = RpdEvaluator(qrels_orig_path=str(o["qrels"]), run_b_orig_path=str(o["run1"]), run_b_rep_path=str(short))
    e.trim()
    assert ours["rbo"]["baseline"] == pytest.approx(e.rbo()["baseline"], abs=TOL, rel=0)


def _without(run: Run, topics: set[str]) -> Run:
    return Run.from_ranked({t: run.ranked(t) for t in run.topics() if t not in topics}, source=run.source)


def test_topics_a_run_lacks_score_0_and_rankings_compare_on_the_topics_both_have(synth, tmp_path):
    """ir_measures gives repro_eval a judged topic a run lacks as 0 (trec_eval -c), so every run
    is scored on every judged topic, as in the harness. KTU and RBO take the reproduction's
    topics in repro_eval, which stops when the original lacks one (it looks the topic up and
    finds None); the harness takes the topics both rank: repro_eval's numbers with the
    reproduction cut to the original's topics."""
    o, r = synth["orig"], synth["rep"]
    lacking = set(read_run(r["run1"]).topics()[-5:])
    files = {}
    for name, path in (("b", o["run1"]), ("a", o["run2"]), ("rb", r["run1"]), ("ra", r["run2"])):
        files[name] = tmp_path / f"{name}.run"
        write_run(files[name], _without(read_run(path), lacking), name)
    measures = ["AP", "nDCG@10", "P@10", "bpref"]
    # the reproduction lacks topics: repro_eval has every number
    ours = reproduce(o["run1"], o["run2"], files["rb"], files["ra"], o["qrels"], measures=measures)
    assert_equal(ours.as_dict(), oracle(o["run1"], o["run2"], files["rb"], files["ra"], o["qrels"]), measures)
    assert ours.topics == dict.fromkeys(("baseline", "advanced", "rep-baseline", "rep-advanced"), TOPICS)
    assert ours.baseline.ranked_topics == TOPICS - 5
    # the original lacks them: repro_eval's KTU stops
    runs = (files["b"], files["a"], r["run1"], r["run2"])
    with pytest.raises(AttributeError):
        oracle(*runs, o["qrels"])
    ours = reproduce(*runs, o["qrels"], measures=measures).as_dict()
    assert_equal(ours, oracle(*runs, o["qrels"], rankings=False), measures)
    cut = oracle(files["b"], files["a"], files["rb"], files["ra"], o["qrels"])
    for key in ("ktu", "rbo"):
        for side in ("baseline", "advanced"):
            assert ours[key][side] == pytest.approx(cut[key][side], abs=TOL, rel=0), (key, side)


# --- the cases docs/reproduce.md shows --------------------------------------------------------


def _ids(*docs: str) -> np.ndarray:
    return np.array(docs, dtype="S")


def test_ktu_pairs_the_rankings_rank_by_rank_as_repro_eval_does():
    """repro_eval's KTU: a ranking and its reverse give 1/3 here, not -1 (Kendall's tau of the
    documents' ranks); the harness matches it, the number papers report as KTU."""
    orig, rep = {"1": {"b": 3.0, "a": 2.0, "c": 1.0}}, {"1": {"c": 3.0, "a": 2.0, "b": 1.0}}
    theirs = KTU(orig, rep)
    assert theirs == pytest.approx(1 / 3)
    assert ktu(_ids("b", "a", "c"), _ids("c", "a", "b")) == pytest.approx(theirs, abs=TOL, rel=0)
    assert ktu(_ids("a", "b", "c"), _ids("c", "b", "a")) == -1.0  # ids that sort as ranked: -1
    assert math.isnan(ktu(_ids("a"), _ids("a")))  # one document: no pair, no tau


def test_rbo_of_identical_short_rankings_is_below_one_as_in_repro_eval():
    docs = [f"d{i}" for i in range(10)]
    run = {"1": {d: float(10 - i) for i, d in enumerate(docs)}}
    theirs = RBO(run, {"1": dict(run["1"])}, p=0.95, depth=1000, pbar=False, per_topic=False)
    assert rbo(_ids(*docs), _ids(*docs), 0.95, 1000) == pytest.approx(theirs, abs=TOL, rel=0)
    assert round(theirs, 4) == 0.6724
    assert rbo(_ids(*docs), _ids(*docs), 0.95, 10) == 1.0


# --- the command line and the API --------------------------------------------------------------


def _cli(capsys, *args) -> tuple[int, str, str]:
    code = main(["reproduce", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_is_the_shape_and_the_numbers_of_every_door(synth, capsys):
    o, r = synth["orig"], synth["rep"]
    flags = ["--baseline", o["run1"], "--advanced", o["run2"], "--rep-baseline", r["run1"]]
    flags += ["--rep-advanced", r["run2"], "--qrels", o["qrels"]]
    code, out, _ = _cli(capsys, *flags, "-m", "AP", "nDCG@10", "--json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["ktu", "rbo", "rmse", "nrmse", "er", "dri", "p"]
    for key in ("ktu", "rbo"):
        assert list(data[key]) == ["baseline", "advanced"] and all(isinstance(v, float) for v in data[key].values())
    for key in ("rmse", "nrmse", "p"):
        assert list(data[key]) == ["baseline", "advanced"]
        assert all(list(v) == ["AP", "nDCG@10"] for v in data[key].values())
    assert list(data["er"]) == list(data["dri"]) == ["AP", "nDCG@10"]
    api = harness.reproduce(o["run1"], o["run2"], r["run1"], r["run2"], o["qrels"], measures=["AP", "nDCG@10"])
    assert api == data
    code, text, _ = _cli(capsys, *flags, "-m", "AP", "nDCG@10")
    assert code == 0
    assert "reproducibility" in text and "paired t-test" in text
    ktu_line = next(line for line in text.splitlines() if line.startswith("KTU"))
    assert ktu_line.split()[1:3] == [f"{data['ktu']['baseline']:.4f}", f"{data['ktu']['advanced']:.4f}"]
    ap = next(line for line in text.splitlines() if line.startswith("AP "))
    assert ap.split()[1] == f"{data['rmse']['baseline']['AP']:.4f}"


def test_a_replication_on_the_command_line(synth, capsys):
    o, other = synth["orig"], synth["other"]
    code, out, _ = _cli(
        capsys,
        *("--baseline", o["run1"], "--advanced", o["run2"], "--rep-baseline", other["run1"]),
        *("--rep-advanced", other["run2"], "--qrels", o["qrels"], "--rep-qrels", other["qrels"], "-m", "AP"),
    )
    assert code == 0 and "replicability" in out and "unpaired t-test" in out and "KTU" not in out


def test_the_api_takes_tables_and_dicts(synth):
    from harness.api.frames import run_frame

    o, r = synth["orig"], synth["rep"]
    files = harness.reproduce(o["run1"], o["run2"], r["run1"], r["run2"], o["qrels"], measures=["AP", "P@10"])
    frames = [run_frame(read_run(p)) for p in (o["run1"], o["run2"])]
    dicts = []
    for p in (r["run1"], r["run2"]):
        run = read_run(p)
        dicts.append({t: dict(zip(*run.ranked(t))) for t in run.topics()})
    qrels = {}
    for line in o["qrels"].read_text().splitlines():
        q, _, d, label = line.split()
        qrels.setdefault(q, {})[d] = int(label)
    tables = harness.reproduce(*frames, *dicts, qrels, measures=["AP", "P@10"])
    assert tables == files


def test_bad_input_is_one_clear_error(synth, tmp_path, capsys):
    o, r = synth["orig"], synth["rep"]
    good = {"--baseline": o["run1"], "--advanced": o["run2"], "--rep-baseline": r["run1"]}
    good |= {"--rep-advanced": r["run2"], "--qrels": o["qrels"]}

    def run(*extra, **changes) -> str:
        flags = good | {f"--{k.replace('_', '-')}": v for k, v in changes.items()}
        code, out, err = _cli(capsys, *[x for kv in flags.items() for x in kv], *extra)
        assert code == 2 and not out
        return err

    err = run(rep_baseline=tmp_path / "missing.run", rep_advanced=tmp_path / "missing-too.run")
    assert "missing.run: run file not found" in err and "missing-too" not in err  # the first mistake
    assert "NoSuch@10" in run("-m", "AP", "NoSuch@10")
    assert "depth must be an integer" in run("--depth", "0")
    # four runs of one topic each: the reproduction answers another topic than the original
    files = {}
    for name, topic in (("b", "Z1"), ("a", "Z1"), ("rb", "Z2"), ("ra", "Z2")):
        files[name] = tmp_path / f"{name}.run"
        files[name].write_text(f"{topic} Q0 D1 1 3.0 x\n{topic} Q0 D2 2 2.0 x\n")
    qrels = tmp_path / "z.qrels"
    qrels.write_text("Z1 0 D1 1\nZ2 0 D2 1\n")
    err = run(baseline=files["b"], advanced=files["a"], rep_baseline=files["rb"], rep_advanced=files["ra"], qrels=qrels)
    assert "rb.run: ranks no topic of" in err and "b.run" in err
    with pytest.raises(DataError, match="rbo_p must be a number in"):
        harness.reproduce(o["run1"], o["run2"], r["run1"], r["run2"], o["qrels"], rbo_p=1.5)


# --- real runs: Cranfield searched with two BM25 settings, with the JVM ---------------------------


@pytest.mark.java
def test_cranfield_runs_with_other_bm25_parameters_equal_repro_eval(cranfield_index, tmp_path):
    """The original experiment: bm25 and bm25+rm3 with Anserini's defaults; the reproduction: the
    same with k1=1.2, b=0.75. Depth 100: every topic ranks at least 100 documents in each run,
    so repro_eval's KTU (equal lengths only) has a number."""
    from harness.engine.index import IndexOptions
    from harness.engine.search import Searcher
    from harness.formats.topics import read_topics
    from harness.specs.similarity import Similarity

    topics = read_topics(CRANFIELD / "topics.tsv")
    searcher = Searcher(cranfield_index.path, IndexOptions())
    paths = []
    for spec in ("bm25", "bm25+rm3", "bm25(k1=1.2,b=0.75)", "bm25(k1=1.2,b=0.75)+rm3"):
        run = searcher.search_run(topics, Similarity.parse(spec), 1000)
        assert min(np.diff(run.offsets)) >= 100, spec
        paths.append(tmp_path / f"{spec}.trec")
        write_run(paths[-1], run, "cranfield")
    searcher.close()
    ours = reproduce(*paths, CRANFIELD / "qrels.txt", measures=MEASURES, policy=reproduce_policy(depth=100)).as_dict()
    theirs = oracle(*paths, CRANFIELD / "qrels.txt", depth=100)
    assert assert_equal(ours, theirs, MEASURES) >= 4 + 6 * len(MEASURES) - 4
    assert 0 < ours["ktu"]["baseline"] < 1 and 0 < ours["rbo"]["advanced"] < 1


def test_docstring_examples():
    import doctest
    import importlib

    for name in ("harness.stats.reproduction", "harness.metrics.agreement", "harness.metrics.evaluate"):
        result = doctest.testmod(importlib.import_module(name))
        assert result.failed == 0 and result.attempted >= 2, name
    from harness import policies

    finder = doctest.DocTestFinder()
    (test,) = finder.find(policies.ReproducePolicy, "ReproducePolicy", globs=vars(policies))
    assert doctest.DocTestRunner().run(test).failed == 0


# --- docs/reproduce.md's worked example: the demo reproduced on a Krovetz index, with the JVM -----

WORKED = "A worked example: the demo on another index"


def _block(text: str, name: str) -> str:
    return re.search(rf"<!-- BEGIN {name} -->\n```\n(.*?)```\n<!-- END {name} -->", text, re.S).group(1)


def _cells(shown: str) -> dict[str, list[str]]:
    """The reproduce block's rows by their first word (KTU, RBO, AP, P@10, ...)."""
    return {line.split()[0]: line.split()[1:] for line in shown.splitlines() if line.split()}


def _scores(e, run: str, measure: str) -> dict[str, float]:
    """repro_eval's per-topic scores (ir_measures') of one of its runs, e.g. run_b_orig."""
    return {t: v[measure] for t, v in getattr(e, f"{run}_score").items()}


@pytest.mark.java
def test_the_worked_example_prints_what_the_page_shows_and_equals_repro_eval(tmp_path):
    """docs/reproduce.md, *A worked example*: its commands, run as written in a copy of the
    repository, print the two blocks scripts/gen_docs.py made; every number the reproduce block
    shows is repro_eval 0.5.0's on the same files (KTU on each pair of rankings cut to the
    shorter one's length: repro_eval refuses rankings of different lengths, which these runs
    have); and each figure the text quotes is these runs' (means, per-topic differences, the
    original's effects and their t-tests by scipy, RBO's ceiling by repro_eval)."""
    import shlex
    import shutil

    from scipy import stats

    from .docs import commands, section

    text = section(WORKED)
    cmds = commands(WORKED)
    assert [c.split()[:2] for c in cmds] == [
        [".venv/bin/harness", v] for v in ("search", "search", "compare", "reproduce")
    ]
    for sub in ("configs", "corpora", "topics", "qrels"):
        shutil.copytree(REPO / sub, tmp_path / sub)
    (tmp_path / "indexes").mkdir()
    (tmp_path / ".venv").symlink_to(REPO / ".venv")
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_INDEXES"}
    printed = {}
    for c in cmds:
        r = subprocess.run(["bash", "-c", c], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
        assert r.returncode == 0, (c, r.stderr[-2000:])
        printed[c.split()[1]] = r.stdout
    shown = _block(text, "reproduce-output")
    assert printed["reproduce"] == shown
    assert _block(text, "reproduce-compare") in printed["compare"]
    words = shlex.split(cmds[-1])
    flags = dict(zip(words[2::2], words[3::2]))
    b, a, rb, ra = (tmp_path / flags[f"--{k}"] for k in ("baseline", "advanced", "rep-baseline", "rep-advanced"))

    # the advanced runs' ir_metadata: the page shows the reproduction's method and actor, and the
    # original's differs where the page says, the reproducer's changes
    meta = {k: yaml.safe_load(p.with_name(yml_name(p.name)).read_text()) for k, p in {"orig": a, "rep": ra}.items()}
    shown_meta = re.search(r"<!-- BEGIN reproduce-metadata -->\n```yaml\n(.*?)```", text, re.S).group(1)
    assert yaml.safe_load(shown_meta) == {k: meta["rep"][k] for k in ("method", "actor")}

    def leaves(d: dict, path: tuple = ()) -> dict:
        out = {}
        for k, v in d.items():
            out |= leaves(v, (*path, k)) if isinstance(v, dict) else {(*path, k): v}
        return out

    orig_meta, rep_meta = leaves(meta["orig"]), leaves(meta["rep"])
    assert {k for k in orig_meta.keys() | rep_meta.keys() if orig_meta.get(k) != rep_meta.get(k)} == {
        ("method", "indexing", "stemmer"),
        ("actor", "role"),
        ("implementation", "executable", "cmd"),
        ("data", "test collection", "index fingerprint"),
    }
    assert (orig_meta[("method", "indexing", "stemmer")], rep_meta[("actor", "role")]) == ("porter", "reproducer")
    changed = [w for w in shlex.split(cmds[1]) if w not in shlex.split(cmds[0])]
    assert changed == ["reports/krovetz", "index.stemmer=krovetz", "ir_metadata.actor.role=reproducer"]
    assert all(w in rep_meta[("implementation", "executable", "cmd")] for w in changed)
    qrels = tmp_path / flags["--qrels"]
    measures = list(DEFAULT_MEASURES)
    assert "-m" not in flags and [line.split()[0] for line in shown.splitlines()[10:-1]] == measures

    # repro_eval: its KTU refuses these runs; every other number of the block is its own
    with pytest.raises(ValueError, match="same size|incompatible"):
        oracle(b, a, rb, ra, qrels)
    theirs = oracle(b, a, rb, ra, qrels, rankings=False)
    e = RpdEvaluator(
        qrels_orig_path=str(qrels),
        run_b_orig_path=str(b),
        run_a_orig_path=str(a),
        run_b_rep_path=str(rb),
        run_a_rep_path=str(ra),
    )
    e.trim()
    e.evaluate()
    theirs["rbo"] = e.rbo()
    cut = {}
    for side, (orig, rep) in {"baseline": (b, rb), "advanced": (a, ra)}.items():
        o_run, r_run = read_run(orig), read_run(rep)
        lengths = {t: min(len(o_run.ranked(t)[0]), len(r_run.ranked(t)[0])) for t in o_run.topics()}
        assert any(len(o_run.ranked(t)[0]) != len(r_run.ranked(t)[0]) for t in o_run.topics()), side
        for name, run in ((side, o_run), (f"rep-{side}", r_run)):
            cut[name] = tmp_path / f"cut-{name}.trec"
            write_run(cut[name], _cut(run, lengths), name)
    theirs["ktu"] = oracle(cut["baseline"], cut["advanced"], cut["rep-baseline"], cut["rep-advanced"], qrels)["ktu"]
    assert_equal(reproduce(b, a, rb, ra, qrels).as_dict(), theirs, measures)

    cells = _cells(shown)

    def show(v: float) -> float:  # a shown cell's number: 4 decimals of repro_eval's
        return pytest.approx(v, abs=5e-5 + TOL, rel=0)

    for key in ("ktu", "rbo"):
        assert [float(x) for x in cells[key.upper()][:2]] == [show(theirs[key][s]) for s in ("baseline", "advanced")]
    for m in measures:
        row = cells[m]
        want = [theirs[k][s][m] for k in ("rmse", "nrmse") for s in ("baseline", "advanced")]
        want += [theirs["er"][m], theirs["dri"][m], theirs["p"]["baseline"][m], theirs["p"]["advanced"][m]]
        for i, (cell, v) in enumerate(zip(row, want)):
            if not math.isfinite(v):  # no ER without an effect; p: repro_eval's NaN, the harness's 1.0
                assert (cell, i) in (("-", 4), ("1.0000", 6), ("1.0000", 7)), (m, i, cell)
            else:
                assert float(cell) == show(v), (m, i)
    assert math.isnan(theirs["er"]["RR"]) and math.isnan(theirs["p"]["baseline"]["RR"])

    # the figures the text quotes, from these runs: whitespace as the page wraps it aside
    prose = " ".join(text.split())

    def says(phrase: str) -> None:
        assert phrase in prose, phrase

    runs = {k: read_run(p) for k, p in {"b": b, "a": a, "rb": rb, "ra": ra}.items()}
    topics = runs["b"].topics()
    assert len(topics) == 15

    def docs(run, t):
        return list(run.ranked(t)[0])

    same = {s: sum(docs(runs[s], t) == docs(runs["r" + s], t) for t in topics) for s in ("b", "a")}
    reordered = sum(
        docs(runs["b"], t) != docs(runs["rb"], t) and sorted(docs(runs["b"], t)) == sorted(docs(runs["rb"], t))
        for t in topics
    )
    longer = {s: sum(len(docs(runs[s], t)) != len(docs(runs["r" + s], t)) for t in topics) for s in ("b", "a")}
    assert same["b"] + reordered + longer["b"] == 15 and reordered == 1
    says(f"`bm25` ranks {same['b']} of the 15 topics exactly as on the Porter index")
    says(f"in another order on one, and {longer['b']} others to another length")
    says("mean of those ten 1s and five lower taus")
    assert same["b"] == 10
    assert same["a"] == 0
    says(f"no topic is ranked identically, {longer['a']} of the 15 to another length")

    itself = RpdEvaluator(
        qrels_orig_path=str(qrels),
        run_b_orig_path=str(b),
        run_a_orig_path=str(a),
        run_b_rep_path=str(b),
        run_a_rep_path=str(a),
    )
    itself.trim()
    itself.evaluate()
    assert itself.ktu() == {"baseline": 1.0, "advanced": 1.0}
    ceiling = itself.rbo()
    says(f"KTU 1 and RBO {ceiling['baseline']:.4f} for `bm25`, {ceiling['advanced']:.4f} for `bm25+rm3`")
    says(
        f"{theirs['rbo']['baseline']:.4f} of {ceiling['baseline']:.4f} and "
        f"{theirs['rbo']['advanced']:.4f} of {ceiling['advanced']:.4f}"
    )

    ap_b, ap_rb = _scores(e, "run_b_orig", "AP"), _scores(e, "run_b_rep", "AP")
    moved = {t: ap_rb[t] - ap_b[t] for t in sorted(ap_b, key=int) if ap_rb[t] != pytest.approx(ap_b[t], abs=1e-12)}
    says(f"AP is equal on {15 - len(moved)} of the 15 topics")
    says(
        " and ".join(f"topic {t} {'gains' if d > 0 else 'loses'} {abs(d):.4f}" for t, d in moved.items()) + ", so RMSE"
    )
    says(
        "sqrt(("
        + " + ".join(f"{abs(d):.4f}²" for d in moved.values())
        + f") / 15)` = {theirs['rmse']['baseline']['AP']:.4f}"
    )
    assert min(ap_b.values()) > 0.5
    says(f"the root mean square of its AP, {math.sqrt(np.mean(np.square(list(ap_b.values())))):.2f}")

    def per_topic(run: str, m: str) -> np.ndarray:
        values = _scores(e, run, m)
        return np.array([values[t] for t in topics])

    assert all((per_topic(r, "RR") == 1).all() for r in ("run_b_orig", "run_a_orig", "run_b_rep", "run_a_rep"))
    for side in ("b", "a"):
        assert (per_topic(f"run_{side}_orig", "R@1000") == per_topic(f"run_{side}_rep", "R@1000")).all()
    p10 = {s: per_topic(f"run_{s}_rep", "P@10") - per_topic(f"run_{s}_orig", "P@10") for s in ("b", "a")}
    changed = {s: [(topics[i], round(d, 4)) for i, d in enumerate(p10[s]) if abs(d) > 1e-12] for s in ("b", "a")}
    assert changed == {"b": [("13", 0.1)], "a": [("2", -0.1)]}
    says("the baseline's topic 13 gains a relevant document in its top 10, the advanced run's topic 2 loses one")
    assert stats.ttest_1samp(p10["b"], 0).pvalue == pytest.approx(theirs["p"]["baseline"]["P@10"], abs=TOL)
    assert abs(stats.ttest_1samp(p10["b"], 0).statistic) == pytest.approx(1.0, abs=1e-12)
    says(f"p with 14 degrees of freedom is {stats.t.sf(1, 14) * 2:.4f}")

    # the original's effects (harness compare's table) and the reproduction's
    def effect(run_b: str, run_a: str, m: str) -> tuple[float, float]:
        d = per_topic(run_a, m) - per_topic(run_b, m)
        return d.mean(), stats.ttest_rel(per_topic(run_a, m), per_topic(run_b, m)).pvalue

    orig = {m: effect("run_b_orig", "run_a_orig", m) for m in measures if m != "RR"}
    rep = {m: effect("run_b_rep", "run_a_rep", m) for m in measures if m != "RR"}
    says(f"R@1000 ({orig['R@1000'][0]:+.4f}, p {orig['R@1000'][1]:.4f})")
    assert orig["R@1000"][1] < 0.05 and all(orig[m][1] > 0.05 for m in ("AP", "P@10", "nDCG@10"))
    says(
        "nDCG@10 effects ("
        + ", ".join(f"{orig[m][0]:+.4f}" for m in ("AP", "P@10", "nDCG@10"))
        + ", p "
        + ", ".join(f"{orig[m][1]:.4f}" for m in ("AP", "P@10", "nDCG@10"))
    )
    mean = {
        k: {m: np.mean(per_topic(k, m)) for m in measures}
        for k in ("run_b_orig", "run_a_orig", "run_b_rep", "run_a_rep")
    }
    says(
        f"gains {rep['AP'][0]:+.4f} ({mean['run_b_rep']['AP']:.4f} to {mean['run_a_rep']['AP']:.4f}) where the original's "
        f"gains {orig['AP'][0]:+.4f} ({mean['run_b_orig']['AP']:.4f} to {mean['run_a_orig']['AP']:.4f})"
    )
    says(f"ER {theirs['er']['AP']:.4f}: the same direction, {theirs['er']['AP']:.0%} of the size")
    ri = {k: (mean[f"run_a_{k}"]["AP"] - mean[f"run_b_{k}"]["AP"]) / mean[f"run_b_{k}"]["AP"] for k in ("orig", "rep")}
    assert ri["orig"] - ri["rep"] == pytest.approx(theirs["dri"]["AP"], abs=TOL)
    says(f"relative improvement, {ri['orig']:.2%}, minus the reproduction's, {ri['rep']:.2%}")
    says(f"top 10s of its 15 topics ({orig['P@10'][0]:+.4f}), the reproduction's loses one ({rep['P@10'][0]:+.4f})")
    assert orig["P@10"][0] * 15 * 10 == pytest.approx(1) and rep["P@10"][0] * 15 * 10 == pytest.approx(-1)
    says(
        f"in the original ({orig['nDCG@10'][0]:+.4f}) and twice as much in the reproduction ({rep['nDCG@10'][0]:+.4f})"
    )
    assert rep["nDCG@10"][0] / orig["nDCG@10"][0] == pytest.approx(theirs["er"]["nDCG@10"], abs=TOL)
    assert 1.95 < theirs["er"]["nDCG@10"] < 2.1
