"""harness.stats.grouping: the best group read off the p-values by hand, and the compact letter
display checked against its definition (two systems share a letter exactly when they are not
significantly different; no letter column inside another) on every case it must handle, by
exhaustive enumeration of small significance patterns and on Cranfield's real scores."""

from __future__ import annotations

import doctest
import itertools

import numpy as np
import pytest

from harness import stats
from harness.stats import grouping

from .study_data import FIVE, cranfield, synthetic


def _check_display(letters: dict[str, str], names: list[str], different: np.ndarray) -> None:
    columns = sorted({c for v in letters.values() for c in _split(v)})
    sets = {c: {s for s in names if c in _split(letters[s])} for c in columns}
    for i, j in itertools.combinations(range(len(names)), 2):
        share = bool(set(_split(letters[names[i]])) & set(_split(letters[names[j]])))
        assert share == (not different[i, j]), (names[i], names[j], letters)
    for a, b in itertools.permutations(columns, 2):
        assert not sets[a] <= sets[b], (a, b, letters)  # absorbed
    assert all(letters[s] for s in names)


def _split(text: str) -> list[str]:
    """Letters a..z A..Z, each maybe followed by digits (a2, b2, ... past the 52nd)."""
    out: list[str] = []
    for ch in text:
        if ch.isdigit():
            out[-1] += ch
        else:
            out.append(ch)
    return out


def test_every_significance_pattern_of_five_systems():
    """All 2**10 patterns of which of 5 systems' 10 pairs differ, with distinct means."""
    names = ["a", "b", "c", "d", "e"]
    means = [0.5, 0.4, 0.3, 0.2, 0.1]
    pairs = list(itertools.combinations(range(5), 2))
    for bits in range(1 << len(pairs)):
        d = np.zeros((5, 5), dtype=bool)
        for k, (i, j) in enumerate(pairs):
            if bits >> k & 1:
                d[i, j] = d[j, i] = True
        _check_display(stats.compact_letters(names, means, d), names, d)


@pytest.mark.parametrize("seed", range(30))
def test_random_patterns_of_many_systems(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 30))
    names = [f"s{i}" for i in range(m)]
    d = rng.random((m, m)) < rng.uniform(0.05, 0.95)
    d = np.triu(d, 1)
    d = d | d.T
    _check_display(stats.compact_letters(names, rng.random(m), d), names, d)


def test_letters_follow_the_ranking():
    """The staircase: means fall from a to d; a-c, a-d and b-d differ. The best gets "a", and
    letters are named in the order of their best system."""
    d = np.zeros((4, 4), dtype=bool)
    for i, j in [(0, 2), (0, 3), (1, 3)]:
        d[i, j] = d[j, i] = True
    # the same systems listed in another order keep their letters
    order = [3, 1, 0, 2]
    letters = stats.compact_letters(
        [["w", "x", "y", "z"][i] for i in order], [[0.4, 0.35, 0.3, 0.2][i] for i in order], d[np.ix_(order, order)]
    )
    assert letters == {"z": "c", "x": "ab", "w": "a", "y": "bc"}
    none = np.zeros((3, 3), dtype=bool)
    assert stats.compact_letters(["a", "b", "c"], [1, 2, 3], none) == {"a": "a", "b": "a", "c": "a"}
    every = ~np.eye(3, dtype=bool)
    assert stats.compact_letters(["a", "b", "c"], [1, 2, 3], every) == {"a": "c", "b": "b", "c": "a"}


def test_a_pattern_too_tangled_for_letters_is_refused():
    """Half of 60 systems' pairs different at random: the display would need thousands of
    columns (one per maximal group of systems not differing). Tukey patterns never do."""
    rng = np.random.default_rng(1)
    d = np.triu(rng.random((60, 60)) < 0.5, 1)
    with pytest.raises(ValueError, match="these 60 systems need more than 1,000 letter columns"):
        stats.compact_letters([f"s{i}" for i in range(60)], rng.random(60), d | d.T)


def test_more_than_52_letters():
    m = 60  # every system differs from every other: 60 letters
    names = [f"s{i}" for i in range(m)]
    letters = stats.compact_letters(names, -np.arange(m), ~np.eye(m, dtype=bool))
    assert letters["s0"] == "a" and letters["s51"] == "Z" and letters["s52"] == "a2" and letters["s59"] == "h2"


def test_best_group_and_letters_from_a_tukey_result():
    x, runs = cranfield("AP", path=FIVE)
    result = stats.randomized_tukey_hsd(x, runs, permutations=2000, seed=42)
    p = result.p_matrix()
    best = int(np.argmax(result.means))
    want = tuple(s for i, s in enumerate(runs) if i == best or p[best, i] >= 0.05)
    assert stats.best_group(result) == want
    assert "bm25 k1=1.2" in want and "dirichlet" not in want
    letters = stats.letter_display(result)
    _check_display(letters, list(runs), p < 0.05)
    assert letters["bm25 k1=1.2"].startswith("a")
    # best_group is the systems sharing a letter with the best
    assert set(want) == {s for s in runs if set(letters[s]) & set(letters["bm25 k1=1.2"])}


def test_classic_result_and_arguments():
    x = synthetic(40, 6, 3)
    result = stats.tukey_hsd(x, list("abcdef"))
    _check_display(stats.letter_display(result, 0.01), list("abcdef"), result.p_matrix() < 0.01)
    with pytest.raises(ValueError, match="alpha must be a number in \\(0, 1\\)"):
        stats.best_group(result, alpha=1.5)
    with pytest.raises(ValueError, match="symmetric"):
        stats.compact_letters(["a", "b"], [1, 2], np.array([[False, True], [False, False]]))
    with pytest.raises(ValueError, match="2 systems need 2 means"):
        stats.compact_letters(["a", "b"], [1, 2, 3], np.zeros((2, 2), dtype=bool))
    assert doctest.testmod(grouping).failed == 0
