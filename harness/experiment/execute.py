"""The execution of a plan: config -> index -> runs -> evaluation -> checks.

Everything here is phased and idempotent (see :mod:`harness.experiment.plan` for what is reused
and when). Rendering lives in ``harness.report``; this module only computes.
"""

from __future__ import annotations

import errno
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import replace

from harness.config import Config
from harness.engine.beir import without_query
from harness.engine.existing import NEEDS, describe
from harness.engine.index import IndexInfo, ensure_index
from harness.engine.indexer import index_stats
from harness.engine.manifest import open_manifest
from harness.engine.topics import read_topics
from harness.errors import DataError, EngineError, HarnessWarning, warn
from harness.events import Compared, DepthNote, Emit, IndexReady, RunReady, RunsPlanned, ignore, not_indexed
from harness.experiment import cache as run_cache
from harness.experiment import sanity
from harness.experiment.compare import compare_runs
from harness.experiment.executors import open_executor
from harness.experiment.plan import Plan, plan, run_key
from harness.experiment.result import OKISH, RECALL_LEVELS, Check, ExperimentResult, RunResult
from harness.experiment.sanity import refuse_unmatched_topics
from harness.experiment.sources import add_source_runs, read_file_runs
from harness.experiment.tuning import add_tuned_runs
from harness.files import remove_stale_temp_files
from harness.folders import check_writable, in_use
from harness.formats.impact import impact_queries
from harness.formats.named import read_qrels_as
from harness.metrics import EvalPolicy, evaluate, parse_measure
from harness.specs.sweeps import sweeps

__all__ = ["run_experiment"]


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


def _store(path, run, tag: str, times=None) -> None:
    """Write a run to the cache (with the times of its search, when searched); a full disk names
    the cache folder (the file is not there)."""
    try:
        run_cache.store_run(path, run, tag=tag, times=times)  # read from the module: tests/test_verbs.py patches it
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            raise OSError(
                e.errno, f"{e.strerror} writing the run cache; no run file is left half-written", str(path.parent)
            ) from e
        raise


def _tuned_count(cfg: Config) -> int:
    """The cross-validated runs the experiment will add: one per swept model, when tuned."""
    if cfg.qrels_path is None or cfg.compare is None or cfg.compare.folds is None:
        return 0
    return len(sweeps(cfg.runs))


