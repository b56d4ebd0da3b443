"""The significance tests between runs: the `compare:` section of the schema (and its
`cross_validation:`), its choices and their meanings read from harness.policies."""

from __future__ import annotations

from harness.config.keys import Key
from harness.config.limits import MAX_RESAMPLES
from harness.policies import (
    ALIGNMENTS,
    ALL_PAIRS,
    CORRECTIONS,
    DEFAULT_FOLDS,
    FAMILIES,
    TESTS,
    ComparePolicy,
    StatsPolicy,
)

__all__ = ["COMPARE"]


def _registry(reg: dict[str, str]) -> str:
    """A policy table as doc text: "`t`: paired t-test; `wilcoxon`: ..."."""
    return "; ".join(f"`{k}`: {v}" for k, v in reg.items())


COMPARE = Key(
    "compare",
    "section",
    "Significance tests between runs (needs qrels and two runs or "
    "more); without this key nothing is compared. The policy is written into every report.",
    keys=(
        Key(
            "baseline",
            "baseline",
            "The run every other run is compared with: a run's name, a "
            f"list of names, or `{ALL_PAIRS}` (every pair once, the earlier run as baseline). "
            "Runs are named like `expect`'s (label or spec).",
            default_text="the first run",
        ),
        Key(
            "measures",
            "compare-measures",
            "Measures compared; the first one also drives cross-validation and the per-topic plots.",
            default_text="all of `measures`",
        ),
        Key(
            "test",
            "choice",
            "Paired test: " + _registry(TESTS) + ".",
            default=StatsPolicy.test,
            choices=tuple(TESTS),
        ),
        Key(
            "permutations",
            "int",
            "Resamples of the randomization test.",
            default=StatsPolicy.permutations,
            minimum=1,
            maximum=MAX_RESAMPLES,
        ),
        Key(
            "bootstrap_samples",
            "int",
            "Resamples of the bootstrap test and of every confidence interval.",
            default=StatsPolicy.bootstrap_samples,
            minimum=1,
            maximum=MAX_RESAMPLES,
        ),
        Key(
            "ci_level",
            "number",
            "Level of the percentile bootstrap CI of each difference.",
            default=StatsPolicy.ci_level,
            minimum=0,
            maximum=1,
            exclusive=True,
        ),
        Key(
            "seed",
            "int",
            "Seed of every resampling (randomization, bootstrap, CI) and of the "
            "cross-validation folds: the same config gives the same p-values.",
            default=StatsPolicy.seed,
            minimum=0,
        ),
        Key(
            "correction",
            "choice",
            "Multiple-comparison correction: " + _registry(CORRECTIONS) + ".",
            default=StatsPolicy.correction,
            choices=tuple(CORRECTIONS),
        ),
        Key(
            "family",
            "choice",
            "The p-values corrected together: " + _registry(FAMILIES) + ".",
            default=StatsPolicy.family,
            choices=tuple(FAMILIES),
        ),
        Key(
            "alpha",
            "number",
            "Significance level: a difference is significant when its corrected p < alpha.",
            default=StatsPolicy.alpha,
            minimum=0,
            maximum=1,
            exclusive=True,
        ),
        Key(
            "align",
            "choice",
            "Runs scored on different topics (possible with `evaluation.missing_topics: drop`): "
            + _registry(ALIGNMENTS)
            + ". Topics are paired in trec_eval's order (ids sorted as strings).",
            default=ComparePolicy.align,
            choices=tuple(ALIGNMENTS),
        ),
        Key(
            "cross_validation",
            "section",
            "Tune each swept model (a model with several "
            "settings) by k-fold cross-validation over topics on the first compared measure. "
            "The tuned system is a run of its own, labelled `model tuned` (spec `model(cv:MEASURE,folds=K,seed=S)`): its file, "
            "per-topic (out-of-fold) values and comparisons are written like any run's, and it "
            "can be named as a baseline. Without this key nothing is tuned; `cross_validation:` "
            "alone means 5 folds.",
            keys=(
                Key(
                    "folds",
                    "int",
                    "Number of folds, at most the number of judged topics (checked by `validate`); "
                    "topics are assigned by `seed` (docs/experiments.md: *Cross-validation*).",
                    default=DEFAULT_FOLDS,
                    minimum=2,
                ),
            ),
        ),
    ),
)
