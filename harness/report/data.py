"""The machine-readable files of a report (summary.csv/json, per_topic.csv, comparisons.csv/json,
anova.csv, power.csv), laid out from a :class:`~harness.report.view.ReportView`.

Floats are written with ``repr`` (every digit, so a reader gets back the exact value); infinite
or undefined numbers (a constant-difference effect size) are null in JSON, which has no spelling
for them.
"""

from __future__ import annotations

import csv
import io
import json
import math

from harness.report.tables import ANOVA_COLUMNS, COMPARISON_FIELDS, POWER_FIELDS
from harness.report.view import ReportView

__all__ = [
    "csv_text",
    "summary_csv",
    "per_topic_csv",
    "summary_json",
    "comparisons_csv",
    "comparisons_json",
    "anova_csv",
    "power_csv",
]


def csv_text(rows, fields: list[str]) -> str:
    buf = io.StringIO()
    wr = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    wr.writeheader()
    for row in rows:
        wr.writerow({k: ("" if v is None else (repr(v) if isinstance(v, float) else v)) for k, v in row.items()})
    return buf.getvalue()


def _number(x):
    return x if not isinstance(x, float) or math.isfinite(x) else None


def summary_csv(view: ReportView) -> str:
    return csv_text(view.summary, ["run", *view.measures])


def per_topic_csv(view: ReportView) -> str:
    """Every run's value of every measure on every topic it was evaluated on."""
    rows = (
        {"run": name, "qid": qid, **{m: ev.per_topic[m].get(qid) for m in view.measures}}
        for name, ev in view.evaluations.items()
        for qid in ev.topics
    )
    return csv_text(rows, ["run", "qid", *view.measures])


def summary_json(view: ReportView) -> str:
    specs = {r["name"]: r["spec"] for r in view.manifest["runs"]}
    summary = {
        "name": view.name,
        "measures": list(view.measures),
        # each run by its name, with the spec it stands for
        "runs": [{"run": row["run"], "spec": specs.get(row["run"], row["run"]), **row} for row in view.summary],
        "policy": view.policy,
        "stats_policy": view.stats_policy,
        "coverage": view.coverage,
        "warnings": list(view.warnings),
        "expectations": [
            {
                "run": c.run,
                "measure": c.measure,
                "expected": c.expected,
                "actual": c.actual,
                "tolerance": c.tolerance,
                "okish_tolerance": c.okish_margin,
                "status": c.status,
                "ok": c.ok,
            }
            for c in view.checks
        ],
    }
    return json.dumps(summary, indent=2) + "\n"


def comparisons_csv(view: ReportView) -> str:
    return csv_text(view.comparison_rows, list(COMPARISON_FIELDS))


def anova_csv(view: ReportView) -> str:
    """Each measure's two-way ANOVA: system, topic and residual rows (the residual's F and p blank)."""
    rows = ({k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()} for r in view.anova)
    return csv_text(rows, list(ANOVA_COLUMNS))


def power_csv(view: ReportView) -> str:
    """Each comparison's power row, then per measure the ANOVA design's (baseline and run blank)."""
    return csv_text(view.power, list(POWER_FIELDS))


def comparisons_json(view: ReportView) -> str:
    c = view.comparisons
    assert c is not None  # written only for a comparison
    manifest = view.manifest
    data = {
        "policy": view.stats_policy,
        "topics": list(c.topics),
        "pairs": [list(p) for p in c.pairs],
        "comparisons": [{k: _number(v) for k, v in row.items()} for row in view.comparison_rows],
        "sweeps": [
            {
                "model": s.model,
                "runs": list(s.runs),
                "varying": list(s.varying),
                "not_worse_than_best": {m: list(v) for m, v in s.not_worse.items()},
            }
            for s in c.sweeps
        ],
        "cross_validation": [
            {
                "model": t.model,
                "run": t.run,
                "measure": t.measure,
                "heldout_mean": t.heldout_mean,
                "best_fixed": t.best_fixed,
                "best_fixed_mean": t.best_fixed_mean,
                "folds": [
                    {
                        "fold": f.index + 1,
                        "test_topics": list(f.test_topics),
                        "chosen": f.chosen,
                        "train_mean": f.train_mean,
                        "test_mean": f.test_mean,
                    }
                    for f in t.folds
                ],
            }
            for t in c.tuning
        ],
        # said when the report shows them (harness.report.tables.shown_groups; compare.anova, compare.power)
        **(
            {
                "groups": [
                    {
                        "measure": g.measure,
                        "runs": list(g.runs),
                        "best": g.best,
                        "indistinguishable_from_best": list(g.indistinguishable),
                        "letters": None if g.letters is None else dict(zip(g.runs, g.letters)),
                        "alpha": g.alpha,
                    }
                    for g in c.groups
                ]
            }
            if view.groups
            else {}
        ),
        **({"anova": [{k: _number(v) for k, v in row.items()} for row in view.anova]} if view.anova else {}),
        **({"power": [{k: _number(v) for k, v in row.items()} for row in view.power]} if view.power else {}),
        "coverage": view.coverage,
        "provenance": {
            "config_sha256": manifest["config"]["sha256"],
            "qrels_sha256": (manifest["qrels"] or {}).get("sha256"),
            "index_fingerprint": manifest["index"]["fingerprint"],
            "runs": {r["name"]: r["sha256"] for r in manifest["runs"]},
        },
    }
    return json.dumps(data, indent=2, allow_nan=False) + "\n"
