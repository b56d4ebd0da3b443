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
    MANY_SYSTEM_TESTS,
    META_EFFECTS,
    META_METHODS,
    TESTS,
    ComparePolicy,
    MetaPolicy,
    PowerPolicy,
    StatsPolicy,
)

__all__ = ["COMPARE"]


def _registry(reg: dict[str, str]) -> str:
    """A policy table as doc text: "`t`: paired t-test; `wilcoxon`: ..."."""
    return "; ".join(f"`{k}`: {v}" for k, v in reg.items())


_MANY = " or ".join(f"`{t}`" for t in MANY_SYSTEM_TESTS)  # the many-system tests, as the docs write them


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
            "Runs are given as in `expect` (by name or spec). With a many-system test the p-values are those "
            "of the test over every run the pairs name, whichever pairs are shown.",
            default_text=f"the first run; `{ALL_PAIRS}` with {_MANY}",
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
            "The test: " + _registry(TESTS) + f". {_MANY} test every pair of the compared runs at once "
            "(their p-values are family-wise, so no `correction` applies), and add the ANOVA table and which "
            "runs are indistinguishable from the best (docs/experiments.md: *Many systems in a report*).",
            default=StatsPolicy.test,
            choices=tuple(TESTS),
        ),
        Key(
            "permutations",
            "int",
            "Resamples of the randomization test and of the randomised Tukey HSD.",
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
            "Level of the percentile bootstrap CI of each difference (and of a study's meta-analysis intervals).",
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
            "Multiple-comparison correction: " + _registry(CORRECTIONS) + f". With {_MANY} only `none`: "
            "their p-values are family-wise already.",
            default=StatsPolicy.correction,
            default_text=f"`{StatsPolicy.correction}`; `none` with {_MANY}",
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
            "anova",
            "bool",
            "The two-way ANOVA (system x topic, one score per cell) of each compared measure over every "
            "compared run: its table in the reports and in anova.csv (measure, source, df, sum_sq, mean_sq, F, p).",
            default_text=f"`true` with {_MANY}, else `false`",
        ),
        Key(
            "power",
            "section",
            "Power and topic set size: for each comparison, the smallest mean difference the paired t-test "
            "detects at `alpha` with this power on the collection's topics, and the topics needed to detect "
            "`difference`, from the standard deviation of its per-topic differences; with the ANOVA, the same "
            "for the range of the runs' means by Sakai's ANOVA-based design. In the reports and in power.csv. "
            "`power: true` for the defaults; without this key nothing is computed.",
            switch=True,
            default_text="off",
            keys=(
                Key(
                    "power",
                    "number",
                    "The probability of detecting the difference.",
                    default=PowerPolicy.power,
                    minimum=0,
                    maximum=1,
                    exclusive=True,
                ),
                Key(
                    "difference",
                    "number",
                    "The difference to detect, in the measure's units (for the ANOVA, the range of the runs' means).",
                    default=PowerPolicy.difference,
                    minimum=0,
                    exclusive=True,
                ),
            ),
        ),
        Key(
            "meta",
            "section",
            "A study's meta-analysis (docs/experiments.md: *Meta-analysis in a study*): for each compared pair "
            "and measure, each collection's effect of `run - baseline` and its variance, combined over the "
            "collections by fixed and random effects, with Q, I2 and tau2; in the study's reports, a forest plot "
            "per pair, and meta_analysis.csv. Only in a study (`collections:`) of two collections or more; "
            "`meta: false` turns it off.",
            switch=True,
            default_text="on in a study of two collections or more; refused in a config of one collection",
            keys=(
                Key(
                    "effect",
                    "choice",
                    "The effect each collection contributes: "
                    + _registry({k: e.doc for k, e in META_EFFECTS.items()})
                    + ".",
                    default=MetaPolicy.effect,
                    choices=tuple(META_EFFECTS),
                ),
                Key(
                    "method",
                    "choice",
                    "The random-effects estimate of tau2, the variance of the collections' true effects: "
                    + _registry(META_METHODS)
                    + ".",
                    default=MetaPolicy.method,
                    choices=tuple(META_METHODS),
                ),
            ),
        ),
        Key(
            "cross_validation",
            "section",
            "Tune each swept model (a model with several "
            "settings) by k-fold cross-validation over topics on the first compared measure. "
            "The tuned system is a run of its own, named `model tuned` (spec `model(cv:MEASURE,folds=K,seed=S)`): its file, "
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
