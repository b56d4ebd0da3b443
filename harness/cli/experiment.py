"""The commands that take a config: validate, run, index, search (and their dry runs)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path

from harness.errors import DataError, ExpectationError
from harness.files import remove_stale_temp_files


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


def _run_with_progress(cfg):
    from harness.experiment import run_experiment

    progress = _ExperimentProgress(len(cfg.runs))
    try:
        return run_experiment(cfg, log=progress)
    finally:
        progress.close()


# ------------------------------------------------------------------------------ the plan
def _rel(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def print_plan(cfg, command: str) -> None:
    """What `command` would build, search, reuse and write: the index (and whether a built one
    matches the fingerprint), and, unless indexing only, each run's cache file. Starts no Java
    for tsv/jsonl topics (trec and anserini:<Reader> topics are read by Anserini)."""
    from harness.engine.index import open_manifest
    from harness.experiment import plan, run_key

    p = plan(cfg)
    print(f"plan for {cfg.source} (harness {command} --dry-run: nothing is built, searched or written)")
    print(f"index     {p.index_path}")
    manifest = open_manifest(p.index_path)
    if p.existing:
        action = "read only (an existing index; fingerprint of its segment files)"
    elif p.index_exists:
        action = "reuse (fingerprint matches)"
    elif manifest is not None:
        action = f"rebuild (fingerprint differs: built {str(manifest.get('fingerprint'))[:12]})"
    elif p.index_path.exists():
        action = "error: the folder exists but was not built by the harness"
    else:
        action = "build (no index there yet)"
    print(f"          fingerprint {p.fingerprint[:12]}: {action}")
    print(f"execution {cfg.execution}")
    if command == "index":
        return
    from harness.engine.topics import read_topics

    topics = read_topics(cfg.topics_path, cfg.topics_format)
    print(f"topics    {len(topics)} from {_rel(cfg.topics_path)}, depth {cfg.depth}")
    cache = p.runs_folder
    width = max(len(str(s)) for s in cfg.runs)
    for sim in cfg.runs:
        key = run_key(p.fingerprint, sim, topics, cfg.depth)
        path = cache / f"{sim}.{key[:16]}.trec"
        state = f"reuse {path.name}" if p.index_exists and path.exists() else "search (not cached)"
        print(f"run       {str(sim):{width}}  {state}")
    if command == "search":
        print(f"writes    {cfg.output / 'runs'}/<run>.trec")
    else:
        evaluated = (
            f"evaluate {', '.join(cfg.measures)} against {_rel(cfg.qrels_path)}"
            if cfg.qrels_path
            else "no qrels: runs only"
        )
        print(f"then      {evaluated}; report -> {cfg.output}")


# ------------------------------------------------------------------------------ commands
def cmd_validate(args) -> int:
    from harness.config import load_config

    cfg = load_config(args.config)
    print(f"{args.config}: OK — {len(cfg.runs)} run(s): {', '.join(map(str, cfg.runs))}")
    return 0


def cmd_schema(args) -> int:
    import json

    from harness.config.json_schema import json_schema

    print(json.dumps(json_schema(), indent=2))
    return 0


def _load(args):
    """The config, with --scheduler / --workers applied to its `execution:`."""
    from harness.config import load_config

    cfg = load_config(args.config)
    workers = getattr(args, "workers", None)
    scheduler = None if workers else getattr(args, "scheduler", None)  # --workers beats $HARNESS_SCHEDULER
    execution = cfg.execution.overridden(scheduler, workers)
    return replace(cfg, execution=execution) if execution != cfg.execution else cfg


def cmd_run(args) -> int:
    from harness.report import write_report

    cfg = _load(args)
    if args.dry_run:
        print_plan(cfg, "run")
        return 0
    from harness.folders import locked

    # The output's lock for the whole run: a second run of the same config waits, then reuses.
    with locked(cfg.output, log=_log):
        result = _run_with_progress(cfg)
        out = write_report(result, cfg.output, log=_log)
        # the summary just written, read back under the lock: rendering it again would hash
        # every run file a second time for its provenance (0.1 s per 2M-line run)
        summary = (out / "summary.md").read_text(encoding="utf-8")
    print(summary)
    _log(f"report written to {out}")
    failed = result.failed_checks
    if failed:
        raise ExpectationError("expectations not met:\n" + "\n".join(str(c) for c in failed))
    return 0


def cmd_index(args) -> int:
    from harness.engine.index import ensure_index
    from harness.experiment import plan
    from harness.experiment.executors import open_executor
    from harness.progress import Spinner

    cfg = _load(args)
    if args.dry_run:
        print_plan(cfg, "index")
        return 0
    p = plan(cfg)
    if p.existing:
        raise DataError("collection", f"the config names an existing index ({p.index_path}) and no collection to index")
    t = time.perf_counter()
    executor = open_executor(cfg.execution, _log)
    try:
        with Spinner("indexing"):
            info = ensure_index(
                p.corpus, p.options, p.index_path, threads=cfg.index_threads, log=_log, build=executor.build
            )
    finally:
        executor.close()
    seconds = time.perf_counter() - t
    stats = info.manifest.get("stats", {})
    print(f"index                {info.path}")
    print(f"status               {'reused' if info.reused else f'built in {seconds:.2f} s'}")
    print(f"fingerprint          {info.fingerprint}")
    print(f"collection           {cfg.collection_path} ({cfg.collection_format})")
    print(f"options              stemmer={p.options.stemmer}, stopwords={'removed' if p.options.stopwords else 'kept'}")
    for key in ("documents", "non_empty_documents", "total_terms", "unique_terms"):
        value = stats.get(key)
        print(f"{key.replace('_', ' '):20} {'not counted' if value is None else value}")
    return 0


def _copy_atomic(src: Path, dst: Path) -> None:
    from harness.files import atomic_writer

    with open(src, "rb") as fin, atomic_writer(dst, "wb") as fout:
        shutil.copyfileobj(fin, fout, 1 << 20)


def cmd_search(args) -> int:
    cfg = _load(args)
    if args.dry_run:
        print_plan(cfg, "search")
        return 0
    from harness.folders import OUTPUT_MARKER, clean_interrupted, locked, read_marker, write_marker

    with locked(cfg.output, log=_log):
        clean_interrupted(cfg.output, _log)
        # no qrels: run_experiment then searches (or reuses) and evaluates nothing
        result = _run_with_progress(replace(cfg, qrels_path=None, expect={}))
        out = cfg.output / "runs"
        # The runs go into the output folder (a report folder keeps its other files): the marker
        # lists each before it is written, so the folder stays one the harness may replace.
        if read_marker(cfg.output) is None and not (cfg.output / OUTPUT_MARKER).exists():
            from harness.config.paths import write_target_problems

            problems = write_target_problems({"output": cfg.output}, {})
            if problems:
                raise DataError(cfg.output, "; ".join(m for _, m in problems))
        from harness.folders import is_legacy_report, listed_entries

        marker = read_marker(cfg.output) or {
            # a report of an earlier version: its files become the harness's in the new marker
            "files": listed_entries(cfg.output) if is_legacy_report(cfg.output) else []
        }
        names = [f"runs/{r.name}.trec" for r in result.runs]
        write_marker(cfg.output, marker.get("kind", "runs"), [*marker["files"], *names])
        remove_stale_temp_files(out, _log)
        for r in result.runs:
            dst = out / f"{r.name}.trec"
            _copy_atomic(r.path, dst)
            print(f"{r.name}\t{'reused' if r.reused else 'searched'}\t{dst}")
    return 0
