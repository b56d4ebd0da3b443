"""The commands that take a config: validate, run, index, search (and their dry runs)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from harness.errors import ExpectationError


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------ progress
class _ExperimentProgress:
    """A log function for run_experiment that draws a spinner while the index is built and a
    bar over the runs (one step per run), from the lines it logs. Silent unless a terminal."""

    def __init__(self, runs: int):
        from harness.progress import Progress, Spinner

        self._Progress, self._Spinner = Progress, Spinner
        self.runs = runs
        self.spinner = None
        self.bar = None

    def __call__(self, msg: str) -> None:
        if msg.startswith("indexing "):
            _log(msg)
            self.spinner = self._Spinner("indexing").__enter__()
            return
        if msg.startswith("dask: ") and self.bar is None:  # the cluster's news while indexing goes on
            _log(msg)
            return
        self._stop_spinner()
        if msg.startswith("index "):
            _log(msg)
            self.bar = self._Progress(self.runs, "searching", unit="runs")
        elif msg.startswith("run ") and self.bar is not None:
            self.bar.update()
            self.bar.write(msg)  # redraws the bar, with the new count, below the line
        else:
            (self.bar.write if self.bar else _log)(msg)

    def _stop_spinner(self) -> None:
        if self.spinner is not None:
            self.spinner.__exit__(None, None, None)
            self.spinner = None

    def close(self) -> None:
        self._stop_spinner()
        if self.bar is not None:
            self.bar.close()


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
    from harness.verbs.run import load

    cfg = load(args.config)
    print(f"{args.config}: OK — {len(cfg.runs)} run(s): {', '.join(map(str, cfg.runs))}")
    return 0


def cmd_schema(args) -> int:
    import json

    from harness.verbs.system import schema

    print(json.dumps(schema(), indent=2))
    return 0


def _load(args):
    """The config, with --scheduler / --workers applied to its `execution:`."""
    from harness.verbs.run import load

    return load(Path(args.config), scheduler=getattr(args, "scheduler", None), workers=getattr(args, "workers", None))


def cmd_run(args) -> int:
    from harness.verbs.run import plan_run, run

    cfg = _load(args)
    if args.dry_run:
        print_plan(plan_run(cfg, "run"))
        return 0
    progress = _ExperimentProgress(len(cfg.runs))
    try:
        out = run(cfg, log=_log, progress=progress)
    finally:
        progress.close()
    print(out.summary_md)
    _log(f"report written to {out.output}")
    failed = out.result.failed_checks
    if failed:
        raise ExpectationError("expectations not met:\n" + "\n".join(str(c) for c in failed))
    return 0


def cmd_index(args) -> int:
    from harness.progress import Spinner
    from harness.verbs.run import index, plan_run

    cfg = _load(args)
    if args.dry_run:
        print_plan(plan_run(cfg, "index"))
        return 0
    with Spinner("indexing"):
        out = index(cfg, log=_log)
    info, stats = out.info, out.info.manifest.get("stats", {})
    print(f"index                {info.path}")
    print(f"status               {'reused' if info.reused else f'built in {out.seconds:.2f} s'}")
    print(f"fingerprint          {info.fingerprint}")
    print(f"collection           {cfg.collection_path} ({cfg.collection_format})")
    print(
        f"options              stemmer={out.options.stemmer}, stopwords={'removed' if out.options.stopwords else 'kept'}"
    )
    for key in ("documents", "non_empty_documents", "total_terms", "unique_terms"):
        value = stats.get(key)
        print(f"{key.replace('_', ' '):20} {'not counted' if value is None else value}")
    return 0


def cmd_search(args) -> int:
    from harness.verbs.run import plan_run, search

    cfg = _load(args)
    if args.dry_run:
        print_plan(plan_run(cfg, "search"))
        return 0
    progress = _ExperimentProgress(len(cfg.runs))
    try:
        out = search(cfg, log=_log, progress=progress)
    finally:
        progress.close()
    for name, reused, path in out.runs:
        print(f"{name}\t{'reused' if reused else 'searched'}\t{path}")
    return 0
