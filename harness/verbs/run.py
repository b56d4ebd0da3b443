"""The verbs that take a config: load (validate), plan_run (the dry run), run (index, search,
evaluate, compare, report), index, and search (a config's runs into its output folder).

``harness run`` and ``harness.run`` both call :func:`run`, so both hold the output's lock for the
whole run, run the same checks and write the same report."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from harness import experiment, publish
from harness.config import LocatedProblem, load_experiment
from harness.config.execution import scheduler_problem
from harness.config.overrides import cluster_overrides, given_overrides, parse_set, python_dumper
from harness.engine.index import IndexInfo, IndexOptions, ensure_index
from harness.engine.manifest import read_manifest, unusable_index
from harness.engine.topics import read_topics
from harness.errors import ConfigError, DataError, warn
from harness.events import Emit, ignore
from harness.experiment import ExperimentResult, machine, plan
from harness.experiment.executors import open_executor
from harness.experiment.explore import attach
from harness.experiment.names import with_names
from harness.experiment.sanity import check_topics, refuse_unmatched_topics
from harness.experiment.store import RunStore
from harness.folders import recorded_experiment
from harness.formats.named import read_qrels_as
from harness.policies import DEFAULT_IR_METADATA, DEFAULT_RUN_FORMAT, IR_METADATA, RUN_FORMATS, one_of
from harness.specs.identity import FileRun

__all__ = [
    "IN_MEMORY",
    "parse_set",
    "load",
    "validate",
    "PlanReport",
    "plan_run",
    "RunOutcome",
    "run",
    "IndexOutcome",
    "index",
    "SearchOutcome",
    "search",
    "search_options",
    "scheduler_problem",
]

# The name an in-memory config goes by in errors and in manifest.json: a file that does not
# exist, in the current directory, which is where its relative paths resolve.
IN_MEMORY = "<config>"


# ------------------------------------------------------------------------------ load
def load(
    config,
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    scheduler_from_env: bool = False,
    sets: Sequence[str] = (),
    overrides: Mapping | None = None,
    output: str | os.PathLike | None = None,
    flags: bool = True,
    topics: str | os.PathLike | None = None,
    qrels: str | os.PathLike | None = None,
    replace: bool = False,
):
    """A validated Config from a path, a YAML string or a dict (every problem at once: a
    ConfigError with file:line), or a Study when it has `collections:` (one Config per
    collection: harness.config.study), with ``--scheduler`` / ``--workers`` setting its
    ``execution:`` (``workers`` wins; :func:`harness.config.overrides.cluster_overrides`). Starts no Java.
    ``scheduler_from_env``: ``scheduler`` is $HARNESS_SCHEDULER's, and named so (errors,
    manifest.json).

    ``sets`` (``--set KEY=VALUE``, the value YAML), ``overrides`` (the API's ``{dotted key:
    value}``) and ``output`` (``--output DIR``) replace keys of the config before it is
    validated (:mod:`harness.config.overrides`): checked as if written in it, named as given in
    errors, listed in manifest.json; a path among them is relative to the current folder.
    ``flags``: name ``output`` as the command line's flag (``--output DIR``), else as the API's
    argument (``output='DIR'``). ``topics``, ``qrels`` (``--topics``, ``--qrels``): the config's
    topics or qrels replaced by a file, ``irds:ID`` or ``pyserini:NAME``, as ``--set topics=...``.
    ``replace`` (``--replace``): the output may be a folder another experiment wrote; it is
    replaced as the experiment's own would be (never one the harness did not write)."""
    changes = given_overrides(sets, overrides, output, flags, {"topics": topics, "qrels": qrels})
    changes += cluster_overrides(scheduler, workers, scheduler_from_env)

    if isinstance(config, str) and not config.strip():
        raise ConfigError(IN_MEMORY, [LocatedProblem("", "the config is an empty string: give a path, YAML or a dict")])
    if isinstance(config, os.PathLike):
        return load_experiment(config, overrides=changes, replace=replace)
    if isinstance(config, str) and "\n" not in config and (":" not in config or Path(config).exists()):
        # a path (a one-line YAML mapping has a colon and is no file)
        return load_experiment(config, overrides=changes, replace=replace)
    if isinstance(config, Mapping):
        try:
            text = yaml.dump(dict(config), Dumper=python_dumper(), sort_keys=False, allow_unicode=True)
        except (yaml.YAMLError, RecursionError, ValueError) as e:
            why = (
                "it is nested too deeply"
                if isinstance(e, RecursionError)
                else "an integer is thousands of digits long"  # Python's int_max_str_digits
                if isinstance(e, ValueError) and "digits" in str(e)
                else e
            )
            raise ConfigError(IN_MEMORY, [LocatedProblem("", f"the dict cannot be written as YAML: {why}")]) from None
    elif isinstance(config, str):
        text = config
    else:  # a ConfigError as every other bad config is, not a TypeError
        why = f"a config is a path, a YAML string or a dict (got {type(config).__name__})"
        raise ConfigError(IN_MEMORY, [LocatedProblem("", why)])
    return load_experiment(Path.cwd() / IN_MEMORY, text=text, overrides=changes, replace=replace)


