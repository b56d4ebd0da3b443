"""A study's own report files, rendered from a :class:`~harness.experiment.study.StudyResult`:
summary.md, report.html (``templates/study.html.j2``), report.tex, manifest.json and one CSV per
table across collections (``collections.csv``, ``meta_analysis.csv``). Each collection's report is
its own (:func:`harness.publish.write_files`, into ``collections/NAME/``); these files sit beside them.

Every table across collections is laid out the same way in every format, from its
:class:`~harness.experiment.study.StudyTable`: one table per value of its ``split_by`` column
(a measure), numbers to 4 decimals (or its column's format), an empty cell for a missing value;
the CSV holds every digit. A table with a picture of its own has it in report.html, drawn from
the same rows (:data:`CHARTS`: the meta-analysis's forest plots, one per compared pair).
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from functools import cache

from markupsafe import Markup, escape

from harness import lazy
from harness.experiment.study import META_TABLE, CollectionOutcome, StudyResult, StudyTable
from harness.policies import MetaPolicy
from harness.report.data import csv_text
from harness.report.latex import latex_escape
from harness.report.markdown import md
from harness.report.svg import forest_chart, text_width

jinja2 = lazy.module("jinja2")

__all__ = ["render", "manifest", "forest_plots", "CHARTS", "STUDY_FILES", "MAX_FOREST_PLOTS"]

# What a study writes besides each collection's report (collections/NAME/) and its tables' CSVs
STUDY_FILES = ("summary.md", "report.html", "report.tex", "manifest.json")
# Most forest plots on the page (all pairs of many runs make many): the CSV and tables hold every pair
MAX_FOREST_PLOTS = 48


def _cell(v, fmt: str = ".4f") -> str:
    return "" if v is None else format(v, fmt) if isinstance(v, float) else str(v)


def _cells(t: StudyTable, columns, row) -> list[str]:
    """A row's cells as the documents write them: each column's format, 4 decimals by default."""
    return [_cell(v, t.formats.get(c, ".4f")) for c, v in zip(columns, row)]


def _numeric(columns, rows) -> list[int]:
    """The columns of numbers (aligned right): no text in them, empty cells aside."""
    return [i for i in range(len(columns)) if all(r[i] is None or isinstance(r[i], float) for r in rows)]


@dataclass(frozen=True)
class _Collection:
    """A row of the study's list of collections."""

    name: str
    report: str | None  # collections/NAME/, None when it failed
    documents: int | str  # the index's documents: "?" when its manifest does not say, "" when it failed
    topics: int | str  # "" when it failed
    runs: str  # "3 (1 reused)"
    failure: str


def _collections(result: StudyResult) -> list[_Collection]:
    out = []
    for o in result.collections:
        if o.result is None:
            out.append(_Collection(o.name, None, "", "", "", o.failure.message if o.failure else ""))
            continue
        r = o.result
        reused = sum(x.reused for x in r.runs)
        stats = r.index.manifest.get("stats", {})
        folder = result.study.folder(o.name)
        out.append(
            _Collection(
                o.name, f"{folder}/", stats.get("documents", "?"), len(r.topics), f"{len(r.runs)} ({reused} reused)", ""
            )
        )
    return out


# ------------------------------------------------------------------------------ forest plots
def forest_plots(result: StudyResult, t: StudyTable, measure: str) -> tuple[list[Markup], str]:
    """The forest plot of each compared pair of one measure in the meta-analysis table ``t`` (its
    rows, as meta_analysis.csv holds them: each collection's, then the pooled ones, which carry Q),
    at most :data:`MAX_FOREST_PLOTS`; and a note when some pairs are not drawn."""
    policy, ci_level = _meta_of(result)
    level = f"{ci_level * 100:g}%"
    pairs: dict[tuple, list[dict]] = {}
    for row in t.rows:
        r = dict(zip(t.columns, row))
        if r["measure"] == measure:
            pairs.setdefault((r["baseline"], r["run"]), []).append(r)
    charts = []
    for (baseline, run), rows in list(pairs.items())[:MAX_FOREST_PLOTS]:
        tau2 = next(r["tau2"] for r in rows if r["Q"] is not None)
        weights = {r["collection"]: 1 / r["variance"] for r in rows if r["Q"] is None}
        random = {name: 1 / (1 / w + tau2) for name, w in weights.items()}
        drawn = []
        for r in rows:
            interval = f"{r['effect']:+.4f}, {level} CI [{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]"
            if r["Q"] is None:
                name = r["collection"]
                share = 100 * weights[name] / sum(weights.values())
                share_re = 100 * random[name] / sum(random.values())
                tip = f"{name}: {interval}, variance {r['variance']:.4g}; weight {share:.1f}% (fixed), {share_re:.1f}% (random)"
                drawn.append((name, r["effect"], r["ci_low"], r["ci_high"], weights[name], tip))
            else:
                tip = f"{r['collection']}: {interval}; Q={r['Q']:.4g} ({len(weights) - 1} df), I2={r['I2']:.3f}, tau2={r['tau2']:.4g}"
                drawn.append((r["collection"], r["effect"], r["ci_low"], r["ci_high"], None, tip))
        effect = policy.meta_effect.axis
        widest = max(text_width(d[0]) for d in drawn)
        charts.append(
            forest_chart(
                f"{measure}: {run} − {baseline} across collections, {level} intervals",
                f"{effect} in {measure} ({run} − {baseline})",
                drawn,
                width=round(min(900, max(620, widest + 480))),
            )
        )
    note = (
        f"The first {MAX_FOREST_PLOTS} of {len(pairs)} pairs are drawn; every pair is in the table below."
        if len(pairs) > MAX_FOREST_PLOTS
        else ""
    )
    return charts, note


