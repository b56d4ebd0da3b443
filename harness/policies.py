"""Every choice table and default that changes a number, once.

The command line's flags (choices, defaults, help), the config schema's keys, the Python API's
signatures and the statistics functions all read these; ``tests/test_policies.py`` checks that
each of them exposes exactly these defaults, so a default cannot be written twice again.

A leaf: imports nothing from harness and no numpy, so every layer (and ``harness --help``) may
use it without loading the numeric stack.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

__all__ = [
    "TIES",
    "MISSING_TOPICS",
    "DUPLICATES",
    "RunFormat",
    "RUN_FORMATS",
    "TREC_RUNS",
    "MSMARCO_RUNS",
    "DEFAULT_RUN_FORMAT",
    "MSMARCO_MRR",
    "ALIGNMENTS",
    "TESTS",
    "CORRECTIONS",
    "FAMILIES",
    "ALL_PAIRS",
    "MANY_SYSTEM_TESTS",
    "default_correction",
    "default_baseline",
    "pairs_against",
    "all_pairs",
    "anova_on",
    "IrMetadataPlace",
    "IR_METADATA",
    "DEFAULT_IR_METADATA",
    "IR_METADATA_TESTS",
    "IR_METADATA_CORRECTIONS",
    "MetaEffect",
    "META_EFFECTS",
    "META_METHODS",
    "META_POOLED",
    "DEFAULT_POWER",
    "DEFAULT_DIFFERENCE",
    "DEFAULT_MEASURES",
    "DEFAULT_DEPTH",
    "DEFAULT_FOLDS",
    "DEFAULT_EXPECT_TOLERANCE",
    "OKISH_FACTOR",
    "STUDY_COLUMNS",
    "MAX_RESAMPLES",
    "MAX_WORKERS",
    "LANGUAGES",
    "DEFAULT_LANGUAGE",
    "WHITESPACE_LANGUAGES",
    "EvalPolicy",
    "ReadPolicy",
    "StatsPolicy",
    "ComparePolicy",
    "PowerPolicy",
    "MetaPolicy",
    "ReproducePolicy",
    "FusionMethod",
    "FUSION_METHODS",
    "NORMALIZATIONS",
    "fusion_methods_with",
    "FusionPolicy",
    "FUSE_RUNTAG",
    "one_of",
    "P_FLOOR",
    "format_p",
]

# ------------------------------------------------------------------------------ choice tables
TIES: dict[str, str] = {
    "trec_eval": "re-sort each topic by score, then doc id (trec_eval)",
    "as-ranked": "keep the run's own order",
}
MISSING_TOPICS: dict[str, str] = {
    "zero": "a judged topic the run lacks scores 0 (trec_eval -c)",
    "drop": "a judged topic the run lacks is left out (trec_eval without -c)",
}
DUPLICATES: dict[str, str] = {
    "error": "a document listed twice for one topic is an error naming both lines",
    "drop": "a document listed twice for one topic keeps its first row",
}


@dataclass(frozen=True)
class RunFormat:
    """A layout of run files the harness reads and writes (``--run-format``, a `file:` run's
    ``format:``, ``run_format=``), a value of RUN_FORMATS: its ``name`` (``str(fmt)``), whose
    layout it is (``title``, as messages name it) and its lines (``lines``), together its ``doc``
    (the command line's help, the config reference, the JSON Schema); the extension of a run file
    the harness writes in it (``suffix``); whether each line ends with the run's tag (``tagged``:
    a run file the harness fused is told by it); whether its readers skip a block of ``#`` lines
    at its top (``comments``: an ir_metadata block written inline); and whether it is the run
    cache's own layout (``cached``: a report's run file in it is the cached text, placed as it
    is; in another it is written from the run). Code asks the value, never compares its name
    (tests/test_structure.py checks it); its reader and writer are harness.formats.run_files'."""

    name: str
    title: str
    lines: str
    suffix: str
    tagged: bool = False
    comments: bool = False
    cached: bool = False

    def __str__(self) -> str:
        return self.name

    @property
    def doc(self) -> str:
        return f"{self.title}: {self.lines}"

    def file_name(self, trec_name: str) -> str:
        """A run's file name in this layout, from the one a report gives it (``bm25.trec``, the
        run cache's layout; harness.specs.names): ``bm25.tsv`` in MS MARCO's."""
        return trec_name.removesuffix(TREC_RUNS.suffix) + self.suffix