# ------------------------------------------------------------------------------ validate
def validate(cfg) -> bool:
    """``harness validate`` beyond the config's keys (:func:`load` checked those): the topics'
    ids against the qrels' (harness.formats.topic_ids: none judged, or ids written two ways, is a
    DataError; a partial overlap a warning), when the topics can be read without Java. Returns
    whether they were checked."""
    if cfg.qrels_path is None or not cfg.topics_format.reads_without_java:
        return False
    _check_topic_ids(cfg, read_topics(cfg.topics_path, cfg.topics_format, cfg.topics_split))
    return True


def _check_topic_ids(cfg, topics) -> None:
    """The rule a run applies before it indexes anything (experiment.sanity), and its warnings."""
    if cfg.qrels_path is None:
        return
    qrels = read_qrels_as(cfg.qrels_path, cfg.qrels_format)
    if not qrels.topics():
        raise DataError(cfg.qrels_path, "the qrels file has no judgments: nothing could be evaluated")
    refuse_unmatched_topics(topics, qrels, cfg.topics_path, cfg.qrels_path)
    for note in check_topics(topics, qrels, cfg.topics_path, cfg.qrels_path, [], cfg.missing_topics):
        warn(note)


# ------------------------------------------------------------------------------ plan
@dataclass(frozen=True)
class PlanReport:
    """What a command would build, search, reuse and write (``--dry-run``)."""

    source: Path
    command: str  # run | index | search
    index_path: Path
    fingerprint: str
    action: str  # what happens to the index
    execution: str
    topics: int | None = None  # None when only indexing
    topics_path: Path | None = None
    depth: int | None = None
    runs: tuple[tuple[str, str], ...] = ()  # (run, "reuse <file>" | "search (not cached)")
    writes: Path | None = None  # search: the runs folder
    measures: tuple[str, ...] = ()
    qrels_path: Path | None = None
    output: Path | None = None
    # the index with exact document lengths beside it (bm25 accurate=true): (path, fingerprint, action)
    exact: tuple[Path, str, str] | None = None
    # the experiment whose folder `output` is, replaced as --replace asks (harness.folders.Experiment)
    replaces: str | None = None


def _index_action(p) -> str:
    manifest, problem = read_manifest(p.index_path)
    if problem is not None and not p.existing:
        return "error: " + unusable_index(p.index_path, problem)
    if p.existing:
        return "read only (an existing index; fingerprint of its segment files)"
    if p.index_exists:
        return "reuse (fingerprint matches)"
    if manifest is not None:
        return f"rebuild (fingerprint differs: built {str(manifest.get('fingerprint'))[:12]})"
    if p.index_path.is_dir() and not any(p.index_path.iterdir()):
        return "build (into the empty folder there)"  # as ensure_index does: nothing in it to lose
    if p.index_path.exists():
        return "error: the folder exists, is not empty and was not built by the harness"
    return "build (no index there yet)"


