"""The commands that take a config: validate, run, index, search (and their dry runs)."""

from __future__ import annotations

import os
from pathlib import Path

from harness.cli.progress import EventRenderer
from harness.errors import ExpectationError
from harness.events import ReportWritten, not_indexed, to_stderr


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


# ------------------------------------------------------------------------------ commands
def cmd_validate(args) -> int:
    from harness.verbs.run import validate

    cfg = _load(args)
    validate(cfg)  # the topic ids against the qrels', when the topics are read without Java
    searched = {str(r) for r in cfg.runs}  # by spec; runs from files and fusions by label
    names = [name if name in searched else cfg.label(name) for name in cfg.run_names]
    print(f"{args.config}: OK — {len(names)} run(s): {', '.join(names)}")
    return 0


def cmd_schema(args) -> int:
    import json

    from harness.verbs.system import schema

    print(json.dumps(schema(), indent=2))
    return 0


def _load(args):
    """The config, with --scheduler / --workers applied to its `execution:`."""
    from harness.verbs.run import load

    return load(
        Path(args.config),
        scheduler=getattr(args, "scheduler", None),
        workers=getattr(args, "workers", None),
        sets=args.sets,
        output=getattr(args, "output", None),
        topics=getattr(args, "topics", None),
        qrels=getattr(args, "qrels", None),
    )


def cmd_run(args) -> int:
    from harness.verbs.run import plan_run, run

    cfg = _load(args)
    if args.dry_run:
        print_plan(plan_run(cfg, "run"))
        return 0
    with EventRenderer() as on:
        out = run(cfg, on=on)
    print(out.summary_md)
    to_stderr(ReportWritten(str(out.output)))  # after the summary
    failed = out.result.failed_checks
    if failed:
        raise ExpectationError("expectations not met:\n" + "\n".join(str(c) for c in failed))
    return 0


def cmd_index(args) -> int:
    from harness.verbs.run import index, plan_run

    cfg = _load(args)
    if args.dry_run:
        print_plan(plan_run(cfg, "index"))
        return 0
    with EventRenderer() as on:
        out = index(cfg, on=on)
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
    return 0


def cmd_search(args) -> int:
    from harness.verbs.run import plan_run, search

    cfg = _load(args)
    if args.dry_run:
        print_plan(plan_run(cfg, "search"))
        return 0
    with EventRenderer() as on:
        out = search(cfg, on=on, run_format=args.run_format)
    for name, reused, path in out.runs:
        print(f"{name}\t{'reused' if reused else 'searched'}\t{path}")
    return 0
