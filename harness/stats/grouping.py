"""Which systems are indistinguishable, from an all-pairs test's family-wise p-values.

Two views of the same p-values (a pair differs when ``p < alpha``, strict, as harness.stats'
``reject``):

- :func:`best_group`: the systems not significantly different from the best (the highest mean;
  on a tie of means, the first), the best included, in the caller's order.
- :func:`letter_display`: a compact letter display. Each system gets letters so that two systems
  share a letter exactly when they are not significantly different. Built by Piepho's
  insert-and-absorb algorithm (H.-P. Piepho, "An algorithm for a letter-based representation of
  all-pairwise comparisons", J. Comput. Graph. Stat. 13(2), 2004), with its sweep:

  1. One letter column holds every system.
  2. *Insert*: for each significantly different pair (i, j), every column holding both is split
     in two, one without i and one without j. *Absorb*: a column contained in another is dropped.
  3. *Sweep*: a system's letter is dropped from a column when every other system of that column
     shares another letter with it anyway (then the columns are absorbed again).
  4. The systems are ranked by mean, highest first (ties: the caller's order); the columns are
     named a, b, ..., z, A, ..., Z (then a2, b2, ...) in the order of their best-ranked system,
     so the best system's letters start with "a".

  Step 2 alone gives a valid display (no significantly different pair shares a letter, every
  other pair shares one: Piepho's theorem); the sweep only removes letters nothing needs. Columns
  are bit sets of systems. A pattern of differences that needs more than :data:`MAX_COLUMNS`
  columns on the way is refused: no display that long could be read.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from harness.policies import StatsPolicy
from harness.stats import checks

__all__ = [
    "AllPairsResult",
    "PairsP",
    "Grouping",
    "best_group",
    "letter_display",
    "compact_letters",
    "grouping_of",
    "MAX_COLUMNS",
]

# The most letter columns the display may hold while it is built. A Tukey test's differences
# never come near (its p falls as |difference| grows, so the columns are runs of systems in mean
# order, at most m); an arbitrary pattern can need exponentially many: half of 50 systems' pairs
# different at random peaked at 1,033 columns (5 s), of 80 systems ran for minutes.
MAX_COLUMNS = 1000


class AllPairsResult(Protocol):
    """What the grouping reads of an all-pairs test (harness.stats.tukey's results): the systems,
    their means and the symmetric matrix of family-wise p-values in the systems' order."""

    @property
    def systems(self) -> tuple[str, ...]: ...

    @property
    def means(self) -> tuple[float, ...]: ...

    def p_matrix(self) -> np.ndarray: ...


@dataclass(frozen=True)
class PairsP:
    """An all-pairs result made of p-values from elsewhere (the corrected p-values of a paired test
    over every pair, harness.stats.compare): ``p`` the symmetric matrix in ``systems``' order."""

    systems: tuple[str, ...]
    means: tuple[float, ...]
    p: np.ndarray

    def p_matrix(self) -> np.ndarray:
        return self.p


@dataclass(frozen=True)
class Grouping:
    """Which runs of one measure are indistinguishable, read off an all-pairs result at
    ``alpha``: the best run (highest mean; ties: the first), the runs not significantly different
    from it (:func:`best_group`) and each run's letters (:func:`letter_display`; None when the
    pattern needs more than :data:`MAX_COLUMNS` columns), in ``runs``' order."""

    measure: str
    runs: tuple[str, ...]
    means: tuple[float, ...]
    best: str
    indistinguishable: tuple[str, ...]  # from the best, the best included
    letters: tuple[str, ...] | None
    alpha: float

    @property
    def differs(self) -> bool:
        """Whether some pair of runs differs significantly."""
        return self.letters is None or len({c for v in self.letters for c in v}) > 1


def grouping_of(measure: str, result: AllPairsResult, alpha: float = StatsPolicy.alpha) -> Grouping:
    """The :class:`Grouping` of ``result`` (one measure's all-pairs test) at ``alpha``."""
    alpha = checks.probability("alpha", alpha)
    try:
        letters = letter_display(result, alpha)
    except ValueError:  # too many columns to read: the best group still says what matters
        letters = None
    return Grouping(
        measure,
        tuple(result.systems),
        tuple(float(v) for v in result.means),
        result.systems[int(np.argmax(result.means))],
        best_group(result, alpha),
        None if letters is None else tuple(letters[s] for s in result.systems),
        alpha,
    )


def best_group(result: AllPairsResult, alpha: float = StatsPolicy.alpha) -> tuple[str, ...]:
    """The systems whose p-value against the best system is ``>= alpha``, and the best, in the
    result's order."""
    alpha = checks.probability("alpha", alpha)
    best = int(np.argmax(result.means))
    p = result.p_matrix()[best]
    return tuple(s for i, s in enumerate(result.systems) if i == best or not p[i] < alpha)


def letter_display(result: AllPairsResult, alpha: float = StatsPolicy.alpha) -> dict[str, str]:
    """The compact letter display of ``result`` at ``alpha``: each system's letters, in the
    result's order of systems."""
    alpha = checks.probability("alpha", alpha)
    return compact_letters(result.systems, result.means, result.p_matrix() < alpha)


def compact_letters(systems: Sequence[str], means: Sequence[float], different: np.ndarray) -> dict[str, str]:
    """Each system's letters (see the module docstring) given which pairs differ: ``different``
    is a symmetric boolean matrix in ``systems``' order.

    >>> diff = np.zeros((4, 4), dtype=bool)
    >>> for i, j in [(0, 2), (0, 3), (1, 3)]:
    ...     diff[i, j] = diff[j, i] = True
    >>> compact_letters(["bm25", "ql", "rm3", "tfidf"], [0.4, 0.35, 0.3, 0.2], diff)
    {'bm25': 'a', 'ql': 'ab', 'rm3': 'bc', 'tfidf': 'c'}
    """
    names = list(systems)
    m = len(names)
    means_ = np.asarray(means, dtype=np.float64)
    d = np.asarray(different, dtype=bool)
    if d.shape != (m, m) or means_.shape != (m,):
        raise ValueError(f"{m} systems need {m} means and an {m} x {m} matrix (got {means_.shape}, {d.shape})")
    if not np.array_equal(d, d.T):
        raise ValueError("different must be symmetric: (i, j) and (j, i) are the same pair")
    rank = sorted(range(m), key=lambda i: (-means_[i], i))  # best first; ties: given order
    columns = [(1 << m) - 1]  # a letter column as a bit set of systems
    for a in range(m):  # insert and absorb, pair after pair in rank order
        for b in range(a + 1, m):
            i, j = rank[a], rank[b]
            both = (1 << i) | (1 << j)
            if not d[i, j] or not any(c & both == both for c in columns):
                continue
            kept = [c for c in columns if c & both != both]
            split = [half for c in columns if c & both == both for half in (c & ~(1 << i), c & ~(1 << j))]
            columns = kept + _absorbed(split, kept)
            if len(columns) > MAX_COLUMNS:
                raise ValueError(
                    f"the differences among these {m} systems need more than {MAX_COLUMNS:,} letter columns, "
                    "too many for a letter display to be read; read best_group or the p-values"
                )
    columns = _sweep(columns, m)
    position = {s: r for r, s in enumerate(rank)}
    columns.sort(key=lambda c: sorted(position[s] for s in range(m) if c >> s & 1))
    letters = _letters(len(columns))
    return {names[s]: "".join(letters[k] for k, c in enumerate(columns) if c >> s & 1) for s in range(m)}


def _absorbed(new: list[int], old: list[int]) -> list[int]:
    """The columns of ``new`` contained in no other column (of equal ones, the first). ``old``
    columns, contained in none of each other, cannot be inside a new one: a new column is part
    of a column that held no old one."""
    out: list[int] = []
    for k, c in enumerate(new):
        others = old + out + new[k + 1 :]
        if c and not any(c & ~o == 0 for o in others):
            out.append(c)
    return out


def _sweep(columns: list[int], m: int) -> list[int]:
    """Drop each letter no pair needs: system s leaves column c when it has another letter and
    every other system of c shares another column with s; then absorb again."""
    columns = list(columns)
    for k in range(len(columns)):
        for s in range(m):
            bit = 1 << s
            if not columns[k] & bit:
                continue
            elsewhere = 0
            for n, o in enumerate(columns):
                if n != k and o & bit:
                    elsewhere |= o
            if elsewhere and columns[k] & ~bit & ~elsewhere == 0:
                columns[k] &= ~bit
    return _absorbed(columns, [])


def _letters(k: int) -> list[str]:
    """a..z, A..Z, then a2..Z2, a3..."""
    letters = string.ascii_lowercase + string.ascii_uppercase
    return [letters[i % 52] + (str(i // 52 + 1) if i >= 52 else "") for i in range(k)]