def plan_run(cfg, command: str) -> PlanReport:
    """The plan of ``command`` (run, index or search). Starts no Java for tsv/jsonl topics
    (trec and anserini:<Reader> topics are read by Anserini)."""
    p = plan(cfg)
    x = p.exact
    report = PlanReport(
        cfg.source,
        command,
        p.index_path,
        p.fingerprint,
        _index_action(p),
        str(cfg.execution),
        exact=None if x is None else (x.index_path, x.fingerprint, _index_action(x)),
    )
    if command == "index":
        return report
    theirs = recorded_experiment(cfg.output)  # other than this one only with --replace: load refused it
    if theirs is not None and theirs != cfg.experiment:
        report = replace(report, replaces=str(theirs))
    topics = read_topics(cfg.topics_path, cfg.topics_format, cfg.topics_split)
    _check_topic_ids(cfg, topics)  # as the run and the search will (index: topics are not read)
    runs = []
    store = RunStore(p, topics)
    for sim in cfg.runs:
        where = p.for_run(sim)
        path = store.searched(sim, where.fingerprint)
        exact = " on the exact-lengths index" if where is not p else ""
        runs.append(
            (
                str(sim),
                (f"reuse {path.name}" if where.index_exists and store.has(path) else "search (not cached)") + exact,
            )
        )
    for spec in cfg.sources:  # runs from files and fusions: never searched (harness.config.sources)
        if isinstance(spec, FileRun):
            runs.append((str(spec), f"read {spec.path}"))
        else:
            parts = ", ".join(cfg.name_of(part) for part in spec.parts)
            runs.append((str(spec), f"fuse {parts} ({spec.policy.method})"))
    order = {name: i for i, name in enumerate(cfg.run_specs)}
    runs.sort(key=lambda run: order.get(run[0], len(order)))
    sources = {str(spec) for spec in cfg.sources}  # by name: a fusion's spec names all its parts
    runs = [(cfg.name_of(name) if name in sources else name, action) for name, action in runs]
    return replace(
        report,
        topics=len(topics),
        topics_path=cfg.topics_path,
        depth=cfg.depth,
        runs=tuple(runs),
        writes=cfg.output / "runs" if command == "search" else None,
        measures=cfg.measure_names,
        qrels_path=cfg.qrels_path,
        output=cfg.output,
    )


# ------------------------------------------------------------------------------ run
@dataclass(frozen=True)
class RunOutcome:
    result: ExperimentResult
    output: Path  # the report folder
    summary_md: str  # summary.md as written


def _ir_metadata_choice(ir_metadata: str) -> str:
    try:
        return one_of("ir_metadata", ir_metadata, IR_METADATA)
    except ValueError as e:
        raise DataError("--ir-metadata", str(e)) from None


def run(cfg, *, on: Emit = ignore, ir_metadata: str = DEFAULT_IR_METADATA) -> RunOutcome:
    """Index (or reuse), search (or reuse the cached runs), evaluate, compare and write the
    report, holding the output's lock throughout: a second run of the same config waits, then
    reuses. Progress is reported through ``on`` (harness.events). ``ir_metadata`` (a key of
    policies.IR_METADATA): where each run's ir_metadata goes (harness.report.ir_metadata)."""
    ir_metadata = _ir_metadata_choice(ir_metadata)
    with publish.report_output(cfg, on=on):
        # read from the package: tests/test_verbs.py patches it to probe the output's lock
        with experiment.session(cfg, on=on) as s:
            # runs by their names, then the explorer's documents and the engine's versions, while
            # the searched runs are still being written to the run cache
            result = attach(with_names(s.run()))
            s.written()
            out = publish.write_report(result, cfg.output, on=on, ir_metadata=ir_metadata)  # links the cached runs
        # the summary just written, read back under the lock: rendering it again would hash
        # every run file a second time for its provenance (0.1 s per 2M-line run)
        summary = (out / "summary.md").read_text(encoding="utf-8")
    return RunOutcome(result, out, summary)


