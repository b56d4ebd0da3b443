"""The commands that take a config: validate, run, index, search (and their dry runs), over the verbs
that run nothing (harness.verbs.plan: load, validate, the plans) and those that run a config
(harness.verbs.run, harness.verbs.study), each loaded when a command needs it."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from harness import lazy
from harness.cli.flags import ir_metadata_flag, run_format_flag
from harness.cli.progress import EventRenderer
from harness.errors import ExpectationError, StudyError
from harness.events import ReportWritten, not_indexed, to_stderr
from harness.policies import MAX_WORKERS

verbs_plan = lazy.module("harness.verbs.plan")
verbs_run = lazy.module("harness.verbs.run")
verbs_study = lazy.module("harness.verbs.study")

# ------------------------------------------------------------------------------ the parsers
_PLAN_HELP = (
    "print the plan instead: the index path and whether a built index matches its "
    "fingerprint, each run and whether its cached file exists. Starts no Java, except "
    "that topics of format trec or anserini:<Reader> are read by Anserini"
)


def add_parser(sub, make) -> None:
    """The subcommands, made by ``make`` (harness.cli.flags.command)."""
    run = _config_command(
        make,
        sub,
        "run",
        "run an experiment config end to end: index, search, evaluate, report",
        "  harness run configs/demo.yaml\n  harness run --dry-run configs/demo.yaml\n"
        "  harness run configs/demo.yaml --output my-report --set depth=100 --set 'measures=[AP, nDCG@10]'\n"
        "  harness run --workers 2 configs/demo.yaml\n  harness run --scheduler tcp://head:8786 configs/demo.yaml\n"
        "  harness run configs/other.yaml --output reports/demo --replace\n"
        "  harness run configs/demo.yaml --ir-metadata inline\n",
        cmd_run,
        _PLAN_HELP,
    )
    ir_metadata_flag(run)
    _config_command(
        make,
        sub,
        "validate",
        "check a config without starting Java",
        "  harness validate configs/demo.yaml\n",
        cmd_validate,
        None,
    )
    _config_command(
        make,
        sub,
        "index",
        "build the config's index, or reuse it when its fingerprint matches; "
        "print its path, fingerprint and statistics",
        "  harness index configs/demo.yaml\n  harness index --dry-run configs/demo.yaml\n"
        "  harness index configs/demo.yaml --set index.stemmer=krovetz\n",
        cmd_index,
        _PLAN_HELP,
        output=False,
    )
    search = _config_command(
        make,
        sub,
        "search",
        "index and search (no evaluation); write each run to OUTPUT/runs/*.trec, named after the run's name "
        "without spaces (dirichlet_mu=500.trec), or with --run-format msmarco to OUTPUT/runs/*.tsv",
        "  harness search configs/demo.yaml\n  harness search --dry-run configs/demo.yaml\n"
        "  harness search configs/demo.yaml --run-format msmarco\n",
        cmd_search,
        _PLAN_HELP,
    )
    run_format_flag(search, "the layout of the run files written")
    ir_metadata_flag(search)


def _key_value(text: str) -> str:
    try:
        verbs_plan.parse_set(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _config_command(make, sub, name, help, examples, func, dry_run: str | None, output: bool = True):
    p = make(sub, name, help, examples, func)
    p.add_argument("config", help="the YAML config")
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        type=_key_value,
        metavar="KEY=VALUE",
        help="replace a key of the config, dotted (index.stemmer=krovetz, runs.0.bm25.k1=1.2, 'runs=[bm25, qld]'); "
        "the value is YAML; repeatable; checked like the file's keys and listed in manifest.json; "
        "a path given here is relative to the current folder",
    )
    if output:  # the commands that read topics (and qrels) and write a report
        for flag in ("topics", "qrels"):
            p.add_argument(
                f"--{flag}",
                metavar="SPEC",
                help=f"the config's {flag} replaced: a file (relative to the current folder), irds:ID or "
                f"pyserini:NAME (read from the local caches, as `{flag}: {{irds: ID}}` in the config)",
            )
        p.add_argument(
            "--output",
            metavar="DIR",
            help="the report folder instead of the config's `output` (relative to the current folder)",
        )
        p.add_argument(
            "--replace",
            action="store_true",
            help="replace the output folder although another experiment (another config file or `name:`) "
            "wrote it; without it that folder is refused. A folder holding files the harness did not "
            "write is refused either way",
        )
    if dry_run:
        p.add_argument("--dry-run", action="store_true", help=dry_run)
        _execution_flags(p)
    return p


def _scheduler(text: str) -> str:
    if why := verbs_plan.scheduler_problem(text):
        raise argparse.ArgumentTypeError(why)
    return text


def _workers(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"must be an integer in [1, {MAX_WORKERS:,}] (got {text!r})")
    return int(text)


def _execution_flags(p) -> None:
    """--scheduler / --workers: override the config's `execution:` (docs/deployment.md "Clusters")."""
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--scheduler",
        type=_scheduler,
        metavar="ADDRESS",
        help="index and search on the Dask cluster of this scheduler, e.g. tcp://host:8786 "
        "(default: $HARNESS_SCHEDULER, else the config's `execution`)",
    )
    g.add_argument(
        "--workers",
        type=_workers,
        metavar="N",
        help="index and search on a Dask LocalCluster of N single-threaded worker processes",
    )


