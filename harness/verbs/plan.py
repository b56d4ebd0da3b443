"""The verbs that run nothing: load (a config or a study, every key checked), validate (its topic
ids against its qrels') and plan_run / plan_study (the dry run: what ``harness run``, ``index`` or
``search`` would build, search, reuse and write). Each starts from the config alone: no Java (but
for topics Anserini reads), no index built, no file written.

A seam of start-up time too: ``harness validate`` and every ``--dry-run`` load this module, the
config's loader, the plan and the run store, and none of the execution, the executors, the fusion
or the report that harness.verbs.run and harness.verbs.study load (bench/bench_import.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from harness.config import LocatedProblem, Study, is_study, load_experiment
from harness.config.execution import scheduler_problem
from harness.config.overrides import cluster_overrides, given_overrides, parse_set, python_dumper
from harness.engine.manifest import read_manifest, unusable_index
from harness.engine.topics import read_topics
from harness.errors import ConfigError, DataError, warn
from harness.experiment.plan import plan
from harness.experiment.sanity import check_topics, refuse_unmatched_topics
from harness.experiment.store import RunStore
from harness.folders import recorded_experiment
from harness.formats.named import read_qrels_as
from harness.specs.identity import FileRun

__all__ = [
    "IN_MEMORY",
    "parse_set",
    "scheduler_problem",
    "load",
    "is_study",
    "validate",
    "validate_study",
    "check_topic_ids",
    "PlanReport",
    "plan_run",
    "StudyPlan",
    "plan_study",
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
    check_topic_ids(cfg, read_topics(cfg.topics_path, cfg.topics_format, cfg.topics_split))
    return True


def check_topic_ids(cfg, topics) -> None:
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
    check_topic_ids(cfg, topics)  # as the run and the search will (index: topics are not read)
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


def validate_study(study: Study) -> None:
    """``harness validate`` beyond the config's keys, for every collection: its topic ids against
    its qrels' (:func:`validate`)."""
    for cfg in study.collections.values():
        validate(cfg)


@dataclass(frozen=True)
class StudyPlan:
    """Each collection's plan (``--dry-run``), and the experiment whose output folder it replaces."""

    source: Path
    command: str
    output: Path
    plans: tuple[tuple[str, PlanReport], ...]
    replaces: str | None = None


def plan_study(study: Study, command: str) -> StudyPlan:
    plans = tuple((name, plan_run(cfg, command)) for name, cfg in study.collections.items())
    theirs = recorded_experiment(study.output) if command != "index" else None
    replaces = str(theirs) if theirs is not None and theirs != study.experiment else None
    return StudyPlan(study.source, command, study.output, plans, replaces)
