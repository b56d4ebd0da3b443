"""Statistics for comparing retrieval runs: paired tests, randomization, bootstrap, corrections.

``paired`` (t, Wilcoxon, effect size), ``resampling`` (randomization, bootstrap, CIs),
``corrections`` (multiple testing), ``compare`` (policies and comparisons of runs) and
``tuning`` (cross-validation, settings not worse than the best); for many systems and many
collections, ``anova`` (two-way ANOVA), ``tukey`` (classic and randomised Tukey HSD),
``grouping`` (best group, compact letter display), ``meta`` (meta-analysis) and ``power`` (power
and topic set size); this package re-exports them.

Pure functions of per-topic score vectors (numpy float arrays paired by topic, in the same order);
no I/O, no Java. The t-test, the Wilcoxon test and the bootstrap resamples are scipy.stats'
(imported on first use, harness.lazy); the sign-flip randomization test is hand-written numpy, 43x faster than
``scipy.stats.permutation_test`` (bench/bench_stats.py). statsmodels is the corrections' test oracle.
Everything that draws random numbers takes an explicit integer ``seed`` and uses
``numpy.random.default_rng(seed)``: the same inputs and seed give the same p-value, bit for bit.

    >>> import numpy as np
    >>> a = np.array([0.50, 0.30, 0.80, 0.40, 0.60])
    >>> b = np.array([0.40, 0.30, 0.55, 0.20, 0.50])
    >>> round(paired_t(a, b), 4)
    0.0406
    >>> exact_randomization(np.array([3.0, 2.0, 1.0]), np.zeros(3))   # 2 of 8 sign patterns
    0.25
    >>> correct([0.01, 0.04, 0.03], "holm").tolist()
    [0.03, 0.06, 0.06]

Conventions (every one changes a number, so every one is stated):

- ``d = a - b`` per topic; every test is two-sided; the null hypothesis is "no difference".
- ``paired_t`` and ``wilcoxon`` return the p-values of ``scipy.stats.ttest_rel`` and
  ``scipy.stats.wilcoxon`` (defaults), except that identical runs (every ``d == 0``) give
  ``p = 1.0`` instead of NaN or an error, and, for the t-test, constant non-zero differences give
  ``p = 0.0``.
- Monte Carlo tests report ``p = (b + 1) / (B + 1)`` (the observed labelling counts as one of the
  resamples), so p is never 0. A resampled statistic "reaches" the observed one when
  ``|stat| >= |observed| - tol`` with ``tol = 1e-9 * mean(|d|)`` (on the scale of the mean
  difference; the largest possible ``|mean|``): sums of the same numbers in a
  different order differ in the last bits, and without the tolerance exact ties (common: P@10
  differences are multiples of 0.1) would be counted or not by accident of rounding.
- Wins, ties and losses compare per-topic scores exactly (``==``): both scores come from the same
  measure code, so an identical ranking gives an identical score.
- ``reject`` is ``p_corrected < alpha`` (strict).
"""

from harness.policies import (
    CORRECTIONS,
    FAMILIES,
    MANY_SYSTEM_TESTS,
    TESTS,
    PowerPolicy,
    StatsPolicy,
    all_pairs,
    pairs_against,
)
from harness.stats.anova import ANOVA_FIELDS, Anova, AnovaRow, two_way_anova
from harness.stats.compare import (
    COMPARISON_FIELDS,
    Comparison,
    Tables,
    all_pairs_tests,
    compare,
    compare_tables,
    paired_test,
    pvalue,
)
from harness.stats.corrections import correct
from harness.stats.grouping import Grouping, best_group, compact_letters, grouping_of, letter_display
from harness.stats.meta import MetaAnalysis, combine, meta_analysis, no_effect, paired_effect
from harness.stats.paired import cohens_d_paired, paired_t, wilcoxon
from harness.stats.power import (
    POWER_FIELDS,
    AnovaPower,
    PairedPower,
    PowerRow,
    anova_power,
    anova_power_row,
    paired_power,
    power_rows,
)
from harness.stats.resampling import EXACT_MAX_TOPICS, bootstrap_ci, bootstrap_test, exact_randomization, randomization
from harness.stats.tukey import RandomizedTukeyHSD, TukeyHSD, randomized_tukey_hsd, tukey_hsd
from harness.stats.tuning import CrossValidation, Fold, cross_validate, not_worse_than_best

__all__ = [
    "TESTS",
    "MANY_SYSTEM_TESTS",
    "CORRECTIONS",
    "FAMILIES",
    "EXACT_MAX_TOPICS",
    "paired_t",
    "wilcoxon",
    "randomization",
    "exact_randomization",
    "bootstrap_test",
    "bootstrap_ci",
    "cohens_d_paired",
    "correct",
    "paired_test",
    "pvalue",
    "StatsPolicy",
    "PowerPolicy",
    "Comparison",
    "COMPARISON_FIELDS",
    "compare",
    "compare_tables",
    "Tables",
    "all_pairs_tests",
    "pairs_against",
    "all_pairs",
    "Fold",
    "CrossValidation",
    "cross_validate",
    "not_worse_than_best",
    "Anova",
    "AnovaRow",
    "ANOVA_FIELDS",
    "two_way_anova",
    "TukeyHSD",
    "RandomizedTukeyHSD",
    "tukey_hsd",
    "randomized_tukey_hsd",
    "best_group",
    "letter_display",
    "compact_letters",
    "Grouping",
    "grouping_of",
    "MetaAnalysis",
    "no_effect",
    "paired_effect",
    "combine",
    "meta_analysis",
    "PairedPower",
    "AnovaPower",
    "paired_power",
    "anova_power",
    "PowerRow",
    "POWER_FIELDS",
    "power_rows",
    "anova_power_row",
]
