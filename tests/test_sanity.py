"""Sanity warnings (qrels vs collection, topics vs judgments, sweep edges) and the small-sample
rule of the comparisons. The experiment tests run the real pipeline (Java) on a 4-document
collection."""

from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pytest

from harness.config import load_config
from harness.errors import DataError, HarnessWarning
from harness.experiment.execute import run_experiment
from harness.experiment.sanity import check_grid_edges, check_topics
from harness.formats.qrels import Qrels
from harness.formats.run import Run
from harness.metrics import evaluate
from harness.specs.similarity import Similarity
from harness.stats import StatsPolicy, compare
from harness.stats.small_n import MIN_BOOTSTRAP_TOPICS, small_sample_note

DOCS = [
    ("a.txt", "wind tunnel flow over a flat plate"),
    ("b.txt", "boundary layer transition at high speed flow"),
    ("c.txt", "heat transfer in laminar flow"),
    ("d.txt", "supersonic flow and shock waves"),
]


def experiment(tmp_path, qrels: str, topics: str = "1\tflat plate flow\n2\tboundary layer\n", runs=None):
    (tmp_path / "docs").mkdir()
    for name, text in DOCS:
        (tmp_path / "docs" / f"{name[0]}.jsonl").write_text(json.dumps({"id": name, "contents": text}) + "\n")
    (tmp_path / "topics.tsv").write_text(topics)
    (tmp_path / "qrels.txt").write_text(qrels)
    cfg = {
        "name": "sanity",
        "collection": {"path": "docs", "format": "jsonl"},
        "index": {"path": "idx"},
        "topics": "topics.tsv",
        "qrels": "qrels.txt",
        "runs": runs or [{"bm25": None}],
        "measures": ["AP"],
        "output": "out",
    }
    (tmp_path / "c.yaml").write_text(json.dumps(cfg))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_experiment(load_config(tmp_path / "c.yaml"))
    emitted = [str(w.message) for w in caught if issubclass(w.category, HarnessWarning)]
    assert emitted == result.warnings  # what the report lists is what was printed
    return result


@pytest.mark.java
def test_qrels_sharing_no_doc_id_with_the_collection_warns(tmp_path):
    # the judged ids lack the collection's ".txt": every score would silently be 0
    result = experiment(tmp_path, "1 0 a 1\n1 0 c 0\n2 0 b 1\n")
    (w,) = [w for w in result.warnings if "qrels.txt" in w]
    assert "none of the 3 judged document ids is in the collection" in w
    assert "'a'" in w and ".txt'" in w  # a missing id, and an id the index has
    assert result.evaluations["bm25(k1=0.9,b=0.4)"].means["AP"] == 0.0


@pytest.mark.java
def test_qrels_mostly_outside_the_collection_warns_with_the_share(tmp_path):
    result = experiment(tmp_path, "1 0 a.txt 1\n1 0 x 0\n2 0 y 1\n2 0 z 1\n")
    assert any("only 1 of 4 judged document ids (25%)" in w for w in result.warnings)


@pytest.mark.java
def test_matching_qrels_give_no_overlap_warning(tmp_path):
    result = experiment(tmp_path, "1 0 a.txt 1\n1 0 c.txt 0\n2 0 b.txt 1\n")
    assert not any("judged document ids" in w for w in result.warnings)


@pytest.mark.java
def test_topics_and_judgments_that_do_not_meet_warn(tmp_path):
    # topic 2 has no judgments; topic 9 is judged but not asked; topic 1 matches nothing
    result = experiment(tmp_path, "1 0 a.txt 1\n9 0 b.txt 1\n", topics="1\tzzzz qqqq\n2\tboundary layer\n")
    text = "\n".join(result.warnings)
    assert "1 of 2 topics have no judgments" in text and "'2'" in text
    assert "1 judged topics are not in the topics file" in text and "'9'" in text
    assert "returned nothing for 1 judged topics ('1')" in text


def test_grid_edge_warning_from_real_means():
    run = Run.from_ranked({"q": (["d1", "d2"], [2.0, 1.0])})
    runs = [Similarity.of("dirichlet", {"mu": m}) for m in (100, 500, 2000)]
    qrels = Qrels.from_dict({"q": {"d1": 1}})
    good, bad = (
        evaluate(run, qrels, ["AP"]),
        evaluate(Run.from_ranked({"q": (["d2", "d1"], [2.0, 1.0])}), qrels, ["AP"]),
    )
    evals = {str(runs[0]): bad, str(runs[1]): bad, str(runs[2]): good}
    (w,) = check_grid_edges(runs, evals, "AP")
    assert "dirichlet(mu=2000)" in w and "largest mu of the grid (100, 500, 2000)" in w
    evals = {str(runs[0]): bad, str(runs[1]): good, str(runs[2]): bad}
    assert check_grid_edges(runs, evals, "AP") == []  # an interior optimum
    evals = {str(r): bad for r in runs}
    assert check_grid_edges(runs, evals, "AP") == []  # all equal: no best setting
    assert check_grid_edges(runs[:2], {str(r): good for r in runs[:2]}, "AP") == []  # 2 values: always an edge


