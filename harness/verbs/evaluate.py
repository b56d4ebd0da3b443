"""The evaluate verb: a run against qrels, with trec_eval's numbers and the checks a user needs
before trusting them (files exist, the arguments are not swapped, the run shares doc ids with the
judgments). ``harness evaluate``, ``harness.evaluate`` and ``harness compare`` all go through it."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

from harness.errors import DataError, warn
from harness.formats.qrels import Qrels
from harness.formats.runs import Run
from harness.policies import EvalPolicy, ReadPolicy

__all__ = ["evaluate", "summed", "read_qrels_file", "read_run_file", "check_run_against_qrels", "parse_measure_list"]

PathLike = str | os.PathLike


def parse_measure_list(items, source: str = "measures"):
    """Measures from names (a str or a sequence), deduplicated in order; DataError naming ``source``."""
    from harness.metrics import parse_measures

    return parse_measures(items, source=source)


def summed(measure) -> bool:
    """Whether trec_eval's "all" line of ``measure`` is a sum over topics (the counts), printed
    as an integer, rather than a mean."""
    return measure.info.summary == "sum"


def _fields(path: PathLike) -> int | None:
    """Words on the first non-blank line (4: qrels, 6: a run), or None when unreadable."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.strip():
                    return len(line.split())
    except OSError:
        return None
    return None


def _exists(path: PathLike, what: str) -> None:
    """``path`` is a regular file: a folder, FIFO or device is named as such (not "not found")."""
    from harness.formats.hygiene import regular_file

    regular_file(Path(path), f"{what} file")


def read_qrels_file(path: PathLike) -> Qrels:
    """A qrels file, or judgments named in a local cache (``pyserini:NAME``, ``irds:ID``;
    harness.formats.named), which must hold judgments."""
    from harness.formats.named import is_named, read_named_qrels
    from harness.formats.qrels import read_qrels

    if is_named(path):
        qrels = read_named_qrels(path)
    else:
        _exists(path, "qrels")
        qrels = read_qrels(path)
    if not qrels.topics():
        raise DataError(str(path), "the qrels file has no judgments: nothing could be evaluated")
    return qrels


def read_run_file(path: PathLike, read: ReadPolicy = ReadPolicy(), ranks: bool = False) -> Run:
    from harness.formats.runs import read_run

    _exists(path, "run")
    return read_run(path, duplicates=read.duplicates, ranks=ranks)


def check_run_against_qrels(
    run: Run, qrels: Qrels, run_name: str, qrels_name: str, missing_topics: str = EvalPolicy.missing_topics
) -> None:
    """The run's topic ids against the judged ones, by the rule of every door
    (:mod:`harness.formats.topic_ids`): a run whose results are all for topics the qrels do not
    judge is refused, as trec_eval refuses it (where ``-c`` would score every judged topic 0: a
    PyTerrier frame whose ``qid`` pandas read as an integer, 1, against qrels of topic '001'), and
    so is a run whose ids are the judged ones written another way (leading zeros, a prefix, case);
    a partial overlap is a warning naming the topics. Then a warning when none of the run's doc
    ids is judged: every score would be 0. A run with no results at all is evaluated (0 on every
    judged topic under ``-c``), as the Python API has always done with ``{}``."""
    from harness.formats.topic_ids import match_topic_ids, partial_notes, refuse_unmatched

    if not len(run):
        return
    match = match_topic_ids(run.topics(), qrels.topics())
    refuse_unmatched(
        match,
        run_name,
        qrels_name,
        ours_word="run",
        what="the run's {n} topics",
        also=', and trec_eval refuses it too ("No queries with both results and relevance info")',
    )
    effect = (
        "score 0 in every mean (trec_eval -c)" if missing_topics == "zero" else "are left out (as trec_eval without -c)"
    )
    for note in partial_notes(
        match,
        run_name,
        qrels_name,
        what="the run's {n} topics",
        where="the run",
        unjudged="are not evaluated",
        unasked=effect,
    ):
        warn(note)
    if not _shares_an_id(run, qrels.docids.tolist()):
        warn(
            f"{run_name}: none of its document ids is judged in {qrels_name}: every score will be 0. "
            "Do the ids match (file names with or without an extension, a prefix)?"
        )


def _shares_an_id(run: Run, judged: list) -> bool:
    """Whether any of the run's doc ids is in ``judged``. Almost always one of its first hits
    is: those are looked at first, and the rest only when none is, in blocks (no list of every
    id at once). np.unique and intersect1d over a 10M-line run's ids took 6.5 s of an
    8.9-second evaluation (numpy 2.5)."""
    head = 1 << 14
    if not set(run.docids[:head].tolist()).isdisjoint(judged):
        return True
    judged_set, step = set(judged), 1 << 16
    return any(not judged_set.isdisjoint(run.docids[lo : lo + step].tolist()) for lo in range(head, len(run), step))


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
    file is an error. A run sharing no doc id with the qrels gets a warning."""
    from harness.formats.named import is_named
    from harness.metrics import Measure
    from harness.metrics import evaluate as evaluate_run

    ms = (
        measures if measures and all(isinstance(m, Measure) for m in measures) else parse_measure_list(measures, source)
    )
    if is_named(qrels):  # pyserini:NAME, irds:ID: read from a local cache
        qrels_name = qrels_name or qrels
        qrels = read_qrels_file(qrels)
    if isinstance(run, (str, os.PathLike)) and isinstance(qrels, (str, os.PathLike)):
        _exists(run, "run")
        _exists(qrels, "qrels")
        if _fields(run) == 4 and _fields(qrels) == 6:
            raise DataError(
                str(run),
                "this looks like qrels and the qrels file like a run: the order is RUN QRELS (trec_eval's is qrels first)",
            )
    if isinstance(run, (str, os.PathLike)):
        run_name = run_name or str(run)
        run = read_run_file(run, read)
    if isinstance(qrels, (str, os.PathLike)):
        qrels_name = qrels_name or str(qrels)
        qrels = read_qrels_file(qrels)
    elif not len(qrels):  # no topics, or only topics without judgments ({"1": {}})
        raise DataError(qrels_name or "qrels", "the qrels have no judgments: nothing could be evaluated")
    check_run_against_qrels(run, qrels, run_name or "run", qrels_name or "the qrels", policy.missing_topics)
    with judgments_named(qrels_name):
        return evaluate_run(run, qrels, ms, policy)


@contextlib.contextmanager
def judgments_named(name: str | None):
    """A DataError about the judgments (source ``qrels``, raised while measuring: e.g. a label
    too large for the per-level measures) names the qrels file instead, when there is one."""
    try:
        yield
    except DataError as e:
        if name is None or e.source != "qrels" or e.line is not None:
            raise
        raise DataError(name, str(e)[len(e.source) + 2 :]) from None