# ------------------------------------------------------------------------------ index
@dataclass(frozen=True)
class IndexOutcome:
    info: IndexInfo
    seconds: float
    options: IndexOptions


def index(cfg, *, on: Emit = ignore) -> IndexOutcome:
    """Build the config's index, or reuse it when its fingerprint matches."""
    p = plan(cfg)
    if p.existing:
        raise DataError("collection", f"the config names an existing index ({p.index_path}) and no collection to index")
    assert p.corpus is not None  # only an existing index has none
    t = time.perf_counter()
    executor = open_executor(cfg.execution, on)
    try:
        info = ensure_index(p.corpus, p.options, p.index_path, threads=cfg.index_threads, on=on, build=executor.build)
    finally:
        executor.close()
    return IndexOutcome(info, time.perf_counter() - t, p.options)


# ------------------------------------------------------------------------------ search
@dataclass(frozen=True)
class SearchOutcome:
    runs: tuple[tuple[str, bool, Path], ...]  # (run, reused, file written)


def search(
    cfg, *, on: Emit = ignore, run_format: str = DEFAULT_RUN_FORMAT, ir_metadata: str = DEFAULT_IR_METADATA
) -> SearchOutcome:
    """Index and search (no evaluation); each run is copied to ``OUTPUT/runs/<file>``, named as
    the report names it (:meth:`ExperimentResult.run_files`), or with ``run_format="msmarco"``
    written there in MS MARCO's layout as ``<name>.tsv`` (harness.formats.msmarco). The
    output folder keeps its other files: its marker lists each run before it is written, so the
    folder stays one the harness may replace. ``ir_metadata``: each run's ir_metadata beside it
    (``runs/<name>.ir-metadata.yml``), at the top of its TREC file, or nowhere, as ``run``
    writes it (an MS MARCO run has no place for comment lines: ``inline`` is refused with it)."""
    ir_metadata = search_options(run_format, ir_metadata)
    if cfg.qrels_path is not None:  # topics the config's qrels cannot judge: refused as `run` refuses them
        _check_topic_ids(cfg, read_topics(cfg.topics_path, cfg.topics_format, cfg.topics_split))
    with publish.runs_output(cfg, on=on):
        # no qrels: the experiment then searches (or reuses) and evaluates nothing; its indexes
        # are held until the cached run files are copied
        with experiment.session(replace(cfg, qrels_path=None, expect={}), on=on) as s:
            result = with_names(s.run())
            s.written()
            if IR_METADATA[ir_metadata].written:
                result = machine.gather(result)  # versions, machine, checkout: as the run verb's report has them
            return SearchOutcome(publish.write_runs(cfg, result, on, run_format, ir_metadata))


def search_options(run_format: str, ir_metadata: str) -> str:
    """``harness search``'s --run-format and --ir-metadata checked together; the ir_metadata choice."""
    try:
        one_of("run_format", run_format, RUN_FORMATS)
    except ValueError as e:
        raise DataError("--run-format", str(e)) from None
    ir_metadata = _ir_metadata_choice(ir_metadata)
    layout = RUN_FORMATS[run_format]
    if IR_METADATA[ir_metadata].inline and not layout.comments:
        raise DataError(
            "--ir-metadata",
            f"inline writes the ir_metadata into a TREC run's top lines; {layout.title} runs have no comment "
            "lines (their readers take every line as a result): write it beside the run (--ir-metadata yml)",
        )
    return ir_metadata