# The tables with a picture of their own in report.html: table name -> its charts of one group,
# and how to read them (said once, under the table's note)
CHARTS = {META_TABLE: forest_plots}
READING = {
    META_TABLE: "How to read a forest plot: each collection's row is its effect (the square, its area the "
    "collection's weight, 1/variance) and its interval (the whisker); the diamonds below the rule are the "
    "pooled estimates, fixed and random, each spanning its interval; the vertical line is no difference. An "
    "interval clear of the line is a difference at that level. Q, I2 and tau2 (in the table, and in the "
    "pooled rows' tooltips) say how much the collections disagree: with I2 near 0 the two estimates agree; "
    "with a large I2 report the random-effects one."
}


def manifest(result: StudyResult) -> dict:
    """manifest.json of the study: its config, each collection's report (or failure), its tables
    and the versions its collections were run with."""
    study = result.study
    if study.text is not None:
        sha = hashlib.sha256(study.text.encode()).hexdigest()
    else:
        with open(study.source, "rb") as f:
            sha = hashlib.file_digest(f, "sha256").hexdigest()
    first = next(iter(result.results.values()), None)
    return {
        "study": study.name,
        "config": {
            "path": str(study.source),
            "sha256": sha,
            "parsed": study.raw,
            **({"overrides": list(study.overrides)} if study.overrides else {}),
        },
        "collections": [{"name": o.name, **_outcome(result, o)} for o in result.collections],
        "tables": {t.name: f"{t.name}.csv" for t in result.tables},
        **({"meta_analysis": _meta_policy(result)} if result.table(META_TABLE) is not None else {}),
        "versions": dict((first.versions or {}) if first is not None else {}),
        **(
            {"machine": first.platform["machine"]}
            if first is not None and first.platform and first.platform.get("machine")
            else {}
        ),
    }


def _meta_of(result: StudyResult) -> tuple[MetaPolicy, float]:
    """The study's meta-analysis (compare.meta) and the level of its intervals (its collections'
    compare.ci_level): asked only of a study with a meta-analysis table, which has both."""
    policy = result.study.meta
    compare = next(iter(result.study.collections.values())).compare
    assert policy is not None and compare is not None  # no meta-analysis without them
    return policy, compare.policy.ci_level


def _meta_policy(result: StudyResult) -> dict:
    """How the meta-analysis was made (compare.meta, and the level of its intervals)."""
    policy, level = _meta_of(result)
    return {"effect": policy.effect, "method": policy.method, "level": level, "policy": str(policy)}


def _outcome(result: StudyResult, o: CollectionOutcome) -> dict:
    """A collection's entry in the manifest: its report, or why it has none."""
    if o.result is not None:
        return {"report": f"{result.study.folder(o.name)}/", "index_fingerprint": o.result.index.fingerprint}
    assert o.failure is not None  # a collection without results failed
    return {"failed": o.failure.message, "exit_code": o.failure.exit_code}


def render(result: StudyResult) -> dict[str, str]:
    """{file name: text} of the study's own files."""
    m = manifest(result)
    files = {
        "summary.md": markdown(result, m),
        "report.html": html(result, m),
        "report.tex": latex(result, m),
        "manifest.json": json.dumps(m, indent=2, default=str) + "\n",
    }
    for t in result.tables:
        files[f"{t.name}.csv"] = csv_text((dict(zip(t.columns, row)) for row in t.rows), list(t.columns))
    return files


def _intro(result: StudyResult) -> str:
    """The first sentences, up to the folder of the collections' reports (each format writes it)."""
    names = list(result.study.collections)
    runs = len(next(iter(result.results.values())).runs) if result.results else 0
    return (
        f"A study of {len(names)} collections ({', '.join(names)}): the same {runs} run{'s' * (runs != 1)} on "
        "each. Each collection's report, as a config of it alone writes it, is in "
    )


