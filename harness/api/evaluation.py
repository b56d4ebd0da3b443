"""``harness.evaluate`` and ``harness.compare``: trec_eval's numbers and the harness's paired
tests on tables from any source."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from harness.api.frames import as_qrels, as_run, column, long_per_topic, means_frame
from harness.errors import DataError
from harness.policies import DEFAULT_MEASURES, MSMARCO_MRR, ComparePolicy, EvalPolicy, ReadPolicy, StatsPolicy
from harness.verbs.compare import COMPARISON_FIELDS

__all__ = ["evaluate", "compare"]


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
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Evaluate one run against qrels with trec_eval's numbers; returns ``(per_topic, means)``.

    ``run``: a TREC run file, a DataFrame (``qid``/``query_id``, ``docno``/``doc_id``, ``score``;
    ``rank`` orders rows when present) or a pytrec_eval dict ``{qid: {docno: score}}``.
    ``qrels``: a TREC qrels file, a DataFrame (``qid``/``query_id``, ``docno``/``doc_id``,
    ``label``/``relevance``) or ``{qid: {docno: label}}``. ``measures``: harness names
    (``AP``, ``nDCG@10``, ``P@10``, ...). The policies are ``harness evaluate``'s flags:
    ``ties`` (trec_eval | as-ranked), ``missing_topics`` (zero = trec_eval -c | drop),
    ``nDCG_threshold``, ``duplicates`` (error | drop, for files and tables); ``run_format``
    (trec | msmarco) is the run file's layout, as ``harness evaluate --run-format``.
    ``msmarco_mrr=True`` adds MS MARCO's official ``MRR @10`` (msmarco_passage_eval.py's number,
    as ``harness evaluate --msmarco-mrr``; docs/semantics.md) as the measure ``MRR@10(msmarco)``:
    a column of ``means`` (and ``means.attrs["QueriesRanked"]``) and rows of ``per_topic``, one
    per qrels topic.

    ``per_topic`` is long (``run``, ``qid``, ``measure``, ``value``), ready for :func:`compare`
    after ``pd.concat`` with other runs; ``means`` has one row (index ``run``) and one column
    per measure. ``name`` names the run (default: the file name without ``.trec``, else "run").
    The policy and the topic counts are in ``means.attrs``.
    """
    from harness.verbs.evaluate import evaluate as evaluate_verb
    from harness.verbs.evaluate import parse_measure_list

    try:
        policy = EvalPolicy(ties=ties, missing_topics=missing_topics, nDCG_threshold=nDCG_threshold)
        read = ReadPolicy(duplicates, run_format)
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
    if msmarco_mrr:
        from harness.verbs.evaluate import msmarco_eval

        official = msmarco_eval(run, qrels, read=read)
        means[MSMARCO_MRR] = official.mrr
        means.attrs["QueriesRanked"] = official.queries_ranked
        rows = pd.DataFrame(
            {
                "run": name,
                "qid": list(official.per_topic),
                "measure": MSMARCO_MRR,
                "value": list(official.per_topic.values()),
            }
        )
        per_topic = pd.concat([per_topic, rows], ignore_index=True)
    per_topic.attrs = dict(means.attrs)
    return per_topic, means


def _long(per_topic: pd.DataFrame) -> pd.DataFrame:
    """(run, qid, measure, value) from a long table (PyTerrier's perquery ``name``, ir_measures'
    ``query_id``) or a wide one (run, qid and one column per measure)."""
    if not isinstance(per_topic, pd.DataFrame):
        raise DataError("per_topic", f"expected a DataFrame (got {type(per_topic).__name__})")
    what = "per_topic"
    run, qid = column(per_topic, "run", what), column(per_topic, "qid", what)
    measure = column(per_topic, "measure", what, required=False)
    if measure is None:
        values = [c for c in per_topic.columns if c not in (run, qid)]
        df = per_topic.melt(id_vars=[run, qid], value_vars=values, var_name="measure", value_name="value")
        df = df.rename(columns={run: "run", qid: "qid"})
    else:
        df = per_topic.rename(
            columns={run: "run", qid: "qid", measure: "measure", column(per_topic, "value", what): "value"}
        )[["run", "qid", "measure", "value"]]
    for col in ("run", "qid", "measure"):  # NaN would become the run, topic or measure 'nan'
        missing = df[col].isna().to_numpy()
        if missing.any():
            raise DataError(what, f"column {col} has a missing value at row {int(missing.argmax())}")
    df = df.astype({"run": str, "qid": str, "measure": str})
    df["value"] = pd.to_numeric(df["value"], errors="coerce")
    if df["value"].isna().any():
        bad = df[df["value"].isna()].iloc[0]
        raise DataError(what, f"run {bad['run']!r}, topic {bad['qid']!r}, {bad['measure']}: value is not a number")
    dup = df.duplicated(["run", "qid", "measure"])
    if dup.any():
        bad = df[dup].iloc[0]
        raise DataError(what, f"run {bad['run']!r}, topic {bad['qid']!r}, {bad['measure']}: given twice")
    return df


