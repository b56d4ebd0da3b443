"""The stages of an experiment, in the order they run: its inputs read, its indexes built or
reused, its runs searched (or read from the run cache), the runs from files and fusions added,
the runs evaluated (and the cross-validated ones tuned), compared and checked.

Each stage is a function of typed values in and out; :class:`harness.experiment.execute.Session`
runs them in that order and owns what they leave behind (the run cache files being written,
the indexes held in use). Only the index and search stages touch the executor (the JVM here, or
Dask workers); every run is read and written through the :class:`~harness.experiment.store.RunStore`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from harness.config import Config
from harness.engine.beir import without_query
from harness.engine.existing import NEEDS, describe
from harness.engine.index import IndexInfo, ensure_index
from harness.engine.indexer import index_stats
from harness.engine.manifest import open_manifest
from harness.engine.topics import read_topics
from harness.errors import DataError, warn
from harness.events import Compared, DepthNote, Emit, IndexReady, RunReady, not_indexed
from harness.experiment import sanity
from harness.experiment.compare import Comparisons, compare_runs
from harness.experiment.executors import Executor
from harness.experiment.plan import Plan
from harness.experiment.result import OKISH, RECALL_LEVELS, Check, RunResult
from harness.experiment.sanity import refuse_unmatched_topics
from harness.experiment.sources import read_file_runs
from harness.experiment.store import RunStore
from harness.experiment.tuning import TunedRun, add_tuned_runs
from harness.formats.impact import impact_queries
from harness.formats.named import read_qrels_as
from harness.formats.qrels import Qrels
from harness.formats.run import Run
from harness.metrics import EvalPolicy, Evaluation, evaluate, parse_measure
from harness.specs.sweeps import sweeps

__all__ = [
    "Inputs",
    "Evaluated",
    "read_inputs",
    "planned_runs",
    "open_indexes",
    "search",
    "evaluate_runs",
    "compare",
    "expectations",
    "sanity_notes",
]


@dataclass(frozen=True)
class Inputs:
    """What an experiment reads before anything is indexed: its topics, its judgments (None
    without qrels) and its runs from files (``{spec: (run, seconds spent reading it)}``)."""

    topics: list[tuple[str, str]]
    qrels: Qrels | None
    files: dict[str, tuple[Run, float]]


@dataclass(frozen=True)
class Evaluated:
    """The runs evaluated: the runs (the cross-validated ones among them, each after its sweep),
    each one's evaluation and 11-point interpolated precision-recall curve by run name, and the
    tunings that made the cross-validated runs."""

    runs: list[RunResult]
    evaluations: dict[str, Evaluation]
    curves: dict[str, tuple[float, ...]]
    tuned: list[TunedRun]


# ------------------------------------------------------------------------------ inputs
def read_inputs(cfg: Config) -> Inputs:
    """The topics, the qrels and the runs from files, each checked before anything is indexed:
    no judgment, no topic judged or ids written two ways, a bad run file."""
    topics = read_topics(cfg.topics_path, cfg.topics_format, cfg.topics_split)
    qrels = None
    if cfg.qrels_path:
        qrels = read_qrels_as(cfg.qrels_path, cfg.qrels_format)
        if not qrels.topics():
            raise DataError(cfg.qrels_path, "the qrels file has no judgments: nothing could be evaluated")
        # no topic judged, or ids written two ways: refused before anything is indexed
        refuse_unmatched_topics(topics, qrels, cfg.topics_path, cfg.qrels_path)
    files = read_file_runs(cfg, topics) if cfg.sources else {}
    return Inputs(topics, qrels, files)


def planned_runs(cfg: Config) -> int:
    """How many runs the experiment makes: its searched runs, its runs from files and fusions,
    and a cross-validated run per swept model when it is tuned."""
    tuned = cfg.qrels_path is not None and cfg.compare is not None and cfg.compare.folds is not None
    return len(cfg.runs) + len(cfg.sources) + (len(sweeps(cfg.runs)) if tuned else 0)


# ------------------------------------------------------------------------------ indexes
def open_existing(p: Plan) -> IndexInfo:
    """An index built elsewhere, read only: what it stores (Lucene's word, where its file names
    could not tell), checked against the runs before any search."""
    stores = describe(p.index_path)
    if not stores.get("contents") or not stores.get("id"):
        raise DataError(
            p.index_path, "has no `contents` field or no stored `id`: not an index Anserini's IndexCollection built"
        )
    for sim in p.config.runs:
        if sim.expansion and not stores.get("docvectors"):
            raise DataError(p.index_path, f"run {sim} needs {NEEDS['docvectors']}, which this index does not store")
    manifest = {
        "existing": True,
        "harness_manifest": open_manifest(p.index_path),
        "stores": stores,
        "stats": index_stats(p.index_path),
    }
    return IndexInfo(p.index_path, p.fingerprint, p.options, manifest, reused=True)


def open_indexes(
    p: Plan, executor: Executor, hold: Callable[[IndexInfo], IndexInfo], on: Emit
) -> dict[Path, IndexInfo]:
    """The experiment's index and, for the runs that read exact document lengths (bm25
    accurate=true), the one beside it, each built or reused (an index built elsewhere is only
    read), by path. ``hold`` holds a built or reused index in use while its runs are searched
    and cached (:meth:`harness.experiment.execute.Session.hold`)."""
    cfg = p.config
    infos: dict[Path, IndexInfo] = {}
    for where in (p, p.exact):
        if where is None:
            continue
        if where.existing:
            info = open_existing(where)
        else:
            assert where.corpus is not None  # only an existing index has none
            built = ensure_index(
                where.corpus, where.options, where.index_path, threads=cfg.index_threads, on=on, build=executor.build
            )
            info = hold(built)
        stats = info.manifest.get("stats", {})
        # what IndexCollection left out is said of the experiment's index (the other holds the same documents)
        left = not_indexed(info.manifest) if where is p else ""
        on(IndexReady(str(info.path), info.reused, stats.get("documents", "?"), stats.get("unique_terms", "?"), left))
        infos[where.index_path] = info
    documents = infos[p.index_path].manifest.get("stats", {}).get("documents")
    if isinstance(documents, int) and cfg.depth > documents:
        on(DepthNote(cfg.depth, documents))
    return infos


# ------------------------------------------------------------------------------ searches
def search(
    p: Plan,
    indexes: Mapping[Path, IndexInfo],
    topics: list[tuple[str, str]],
    executor: Executor,
    store: RunStore,
    on: Emit,
) -> list[RunResult]:
    """The config's searched runs, in config order: each read from the run cache when its key
    names a cached run, else searched by the executor and written to the cache behind (the
    store's thread writes it while the next run is searched)."""
    cfg = p.config
    store.prepare(cfg.runs, on)
    paths = {str(sim): store.searched(sim, indexes[p.for_run(sim).index_path].fingerprint) for sim in cfg.runs}
    done: dict[str, RunResult] = {}

    def finish(sim, run: Run, seconds: float, reused: bool, times) -> None:
        in_run = set(run.topics())
        empty = [qid for qid, _ in topics if qid not in in_run]
        where = p.for_run(sim)
        index = None if where is p else where.index_path
        done[str(sim)] = RunResult(sim, str(sim), run, paths[str(sim)], seconds, reused, empty, index, times)
        on(RunReady(cfg.name_of(str(sim)), "reused" if reused else "searched", len(topics), seconds, len(empty)))

    # what the searcher takes: the texts, or an impact topic's term weights (harness.engine.impact)
    queries = impact_queries(topics) if cfg.topics_format.weights else topics
    pending = []
    for sim in cfg.runs:
        t = time.perf_counter()
        # a cached run comes with the times of the search that made it (None: cached before they were kept)
        got = store.read(paths[str(sim)])
        if got is not None:
            finish(sim, got[0], time.perf_counter() - t, True, got[1])
        else:
            pending.append(sim)
    store.check_writable(pending)  # before searching: the runs could not be cached
    # The executor yields each run in config order as a columnar Run (no Python object per
    # hit; seconds: searching time, summed over the workers' tasks under Dask) with the
    # searcher's times, kept with the run in the cache, the index's size added; the store
    # writes the cached run file. Runs reading exact lengths are searched on their own index.
    for where in (x for x in (p, p.exact) if x is not None):
        group = [sim for sim in pending if p.for_run(sim) is where]
        if not group:
            continue
        searched = executor.search_runs(indexes[where.index_path], group, queries, cfg.depth, cfg.index_threads)
        for sim, run, seconds, times in searched:
            if cfg.remove_query:  # the query's own document out of its ranking (engine.beir)
                run = without_query(run)
            times = times.on_index(where.index_path)
            store.write_behind(paths[str(sim)], run, str(sim), times)
            finish(sim, run, seconds, False, times)
    return [done[str(sim)] for sim in cfg.runs]


# ------------------------------------------------------------------------------ evaluation
def evaluate_runs(
    cfg: Config, runs: list[RunResult], qrels: Qrels, topics: Sequence[tuple[str, str]], store: RunStore, on: Emit
) -> Evaluated:
    """Each run evaluated with the config's measures and the curve's 11 points (one evaluation
    per run computes both); with ``compare.cross_validation``, each swept model tuned and its
    cross-validated run added after its sweep and evaluated alike."""
    policy = EvalPolicy(ties=cfg.ties, missing_topics=cfg.missing_topics)
    curve = [parse_measure(f"IPrec@{x}") for x in RECALL_LEVELS]
    measures = list(dict.fromkeys([*cfg.measures, *curve]))
    evaluations: dict[str, Evaluation] = {}
    curves: dict[str, tuple[float, ...]] = {}

    def evaluated(name: str, run: Run) -> None:
        evaluations[name] = evaluate(run, qrels, measures, policy)
        curves[name] = tuple(evaluations[name].means[str(m)] for m in curve)

    for r in runs:
        evaluated(r.name, r.run)
    tuned: list[TunedRun] = []
    if cfg.compare is not None and cfg.compare.folds is not None:
        runs, tuned = add_tuned_runs(cfg, runs, evaluations, [q for q, _ in topics], store, on)
        for tr in tuned:
            evaluated(tr.name, next(r.run for r in runs if r.name == tr.name))
    return Evaluated(runs, evaluations, curves, tuned)


def compare(cfg: Config, evaluated: Evaluated, on: Emit) -> Comparisons:
    """The `compare:` block computed over the evaluated runs (harness.experiment.compare)."""
    assert cfg.compare is not None
    names = [r.name for r in evaluated.runs]
    comparisons = compare_runs(cfg.compare, cfg.runs, evaluated.evaluations, evaluated.tuned, names)
    on(
        Compared(
            len(comparisons.pairs),
            len(comparisons.measures),
            sum(c.reject for c in comparisons.rows),
            str(comparisons.policy),
        )
    )
    return comparisons


def expectations(cfg: Config, evaluations: Mapping[str, Evaluation]) -> list[Check]:
    """The config's `expect:` values against the means computed."""
    checks = []
    for run_name, expected in cfg.expect.items():
        ev = evaluations.get(run_name)
        for measure, value in expected.items():
            actual = None if ev is None else ev.means.get(str(measure))
            checks.append(
                Check(run_name, str(measure), value, actual, cfg.expect_tolerance, cfg.expect_okish_tolerance)
            )
    for c in checks:  # OK-ish: a warning (in the report's too), not a failure
        if c.status == OKISH:
            warn(f"expectation met only within the OK-ish tolerance: {replace(c, run=cfg.name_of(c.run))}")
    return checks


def sanity_notes(
    cfg: Config,
    index: IndexInfo,
    topics: list[tuple[str, str]],
    qrels: Qrels,
    runs: list[RunResult],
    evaluations: Mapping[str, Evaluation],
) -> None:
    """What a user should know before trusting the tables (harness.experiment.sanity), as
    warnings: judged documents the index does not hold, topics without judgments or results,
    a best setting at the edge of its grid."""
    example = next((r.run for r in runs if len(r.run)), None)
    retrieved = [] if example is None else list(dict.fromkeys(example.ranked(example.topics()[0])[0]))[:3]
    notes = sanity.check_qrels_overlap(qrels, index.path, cfg.qrels_path, retrieved)
    notes += sanity.check_topics(
        topics,
        qrels,
        cfg.topics_path,
        cfg.qrels_path,
        [(cfg.name_of(r.name), r.empty_topics) for r in runs],
        cfg.missing_topics,
    )
    if cfg.measures:
        measure = cfg.compare.measures[0] if cfg.compare is not None and cfg.compare.measures else cfg.measures[0]
        notes += sanity.check_grid_edges(cfg.runs, evaluations, str(measure), cfg.name_of)
    for n in notes:
        warn(n)
