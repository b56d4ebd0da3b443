"""MS MARCO's official ``MRR @10``, as castorini/anserini-tools scripts/msmarco/msmarco_passage_eval.py
(Microsoft's MS MARCO evaluation script) computes it, re-derived from what that script does (it
carries no licence, so it is neither copied nor vendored here):

- every qrels line counts as relevant, whatever its label (0 included);
- a topic's passage at rank *r* is the one its line gives with rank *r* (the rank column, not the
  line's position: with ranks 1, 2, 5 the third passage is at rank 5); two lines giving one rank:
  the later line's passage holds it;
- for each topic of the run that the qrels judge, the reciprocal of the first rank <= 10 holding a
  relevant passage (0 if none), summed in the order the run's topics first appear;
- divided by the number of topics in the qrels (a judged topic the run lacks counts 0; a run topic
  the qrels lack counts nowhere); ``QueriesRanked`` is the number of the run's topics;
- no run topic judged: an error ("No matching QIDs found").

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

from dataclasses import dataclass

from harness.errors import DataError
from harness.formats.qrels import Qrels
from harness.formats.runs import Run

__all__ = ["MsmarcoEval", "msmarco_mrr"]


@dataclass(frozen=True)
class MsmarcoEval:
    mrr: float  # the script's "MRR @10"
    queries_ranked: int  # its "QueriesRanked"
    per_topic: dict[str, float]  # each qrels topic's reciprocal rank (0 when the run lacks it)


def msmarco_mrr(run: Run, qrels: Qrels, cutoff: int = 10) -> MsmarcoEval:
    """The official MRR @``cutoff`` of ``run`` (read with its ranks: ``run.ranks``) against ``qrels``."""
    if run.ranks is None:
        raise ValueError("msmarco_mrr needs the run's rank column (read_run(..., ranks=True) or an MS MARCO run)")
    judged = {t: set(qrels.judged(t)) for t in qrels.topics()}
    per_topic = dict.fromkeys(judged, 0.0)
    total, matched = 0.0, 0
    for t, topic in enumerate(run.topics()):
        relevant = judged.get(topic)
        if relevant is None:
            continue
        matched += 1
        lo, hi = int(run.offsets[t]), int(run.offsets[t + 1])
        slots: dict[int, bytes] = {}
        for rank, doc in zip(run.ranks[lo:hi].tolist(), run.docids[lo:hi].tolist()):
            if rank <= cutoff:
                slots[rank] = doc  # a later line with the same rank replaces the earlier one
        for rank in range(1, cutoff + 1):
            doc = slots.get(rank)
            if doc is not None and doc.decode("utf-8", "surrogateescape") in relevant:
                total += 1 / rank
                per_topic[topic] = 1 / rank
                break
    if not matched:
        raise DataError(
            run.source, "no topic of the run is in the qrels (msmarco_passage_eval.py: 'No matching QIDs found')"
        )
    return MsmarcoEval(total / len(judged), len(run.topics()), per_topic)