def test_check_topics_groups_runs_with_the_same_missing_topics():
    qrels = Qrels.from_dict({"1": {"a": 1}, "2": {"b": 1}})
    notes = check_topics([("1", "x"), ("2", "y")], qrels, "t.tsv", "q.txt", [("r1", ["2"]), ("r2", ["2"])], "drop")
    assert notes == ["2 runs (r1, r2) returned nothing for 1 judged topics ('2'): they are left out (drop)"]


# ---- small samples -----------------------------------------------------------------------


def test_bootstrap_is_refused_below_10_topics_and_allowed_at_10():
    rng = np.random.default_rng(0)
    for n, refused in ((2, True), (MIN_BOOTSTRAP_TOPICS - 1, True), (MIN_BOOTSTRAP_TOPICS, False)):
        scores = {"a": {"AP": rng.random(n)}, "b": {"AP": rng.random(n)}}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HarnessWarning)
            if refused:
                with pytest.raises(DataError, match=f"at least 10 topics \\(got {n}\\)"):
                    compare(scores, [("a", "b")], policy=StatsPolicy(test="bootstrap"))
            else:
                compare(scores, [("a", "b")], policy=StatsPolicy(test="bootstrap"))


@pytest.mark.parametrize("n", [1, 2, 4, 5, 9])
def test_smallest_reachable_randomization_p_is_2_over_2_to_the_n(n):
    # Oracle: brute-force enumeration of all 2**n sign patterns (not our code). The most extreme
    # outcome (every difference of one sign) is reached by exactly 2 patterns.
    d = np.arange(1, n + 1, dtype=float)
    observed = abs(d.sum())
    hits = sum(abs(np.dot(s, d)) >= observed - 1e-12 for s in itertools.product((1, -1), repeat=n))
    floor = hits / 2**n
    assert floor == 2 / 2**n
    note = small_sample_note(n, 0.05)
    assert f"2/2^{n} = {floor:.3g}" in note
    assert ("no difference can be significant" in note) == (floor >= 0.05)


def test_no_note_from_10_topics():
    assert small_sample_note(10, 0.05) is None
    scores = {"a": {"AP": np.linspace(0, 1, 12)}, "b": {"AP": np.linspace(0.1, 0.9, 12)}}
    with warnings.catch_warnings():
        warnings.simplefilter("error", HarnessWarning)
        compare(scores, [("a", "b")])


# --- the grid-edge check on any valid settings (hypothesis) ---------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from .conftest import examples  # noqa: E402


def _value(spec, draw):
    if spec.choices:
        return draw(st.sampled_from(spec.choices))
    low = spec.low if spec.low > float("-inf") else 0.0
    high = spec.high if spec.high < float("inf") else low + 5000.0
    return draw(st.sampled_from([low, low + 0.25, (low + high) / 2, high]))


@st.composite
def _settings(draw):
    from harness.specs.models import MODELS
    from harness.specs.similarity import Similarity

    model = draw(st.sampled_from(sorted(MODELS)))
    sims = []
    for _ in range(draw(st.integers(1, 6))):
        params = {s.name: _value(s, draw) for s in MODELS[model].params if draw(st.booleans())}
        try:
            sim = Similarity.of(model, params)
        except ValueError:
            continue  # not a valid setting (a parameter its other choices do not take, a bound)
        if sim not in sims:
            sims.append(sim)
    return sims


@settings(max_examples=examples(300), deadline=None)
@given(_settings(), st.randoms(use_true_random=False))
def test_the_grid_edge_check_takes_any_valid_settings(sims, rnd):
    """Choices (axiomatic's function, dfi's measure) and parameters only some settings take were
    an internal error (could not convert 'f1exp' to float, KeyError 'k'); only numeric parameters
    every setting has can sit at a grid edge."""
    from harness.experiment.sanity import check_grid_edges
    from harness.metrics import EvalPolicy, Evaluation

    evaluations = {str(s): Evaluation({}, {"AP": rnd.random()}, [], {}, EvalPolicy()) for s in sims}
    for note in check_grid_edges(sims, evaluations, "AP"):
        name = note.split(" has the ")[1].split(" of the grid")[0].split(" ", 1)[1]
        assert all(isinstance(s.params[name], (int, float)) for s in sims), note