# The layouts of run files the harness reads and writes (harness.formats.runs, harness.formats.msmarco)
TREC_RUNS = RunFormat(
    "trec", "TREC", "qid Q0 docid rank score tag (trec_eval's)", ".trec", tagged=True, comments=True, cached=True
)
MSMARCO_RUNS = RunFormat(
    "msmarco", "MS MARCO", "qid<TAB>pid<TAB>rank, each score read as 1/rank (Anserini's conversion)", ".tsv"
)
RUN_FORMATS: dict[str, RunFormat] = {f.name: f for f in (TREC_RUNS, MSMARCO_RUNS)}
DEFAULT_RUN_FORMAT = TREC_RUNS.name
# MS MARCO's official "MRR @10" (msmarco_passage_eval.py; harness.metrics.msmarco), not trec_eval's
# RR@10: the measure `harness evaluate --msmarco-mrr` and harness.evaluate(msmarco_mrr=True) add, a
# measure of the table (harness.metrics.families) that -m, a config and the API take by this name too
MSMARCO_MRR = "MRR@10(msmarco)"
ALIGNMENTS: dict[str, str] = {
    "strict": "every run must be scored on the same topics, else an error naming the runs and topics",
    "common": "compare on the topics every run is scored on; the others are left out and counted",
}
TESTS: dict[str, str] = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomization (sign-flip) test",
    "bootstrap": "paired bootstrap test",
    "tukey": "classic Tukey HSD: every pair of runs at once, family-wise, from the two-way ANOVA",
    "randomized-tukey": "randomised Tukey HSD: every pair of runs at once, family-wise, each topic's scores permuted",
}
# The tests of every pair of runs at once (harness.stats.tukey): a pair's p is family-wise over all
# the runs compared, so no correction applies, and the runs' topics x runs matrix is tested once.
MANY_SYSTEM_TESTS = ("tukey", "randomized-tukey")
CORRECTIONS: dict[str, str] = {
    "none": "no correction",
    "bonferroni": "Bonferroni correction",
    "holm": "Holm-Bonferroni correction",
    "bh": "Benjamini-Hochberg (FDR) correction",
}
FAMILIES: dict[str, str] = {
    "per-measure": "within each measure",
    "all": "across all measures and pairs",
}
ALL_PAIRS = "all-pairs"  # compare every pair once, the earlier run as the baseline
# The tests and corrections as ir_metadata names them (ir-metadata.org's naming convention for
# `research goal` > `evaluation` > `significance test`; a randomization test is a permutation
# test); a correction it has no name for is written as the harness names it, `none` not at all.
IR_METADATA_TESTS: dict[str, str] = {
    "t": "t-test",
    "wilcoxon": "wilcoxon",
    "randomization": "permutation",
    "bootstrap": "bootstrap",
    "tukey": "tukey-hsd",
    "randomized-tukey": "randomized-tukey-hsd",
}
IR_METADATA_CORRECTIONS: dict[str, str] = {
    "bonferroni": "bonferroni",
    "holm": "holm-bonferroni",
    "bh": "bh",
}


@dataclass(frozen=True)
class IrMetadataPlace:
    """Where ``harness run`` and ``harness search`` write each run's ir_metadata
    (``--ir-metadata``, ``ir_metadata=``; harness.report.ir_metadata), a value of IR_METADATA:
    what it is (``doc``), and whether the document goes in a file of its own beside each run
    (``beside``: ``runs/NAME.ir-metadata.yml``) or at the top of each run file (``inline``)."""

    doc: str
    beside: bool = False
    inline: bool = False

    @property
    def written(self) -> bool:
        """Whether the documents are written at all (and so gathered: the machine, the checkout)."""
        return self.beside or self.inline


IR_METADATA: dict[str, IrMetadataPlace] = {
    "yml": IrMetadataPlace("beside each run file, as runs/NAME.ir-metadata.yml", beside=True),
    "inline": IrMetadataPlace(
        "at the top of each TREC run file, between '# ir_metadata.start' and '# ir_metadata.end' "
        "comment lines (as repro_eval writes it; trec_eval 9.0.8 refuses such a file)",
        inline=True,
    ),
    "none": IrMetadataPlace("not written"),
}
DEFAULT_IR_METADATA = "yml"