# ------------------------------------------------------------------------------ summary.md
def markdown(result: StudyResult, m: dict) -> str:
    out = io.StringIO()
    w = out.write
    w(f"# {result.study.name}\n\n{_intro(result)}`collections/NAME/`.\n\n")
    if result.failures:
        w("## Failed collections\n\n")
        for name, f in result.failures.items():
            w(f"- **{md(name)}** (exit {f.exit_code}): {md(f.message)}\n")
        w("\n")
    if result.warnings:
        w("## Warnings\n\n" + "".join(f"- {md(m)}\n" for m in result.warnings) + "\n")
    w("## Collections\n\n| collection | report | documents | topics | runs |\n|---|---|---:|---:|---|\n")
    for c in _collections(result):
        w(f"| {md(c.name)} | {md(c.report or 'failed')} | {c.documents} | {c.topics} | {c.runs} |\n")
    w("\n")
    for t in result.tables:
        w(f"## {t.title}\n\n{md(t.note)} Also in `{t.name}.csv`.\n\n")
        if not t.rows:
            w(f"{md(t.empty)}\n\n")
        for key, columns, rows in t.groups():
            if key is not None:
                w(f"### {md(key)}\n\n")
            numeric = _numeric(columns, rows)
            w("| " + " | ".join(md(c) for c in columns) + " |\n")
            w("|" + "".join("---:|" if i in numeric else "---|" for i in range(len(columns))) + "\n")
            for row in rows:
                w("| " + " | ".join(md(c) for c in _cells(t, columns, row)) + " |\n")
            w("\n")
    if result.checks:
        w("## Expectations\n\n")
        for name, check in result.checks:
            w(f"- {md(name)}: {check}\n")
        w("\n")
    w(f"## Provenance\n\n- config: {md(m['config']['path'])} (sha256 {m['config']['sha256']})\n")
    if "overrides" in m["config"]:
        w(f"- overrides: {md(', '.join(m['config']['overrides']))}\n")
    versions = ", ".join(f"{k} {v}" for k, v in m["versions"].items() if k != "java_home")
    if versions:
        w(f"- versions: {md(versions)}\n")
    return out.getvalue()


# ------------------------------------------------------------------------------ report.html
@cache
def _environment():
    return jinja2.Environment(
        loader=jinja2.PackageLoader("harness.report", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )


def html(result: StudyResult, m: dict) -> str:
    tables = [
        (
            t,
            READING.get(t.name, ""),
            [
                (
                    key,
                    list(columns),
                    [_cells(t, columns, row) for row in rows],
                    _numeric(columns, rows),
                    CHARTS[t.name](result, t, key) if t.name in CHARTS and key is not None else ([], ""),
                )
                for key, columns, rows in t.groups()
            ],
        )
        for t in result.tables
    ]
    collections = [
        [c.name, c.report or "failed", str(c.documents), str(c.topics), c.runs] for c in _collections(result)
    ]
    checks = [
        [c.status, name, c.run, c.measure, f"{c.expected}", "missing" if c.actual is None else f"{c.actual:.6f}"]
        for name, c in result.checks
    ]
    return (
        _environment()
        .get_template("study.html.j2")
        .render(
            s=result,
            intro=escape(_intro(result)) + Markup("<code>collections/NAME/</code>."),
            failures=result.failures,
            warnings=result.warnings,
            collections=collections,
            tables=tables,
            checks=checks,
            m=m,
            parsed=json.dumps(m["config"]["parsed"], indent=2, default=str),
        )
    )


# ------------------------------------------------------------------------------ report.tex
def latex(result: StudyResult, m: dict) -> str:
    """One booktabs table per group of each table across collections (needs \\usepackage{booktabs})."""
    name = result.study.name
    lines = [
        f"% harness study: {name} (needs \\usepackage{{booktabs}})",
        f"% config {m['config']['path']} sha256 {m['config']['sha256']}",
        "% versions " + ", ".join(f"{k} {v}" for k, v in m["versions"].items() if k != "java_home"),
    ]
    lines += [f"% collection {c['name']} failed: {c['failed']}" for c in m["collections"] if "failed" in c]
    for t in result.tables:
        if not t.rows:
            lines += [f"% {t.title}: {t.empty}", ""]
        for key, columns, rows in t.groups():
            numeric = set(_numeric(columns, rows))
            what = f"{latex_escape(key)}: " if key is not None else ""
            label = "-".join(x for x in (name, t.name, key) if x)
            lines += [
                r"\begin{table}[t]",
                r"\centering",
                rf"\caption{{{what}{latex_escape(t.title)} of {latex_escape(name)}. {latex_escape(t.note)}}}",
                rf"\label{{tab:{latex_escape(label)}}}",
                r"\begin{tabular}{" + "".join("r" if i in numeric else "l" for i in range(len(columns))) + "}",
                r"\toprule",
                " & ".join(latex_escape(c) for c in columns) + r" \\",
                r"\midrule",
            ]
            for row in rows:
                cells = [
                    v if i in numeric else rf"\texttt{{{latex_escape(v)}}}"
                    for i, v in enumerate(_cells(t, columns, row))
                ]
                lines.append(" & ".join(cells) + r" \\")
            lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines) + "\n"
