"""The runs of an experiment that are not searched (harness.config.sources): each `file:` run is
read from its file on every run (never cached, so an edited file is read as it is now, and never
written), each `fuse:` run is fused from its parts (harness.fusion) and written to the run cache
under a key of its spec and content, for the report to copy. Both join the searched runs as
RunResults, so evaluation, comparisons, plots and the explorer treat them like any run."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from harness.config import Config
from harness.errors import DataError
from harness.events import Emit, RunReady
from harness.experiment.result import RunResult
from harness.experiment.store import RunStore
from harness.formats.ir_metadata import block_span
from harness.formats.run import Run
from harness.formats.run_files import read_run_file
from harness.fusion import fuse
from harness.metrics.measures import parse_measure, reads_ranks
from harness.policies import RUN_FORMATS, ReadPolicy
from harness.specs.identity import FileRun, FusedRun

__all__ = ["add_source_runs", "read_file_runs", "read_file_run"]


def read_file_run(spec: FileRun, topics: list[tuple[str, str]], topics_path: Path, ranks: bool = False) -> Run:
    """The run of ``spec``'s file, read with the harness's reader (a document listed twice for a
    topic is an error naming both lines); a topic the topics file does not list is an error
    naming the file, its line and the topics file."""
    run = read_run_file(spec.path, ReadPolicy("error", spec.format), ranks=ranks)
    known = {q for q, _ in topics}
    unknown = [t for t in run.topics() if t not in known]
    if unknown:
        line = _first_line(spec.path, unknown[0])
        more = f" (and {len(unknown) - 1} more: {', '.join(unknown[1:4])}{', …' if len(unknown) > 4 else ''})"
        raise DataError(
            spec.path,
            f"topic {unknown[0]!r} is not in the topics file {topics_path}{more if len(unknown) > 1 else ''}: "
            "a run from a file must answer the experiment's topics (is it a run of another collection?)",
            line=line,
        )
    return run


def _first_line(path: Path, topic: str) -> int | None:
    skip, lines = block_span(path)  # an ir_metadata block: its lines hold no topic
    with open(path, "rb") as fh:
        fh.seek(skip)
        for n, raw in enumerate(fh, lines + 1):
            fields = raw.split(None, 1)
            if fields and fields[0].decode("utf-8", "replace") == topic:
                return n
    return None


def read_file_runs(cfg: Config, topics: list[tuple[str, str]]) -> dict[str, tuple[Run, float]]:
    """{spec: (run, seconds)} of the config's file runs, read before anything is indexed or
    searched, so a bad file stops the experiment at once."""
    # reciprocal rank fusion reads the rank column as written (pyserini): read it where it is used;
    # MS MARCO's MRR (a measure of the config) reads every run's
    rrf_parts = {p for s in cfg.sources if isinstance(s, FusedRun) and s.policy.reads_ranks for p in s.parts}
    every = cfg.qrels_path is not None and reads_ranks([parse_measure(m) for m in cfg.measures])
    out = {}
    for spec in cfg.sources:
        if isinstance(spec, FileRun):
            t = time.perf_counter()
            try:
                run = read_file_run(spec, topics, cfg.topics_path, every or str(spec) in rrf_parts)
            except DataError as e:  # which entry of which config brought the file
                entry = f"the run {cfg.name_of(str(spec))!r} of {cfg.source} (`file: {spec.written}`)"
                where = f"{e.source}:{e.line}: " if e.line is not None else f"{e.source}: "
                raise DataError(e.source, f"{str(e).removeprefix(where)} [{entry}]", e.line) from None
            out[str(spec)] = (run, time.perf_counter() - t)
    return out


def add_source_runs(
    cfg: Config,
    results: list[RunResult],
    files: Mapping[str, tuple[Run, float]],
    topics: list[tuple[str, str]],
    store: RunStore,
    on: Emit,
) -> list[RunResult]:
    """``results`` (the searched runs) with the file runs ``files`` (:func:`read_file_runs`) and
    the fused runs of ``cfg``, in config order; a fused run (and a file's run in another layout
    than TREC's, as TREC text) is written to the run cache of ``store``."""
    done = {r.name: r for r in results}
    for spec in cfg.sources:
        t = time.perf_counter()
        name = str(spec)
        if isinstance(spec, FileRun):
            (run, seconds), path, how = files[name], spec.path, "read"
            t -= seconds
            if not RUN_FORMATS[spec.format].cached:  # the report's runs/ and the explorer hold the cache's TREC text
                path = store.converted(name, run)
                if not store.has(path):
                    store.write(path, run, spec.format)
        else:
            try:
                run = fuse([done[p].run for p in spec.parts], spec.policy)
            except ValueError as e:
                raise DataError(cfg.name_of(name), str(e)) from None
            path, how = store.fused(name, run), "fused"
            if not store.has(path):
                store.write(path, run, "harness.fuse")
        seconds = time.perf_counter() - t
        in_run = set(run.topics())
        empty = [q for q, _ in topics if q not in in_run]
        done[name] = RunResult(spec, name, run, path, seconds, False, empty)
        on(RunReady(cfg.name_of(name), how, len(topics), seconds, len(empty)))
    order = {n: i for i, n in enumerate(cfg.run_specs)}
    return sorted(done.values(), key=lambda r: order.get(r.name, len(order)))