@dataclass(frozen=True)
class MetaEffect:
    """An effect each collection contributes to a meta-analysis (MetaPolicy.effect), a value of
    META_EFFECTS: what it is (``doc``: the config reference, the JSON Schema), whether it is
    standardised (``standardized``: divided by the sd of the differences, d_z, so no longer in
    the measure's units; harness.stats.meta computes it), and how the reports name it: in the
    policy's text (``title``), on a forest chart's axis (``axis``, before "in MEASURE") and in the
    meta-analysis table's note (``note``, plain ASCII: it is report.tex's caption too)."""

    doc: str
    standardized: bool
    title: str
    axis: str
    note: str


# Meta-analysis across collections (harness.stats.meta): the effect each collection contributes,
# the first the default (it keeps the measure's units), and the random-effects variance estimator.
META_EFFECTS: dict[str, MetaEffect] = {
    "raw": MetaEffect(
        "the mean paired difference, in the measure's units; variance var(d)/n",
        standardized=False,
        title="raw mean differences",
        axis="difference",
        note="the raw mean difference, in the measure's units, with variance var(d)/n",
    ),
    "standardized": MetaEffect(
        "the standardised mean difference d_z = mean(d)/sd(d); variance 1/n + d_z^2/(2n)",
        standardized=True,
        title="standardised mean differences (d_z)",
        axis="standardised difference d_z",
        note="the standardised mean difference d_z = mean(d)/sd(d), with variance 1/n + d_z^2/(2n)",
    ),
}
META_METHODS: dict[str, str] = {
    "dl": "DerSimonian-Laird's moment estimate of tau^2 (truncated at 0)",
    "pm": "Paule-Mandel's tau^2: generalised Q equal to its degrees of freedom",
}
# The pooled estimates of a meta-analysis, as meta_analysis.csv's `collection` column names their
# rows (so no collection of a study may be named so: harness.config.study).
META_POOLED: dict[str, str] = {
    "fixed": "the fixed-effect estimate: one true difference, every collection weighted by 1/variance",
    "random": "the random-effects estimate: each collection's true difference drawn around it (variance tau2)",
}
# Power and topic set size (harness.stats.power): the power asked for, and the difference in the
# measure's units (for the ANOVA, the range of system means) it should detect.
DEFAULT_POWER = 0.8
DEFAULT_DIFFERENCE = 0.05


def default_correction(test: str) -> str:
    """The correction when none is given: ``none`` with a many-system test (its p-values are
    family-wise already), else StatsPolicy's (Holm's).

    >>> default_correction("t"), default_correction("tukey")
    ('holm', 'none')
    """
    return "none" if test in MANY_SYSTEM_TESTS else StatsPolicy.correction


def default_baseline(test: str) -> str | None:
    """The baseline when none is given: every pair (ALL_PAIRS) with a many-system test, which
    tests them all at once; else None, the first run."""
    return ALL_PAIRS if test in MANY_SYSTEM_TESTS else None


# The pairs of runs a comparison tests, against baselines or every pair (ALL_PAIRS): the family a
# correction adjusts, so a number changes with them; here, below the config that names them and the
# statistics that test them.
def pairs_against(baselines: str | Sequence[str], runs: Sequence[str]) -> list[tuple[str, str]]:
    """(baseline, run) for every baseline and every other run, in the given orders.

    >>> pairs_against("bm25", ["bm25", "ql", "rm3"])
    [('bm25', 'ql'), ('bm25', 'rm3')]
    """
    baselines = [baselines] if isinstance(baselines, str) else list(baselines)
    return [(b, r) for b in baselines for r in runs if r != b]


def all_pairs(runs: Sequence[str]) -> list[tuple[str, str]]:
    """Every unordered pair once, earlier run as the baseline.

    >>> all_pairs(["a", "b", "c"])
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    """
    runs = list(runs)
    return [(runs[i], runs[j]) for i in range(len(runs)) for j in range(i + 1, len(runs))]


