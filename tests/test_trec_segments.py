"""trec_segments (every topic at once) gives the oracle's values (tests/trec_loops.py: trec_eval's
loops, topic by topic), each the same double, on generated topics: graded, negative and missing
judgments, empty rankings, gains by level (fractional, negative, at the -1 and -2 codes, a level
given twice), relevance levels."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.metrics import trec_segments
from harness.metrics.ranked import RankedLabels

from . import trec_loops
from .conftest import examples


def _topics(seed: int, unused_segments: bool) -> RankedLabels:
    rng = np.random.default_rng(seed)
    T = int(rng.integers(1, 40))
    top = int(rng.integers(0, 5))
    labels, seg_offsets, seg_topic, pool, pool_offsets = [], [0], [], [], [0]
    for t in range(T):
        n_pool = int(rng.integers(0, 30))
        judged = rng.integers(-1, top + 1, n_pool)
        pool += judged.tolist()
        pool_offsets.append(len(pool))
        if unused_segments and rng.random() < 0.2:  # rows of a topic that is not evaluated
            labels += rng.integers(-2, 3, int(rng.integers(1, 5))).tolist()
            seg_offsets.append(len(labels))
            seg_topic.append(-1)
        if rng.random() < 0.1:
            continue  # a topic without a ranking
        codes = np.where(judged < 0, -2, judged)
        picked = codes[rng.permutation(n_pool)[: int(rng.integers(0, n_pool + 1))]]  # distinct documents
        ranked = rng.permutation(np.r_[picked, np.full(int(rng.integers(0, 40)), -1)])
        labels += ranked.tolist()
        seg_offsets.append(len(labels))
        seg_topic.append(t)
    return RankedLabels(
        [f"q{t}" for t in range(T)],
        np.array(seg_offsets, dtype=np.int64),
        np.array(seg_topic, dtype=np.int64),
        np.array(labels, dtype=np.int8 if seed % 3 == 0 else np.int64),  # rank_labels: int8 labels
        np.array(pool_offsets, dtype=np.int64),
        np.array(pool, dtype=np.int64),
    )


PAIRS = [(), ((1, 3.0), (2, 9.0)), ((0, 0.5), (1, 1.25), (3, -2.0)), ((-1, 0.5), (2, 0.0)), ((-2, 1.0), (4, 2.5))]


def _same(a, b) -> bool:
    if isinstance(a, str):
        return a == b
    return (a != a and b != b and math.copysign(1, a) == math.copysign(1, b)) or (a == b and str(a) == str(b))


@pytest.mark.parametrize("seed", range(60))
def test_every_topic_at_once_equals_topic_by_topic(seed):
    rl = _topics(seed, unused_segments=seed % 2 == 1)
    for name in trec_segments.VECTORISED:
        for level in (1, 2):
            for params in PAIRS if name in ("ndcg", "G", "ndcg_rel", "Rndcg") else [(10.0,), (3.0,), (0.0,)]:
                if name not in ("relstring",) and params and not isinstance(params[0], tuple):
                    params = ()
                want = trec_loops.loop_values(rl, name, level, params).tolist()
                got = trec_segments.segment_values(rl, name, level, params).tolist()
                assert len(got) == len(want)
                for t, (a, b) in enumerate(zip(got, want)):
                    assert _same(a, b), (name, level, params, t, a, b)


TWICE = [((1, 2.0), (1, 3.0)), ((2, 0.5), (0, 1.0), (2, 9.0), (1, 0.25)), ((1, 3.0), (2, 2.5), (1, 0.5), (3, 3.2))]


@pytest.mark.parametrize("seed", range(20))
def test_a_level_given_two_gains_equals_the_loops(seed):
    """trec_eval looks a level's gain up at its first entry in the sorted gain table, whose order
    depends on each topic's highest judged level: every topic at once follows it too (it was
    left to the loops at run time before)."""
    rl = _topics(seed, unused_segments=seed % 2 == 1)
    for name in ("ndcg", "G", "ndcg_rel", "Rndcg"):
        for pairs in TWICE:
            want = trec_loops.loop_values(rl, name, 1, pairs).tolist()
            got = trec_segments.segment_values(rl, name, 1, pairs).tolist()
            assert all(_same(a, b) for a, b in zip(got, want)) and len(got) == len(want), (name, pairs, got, want)


@st.composite
def ranked_topics(draw):
    """A RankedLabels of up to 6 topics: pools of labels -2..4, rankings of some pooled
    documents among unjudged ones, topics without a ranking, rows of no evaluated topic."""
    T = draw(st.integers(1, 6))
    labels, seg_offsets, seg_topic, pool, pool_offsets = [], [0], [], [], [0]
    for t in range(T):
        judged = draw(st.lists(st.integers(-2, 4), max_size=12))
        pool += judged
        pool_offsets.append(len(pool))
        if draw(st.booleans()) and draw(st.booleans()):
            labels += draw(st.lists(st.integers(-2, 3), min_size=1, max_size=3))
            seg_offsets.append(len(labels))
            seg_topic.append(-1)
        if not draw(st.integers(0, 9)):
            continue
        codes = [-2 if v < 0 else v for v in judged]
        picked = draw(st.permutations(codes))[: draw(st.integers(0, len(codes)))]
        ranked = draw(st.permutations(picked + [-1] * draw(st.integers(0, 8))))
        labels += ranked
        seg_offsets.append(len(labels))
        seg_topic.append(t)
    return RankedLabels(
        [f"q{t}" for t in range(T)],
        np.array(seg_offsets, dtype=np.int64),
        np.array(seg_topic, dtype=np.int64),
        np.array(labels, dtype=np.int64),
        np.array(pool_offsets, dtype=np.int64),
        np.array(pool, dtype=np.int64),
    )


gains = st.lists(
    st.tuples(st.integers(-2, 5), st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, -1.0, 9.0, 1e300])), max_size=5
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rl=ranked_topics(), level=st.integers(1, 3), pairs=gains, length=st.sampled_from([0.0, 2.0, 5.0, 1e30]))
def test_every_topic_at_once_equals_the_loops_on_any_input(rl, level, pairs, length):
    for name in trec_segments.VECTORISED:
        params = (
            tuple(pairs) if name in ("ndcg", "G", "ndcg_rel", "Rndcg") else (length,) if name == "relstring" else ()
        )
        want = trec_loops.loop_values(rl, name, level, params).tolist()
        got = trec_segments.segment_values(rl, name, level, params).tolist()
        assert len(got) == len(want)
        for t, (a, b) in enumerate(zip(got, want)):
            assert _same(a, b), (name, level, params, t, a, b)


def test_seg_cumsum_adds_each_segment_in_order_from_zero():
    x = np.array([0.1, 0.2, 0.3, 1e16, 1.0, -1e16, 5.0])
    off = np.array([0, 3, 3, 6, 7])
    got = trec_segments.seg_cumsum(x, off)
    want = []
    for lo, hi in zip(off[:-1], off[1:]):
        s = 0.0
        for v in x[lo:hi]:
            s += v
            want.append(s)
    assert got.tolist() == want


@pytest.mark.parametrize("budget", [1, 7, 64])
def test_seg_cumsum_in_small_blocks(monkeypatch, budget):
    monkeypatch.setattr(trec_segments, "_BUDGET", budget)
    rng = np.random.default_rng(budget)
    lens = rng.integers(0, 20, 50)
    off = np.r_[0, np.cumsum(lens)]
    x = rng.standard_normal(int(off[-1])) * 10.0 ** rng.integers(-8, 8, int(off[-1]))
    want = []
    for lo, hi in zip(off[:-1].tolist(), off[1:].tolist()):
        s = 0.0
        for v in x[lo:hi].tolist():
            s += v
            want.append(s)
    assert trec_segments.seg_cumsum(x, off).tolist() == want
