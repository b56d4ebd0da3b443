"""trec_eval's measures at a list of levels (iprec_at_recall, 11pt_avg, Rprec_mult) and utility,
computed for every topic at once (harness.metrics.kernels), equal the oracle's values
(tests/trec_loops.py: trec_eval's loops, topic by topic), each the same double, NaN's sign
included: levels in any order, repeated, negative, beyond a C long or NaN, topics without a
document retrieved (trec_eval -J, -M 0)."""

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.metrics import kernels
from harness.metrics.c_numbers import c_add
from harness.metrics.trec_eval import compute
from harness.metrics.trec_names import parse_requests

from . import trec_loops
from .conftest import examples
from .test_trec_segments import ranked_topics

LEVELS = [0.0, 0.1, 0.2, 0.25, 0.5, 0.75, 0.9, 1.0, 1.5, 2.0, -0.5, 1e30, math.inf, -math.inf, math.nan]
levels = st.lists(st.sampled_from(LEVELS), min_size=1, max_size=6)


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        (x != x and y != y and math.copysign(1, x) == math.copysign(1, y)) or (x == y and str(x) == str(y))
        for x, y in zip(a, b)
    )


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rl=ranked_topics(), level=st.integers(1, 3), xs=levels)
def test_levels_as_listed_equal_the_loops(rl, level, xs):
    got = kernels.interpolated_precision(rl, level, xs, nan=True)
    want = trec_loops.iprec_as_listed(rl, level, xs)
    for x, a, b in zip(xs, got, want):
        assert _same(a.tolist(), b.tolist()), ("iprec_at_recall", x, a, b)
    total = np.zeros(len(rl.topics))
    for v in reversed(want):  # 11pt_avg: the last level first, as trec_eval adds them
        total = np.array([c_add(s, t) for s, t in zip(total.tolist(), v.tolist())])
    assert _same((kernels.sum_levels(got) / len(xs)).tolist(), (total / len(xs)).tolist())
    got = kernels.rprec_mult(rl, level, xs)
    want = trec_loops.rprec_mult_as_listed(rl, level, xs)
    for x, a, b in zip(xs, got, want):
        assert _same(a.tolist(), b.tolist()), ("Rprec_mult", x, a, b)


coefficients = st.tuples(*[st.sampled_from([1.0, -1.0, 0.0, 2.5, 1e300, math.inf]) for _ in range(4)])


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rl=ranked_topics(), level=st.integers(1, 3), abcd=coefficients, num_docs=st.sampled_from([0, 7, 2**63 - 1]))
def test_utility_equals_the_loop(rl, level, abcd, num_docs):
    text = ",".join(repr(v) for v in abcd)
    (request,) = parse_requests([f"utility.{text}"])
    rl.num_docs = num_docs
    topics, (line,) = compute(rl, [request], level=level)
    want = dict(zip(rl.topics, trec_loops.utility(rl, level, abcd, num_docs).tolist()))
    assert _same(list(line.per_topic.tolist()), [want[t] for t in topics])
