"""``harness.evaluate``: trec_eval's numbers for a run against qrels from any source (files,
DataFrames, dicts), as DataFrames; the evaluate verb's adapter."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness import lazy
from harness.api.frames import as_policy, as_qrels, as_run, long_per_topic, means_frame
from harness.formats.run_files import names_of_run_files
from harness.policies import DEFAULT_MEASURES, MSMARCO_MRR, EvalPolicy, ReadPolicy
from harness.verbs.evaluate import evaluate as evaluate_verb
from harness.verbs.evaluate import parse_measure_list, reads_ranks

pd = lazy.module("pandas")

if TYPE_CHECKING:  # the annotations' type; pandas itself is imported on first use
    from pandas import DataFrame

__all__ = ["evaluate"]


def evaluate(
    run,
    qrels,
    measures: str | Sequence[str] = DEFAULT_MEASURES,
    *,
    name: str | None = None,
    ties: str = EvalPolicy.ties,
    missing_topics: str = EvalPolicy.missing_topics,
    nDCG_threshold: bool = EvalPolicy.nDCG_threshold,
    duplicates: str = ReadPolicy.duplicates,
    run_format: str = ReadPolicy.run_format,
    msmarco_mrr: bool = False,
) -> tuple[DataFrame, DataFrame]:
    """Evaluate one run against qrels with trec_eval's numbers; returns ``(per_topic, means)``.

    ``run``: a TREC run file, a DataFrame (``qid``/``query_id``, ``docno``/``doc_id``, ``score``;
    ``rank`` orders rows when present) or a pytrec_eval dict ``{qid: {docno: score}}``.
    ``qrels``: a TREC qrels file, a DataFrame (``qid``/``query_id``, ``docno``/``doc_id``,
    ``label``/``relevance``) or ``{qid: {docno: label}}``. ``measures``: harness names
    (``AP``, ``nDCG@10``, ``P@10``, ...). The policies are ``harness evaluate``'s flags:
    ``ties`` (trec_eval | as-ranked), ``missing_topics`` (zero = trec_eval -c | drop),
    ``nDCG_threshold``, ``duplicates`` (error | drop, for files and tables); ``run_format``
    (trec | msmarco) is the run file's layout, as ``harness evaluate --run-format``.
    ``MRR@10(msmarco)`` among the measures is MS MARCO's official ``MRR @10``
    (msmarco_passage_eval.py's number, not trec_eval's ``RR@10``; docs/semantics.md): a column of
    ``means`` (and ``means.attrs["QueriesRanked"]``, the run's topics) and rows of ``per_topic``,
    one per qrels topic; ``msmarco_mrr=True`` adds it to the measures, as ``harness evaluate
    --msmarco-mrr`` does.

    ``per_topic`` is long (``run``, ``qid``, ``measure``, ``value``), ready for :func:`compare`
    after ``pd.concat`` with other runs; ``means`` has one row (index ``run``) and one column
    per measure. ``name`` names the run (default: the file name without its extension, as
    ``harness compare`` names a run file, else "run"; two files of one name need a ``name=`` each
    to be compared, e.g. their names in ``harness compare``: ``a/bm25``, ``b/bm25``).
    The policy and the topic counts are in ``means.attrs``.
    """
    policy = as_policy(EvalPolicy, "policy", ties=ties, missing_topics=missing_topics, nDCG_threshold=nDCG_threshold)
    read = as_policy(ReadPolicy, "policy", duplicates, run_format)
    ms = parse_measure_list(measures)
    if msmarco_mrr:
        ms = list(dict.fromkeys([*ms, *parse_measure_list(MSMARCO_MRR, "msmarco_mrr")]))
    if name is None:
        name = names_of_run_files([run])[0] if isinstance(run, (str, os.PathLike)) else "run"
    if not isinstance(run, (str, os.PathLike)):
        run = as_run(run, "run", duplicates)
    if not isinstance(qrels, (str, os.PathLike)):
        qrels = as_qrels(qrels)
    ev = evaluate_verb(run, qrels, ms, policy=policy, read=read)
    per_topic = long_per_topic(name, ev, ms)
    means = means_frame({name: ev.means}, ms)
    means.attrs = {"policy": str(policy), "audit": dict(ev.audit)}
    if reads_ranks(ms):  # MS MARCO's evaluation: its script prints the run's topics too
        means.attrs["QueriesRanked"] = ev.audit["topics_in_run"]
    per_topic.attrs = dict(means.attrs)
    return per_topic, means
