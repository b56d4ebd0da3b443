"""``harness.evaluate``: trec_eval's numbers for a run against qrels from any source (files,
DataFrames, dicts), as DataFrames; the evaluate verb's adapter."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from harness.api.frames import as_qrels, as_run, long_per_topic, means_frame
from harness.errors import DataError
from harness.policies import DEFAULT_MEASURES, EvalPolicy, ReadPolicy

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
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Evaluate one run against qrels with trec_eval's numbers; returns ``(per_topic, means)``.

    ``run``: a TREC run file, a DataFrame (``qid``/``query_id``, ``docno``/``doc_id``, ``score``;
    ``rank`` orders rows when present) or a pytrec_eval dict ``{qid: {docno: score}}``.
    ``qrels``: a TREC qrels file, a DataFrame (``qid``/``query_id``, ``docno``/``doc_id``,
    ``label``/``relevance``) or ``{qid: {docno: label}}``. ``measures``: harness names
    (``AP``, ``nDCG@10``, ``P@10``, ...). The policies are ``harness evaluate``'s flags:
    ``ties`` (trec_eval | as-ranked), ``missing_topics`` (zero = trec_eval -c | drop),
    ``nDCG_threshold``, ``duplicates`` (error | drop, for files and tables).

    ``per_topic`` is long (``run``, ``qid``, ``measure``, ``value``), ready for :func:`compare`
    after ``pd.concat`` with other runs; ``means`` has one row (index ``run``) and one column
    per measure. ``name`` names the run (default: the file name without ``.trec``, else "run").
    The policy and the topic counts are in ``means.attrs``.
    """
    from harness.verbs.evaluate import evaluate as evaluate_verb
    from harness.verbs.evaluate import parse_measure_list

    try:
        policy = EvalPolicy(ties=ties, missing_topics=missing_topics, nDCG_threshold=nDCG_threshold)
        read = ReadPolicy(duplicates)
    except ValueError as e:
        raise DataError("policy", str(e)) from None
    ms = parse_measure_list(measures)
    if name is None:
        name = Path(run).stem if isinstance(run, (str, os.PathLike)) else "run"
    if not isinstance(run, (str, os.PathLike)):
        run = as_run(run, "run", duplicates)
    if not isinstance(qrels, (str, os.PathLike)):
        qrels = as_qrels(qrels)
    ev = evaluate_verb(run, qrels, ms, policy=policy, read=read)
    per_topic = long_per_topic(name, ev, ms)
    means = means_frame({name: ev.means}, ms)
    means.attrs = {"policy": str(policy), "audit": dict(ev.audit)}
    per_topic.attrs = dict(means.attrs)
    return per_topic, means
