"""What validation gives back: a :class:`Config` (with its :class:`CompareSpec`) for a sound
config, and :class:`LocatedProblem` for each problem found, naming its place (``configs/x.yaml:12``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harness.config.execution import Execution
from harness.errors import ConfigProblem
from harness.folders import Experiment
from harness.formats.catalog import CollectionFormat, TopicFormat
from harness.metrics.measures import Measure
from harness.policies import DEFAULT_LANGUAGE, ComparePolicy, PowerPolicy, StatsPolicy, all_pairs, pairs_against
from harness.specs.similarity import Similarity

__all__ = ["Config", "CompareSpec", "LocatedProblem"]


@dataclass(frozen=True)
class CompareSpec:
    """The validated `compare:` block. ``baselines`` is empty when ``all_pairs``."""

    baselines: tuple[str, ...]
    all_pairs: bool
    measures: tuple[Measure, ...]
    policy: StatsPolicy
    folds: int | None  # cross-validation folds; None: no cross-validation
    align: str = ComparePolicy.align  # how topics are paired (harness.stats.align)
    anova: bool = False  # the two-way ANOVA table of each measure (policies.anova_on)
    power: PowerPolicy | None = None  # the power table, when asked for

    @property
    def measure_names(self) -> tuple[str, ...]:
        """The compared measures' canonical names, as evaluations key their values."""
        return tuple(str(m) for m in self.measures)

    def pairs(self, runs) -> list[tuple[str, str]]:
        """(baseline, run) pairs over ``runs`` (canonical names, in config order). With several
        baselines, two baselines are compared once (the earlier one as the baseline), so no
        test enters the correction family twice."""
        if self.all_pairs:
            return all_pairs(runs)
        out: list[tuple[str, str]] = []
        for b, r in pairs_against(self.baselines, runs):
            if (r, b) not in out:
                out.append((b, r))
        return out


@dataclass(frozen=True)
class Config:
    """A validated experiment. Paths are absolute; runs are named canonically, measures are values."""

    source: Path
    name: str
    collection_path: Path | None  # None: `index_path` names an existing index, only read
    collection_format: CollectionFormat | None  # harness.formats.catalog
    index_path: Path | None
    stemmer: str
    stopwords: bool
    index_threads: int
    topics_path: Path
    topics_format: TopicFormat
    qrels_path: Path | None
    runs: tuple[Similarity, ...]
    depth: int
    measures: tuple[Measure, ...]
    expect: dict[str, dict[Measure, float]]  # canonical run -> measure -> the value expected
    expect_tolerance: float  # within it an expected value is OK
    ties: str
    missing_topics: str
    output: Path
    raw: dict = field(compare=False, repr=False)
    compare: CompareSpec | None = None
    explorer_depth: int = 20  # report.explorer_depth
    explorer_topics: int = 250  # report.explorer_topics
    text: str | None = field(default=None, compare=False, repr=False)  # the YAML, when in no file
    execution: Execution = Execution()
    # each run's spec (and a cross-validated run's) -> its name (specs.names.run_names)
    names: dict[str, str] = field(default_factory=dict, compare=False)
    language: str = DEFAULT_LANGUAGE  # index.language (harness.policies.LANGUAGES)
    vectors: str | None = None  # index.vectors of a vectors collection: flat | hnsw
    M: int = 16  # index.M, index.efC: the HNSW graph's (engine.index.IndexOptions)
    efC: int = 500
    quantize: str | None = None  # index.quantize of a vectors index: int8
    qrels_format: str = "trec"  # or irds:ID (qrels_path: ir_datasets' folder of it; harness.formats.named)
    # collection.fields of a beir collection: (("contents", w), ("title", w)); (): one field
    search_fields: tuple = ()
    # the qrels (path, format) that choose which queries of `beir` topics are searched
    # (engine.topics.judged_queries): the config's `qrels`, kept when a verb evaluates nothing (harness search)
    topics_split: tuple[Path, str] | None = None
    remove_query: bool = False  # topics.remove_query: a query's own document left out of its ranking
    # the collection's format read from its files (the config gave none): how, in words; None: given
    collection_read_as: str | None = None

    # runs the harness does not search, each after its parts: FileRun, FusedRun (config.sources)
    sources: tuple = ()
    order: tuple[str, ...] = ()  # every run's spec in config order (empty: the searched runs')
    # the keys replaced on the command line or by the API, as given (--set depth=100, --output out)
    overrides: tuple[str, ...] = ()
    # `ir_metadata:`: {"actor": {...}, "research_goal": {"venue": {...}, "publication": {...}}},
    # only the keys given (harness.report.ir_metadata writes them in ir_metadata's spelling)
    ir_metadata: dict = field(default_factory=dict, compare=False)
    # --replace, harness.run(replace=True): the output may be another experiment's folder (config.paths)
    replace: bool = False
    # within it (and beyond expect_tolerance) an expected value is OK-ish: a warning, not a failure;
    # None: policies.OKISH_FACTOR times expect_tolerance (harness.experiment.result.Check)
    expect_okish_tolerance: float | None = None

    @property
    def experiment(self) -> Experiment:
        """What the marker of the output folder names as this experiment (harness.folders)."""
        return Experiment(self.name, None if self.text is not None else self.source)

    @property
    def measure_names(self) -> tuple[str, ...]:
        """The measures' canonical names, as evaluations key their values (harness.metrics.Evaluation)."""
        return tuple(str(m) for m in self.measures)

    @property
    def run_specs(self) -> tuple[str, ...]:
        """Every run's spec (searched, file and fused), in config order."""
        return self.order or tuple(str(r) for r in self.runs)

    def name_of(self, spec: str) -> str:
        """What tables, plots and file names call the run whose spec is ``spec``."""
        return self.names.get(spec, spec)


class LocatedProblem(ConfigProblem):
    """A ConfigProblem that also knows where it is: ``configs/x.yaml:12``."""

    __slots__ = ("where",)

    def __init__(self, path: str, message: str, where: str | None = None):
        super().__init__(path, message)
        self.where = where

    def __str__(self) -> str:
        return ": ".join(part for part in (self.where, self.path, self.message) if part)
