"""docs/experiments.md's "Many systems and many collections": its example runs and prints what it
shows, the Cranfield figures it quotes are those of tests/data/cranfield-five, and it cites the
source of every procedure."""

from __future__ import annotations

import doctest
import re

import scipy.stats

from harness import stats

from .docs import section
from .study_data import FIVE, cranfield

TITLE = "Many systems and many collections"


def test_the_example_prints_what_it_shows():
    blocks = re.findall(r"```pycon\n(.*?)```", section(TITLE), re.S)
    assert len(blocks) == 1
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(doctest.DocTestParser().get_doctest(blocks[0], {}, TITLE, "docs/experiments.md", 0))
    result = runner.summarize(verbose=False)
    assert result.failed == 0 and result.attempted >= 15


def test_the_quoted_cranfield_figures():
    text = section(TITLE)
    x, runs = cranfield("AP", path=FIVE)
    t = scipy.stats.ttest_rel(x[:, 0], x[:, 1]).pvalue
    anova = stats.two_way_anova(x, runs)
    rt = stats.randomized_tukey_hsd(x, runs, permutations=10_000, seed=42).pvalue(runs[0], runs[1])
    quoted = (
        f"paired t-test p of {t:.2g}".replace("e-0", "e-"),
        f"randomised Tukey HSD p of {rt:.2f}",
        f"the ANOVA (p {anova.system.p:.2g})",
    )
    for phrase in quoted:
        assert phrase in " ".join(text.split()), phrase


def test_every_procedure_cites_its_source():
    text = " ".join(section(TITLE).split())
    for source in (
        "Carterette",
        "TOIS 30(1), 2012",
        'Sakai, "Topic set size design", Information Retrieval Journal 19(3), 2016',
        "Soboroff",
        "CIKM 2018",
        "DerSimonian and Laird",
        "Controlled Clinical Trials 7, 1986",
        "Piepho",
        "Higgins and Thompson 2002",
    ):
        assert source in text, source