def anova_on(anova: bool | None, test: str) -> bool:
    """Whether the two-way ANOVA table is computed: as asked, and when not asked, with a
    many-system test (the classic Tukey HSD stands on it)."""
    return test in MANY_SYSTEM_TESTS if anova is None else bool(anova)


@dataclass(frozen=True)
class FusionMethod:
    """A fusion method of the registry: what it computes (``doc``), the FusionPolicy options it
    reads besides ``depth`` and ``k``, how many runs it fuses (``runs``: exactly that many; None:
    two or more) and whether it reads the runs' rank column (``ranks``). harness.fusion computes
    each (one module per method); the command line's choices and help, the config's checks and
    keys, the JSON Schema and docs/semantics.md's table read this table."""

    doc: str
    options: tuple[str, ...] = ()
    runs: int | None = None
    ranks: bool = False


FUSION_METHODS: dict[str, FusionMethod] = {
    "rrf": FusionMethod(
        "reciprocal rank fusion: each run adds 1 / (rrf_k + rank), the rank as written (pyserini)",
        ("rrf_k",),
        ranks=True,
    ),
    "interpolation": FusionMethod(
        "alpha * the first run's score + (1 - alpha) * the second's (pyserini); two runs", ("alpha",), runs=2
    ),
    "average": FusionMethod("the scores' sum divided by the number of runs (pyserini)"),
    "normalize": FusionMethod("the sum of the scores min-max normalised per topic (pyserini)"),
    "combsum": FusionMethod("the sum of the (normalised, weighted) scores", ("norm", "weights")),
    "combmnz": FusionMethod("combsum times the number of runs that return the document", ("norm", "weights")),
}
NORMALIZATIONS: dict[str, str] = {
    "none": "the scores as written",
    "minmax": "(score - min) / (max - min) per topic; a topic whose scores are all equal gives 1.0",
    "zscore": "(score - mean) / standard deviation (population) per topic; all equal gives 0.0",
    "rank": "1 - (position - 1) / n per topic, position 1..n in the file's order",
}
DEFAULT_FUSION_K = 1000  # documents per topic in a fused run (pyserini's and Anserini's -k)
DEFAULT_RRF_K = 60  # Cormack et al.'s k
DEFAULT_ALPHA = 0.5
FUSE_RUNTAG = "harness.fuse"  # the tag column of a fused run file (pyserini writes pyserini.fusion)


def fusion_methods_with(option: str) -> tuple[str, ...]:
    """The fusion methods that read ``option`` (a FusionPolicy field), in the registry's order."""
    return tuple(name for name, m in FUSION_METHODS.items() if option in m.options)


DEFAULT_MEASURES: tuple[str, ...] = ("AP", "P@10", "nDCG@10", "RR", "R@1000")
DEFAULT_DEPTH = 1000
DEFAULT_FOLDS = 5
# `expect:` checks: within the tolerance a value is OK (the default: agreement to 4 decimals);
# within OKISH_FACTOR times it, "OK-ish" (a warning, not a failure), as Anserini's regression
# driver (src/main/python/run_regression.py) marks "OKish" a score within 150% of its tolerance;
# beyond, it fails (exit 1). `expect_okish_tolerance` sets the wider margin itself.
DEFAULT_EXPECT_TOLERANCE = 0.00005
OKISH_FACTOR = 1.5
# A study's table across collections, collections.csv: these columns, one per collection between
# `run` and `mean`, the unweighted mean of the per-collection means (harness.experiment.study); no
# collection may be named like one of them (harness.config.schema.study).
STUDY_COLUMNS = ("measure", "run", "mean")
# Most resamples one test may draw: p resolves to 1e-7, and 10**12 would never finish.
MAX_RESAMPLES = 10_000_000
# Most worker processes of a LocalCluster, and corpus shards of an index: one process (with its
# own JVM) per worker on this machine; 10**26 would try to start them one after another.
MAX_WORKERS = 1024

