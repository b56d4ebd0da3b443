"""MS MARCO's official ``MRR @10``, as castorini/anserini-tools scripts/msmarco/msmarco_passage_eval.py
(Microsoft's MS MARCO evaluation script) computes it, re-derived from what that script does (it
carries no licence, so it is neither copied nor vendored here). It is the family ``MRR(msmarco)``
of the measure table (harness.metrics.families), written ``MRR@10(msmarco)``; its provider
(harness.metrics.providers.MSMARCO) reads the judged rankings this module builds as the script
reads a run and its qrels, with RR@k's kernel, and harness.metrics.evaluate sums the values in the
run's topic order, as the script does:

- every qrels line counts as relevant, whatever its label (0 included);
- a topic's passage at rank *r* is the one its line gives with rank *r* (the rank column, not the
  line's position: with ranks 1, 2, 5 the third passage is at rank 5); two lines giving one rank:
  the later line's passage holds it;
- for each topic of the run that the qrels judge, the reciprocal of the first rank <= 10 holding a
  relevant passage (0 if none), summed in the order the run's topics first appear;
- divided by the number of topics in the qrels (a judged topic the run lacks counts 0; a run topic
  the qrels lack counts nowhere); ``QueriesRanked`` is the number of the run's topics;
- no run topic judged: an error ("No matching QIDs found");
- the evaluation's policies do not apply (the script has none): ranks are read as written, not
  ordered by score (``ties``), and a judged topic the run lacks counts 0 under either
  ``missing_topics``.

Where it differs from ``RR@10`` (trec_eval's ``recip_rank`` cut at 10): trec_eval counts only
labels >= 1 (``-l``), orders rows by score then doc id (a read MS MARCO run's scores are 1/rank,
harness.formats.msmarco, so gaps in the ranks close up and repeated ranks both count), and
without ``-c`` averages over the topics the run has. With ``-c``, labels >= 1 and ranks 1..n once
each, the two are equal.

Not reproduced: the script reads ids as integers (``007`` is ``7`` there; here ids are text, and
the topic-id rule of every door, harness.formats.topic_ids, names ids written two ways), fills an
empty rank position with passage 0 (with a qrels line for passage 0, it counts a hit at the first
empty position in the top 10; here an empty position holds nothing), and refuses a rank above 1000.
"""

from __future__ import annotations

import numpy as np

from harness.errors import DataError
from harness.formats.qrels import Qrels
from harness.formats.run import Run
from harness.metrics.ranked import NOT_JUDGED, RankedLabels

__all__ = ["ranked_as_read"]


def ranked_as_read(run: Run, qrels: Qrels, codes: np.ndarray, depth: int) -> RankedLabels:
    """The judged rankings of ``run`` as msmarco_passage_eval.py reads them, for MRR@k, k <= ``depth``.

    ``codes``: each run row's label code (harness.metrics.evaluate's join of the run with the
    qrels: -1, :data:`NOT_JUDGED`, for a passage the qrels do not judge). The topics are the run's
    judged topics in the run's order, then the qrels' topics the run lacks (no segment: 0). Each
    judged topic's segment holds its rank positions 1, 2, ...: 1 where the passage its line gives
    that rank (the later of two lines) is judged, with any label, else NOT_JUDGED (no line gives
    the rank, or its passage is not judged). The ranks are the run's rank column (``run.ranks``),
    or 1..n in the run's order for a run without one (searched, fused, or made in memory).
    """
    run_topics = run.topics()
    q_of_run = np.array([-1 if qrels.topic_index(t) is None else qrels.topic_index(t) for t in run_topics], np.int64)
    judged = np.flatnonzero(q_of_run >= 0)
    if not len(judged):
        raise DataError(
            run.source, "no topic of the run is in the qrels (msmarco_passage_eval.py: 'No matching QIDs found')"
        )
    in_run = set(run_topics)
    topics = [run_topics[i] for i in judged.tolist()] + [t for t in qrels.topics() if t not in in_run]
    lens = np.diff(run.offsets)
    row_topic = np.repeat(np.arange(len(run_topics)), lens)
    if run.ranks is not None:
        ranks = run.ranks
    else:
        ranks = np.arange(len(run), dtype=np.int64) - np.repeat(run.offsets[:-1], lens) + 1
    seg_of = np.full(len(run_topics), -1, dtype=np.int64)
    seg_of[judged] = np.arange(len(judged))
    # positions beyond the largest rank a line gives are empty: no wider than that
    width = max(1, min(depth, int(ranks.max()) if len(ranks) else 1))
    rows = np.flatnonzero((seg_of[row_topic] >= 0) & (ranks >= 1) & (ranks <= width))
    slot = seg_of[row_topic[rows]] * width + (ranks[rows] - 1)
    # the later of two lines giving one rank holds it: the first of each slot in reverse order
    slots, first = np.unique(slot[::-1], return_index=True)
    holder = rows[::-1][first]
    labels = np.full(len(judged) * width, NOT_JUDGED, dtype=np.int8)
    labels[slots] = np.where(codes[holder] != NOT_JUDGED, 1, NOT_JUDGED)
    # every judgment counts as relevant (the pool: one label 1 per qrels line of each topic)
    counts = np.diff(qrels.offsets)[[qrels.topic_index(t) for t in topics]]
    pool_offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    seg_offsets = np.arange(len(judged) + 1, dtype=np.int64) * width
    return RankedLabels(
        topics,
        seg_offsets,
        np.arange(len(judged), dtype=np.int64),
        labels,
        pool_offsets,
        np.ones(pool_offsets[-1], np.int64),
    )
