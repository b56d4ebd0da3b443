"""The evaluate verb: a run against qrels, with trec_eval's numbers and the checks a user needs
before trusting them (files exist, the arguments are not swapped, the run shares doc ids with the
judgments). ``harness evaluate`` and ``harness.evaluate`` go through it; the file readers and the
run-against-qrels checks it shares with ``compare``, ``fuse`` and ``trec_eval`` are in
:mod:`harness.formats` (``run_files.read_run_file``, ``named.read_user_qrels``, ``topic_ids.check_run_against_qrels``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from harness.errors import DataError
from harness.formats.hygiene import regular_file
from harness.formats.ir_metadata import block_span
from harness.formats.named import is_named, read_user_qrels
from harness.formats.qrels import Qrels, judgments_named
from harness.formats.run import Run
from harness.formats.run_files import read_run_file
from harness.formats.topic_ids import check_run_against_qrels
from harness.metrics import Measure, parse_measures
from harness.metrics import evaluate as evaluate_run
from harness.metrics.measures import reads_ranks  # also the API's: MS MARCO's measure asked for
from harness.policies import EvalPolicy, ReadPolicy

__all__ = ["evaluate", "summed", "reads_ranks", "parse_measure_list"]

PathLike = str | os.PathLike


def parse_measure_list(items, source: str = "measures"):
    """Measures from names (a str or a sequence), deduplicated in order; DataError naming ``source``."""
    return parse_measures(items, source=source)


def summed(measure) -> bool:
    """Whether trec_eval's "all" line of ``measure`` is a sum over topics (the counts), printed
    as an integer, rather than a mean."""
    return measure.info.summary == "sum"


def _fields(path: PathLike) -> int | None:
    """Words on the first non-blank line after an ir_metadata block (4: qrels, 6: a run), or None
    when unreadable."""
    try:
        skip, _ = block_span(path)
        with open(path, "rb") as f:
            f.seek(skip)
            for line in f:
                if line.strip():
                    return len(line.split())
    except (OSError, DataError):  # the reader says what is wrong
        return None
    return None


def evaluate(
    run: Run | PathLike,
    qrels: Qrels | PathLike,
    measures: str | Sequence,
    *,
    policy: EvalPolicy = EvalPolicy(),
    read: ReadPolicy = ReadPolicy(),
    source: str = "measures",
    run_name: str | None = None,
    qrels_name: str | None = None,
):
    """Score ``run`` against ``qrels`` (objects, or files read with the harness's readers) on
    ``measures`` (names or Measure values) under ``policy``; returns a
    :class:`harness.metrics.Evaluation`. For files: both must exist, a qrels file given as the run
    and a run given as the qrels is an error (trec_eval takes the qrels first), and an empty qrels
    file is an error. A run sharing no doc id with the qrels gets a warning. A run file is read
    with its rank column when a measure reads it (MS MARCO's ``MRR@10(msmarco)``)."""
    ms = (
        measures if measures and all(isinstance(m, Measure) for m in measures) else parse_measure_list(measures, source)
    )
    if is_named(qrels):  # pyserini:NAME, irds:ID: read from a local cache
        qrels_name = qrels_name or qrels
        qrels = read_user_qrels(qrels)
    if isinstance(run, (str, os.PathLike)) and isinstance(qrels, (str, os.PathLike)):
        regular_file(Path(run), "run file")
        regular_file(Path(qrels), "qrels file")
        if _fields(run) == 4 and _fields(qrels) == 6:
            raise DataError(
                str(run),
                "this looks like qrels and the qrels file like a run: the order is RUN QRELS (trec_eval's is qrels first)",
            )
    if isinstance(run, (str, os.PathLike)):
        run_name = run_name or str(run)
        run = read_run_file(run, read, ranks=reads_ranks(ms))
    if isinstance(qrels, (str, os.PathLike)):
        qrels_name = qrels_name or str(qrels)
        qrels = read_user_qrels(qrels)
    elif not len(qrels):  # no topics, or only topics without judgments ({"1": {}})
        raise DataError(qrels_name or "qrels", "the qrels have no judgments: nothing could be evaluated")
    check_run_against_qrels(run, qrels, run_name or "run", qrels_name or "the qrels", policy.missing_topics)
    with judgments_named(qrels_name):
        return evaluate_run(run, qrels, ms, policy)
