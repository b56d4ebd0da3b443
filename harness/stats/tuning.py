"""Tuning without peeking: k-fold cross-validation over topics, and the settings of a sweep that
are not significantly worse than the best."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from harness.errors import DataError
from harness.policies import DEFAULT_FOLDS, MANY_SYSTEM_TESTS, StatsPolicy, all_pairs
from harness.stats import checks
from harness.stats.compare import all_pairs_tests, pvalue, with_overrides
from harness.stats.corrections import correct
from harness.stats.grouping import best_group


@dataclass(frozen=True)
class Fold:
    """One cross-validation fold: the setting chosen on the other folds, scored on this one."""

    index: int
    test_topics: tuple[str, ...]
    chosen: str
    train_mean: float  # the chosen setting's mean on the training topics
    test_mean: float  # ... and on this fold's held-out topics


@dataclass(frozen=True)
class CrossValidation:
    folds: tuple[Fold, ...]
    heldout: np.ndarray = field(repr=False)  # per-topic held-out scores, in the input topic order
    heldout_mean: float  # mean over all topics of ``heldout``


def _settings(per_topic_by_setting: Mapping[str, object]) -> tuple[list[str], np.ndarray]:
    names = list(per_topic_by_setting)
    if not names:
        raise ValueError("need at least one setting")
    vecs = [checks.vector(per_topic_by_setting[s], f"settings[{s!r}]") for s in names]
    for s, v in zip(names, vecs):
        if v.size != vecs[0].size:
            raise DataError(
                f"settings[{s!r}]",
                f"{v.size} topics, but settings[{names[0]!r}] has "
                f"{vecs[0].size}; settings must be scored on the same topics",
            )
    return names, np.vstack(vecs)


def cross_validate(
    per_topic_by_setting: Mapping[str, np.ndarray],
    topics: Sequence[str],
    folds: int = DEFAULT_FOLDS,
    seed: int = StatsPolicy.seed,
) -> CrossValidation:
    """k-fold cross-validation over topics of choosing a setting (e.g. a parameter sweep).

    Fold assignment: the topic ids, sorted, are shuffled with ``default_rng(seed)`` and split into
    ``folds`` parts of near-equal size, so a topic's fold depends on the ids and seed only, not on
    the input order. On each fold the setting with the best mean on the other folds' topics is
    chosen (ties: the first in the given order) and scored on the held-out topics. The overall
    score is the mean over all topics of their held-out scores (not the mean of fold means).
    """
    names, m = _settings(per_topic_by_setting)
    topics = [str(t) for t in topics]
    if len(topics) != m.shape[1]:
        raise DataError("topics", f"{len(topics)} topic ids for {m.shape[1]} per-topic scores")
    if len(set(topics)) != len(topics):
        dup = next(t for t in topics if topics.count(t) > 1)
        raise DataError("topics", f"topic ids must be unique ({dup!r} repeats)")
    folds = checks.count("folds", folds, low=2)
    if folds > len(topics):
        raise ValueError(f"folds must be <= the number of topics ({len(topics)}) (got {folds})")
    position = {t: i for i, t in enumerate(topics)}
    shuffled = np.random.default_rng(checks.seed(seed)).permutation(sorted(topics))
    heldout = np.empty(m.shape[1])
    out = []
    for k, part in enumerate(np.array_split(shuffled, folds)):
        test = np.array([position[t] for t in part], dtype=np.intp)
        train = np.ones(m.shape[1], dtype=bool)
        train[test] = False
        train_means = m[:, train].mean(axis=1)
        best = int(np.argmax(train_means))  # first of the tied maxima
        heldout[test] = m[best, test]
        out.append(
            Fold(k, tuple(str(t) for t in part), names[best], float(train_means[best]), float(m[best, test].mean()))
        )
    return CrossValidation(tuple(out), heldout, float(heldout.mean()))


def not_worse_than_best(
    per_topic_by_setting: Mapping[str, np.ndarray], policy: StatsPolicy | None = None, **options
) -> list[str]:
    """The settings not significantly different from the best one (by mean; ties: the first), the
    best included, in the given order. Each setting is tested against the best with the policy's
    test; the p-values are corrected together with the policy's correction; a setting stays when
    ``p_corrected >= alpha``. ``options`` override policy fields (``test``, ``correction``,
    ``alpha``, ``seed``, ...). With a many-system test, the settings are tested together, every
    pair at once, and the best group is read off its p-values (harness.stats.grouping.best_group)."""
    policy = with_overrides(policy, options)
    names, m = _settings(per_topic_by_setting)
    if policy.test in MANY_SYSTEM_TESTS and len(names) > 1:
        [test] = all_pairs_tests({n: {"": m[i]} for i, n in enumerate(names)}, all_pairs(names), [""], policy).values()
        return list(best_group(test, policy.alpha))
    best = int(np.argmax(m.mean(axis=1)))
    others = [i for i in range(len(names)) if i != best]
    p = correct([pvalue(policy, m[i], m[best]) for i in others], policy.correction)
    keep = {best} | {i for i, q in zip(others, p) if not q < policy.alpha}
    return [names[i] for i in range(len(names)) if i in keep]