# The analyzer Anserini 2.3.0 indexes and searches each language with: "en" is its
# DefaultEnglishAnalyzer (the stemmer and stopword options apply to it alone); the others are
# io.anserini.analysis.AnalyzerMap's Lucene analyzers, built with their default constructors; ha,
# so, sw and yo, which AnalyzerMap lacks, IndexCollection and SearchCollection analyse with Lucene's
# WhitespaceAnalyzer (split on white space, nothing else). IndexCollection takes any other code
# silently as English; the harness refuses it.
DEFAULT_LANGUAGE = "en"
WHITESPACE_LANGUAGES = ("ha", "so", "sw", "yo")
LANGUAGES: dict[str, str] = {
    "en": "io.anserini.analysis.DefaultEnglishAnalyzer",
    "ar": "org.apache.lucene.analysis.ar.ArabicAnalyzer",
    "bn": "org.apache.lucene.analysis.bn.BengaliAnalyzer",
    "da": "org.apache.lucene.analysis.da.DanishAnalyzer",
    "de": "org.apache.lucene.analysis.de.GermanAnalyzer",
    "es": "org.apache.lucene.analysis.es.SpanishAnalyzer",
    "fa": "org.apache.lucene.analysis.fa.PersianAnalyzer",
    "fi": "org.apache.lucene.analysis.fi.FinnishAnalyzer",
    "fr": "org.apache.lucene.analysis.fr.FrenchAnalyzer",
    "hi": "org.apache.lucene.analysis.hi.HindiAnalyzer",
    "hu": "org.apache.lucene.analysis.hu.HungarianAnalyzer",
    "id": "org.apache.lucene.analysis.id.IndonesianAnalyzer",
    "it": "org.apache.lucene.analysis.it.ItalianAnalyzer",
    "ja": "org.apache.lucene.analysis.ja.JapaneseAnalyzer",
    "ko": "org.apache.lucene.analysis.ko.KoreanAnalyzer",
    "nl": "org.apache.lucene.analysis.nl.DutchAnalyzer",
    "no": "org.apache.lucene.analysis.no.NorwegianAnalyzer",
    "pl": "org.apache.lucene.analysis.morfologik.MorfologikAnalyzer",
    "pt": "org.apache.lucene.analysis.pt.PortugueseAnalyzer",
    "ru": "org.apache.lucene.analysis.ru.RussianAnalyzer",
    "sv": "org.apache.lucene.analysis.sv.SwedishAnalyzer",
    "te": "org.apache.lucene.analysis.te.TeluguAnalyzer",
    "th": "org.apache.lucene.analysis.th.ThaiAnalyzer",
    "tr": "org.apache.lucene.analysis.tr.TurkishAnalyzer",
    "uk": "org.apache.lucene.analysis.uk.UkrainianMorfologikAnalyzer",
    "zh": "org.apache.lucene.analysis.cjk.CJKAnalyzer",
    **dict.fromkeys(WHITESPACE_LANGUAGES, "org.apache.lucene.analysis.core.WhitespaceAnalyzer"),
}


# ------------------------------------------------------------------------------ p-values, as written
# Below this a p-value is written "<2.2e-16", as R's format.pval does (.Machine$double.eps): a p
# that small is at the noise of the floating-point tail areas it comes from, and a p of 0.0 (the
# t-test of constant non-zero differences, or an underflow) is no probability anyone should read.
P_FLOOR = 2.220446049250313e-16


def format_p(p: float) -> str:
    """A p-value as every output writes it (``harness compare``, summary.md, report.html, the API's
    HTML tables): 4 decimals from 0.001 up, 4 significant digits in scientific notation below,
    and never 0: below :data:`P_FLOOR`, ``<2.2e-16``. docs/experiments.md states the rule.

    >>> [format_p(p) for p in (0.5, 0.0132, 0.001, 0.00099996, 4.508e-06, 3e-17, 0.0, 1.0)]
    ['0.5000', '0.0132', '0.0010', '1.000e-03', '4.508e-06', '<2.2e-16', '<2.2e-16', '1.0000']
    """
    if p != p:  # NaN: said as such, never as a number
        return "nan"
    if p < P_FLOOR:
        return "<2.2e-16"
    return f"{p:.3e}" if p < 1e-3 else f"{p:.4f}"