def _names(value, what: str) -> list[str] | None:
    """A name or a list of names (runs, measures, baselines) as a list; None stays None."""
    if value is None:
        return None
    items = [value] if isinstance(value, str) else value
    if isinstance(items, (bytes, Mapping)) or not isinstance(items, Iterable):
        raise DataError(what, f"expected a name or a list of names (got {value!r})")
    items = list(items)
    if not all(isinstance(x, str) for x in items):
        raise DataError(what, f"expected a name or a list of names (got {value!r})")
    return items


def compare(
    per_topic: pd.DataFrame,
    baseline: str | Sequence[str] | None = None,
    test: str = StatsPolicy.test,
    correction: str = StatsPolicy.correction,
    *,
    measures: str | Sequence[str] | None = None,
    runs: Sequence[str] | None = None,
    family: str = StatsPolicy.family,
    alpha: float = StatsPolicy.alpha,
    permutations: int = StatsPolicy.permutations,
    bootstrap_samples: int = StatsPolicy.bootstrap_samples,
    ci_level: float = StatsPolicy.ci_level,
    seed: int = StatsPolicy.seed,
    align: str = ComparePolicy.align,
) -> pd.DataFrame:
    """Paired tests of runs against a baseline on per-topic scores from any source: the long
    table of :func:`evaluate` or ``Result.per_topic`` (``run``, ``qid``, ``measure``, ``value``),
    PyTerrier's ``pt.Experiment(..., perquery=True)`` (``name`` for the run), ir_measures'
    per-query results as a DataFrame (``query_id``), or a wide table (run, qid, one column per
    measure).

    ``baseline``: a run name, a list of names, or ``"all-pairs"`` (default: the first run).
    ``test``: t | wilcoxon | randomization | bootstrap; ``correction``: none | bonferroni |
    holm | bh, over ``family`` (per-measure | all). Runs are paired topic by topic in trec_eval's
    order (topic ids sorted as strings), whatever order the table lists them in, so the seeded
    resamples (CI, randomization, bootstrap) give the same p-values as ``harness compare`` and a
    config; ``compare(result.per_topic, ...)`` reproduces ``result.comparisons``. ``align``:
    ``strict`` (every run scored on the same topics, else an error naming them) or ``common``
    (the topics every run has; the others are listed in ``attrs["dropped_topics"]``). Returns one row per (measure, baseline, run) with the columns of the report's
    ``comparisons.csv``; ``attrs["policy"]`` states the whole policy.
    """
    from harness.verbs.compare import compare as compare_verb

    df = _long(per_topic)
    names = list(dict.fromkeys(df["run"]))
    runs, measures = _names(runs, "runs"), _names(measures, "measures")
    if baseline is not None and not isinstance(baseline, str):
        baseline = _names(baseline, "baseline")
    if runs is not None:
        unknown = [r for r in runs if r not in names]
        if unknown:
            raise DataError("runs", f"no run named {unknown[0]!r}; runs: {', '.join(names)}")
        names = runs
    if len(names) < 2:
        raise DataError("per_topic", f"needs two runs or more to compare (got {', '.join(names) or 'none'})")
    if measures is None:
        measures = list(dict.fromkeys(df["measure"]))
    else:
        unknown = [m for m in measures if m not in set(df["measure"])]
        if unknown:
            raise DataError(
                "measures", f"no scores for {unknown[0]!r}; measures: {', '.join(dict.fromkeys(df['measure']))}"
            )

    per = {n: {} for n in names}
    for (run_name, measure), group in df[df["run"].isin(names) & df["measure"].isin(measures)].groupby(
        ["run", "measure"], sort=False
    ):
        per[run_name][measure] = dict(zip(group["qid"], group["value"].astype(float)))
    for n in names:
        for m in measures:
            per[n].setdefault(m, {})
    try:
        policy = ComparePolicy(
            StatsPolicy(
                test=test,
                correction=correction,
                family=family,
                alpha=alpha,
                permutations=permutations,
                bootstrap_samples=bootstrap_samples,
                ci_level=ci_level,
                seed=seed,
            ),
            align,
        )
    except ValueError as e:
        raise DataError("compare", str(e)) from None
    table = compare_verb(
        {n: per[n] for n in names},
        baselines=baseline,
        measures=measures,
        policy=policy,
        where="per_topic",
        hint="align='common' compares on the topics every run is scored on",
    )
    rows = table.rows
    out = pd.DataFrame([{f: getattr(r, f) for f in COMPARISON_FIELDS} for r in rows], columns=list(COMPARISON_FIELDS))
    out.attrs = {"policy": str(policy.stats), "align": policy.align, "topics": len(table.topics)}
    if table.dropped:
        out.attrs["dropped_topics"] = list(table.dropped)
    return out
