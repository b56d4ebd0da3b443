"""Numbers as trec_eval's C code reads, casts, compares, adds, logs and sorts them (glibc on
x86-64), for the drop-in's byte-identical output (harness.metrics.trec_eval, trec_segments)."""

from __future__ import annotations

import math
import re

import numpy as np

__all__ = [
    "MAX_LONG",
    "X86_NAN",
    "atof",
    "atol",
    "c_add",
    "c_int",
    "c_int_of",
    "c_long",
    "c_log2",
    "glibc_msort",
    "log2_ranks",
    "sum_in_order",
]

# C's LONG_MAX on x86-64 (also trec_eval's default -M; its -N defaults to 0, whatever its help says)
MAX_LONG = 2**63 - 1
X86_NAN = -math.nan  # the NaN an x86 FPU makes of 0/0 (its sign bit set: glibc prints "-nan")


def atol(text: str) -> int:
    """C's atol: the leading integer of ``text`` (0 when there is none), held to a C long as
    glibc's does (``99999999999999999999``: 9223372036854775807)."""
    m = re.match(r"\s*([+-]?)0*(\d+)", text)
    if not m:
        return 0
    sign, digits = m.groups()
    if len(digits) > 19:  # beyond any C long (and Python reads no int of over 4,300 digits)
        return -MAX_LONG - 1 if sign == "-" else MAX_LONG
    return min(max(int(sign + digits), -MAX_LONG - 1), MAX_LONG)


def c_int(v: int) -> int:
    """A C long difference as trec_eval's cut-off comparator returns it: wrapped to 64 bits,
    then to a 32-bit int."""
    return (v + 2**31) % 2**32 - 2**31


def atof(text: str) -> float:
    """C's atof (glibc's strtod): the leading number of ``text``, decimal, hexadecimal
    (``0x1p-1``), ``inf``/``infinity`` or ``nan`` (``-nan`` with its sign bit set), in any
    case; 0.0 when there is none."""
    m = re.match(r"\s*([+-]?)(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?)", text)
    if m:
        return float.fromhex(m.group(1) + m.group(2))
    m = re.match(r"\s*([+-]?(?:infinity|inf|nan))", text, re.IGNORECASE)
    if m:
        return float(m.group(1))
    m = re.match(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)", text)
    return float(m.group(1)) if m else 0.0


def sum_in_order(values: np.ndarray) -> float:
    """trec_eval's ``total += v`` over the topics in their order, from 0.0: np.cumsum adds one
    value after the other as the loop does (np.sum's pairwise sum would not); with a NaN, the
    loop itself (:func:`c_add` picks the NaN trec_eval's addition keeps)."""
    if np.isnan(values).any():
        total = 0.0
        for v in values.tolist():
            total = c_add(total, v)
        return total
    return float(np.cumsum(np.r_[0.0, values])[-1])


def c_add(total: float, v: float) -> float:
    """``total += v`` as trec_eval's compiled accumulation does it: of two NaNs the sum is the
    one added (the x86 addition returns its first operand's NaN, and gcc puts the topic's value
    first), so the sign of the "all" line's NaN is the last NaN topic's (as the binary prints
    a mean of nan, then -nan: -nan; tests/test_trec_eval_binary.py)."""
    return v if v != v else total + v


def c_log2(x: float) -> float:
    """log2 as trec_eval's C library returns it where math.log2 raises: -inf at 0, a NaN
    as it came, and below 0 the NaN of glibc's log2@GLIBC_2.2.5 (the symbol the trec_eval
    binary of Anserini's fatjar links, through glibc's compatibility wrapper): NAN, its sign
    bit clear, printed "nan" (a trec_eval built against glibc 2.29 or later links the newer
    log2, whose NaN has it set: "-nan")."""
    if x > 0.0:
        return math.log2(x)
    return -math.inf if x == 0.0 else x if x != x else math.nan


def c_long(x: float) -> int:
    """C's (long) cast of a double on x86-64: a NaN, or a value beyond a long, is LONG_MIN."""
    return int(x) if -(2.0**63) <= x < 2.0**63 else -(2**63)


def c_int_of(x: float) -> int:
    """C's ``(int) x`` for a double on x86-64 (cvttsd2si): truncated toward zero, and INT_MIN
    for a value an int cannot hold (beyond 2**31, infinity, NaN), as trec_eval's gain
    comparison returns it for gains given as ``ndcg.1=3e9`` or ``ndcg.1=1e400``."""
    return int(x) if -2147483649.0 < x < 2147483648.0 else -2147483648


_LOG2 = np.zeros(0)


def log2_ranks(n: int) -> np.ndarray:
    """math.log2(i + 2) for i < n: the discount of rank i + 1, from the C library's log2 as
    trec_eval's loops take it (numpy's own log2 may differ in the last bit)."""
    global _LOG2
    if len(_LOG2) < n:
        _LOG2 = np.array([math.log2(i + 2) for i in range(max(n, 2 * len(_LOG2), 1024))])
    return _LOG2[:n]


def glibc_msort(items: list, cmp) -> list:
    """glibc's qsort as trec_eval 9.0.8 was built and tested with it (msort.c: a top-down merge
    sort, the first half of n // 2 items, taking from the first run while cmp <= 0). With a
    comparison that is not a total order, its result is this algorithm's, so it is followed
    step by step. (glibc 2.37 moved qsort to introsort; trec_eval's gain-ordering then differs
    for gains less than 1 apart, which none of its tests use.)"""
    n = len(items)
    if n <= 1:
        return list(items)
    n1 = n // 2
    a, b = glibc_msort(items[:n1], cmp), glibc_msort(items[n1:], cmp)
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if cmp(a[i], b[j]) <= 0:
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    return out + a[i:] + b[j:]