def run_experiment(cfg: Config, on: Emit = ignore, settle: bool = True, executor=None) -> ExperimentResult:
    """Run ``cfg``; every HarnessWarning raised on the way (readers, sanity checks) is collected
    into ``result.warnings`` and emitted again once the result is complete.

    A searched run is written to the run cache on a background thread while the next run is
    searched and the runs are evaluated (Arrow assembles the text without the GIL). With
    ``settle`` (the default) every file is written before this returns; without it the caller
    must call ``result.settle()`` before reading a run's file: the run verb first gathers the
    topic explorer's documents, so the writing overlaps that too. It must then call
    ``result.release_indexes()`` once it has read the cached run files it needs (or
    ``result.abandon()`` on the way out of an error): until then the indexes stay in use, and
    another config's rebuild at the same path waits.

    ``executor``: one opened by the caller for several experiments (a study's collections: one
    Dask cluster for all), used and left open; by default one is opened for ``cfg.execution``
    and closed here."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HarnessWarning)
        result = _run_experiment(cfg, on, executor)
        if settle:
            try:
                result.settle()
            finally:
                result.release_indexes()
    for w in caught:
        if issubclass(w.category, HarnessWarning):
            result.warnings.append(str(w.message))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    for message in result.warnings:
        warn(message)
    return result


def _run_experiment(cfg: Config, on: Emit, executor=None) -> ExperimentResult:
    writer = ThreadPoolExecutor(1, thread_name_prefix="harness-run-cache")
    writes: list = []
    held = ExitStack()  # the indexes in use, until their runs are cached (result.settle/abandon)
    try:
        result = _experiment(cfg, on, writer, writes, held, executor)
    except BaseException:
        try:
            writer.shutdown(wait=True, cancel_futures=True)  # nothing is left writing behind an error
        finally:
            held.close()
        raise
    writer.shutdown(wait=False)
    result.writes = tuple(writes)
    result.release = held.close
    return result


def _hold(held, info: IndexInfo) -> IndexInfo:
    """Hold ``info``'s index in use (harness.folders.in_use) while this run searches it and caches
    its runs beside it: another config's rebuild at the same path waits instead of swapping the
    index (and its run cache) away. Taken after the index lock was let go, so the index is checked
    to be the one just built or reused."""
    held.enter_context(in_use(info.path))
    manifest = open_manifest(info.path)
    if manifest is None or manifest.get("fingerprint") != info.fingerprint:
        raise EngineError(
            f"the index {info.path} was replaced by another harness process (a config with other index options "
            "and the same index.path) as this one was about to search it; give each config its own index.path, "
            "or run them one after the other"
        )
    return info


def _experiment(cfg: Config, on: Emit, writer, writes: list, held, given=None) -> ExperimentResult:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    p = plan(cfg)
    topics = read_topics(cfg.topics_path, cfg.topics_format, cfg.topics_split)
    qrels = read_qrels_as(cfg.qrels_path, cfg.qrels_format) if cfg.qrels_path else None
    if qrels is not None and not qrels.topics():
        raise DataError(cfg.qrels_path, "the qrels file has no judgments: nothing could be evaluated")
    if qrels is not None:  # no topic judged, or ids written two ways: refused before anything is indexed
        refuse_unmatched_topics(topics, qrels, cfg.topics_path, cfg.qrels_path)
    files = {}
    if cfg.sources:  # runs from files: read (and checked) before anything is indexed or searched
        files = read_file_runs(cfg, topics)
    timings["read_inputs"] = time.perf_counter() - t0

    on(RunsPlanned(len(cfg.runs) + len(cfg.sources) + _tuned_count(cfg)))
    executor = given or open_executor(cfg.execution, on)  # connects (or starts a cluster) only when needed
    try:
        t = time.perf_counter()
        if p.existing:
            info = open_existing(p)
        else:
            info = _hold(
                held,
                ensure_index(p.corpus, p.options, p.index_path, threads=cfg.index_threads, on=on, build=executor.build),
            )
        stats = info.manifest.get("stats", {})
        on(
            IndexReady(
                str(info.path),
                info.reused,
                stats.get("documents", "?"),
                stats.get("unique_terms", "?"),
                not_indexed(info.manifest),
            )
        )
        infos = {p.index_path: info}
        if p.exact is not None:  # the index with exact document lengths, for bm25 accurate=true
            x = p.exact
            infos[x.index_path] = _hold(
                held,
                ensure_index(x.corpus, x.options, x.index_path, threads=cfg.index_threads, on=on, build=executor.build),
            )
            x_stats = infos[x.index_path].manifest.get("stats", {})
            on(
                IndexReady(
                    str(x.index_path),
                    infos[x.index_path].reused,
                    x_stats.get("documents", "?"),
                    x_stats.get("unique_terms", "?"),
                )
            )
        timings["index"] = time.perf_counter() - t
        documents = stats.get("documents")
        if isinstance(documents, int) and cfg.depth > documents:
            on(DepthNote(cfg.depth, documents))

        t_search = time.perf_counter()
        cache = p.runs_folder
        for folder in {p.for_run(sim).runs_folder for sim in cfg.runs} | {cache}:
            folder.mkdir(parents=True, exist_ok=True)
            remove_stale_temp_files(folder, on)  # run files a killed process was writing
        done: dict[str, RunResult] = {}

        def index_of(sim) -> IndexInfo:
            return infos[p.for_run(sim).index_path]

        paths = {
            str(sim): p.for_run(sim).runs_folder
            / f"{sim}.{run_key(index_of(sim).fingerprint, sim, topics, cfg.depth, cfg.search_fields, cfg.remove_query)[:16]}.trec"
            for sim in cfg.runs
        }

        def finish(sim, run, seconds, reused, times):
            in_run = set(run.topics())
            empty = [qid for qid, _ in topics if qid not in in_run]
            where = p.for_run(sim)
            index = None if where is p else where.index_path
            done[str(sim)] = RunResult(sim, str(sim), run, paths[str(sim)], seconds, reused, empty, index, times)
            on(RunReady(cfg.label(str(sim)), "reused" if reused else "searched", len(topics), seconds, len(empty)))

        # what the searcher takes: the texts, or an impact topic's term weights (harness.engine.impact)
        queries = impact_queries(topics) if cfg.topics_format.weights else topics
        pending = []
        for sim in cfg.runs:
            t = time.perf_counter()
            # a cached run comes with the times of the search that made it (None: cached before they were kept)
            run, times = (
                run_cache.load_timed_run(paths[str(sim)]) if run_cache.cached(paths[str(sim)]) else (None, None)
            )
            if run is not None:
                finish(sim, run, time.perf_counter() - t, True, times)
            else:
                pending.append(sim)
        for folder in {p.for_run(sim).runs_folder for sim in pending}:
            check_writable(folder, tree=False)  # before searching: the runs could not be cached
        # The executor yields each run in config order as a columnar Run (no Python object per
        # hit; seconds: searching time, summed over the workers' tasks under Dask) with the
        # searcher's times, kept with the run in the cache, the index's size added; the driver
        # writes the cached run file. Runs reading exact lengths are searched on their own index.
        for where in (p, p.exact):
            group = [sim for sim in pending if p.for_run(sim) is where]
            if not group:
                continue
            searched = executor.search_runs(infos[where.index_path], group, queries, cfg.depth, cfg.index_threads)
            for sim, run, seconds, times in searched:
                if cfg.remove_query:  # the query's own document out of its ranking (engine.beir)
                    run = without_query(run)
                times = times.on_index(where.index_path)
                writes.append(writer.submit(_store, paths[str(sim)], run, str(sim), times))
                finish(sim, run, seconds, False, times)
        results = [done[str(sim)] for sim in cfg.runs]
        timings["search"] = time.perf_counter() - t_search
    finally:
        if given is None:
            executor.close()
    if cfg.sources:  # runs from files and fusions, in config order among the searched ones
        t = time.perf_counter()
        results = add_source_runs(cfg, results, files, topics, cache, _store, on)
        timings["files_and_fusions"] = time.perf_counter() - t

    evaluations = {}
    checks: list[Check] = []
    comparisons = None
    curves: dict[str, tuple[float, ...]] = {}
    if qrels is not None:
        t = time.perf_counter()
        policy = EvalPolicy(ties=cfg.ties, missing_topics=cfg.missing_topics)
        # One evaluation per run computes the config's measures and the curve's 11 points.
        curve = [parse_measure(f"IPrec@{x}") for x in RECALL_LEVELS]
        measures = list(dict.fromkeys([*cfg.measures, *curve]))
        for r in results:
            evaluations[r.name] = evaluate(r.run, qrels, measures, policy)
            curves[r.name] = tuple(evaluations[r.name].means[str(m)] for m in curve)
        tuned = []
        if cfg.compare is not None and cfg.compare.folds is not None:
            tuned = add_tuned_runs(cfg, results, evaluations, [q for q, _ in topics], cache, on)
            for tr in tuned:
                evaluations[tr.name] = evaluate(
                    next(r.run for r in results if r.name == tr.name), qrels, measures, policy
                )
                curves[tr.name] = tuple(evaluations[tr.name].means[str(m)] for m in curve)
        timings["evaluate"] = time.perf_counter() - t
        if cfg.compare is not None:
            t = time.perf_counter()
            comparisons = compare_runs(cfg.compare, cfg.runs, evaluations, tuned, [r.name for r in results])
            timings["compare"] = time.perf_counter() - t
            on(
                Compared(
                    len(comparisons.pairs),
                    len(comparisons.measures),
                    sum(c.reject for c in comparisons.rows),
                    str(comparisons.policy),
                )
            )
        for run_name, expected in cfg.expect.items():
            ev = evaluations.get(run_name)
            for measure, value in expected.items():
                actual = None if ev is None else ev.means.get(str(measure))
                checks.append(
                    Check(run_name, str(measure), value, actual, cfg.expect_tolerance, cfg.expect_okish_tolerance)
                )
        for c in checks:  # OK-ish: a warning (in the report's too), not a failure
            if c.status == OKISH:
                warn(f"expectation met only within the OK-ish tolerance: {replace(c, run=cfg.label(c.run))}")
    timings["total"] = time.perf_counter() - t0
    if not results:
        raise EngineError("the config produced no runs")
    if qrels is not None:
        _sanity(cfg, info, topics, qrels, results, evaluations)
    return ExperimentResult(cfg, info, topics, results, evaluations, checks, timings, comparisons, curves, qrels=qrels)


def _sanity(cfg: Config, info: IndexInfo, topics, qrels, results: list[RunResult], evaluations) -> None:
    example = next((r.run for r in results if len(r.run)), None)
    retrieved = [] if example is None else list(dict.fromkeys(example.ranked(example.topics()[0])[0]))[:3]
    notes = sanity.check_qrels_overlap(qrels, info.path, cfg.qrels_path, retrieved)
    notes += sanity.check_topics(
        topics,
        qrels,
        cfg.topics_path,
        cfg.qrels_path,
        [(cfg.label(r.name), r.empty_topics) for r in results],
        cfg.missing_topics,
    )
    if cfg.measures:
        measure = cfg.compare.measures[0] if cfg.compare is not None and cfg.compare.measures else cfg.measures[0]
        notes += sanity.check_grid_edges(cfg.runs, evaluations, str(measure), cfg.label)
    for n in notes:
        warn(n)