def one_of(name: str, value: object, allowed) -> str:
    """``value`` when it is a key of ``allowed``, else ValueError naming the choices."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))} (got {value!r})")
    return value


_NUMBERS = {2: "two", 3: "three"}  # a number of runs in words


def _count(name: str, value: object, low: int = 1, high: int = MAX_RESAMPLES) -> int:
    # numbers.Integral covers numpy's integers without importing numpy
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= int(value) <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high:,}] (got {value!r})")
    return int(value)


# ------------------------------------------------------------------------------ policies
@dataclass(frozen=True)
class EvalPolicy:
    """How a run is scored. The defaults reproduce ``trec_eval -c`` (trec_eval 9.0.x):

    ``ties="trec_eval"``
        Each topic is re-sorted by score descending, then doc id descending (byte order), as
        trec_eval does, with scores compared as trec_eval holds them, in single precision
        (float32: scores equal to 7 significant digits tie); the rank column and file order
        are ignored. ``"as-ranked"`` keeps the
        run's own order (file order for :func:`harness.formats.runs.read_run`).
    ``missing_topics="zero"``
        A judged topic the run does not answer is scored on an empty ranking, as
        ``trec_eval -c`` does: 0 on every measure except NumRel (its judged relevant documents
        still count, so the summed NumRel equals trec_eval's), and it counts in the means: a
        system must not look better by not answering. ``"drop"``
        leaves such topics out, trec_eval's default.
    ``nDCG_threshold=False``
        nDCG/DCG/CG take gains from every label >= 1 and ignore ``rel=`` (trec_eval does);
        True applies the measure's ``rel=`` threshold to the gains too.

    Fixed (as trec_eval): run topics without judgments are ignored; negative labels are
    non-relevant ("in the pool, unjudged": bpref skips them); the relevance
    threshold is the measure's ``rel=`` (default 1, ``trec_eval -l 1``); all returned docs
    are evaluated (no depth cut, trec_eval without ``-M``).
    """

    ties: str = "trec_eval"
    missing_topics: str = "zero"
    nDCG_threshold: bool = False

    def __post_init__(self):
        if self.ties not in TIES:
            raise ValueError(f"EvalPolicy.ties must be one of {', '.join(TIES)} (got {self.ties!r})")
        if self.missing_topics not in MISSING_TOPICS:
            raise ValueError(
                f"EvalPolicy.missing_topics must be one of {', '.join(MISSING_TOPICS)} (got {self.missing_topics!r})"
            )
        if not isinstance(self.nDCG_threshold, bool):
            raise ValueError(f"EvalPolicy.nDCG_threshold must be True or False (got {self.nDCG_threshold!r})")

    def __str__(self) -> str:
        return ", ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))


@dataclass(frozen=True)
class ReadPolicy:
    """How run files and tables are read: ``duplicates`` (a key of DUPLICATES) and the run
    files' ``run_format`` (a key of RUN_FORMATS)."""

    duplicates: str = "error"
    run_format: str = DEFAULT_RUN_FORMAT

    def __post_init__(self):
        one_of("duplicates", self.duplicates, DUPLICATES)
        one_of("run_format", self.run_format, RUN_FORMATS)

    @property
    def layout(self) -> RunFormat:
        """The run files' layout: the value of RUN_FORMATS named ``run_format``."""
        return RUN_FORMATS[self.run_format]


@dataclass(frozen=True)
class StatsPolicy:
    """Everything that decides a reported p-value or interval; echoed in reports as ``str(policy)``.

    >>> print(StatsPolicy())
    paired t-test; Holm-Bonferroni correction within each measure; alpha=0.05; 95% percentile bootstrap CI (10000 samples, seed 42)
    """

    test: str = "t"
    correction: str = "holm"
    family: str = "per-measure"
    alpha: float = 0.05
    permutations: int = 10_000
    bootstrap_samples: int = 10_000
    ci_level: float = 0.95
    seed: int = 42

    def __post_init__(self):
        one_of("test", self.test, TESTS)
        one_of("correction", self.correction, CORRECTIONS)
        one_of("family", self.family, FAMILIES)
        if self.test in MANY_SYSTEM_TESTS and self.correction != "none":
            raise ValueError(
                f"correction must be 'none' with test {self.test!r}: its p-values are family-wise over every "
                f"pair of runs already (got {self.correction!r})"
            )
        for name in ("alpha", "ci_level"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < 1:
                raise ValueError(f"{name} must be a number in (0, 1) (got {v!r})")
        _count("permutations", self.permutations)
        _count("bootstrap_samples", self.bootstrap_samples)
        # Unseeded randomness is exactly what the statistics exist to prevent.
        if isinstance(self.seed, bool) or not isinstance(self.seed, numbers.Integral) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer (got {self.seed!r})")

    def __str__(self) -> str:
        test = TESTS[self.test]
        if self.test in ("randomization", "randomized-tukey"):
            test += f" ({self.permutations} permutations, seed {self.seed})"
        elif self.test == "bootstrap":
            test += f" ({self.bootstrap_samples} samples, seed {self.seed})"
        corr = CORRECTIONS[self.correction]
        if self.test in MANY_SYSTEM_TESTS:
            corr = "no correction needed"
        elif self.correction != "none":
            corr += " " + FAMILIES[self.family]
        level = f"{self.ci_level * 100:g}%"
        return (
            f"{test}; {corr}; alpha={self.alpha:g}; {level} percentile bootstrap CI "
            f"({self.bootstrap_samples} samples, seed {self.seed})"
        )


@dataclass(frozen=True)
class ComparePolicy:
    """How runs are compared: the statistics, and how their topics are aligned (a key of
    ALIGNMENTS). Kept apart from StatsPolicy so that ``str(stats)``, printed in every report,
    is unchanged."""

    stats: StatsPolicy = field(default_factory=StatsPolicy)
    align: str = "strict"
    # the two-way ANOVA table of each measure: None, with a many-system test only (anova_on)
    anova: bool | None = None
    power: PowerPolicy | None = None  # the power table, when asked for

    def __post_init__(self):
        one_of("align", self.align, ALIGNMENTS)
        if self.anova is not None and not isinstance(self.anova, bool):
            raise ValueError(f"anova must be True, False or None (got {self.anova!r})")
        if self.power is not None and not isinstance(self.power, PowerPolicy):
            raise ValueError(f"power must be a PowerPolicy or None (got {self.power!r})")

    @property
    def with_anova(self) -> bool:
        """Whether the ANOVA table is computed (:func:`anova_on`)."""
        return anova_on(self.anova, self.stats.test)


@dataclass(frozen=True)
class PowerPolicy:
    """The power analysis asked for (``compare.power``): the ``power`` wanted and the
    ``difference`` (in the measure's units; for the ANOVA's design, the range of the system means)
    to detect with it; the significance level is the StatsPolicy's alpha.

    >>> print(PowerPolicy())
    power 0.8 to detect a difference of 0.05
    """

    power: float = DEFAULT_POWER
    difference: float = DEFAULT_DIFFERENCE

    def __post_init__(self):
        p, d = self.power, self.difference
        if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 < p < 1:
            raise ValueError(f"power must be a number in (0, 1) (got {p!r})")
        if isinstance(d, bool) or not isinstance(d, numbers.Real) or not 0 < d < math.inf:
            raise ValueError(f"difference must be a positive number (got {d!r})")

    def __str__(self) -> str:
        return f"power {self.power:g} to detect a difference of {self.difference:g}"


@dataclass(frozen=True)
class MetaPolicy:
    """The meta-analysis of a study's comparisons across its collections (``compare.meta``): the
    ``effect`` each collection contributes (a key of META_EFFECTS; ``raw``, the default, keeps the
    measure's units) and the random-effects ``method`` (a key of META_METHODS); the intervals'
    level is the StatsPolicy's ci_level.

    >>> print(MetaPolicy())
    raw mean differences, fixed and random effects (DerSimonian-Laird tau2)
    """

    effect: str = next(iter(META_EFFECTS))
    method: str = next(iter(META_METHODS))

    def __post_init__(self):
        one_of("effect", self.effect, META_EFFECTS)
        one_of("method", self.method, META_METHODS)

    @property
    def meta_effect(self) -> MetaEffect:
        """The effect's value in META_EFFECTS: what it computes and how the reports name it."""
        return META_EFFECTS[self.effect]

    @property
    def method_name(self) -> str:
        """Whose estimate of tau2 the method is: "DerSimonian-Laird" or "Paule-Mandel"."""
        return {"dl": "DerSimonian-Laird", "pm": "Paule-Mandel"}[self.method]

    def __str__(self) -> str:
        return f"{self.meta_effect.title}, fixed and random effects ({self.method_name} tau2)"


@dataclass(frozen=True)
class ReproducePolicy:
    """How ``harness reproduce`` sets an original experiment beside its reproduction, with
    repro_eval 0.5.0's defaults (Breuer et al., SIGIR 2020): ``depth``, each run's first
    documents per topic in trec_eval's order that count (repro_eval's ``trim``: they are
    evaluated, ranked by KTU, and RBO's depth), and ``rbo_p``, RBO's persistence. Runs are
    scored as repro_eval scores them (ir_measures over pytrec_eval, which gives a judged topic
    the run lacks its measure's default, 0): :attr:`evaluation`, trec_eval's order and ``-c``.

    >>> print(ReproducePolicy())
    depth=1000, rbo_p=0.95; trec_eval's order, a judged topic a run lacks scores 0 (trec_eval -c)
    """

    depth: int = DEFAULT_DEPTH
    rbo_p: float = 0.95

    def __post_init__(self):
        _count("depth", self.depth, 1, 2**62)
        p = self.rbo_p
        if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 < p < 1:
            raise ValueError(f"rbo_p must be a number in (0, 1) (got {p!r})")

    @property
    def evaluation(self) -> EvalPolicy:
        return EvalPolicy(ties="trec_eval", missing_topics="zero")

    def __str__(self) -> str:
        return f"depth={self.depth}, rbo_p={self.rbo_p:g}; trec_eval's order, a judged topic a run lacks scores 0 (trec_eval -c)"


@dataclass(frozen=True)
class FusionPolicy:
    """How runs are fused (harness.fusion): ``method`` (a key of FUSION_METHODS), ``depth``
    (each run's first rows per topic, in file order, that take part; None: all), ``k``
    (documents per topic kept; None: all), and the options that only some methods read (their
    FusionMethod.options): ``rrf_k``, ``alpha``, ``norm`` (a key of NORMALIZATIONS) and
    ``weights`` (one per run)."""

    method: str = "rrf"
    rrf_k: int = DEFAULT_RRF_K
    alpha: float = DEFAULT_ALPHA
    depth: int | None = DEFAULT_DEPTH
    k: int | None = DEFAULT_FUSION_K
    norm: str = "none"
    weights: tuple[float, ...] | None = None

    def __post_init__(self):
        one_of("method", self.method, FUSION_METHODS)
        one_of("norm", self.norm, NORMALIZATIONS)
        _count("rrf_k", self.rrf_k, 0, 2**31 - 1)
        if isinstance(self.alpha, bool) or not isinstance(self.alpha, numbers.Real) or not math.isfinite(self.alpha):
            raise ValueError(f"alpha must be a finite number (got {self.alpha!r})")
        for name in ("depth", "k"):
            if getattr(self, name) is not None:
                _count(name, getattr(self, name), 1, 2**62)
        if self.weights is not None:
            if not all(isinstance(w, numbers.Real) and not isinstance(w, bool) for w in self.weights):
                raise ValueError(f"weights must be numbers (got {self.weights!r})")
            if not all(math.isfinite(w) for w in self.weights):
                raise ValueError(f"weights must be finite numbers (got {self.weights!r})")
            object.__setattr__(self, "weights", tuple(float(w) for w in self.weights))
        reads = FUSION_METHODS[self.method].options
        if (self.norm != "none" and "norm" not in reads) or (self.weights is not None and "weights" not in reads):
            users = " and ".join(fusion_methods_with("norm"))
            raise ValueError(f"norm and weights apply to {users} only (method {self.method!r})")

    @property
    def reads_ranks(self) -> bool:
        """Whether the method reads the runs' rank column (rrf), which is then read and checked."""
        return FUSION_METHODS[self.method].ranks

    def runs_problem(self, n: int) -> tuple[str, str] | None:
        """What is wrong with fusing ``n`` runs under this policy: (the option at fault, ``runs``
        or ``weights``; the message), or None. Every door asks it before reading a run."""
        want = FUSION_METHODS[self.method].runs
        if n < 2 or (want is not None and n != want):
            how = "at least two" if want is None else f"exactly {_NUMBERS.get(want, want)}"
            return "runs", f"{self.method} fuses {how} runs (got {n})"
        if self.weights is not None and len(self.weights) != n:
            return "weights", f"one weight per run ({n} runs, {len(self.weights)} weights)"
        return None