# ------------------------------------------------------------------------------ the plan
def _rel(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def print_plan(plan) -> None:
    """A PlanReport as text (``--dry-run``)."""
    print(f"plan for {plan.source} (harness {plan.command} --dry-run: nothing is built, searched or written)")
    print(f"index     {plan.index_path}")
    print(f"          fingerprint {plan.fingerprint[:12]}: {plan.action}")
    if plan.exact is not None:  # bm25 accurate=true: an index with exact document lengths beside it
        path, fingerprint, action = plan.exact
        print(f"index     {path} (exact document lengths, for bm25 accurate=true)")
        print(f"          fingerprint {fingerprint[:12]}: {action}")
    print(f"execution {plan.execution}")
    if plan.command == "index":
        return
    print(f"topics    {plan.topics} from {_rel(plan.topics_path)}, depth {plan.depth}")
    width = max(len(name) for name, _ in plan.runs)
    for name, state in plan.runs:
        print(f"run       {name:{width}}  {state}")
    if plan.command == "search":
        print(f"writes    {plan.writes}/<run>.trec")
    else:
        evaluated = (
            f"evaluate {', '.join(plan.measures)} against {_rel(plan.qrels_path)}"
            if plan.qrels_path
            else "no qrels: runs only"
        )
        print(f"then      {evaluated}; report -> {plan.output}")
    if plan.replaces is not None:
        print(f"replaces  the folder of another experiment, {plan.replaces} (--replace)")


def print_study_plan(plan) -> None:
    """A study's plan (``--dry-run``): each collection's, one after the other."""
    print(f"plan for the study {plan.source}: {len(plan.plans)} collections, output {plan.output}")
    for name, p in plan.plans:
        print(f"\ncollection {name}")
        print_plan(p)
    if plan.replaces is not None:
        print(f"\nreplaces  the folder of another experiment, {plan.replaces} (--replace)")


# ------------------------------------------------------------------------------ commands
def _run_names(cfg) -> list[str]:
    searched = {str(r) for r in cfg.runs}  # by spec; runs from files and fusions by name
    return [name if name in searched else cfg.name_of(name) for name in cfg.run_specs]


def cmd_validate(args) -> int:
    cfg = _load(args)
    if verbs_plan.is_study(cfg):
        verbs_plan.validate_study(cfg)
        names = _run_names(next(iter(cfg.collections.values())))
        print(
            f"{args.config}: OK — a study of {len(cfg.collections)} collections ({', '.join(cfg.collections)}); "
            f"{len(names)} run(s) on each: {', '.join(names)}"
        )
        return 0
    verbs_plan.validate(cfg)  # the topic ids against the qrels', when the topics are read without Java
    names = _run_names(cfg)
    print(f"{args.config}: OK — {len(names)} run(s): {', '.join(names)}")
    return 0


def _load(args):
    """The config, with --scheduler / --workers applied to its `execution:`, else
    $HARNESS_SCHEDULER (not an argparse default: a bad address there is the variable's error,
    and manifest.json names the variable, not a flag that was never given)."""
    scheduler, workers = getattr(args, "scheduler", None), getattr(args, "workers", None)
    from_env = hasattr(args, "scheduler") and scheduler is None and workers is None
    if from_env:
        scheduler = os.environ.get("HARNESS_SCHEDULER") or None
    return verbs_plan.load(
        Path(args.config),
        scheduler=scheduler,
        workers=workers,
        scheduler_from_env=from_env,
        sets=args.sets,
        output=getattr(args, "output", None),
        topics=getattr(args, "topics", None),
        qrels=getattr(args, "qrels", None),
        # `harness index` never writes the output folder: whose it is does not matter there
        replace=getattr(args, "replace", args.command == "index"),
    )


def cmd_run(args) -> int:
    cfg = _load(args)
    study = verbs_plan.is_study(cfg)
    if args.dry_run:
        if study:
            print_study_plan(verbs_plan.plan_study(cfg, "run"))
        else:
            print_plan(verbs_plan.plan_run(cfg, "run"))
        return 0
    with EventRenderer() as on:
        out = (verbs_study if study else verbs_run).run(cfg, on=on, ir_metadata=args.ir_metadata)
    print(out.summary_md)
    to_stderr(ReportWritten(str(out.output)))  # after the summary
    if study:
        _study_failures(out.result.failures)
        failed = [f"{name}: {c}" for name, c in out.result.failed_checks]
    else:
        failed = [str(c) for c in out.result.failed_checks]
    if failed:
        raise ExpectationError("expectations not met:\n" + "\n".join(failed))
    return 0


def _study_failures(failures: dict) -> None:
    """A study whose collections failed ends with the first failure's code (docs/cli.md), each named."""
    if failures:
        lines = [f"  {name}: {f.message}" for name, f in failures.items()]
        raise StudyError(
            f"{len(failures)} collection(s) of the study failed, the others' reports are written:\n" + "\n".join(lines),
            next(iter(failures.values())).exit_code,
        )


def cmd_index(args) -> int:
    cfg = _load(args)
    if verbs_plan.is_study(cfg):
        return _index_study(args, cfg)
    if args.dry_run:
        print_plan(verbs_plan.plan_run(cfg, "index"))
        return 0
    with EventRenderer() as on:
        out = verbs_run.index(cfg, on=on)
    _print_index(cfg, out)
    return 0


def _index_study(args, study) -> int:
    if args.dry_run:
        print_study_plan(verbs_plan.plan_study(study, "index"))
        return 0
    with EventRenderer() as on:
        outs = verbs_study.index(study, on=on)
    failures = {}
    for name, out in outs:
        print(f"collection {name}")
        if out is None:
            print(f"index                {study.collections[name].index_path} (an existing index, only read)")
        elif isinstance(out, verbs_study.Failure):
            print(f"failed               {out.message}")
            failures[name] = out
        else:
            _print_index(study.collections[name], out)
        print()
    _study_failures(failures)
    return 0


def _print_index(cfg, out) -> None:
    info, stats = out.info, out.info.manifest.get("stats", {})
    print(f"index                {info.path}")
    print(f"status               {'reused' if info.reused else f'built in {out.seconds:.2f} s'}")
    print(f"fingerprint          {info.fingerprint}")
    print(f"collection           {cfg.collection_path} ({cfg.collection_format})")
    o = out.options
    if o.language == "en":
        print(f"options              stemmer={o.stemmer}, stopwords={'removed' if o.stopwords else 'kept'}")
    else:  # Anserini's analyzer of that language; stemmer and stopwords do not apply
        print(f"options              language={o.language}")
    for key in ("documents", "non_empty_documents", "total_terms", "unique_terms"):
        value = stats.get(key)
        print(f"{key.replace('_', ' '):20} {'not counted' if value is None else value}")
    left = not_indexed(info.manifest)
    if left:  # what IndexCollection counted and left out: the empty documents, by id
        print(f"{'not indexed':20} {left.removeprefix('not indexed: ')}")


def cmd_search(args) -> int:
    cfg = _load(args)
    study = verbs_plan.is_study(cfg)
    if args.dry_run:
        if study:
            print_study_plan(verbs_plan.plan_study(cfg, "search"))
        else:
            print_plan(verbs_plan.plan_run(cfg, "search"))
        return 0
    with EventRenderer() as on:
        if study:
            outs = verbs_study.search(cfg, on=on, run_format=args.run_format, ir_metadata=args.ir_metadata)
        else:
            outs = [(None, verbs_run.search(cfg, on=on, run_format=args.run_format, ir_metadata=args.ir_metadata))]
    failures = {}
    for collection, out in outs:
        if isinstance(out, verbs_study.Failure):
            failures[collection] = out
            continue
        for name, reused, path in out.runs:  # a study's lines start with the collection
            print("\t".join(([collection] if study else []) + [name, "reused" if reused else "searched", str(path)]))
    _study_failures(failures)
    return 0
