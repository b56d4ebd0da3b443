"""``harness.compare``: the harness's paired tests, corrections and CIs on per-topic scores from
any source (:func:`harness.evaluate`'s table, PyTerrier's, ir_measures'); the compare verb's
adapter."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from harness import lazy
from harness.api.frames import as_policy, column
from harness.errors import DataError
from harness.policies import ComparePolicy, PowerPolicy, StatsPolicy, default_correction
from harness.verbs.compare import ANOVA_FIELDS, COMPARISON_FIELDS, POWER_FIELDS
from harness.verbs.compare import compare as compare_verb

pd = lazy.module("pandas")

if TYPE_CHECKING:  # the annotations' type; pandas itself is imported on first use
    from pandas import DataFrame

__all__ = ["compare"]


def _long(per_topic: DataFrame) -> DataFrame:
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
        raise DataError(
            what,
            f"run {bad['run']!r}, topic {bad['qid']!r}, {bad['measure']}: given twice. Two runs named "
            f"{bad['run']!r}? harness.evaluate names a run file by its file name without the extension; give each "
            "its own with name=, e.g. by its folder as harness compare names runs whose files share a name "
            "(name='a/bm25' for a/runs/bm25.trec, name='b/bm25' for b/runs/bm25.trec)",
        )
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
    per_topic: DataFrame,
    baseline: str | Sequence[str] | None = None,
    test: str = StatsPolicy.test,
    correction: str | None = None,
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
    anova: bool | None = None,
    power: bool | Mapping | PowerPolicy = False,
) -> DataFrame:
    """Paired tests of runs against a baseline on per-topic scores from any source: the long
    table of :func:`evaluate` or ``Result.per_topic`` (``run``, ``qid``, ``measure``, ``value``),
    PyTerrier's ``pt.Experiment(..., perquery=True)`` (``name`` for the run), ir_measures'
    per-query results as a DataFrame (``query_id``), or a wide table (run, qid, one column per
    measure).

    ``baseline``: a run name, a list of names, or ``"all-pairs"`` (default: the first run; every
    pair with a many-system test). ``test``: t | wilcoxon | randomization | bootstrap, or a
    many-system test, tukey | randomized-tukey (every pair of the runs at once, family-wise);
    ``correction``: none | bonferroni | holm | bh, over ``family`` (per-measure | all); default
    holm, and none with a many-system test (the only one it takes). Runs are paired topic by topic in trec_eval's
    order (topic ids sorted as strings), whatever order the table lists them in, so the seeded
    resamples (CI, randomization, bootstrap) give the same p-values as ``harness compare`` and a
    config; ``compare(result.per_topic, ...)`` reproduces ``result.comparisons``. ``align``:
    ``strict`` (every run scored on the same topics, else an error naming them) or ``common``
    (the topics every run has; the others are listed in ``attrs["dropped_topics"]``). Returns one row per (measure, baseline, run) with the columns of the report's
    ``comparisons.csv``; ``attrs["policy"]`` states the whole policy.

    The tables beside the pairs are in ``attrs``, as lists of records (``pd.DataFrame(attrs[...])``
    makes each a table; records, not DataFrames, so that pandas can still compare and combine
    frames with these attrs): ``attrs["groups"]`` when every pair is tested (``"all-pairs"`` or a
    many-system test), one record per (measure, run): its ``mean``, its ``letters`` (a compact
    letter display) and whether it is ``indistinguishable_from_best`` (the best included);
    ``attrs["anova"]`` with ``anova=True`` (default: with a many-system test), the rows of
    ``anova.csv`` (measure, source, df, sum_sq, mean_sq, F, p); ``attrs["power"]`` with ``power``
    (True for power 0.8 and difference 0.05, or ``{"power": ..., "difference": ...}``), the rows
    of ``power.csv`` (measure, baseline, run, topics, sd, alpha, power, detectable_difference,
    difference, topics_needed; baseline and run None on the ANOVA design's rows).
    """
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

    per: dict[str, dict[str, dict[str, float]]] = {n: {} for n in names}
    for (run_name, measure), group in df[df["run"].isin(names) & df["measure"].isin(measures)].groupby(
        ["run", "measure"], sort=False
    ):
        # pandas types a group's key as Hashable: here the frame's run and measure names
        per[run_name][measure] = dict(zip(group["qid"], group["value"].astype(float)))  # type: ignore[index]
    for n in names:
        for m in measures:
            per[n].setdefault(m, {})
    stats = as_policy(
        StatsPolicy,
        "compare",
        test=test,
        correction=default_correction(test) if correction is None else correction,
        family=family,
        alpha=alpha,
        permutations=permutations,
        bootstrap_samples=bootstrap_samples,
        ci_level=ci_level,
        seed=seed,
    )
    policy = as_policy(ComparePolicy, "compare", stats, align, anova, _power(power))
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
    if table.groups:
        out.attrs["groups"] = [
            {
                "measure": g.measure,
                "run": run,
                "mean": mean,
                "letters": None if g.letters is None else g.letters[i],
                "indistinguishable_from_best": run in g.indistinguishable,
            }
            for g in table.groups
            for i, (run, mean) in enumerate(zip(g.runs, g.means))
        ]
    if table.anova:
        out.attrs["anova"] = [
            {"measure": m, **{f: getattr(row, f) for f in ANOVA_FIELDS}}
            for m, a in table.anova.items()
            for row in a.rows
        ]
    if policy.power is not None:
        out.attrs["power"] = [{f: getattr(row, f) for f in POWER_FIELDS} for row in table.power]
    return out


def _power(power: bool | Mapping | PowerPolicy) -> PowerPolicy | None:
    """The power analysis asked for: False none, True the defaults, a mapping its settings."""
    if power is False or power is None:
        return None
    if power is True:
        return PowerPolicy()
    if isinstance(power, PowerPolicy):
        return power
    if isinstance(power, Mapping):
        unknown = sorted(set(power) - {"power", "difference"})
        if unknown:
            raise DataError(
                "power", f"unknown setting(s) {', '.join(map(repr, unknown))}; valid: 'power', 'difference'"
            )
        return as_policy(PowerPolicy, "power", **power)
    raise DataError("power", f"expected True, False or {{'power': 0.8, 'difference': 0.05}} (got {power!r})")
