"""The run file a search writes through Java (harness/engine/java/RunText.java) is byte for byte
the one harness.formats.runs.write_run writes from the same Run with Arrow and numpy, and RunText
declines (so that Python writes, or refuses, as before) whatever it is not sure of.

Oracles: Python's repr() for each score's text; write_run's own path (the Run without its
``text_writer``) for whole files, itself tested against trec_eval and pytrec_eval elsewhere."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.engine import lucene
from harness.engine.search import Searcher, run_from_arrays, run_text_writer
from harness.errors import DataError
from harness.formats.runs import read_run, write_run

from .conftest import examples

pytestmark = pytest.mark.java
MIN_NORMAL = 2.2250738585072014e-308


def run_text():
    return lucene.jclass("harness.RunText")


def java_reprs(values: list[float]) -> list[str]:
    return str(run_text().reprs([float(v) for v in values])).split("\n")[:-1]


def declined(v: float) -> bool:
    return not math.isfinite(v) or (v != 0 and abs(v) < MIN_NORMAL)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=50))
def test_each_score_is_written_as_repr_writes_it(values):
    for v, text in zip(values, java_reprs(values), strict=True):
        assert text == ("-" if declined(v) else repr(v)), v


def test_repr_over_bit_patterns_float32_scores_and_layout_edges():
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**64, size=20_000, dtype=np.uint64).view(np.float64)
    f32 = rng.random(20_000).astype(np.float32).astype(np.float64) * 40 - 5
    lowered = f32 - rng.integers(0, 4, size=f32.size) * np.abs(np.spacing(f32))  # strictly_decreasing's
    edges = [0.0, -0.0, 1.0, -2.5, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5, 0.00012345, 1.5e-5, 1e22]
    edges += [1e23, 5e-324, MIN_NORMAL, 1.7976931348623157e308, 0.1, 0.3, 2 / 3, 100.0, 1e7, 1e-3, 123456.75]
    edges += [2.0**k for k in range(-1022, 1024, 7)] + [10.0**k for k in range(-300, 300, 7)]
    values = [*bits.tolist(), *f32.tolist(), *lowered.tolist(), *edges]
    assert [("-" if declined(v) else repr(v)) for v in values] == java_reprs(values)


def packed(counts, docs, scores) -> bytes:
    return (
        struct.pack(f"<{len(counts)}i", *counts)
        + struct.pack(f"<{len(docs)}i", *docs)
        + struct.pack(f"<{len(scores)}f", *scores)
    )


def both(tmp_path, ids: list[str], qids: list[str], counts, docs, scores, tag="run"):
    """(the file through Java or its DataError, the file through Python or its DataError, Java's
    return value), from one batch."""
    raw = packed(counts, docs, scores)
    table = np.array([i.encode() for i in ids], dtype="S") if ids else np.zeros(0, "S8")
    from harness.formats.columns import pad8

    table = pad8(table)
    c = np.array(counts, dtype=np.int32)
    scores32 = np.array(scores, dtype=np.float32)
    run = run_from_arrays([(q, "") for q in qids], c, table[np.array(docs, dtype=np.int64)], scores32, "<t>")
    ids_raw = b"".join(i.encode() + b"\n" for i in ids)
    run.text_writer = run_text_writer(run_text(), raw, ids_raw, qids)
    out = []
    for writer in (run.text_writer, None):
        run.text_writer = writer
        path = tmp_path / f"{'java' if writer else 'python'}.trec"
        try:
            write_run(path, run, tag)
            out.append(path.read_bytes())
        except DataError as e:
            out.append(str(e).replace(str(path), "PATH"))
    qlines = b"".join(q.encode() + b"\n" for q in qids)
    code = run_text().write(str(tmp_path / "direct.trec"), raw, ids_raw, qlines, tag.encode())
    return out[0], out[1], code


ID = st.text(alphabet="abcXYZ019-_.é", min_size=1, max_size=6)


@st.composite
def batches(draw):
    ids = draw(st.lists(ID, min_size=1, max_size=8, unique=True))
    n = draw(st.integers(0, 5))
    qids = draw(st.lists(ID, min_size=n, max_size=n, unique=True))
    counts, docs, scores = [], [], []
    pool = st.sampled_from([0.0, -0.0, 1.0, 2.0, 0.5, -3.25, 7.1, 1e-5, 123456.7, 1e20, 4.0, 8.0])
    for _ in qids:
        k = draw(st.integers(0, len(ids)))
        counts.append(k)
        docs += draw(st.permutations(range(len(ids))))[:k]
        values = draw(st.lists(st.one_of(pool, st.floats(-100, 100, width=32)), min_size=k, max_size=k))
        scores += sorted(values, reverse=True)  # non-increasing, with ties: the adjustment's work
    return ids, qids, counts, docs, scores


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches())
def test_whole_files_equal_write_runs_own(tmp_path, batch):
    ids, qids, counts, docs, scores = batch
    java, python, code = both(tmp_path, *batch)
    assert java == python
    # Java writes every one of these but a tie at zero, which the adjustment lowers to a subnormal
    start, zero_tie = 0, False
    for k in counts:
        q = scores[start : start + k]
        zero_tie |= any(a == b == 0 for a, b in zip(q, q[1:]))
        start += k
    assert code == (-1 if zero_tie else len(python))


@pytest.mark.parametrize(
    "case, ids, counts, docs, scores",
    [
        ("scores rise", ["a", "b"], [2], [0, 1], [1.0, 2.0]),
        ("a NaN", ["a", "b"], [2], [0, 1], [float("nan"), 1.0]),
        ("infinite", ["a"], [1], [0], [float("inf")]),
        ("zeros tie", ["a", "b"], [2], [0, 1], [0.0, 0.0]),  # lowered below zero: a subnormal
        ("a space in an unused id", ["a", "b c"], [1], [0], [1.0]),
        ("a space in a used id", ["a", "b c"], [2], [0, 1], [2.0, 1.0]),
        ("an empty id", ["a", ""], [1], [0], [1.0]),
        ("an id of 1,025 bytes", ["a", "x" * 1025], [2], [1, 0], [2.0, 1.0]),
    ],
)
def test_what_java_declines_python_writes_or_refuses_as_before(tmp_path, case, ids, counts, docs, scores):
    java, python, code = both(tmp_path, ids, ["q1"], counts, docs, scores)
    assert code == -1, case
    assert java == python, case


def test_a_failing_java_write_falls_back_to_python(tmp_path):
    raw = packed([1], [0], [1.0])
    write = run_text_writer(run_text(), raw, b"d1\n", ["q1"])
    assert write(tmp_path / "no" / "such" / "folder" / "x.trec", "t") is False  # Java's IOException
    assert run_text_writer(run_text(), raw, b"d1\n", ["q\n1"]) is None  # one id per line for Java


def test_searched_runs_on_cranfield_are_written_through_java(cranfield_index, cranfield_topics, tmp_path):
    """Real runs of several families (ties included: tf-idf and DFI give equal scores), through
    Java and through Python: the same bytes, and read back the same scores."""
    from harness.specs.similarity import Similarity

    s = Searcher(cranfield_index.path, cranfield_index.options)
    try:
        for spec in ("bm25(k1=0.9,b=0.4)", "tfidf", "dfi(measure=chisquared)", "dirichlet(mu=1000)"):
            run = s.search_run(cranfield_topics[:60], Similarity.parse(spec), 200)
            calls = []
            writer = run.text_writer
            run.text_writer = lambda path, tag, w=writer, c=calls: c.append(w(path, tag)) or c[-1]
            write_run(tmp_path / "java.trec", run, spec)
            run.text_writer = None
            write_run(tmp_path / "python.trec", run, spec)
            assert calls == [True], spec  # Java wrote it
            assert (tmp_path / "java.trec").read_bytes() == (tmp_path / "python.trec").read_bytes(), spec
            back = read_run(tmp_path / "java.trec")
            assert np.array_equal(back.scores, run.scores), spec
    finally:
        s.close()


def test_a_searched_run_pickles_without_its_java_writer(cranfield_index, cranfield_topics, tmp_path):
    """A notebook pickles results (joblib, multiprocessing, Dask): the run goes, its Java writer
    stays behind, and the copy writes the same file through Python."""
    import pickle

    from harness.specs.similarity import Similarity

    s = Searcher(cranfield_index.path, cranfield_index.options)
    try:
        run = s.search_run(cranfield_topics[:5], Similarity.parse("bm25"), 50)
    finally:
        s.close()
    copy = pickle.loads(pickle.dumps(run))
    assert copy.text_writer is None and run.text_writer is not None
    assert copy.topics() == run.topics() and np.array_equal(copy.scores, run.scores)
    assert np.array_equal(copy.docids, run.docids) and np.array_equal(copy.offsets, run.offsets)
    write_run(tmp_path / "a.trec", run, "t")
    write_run(tmp_path / "b.trec", copy, "t")
    assert (tmp_path / "a.trec").read_bytes() == (tmp_path / "b.trec").read_bytes()
