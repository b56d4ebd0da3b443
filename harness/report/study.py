"""A study's own report files, rendered from a :class:`~harness.experiment.study.StudyResult`:
summary.md, report.html (``templates/study.html.j2``), report.tex, manifest.json and one CSV per
table across collections (``collections.csv``). Each collection's report is its own
(:func:`harness.publish.write_files`, into ``collections/NAME/``); these files sit beside them.

Every table across collections is laid out the same way in every format, from its
:class:`~harness.experiment.study.StudyTable`: one table per value of its ``split_by`` column
(a measure), numbers to 4 decimals, an empty cell for a missing value; the CSV holds every digit.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from functools import cache

from markupsafe import Markup, escape

from harness import lazy
from harness.experiment.study import StudyResult
from harness.report.data import csv_text
from harness.report.latex import latex_escape
from harness.report.markdown import md

jinja2 = lazy.module("jinja2")

__all__ = ["render", "manifest", "STUDY_FILES"]

# What a study writes besides each collection's report (collections/NAME/) and its tables' CSVs
STUDY_FILES = ("summary.md", "report.html", "report.tex", "manifest.json")


def _cell(v) -> str:
    return "" if v is None else f"{v:.4f}" if isinstance(v, float) else str(v)


def _numeric(columns, rows) -> list[int]:
    """The columns of numbers (aligned right): no text in them, empty cells aside."""
    return [i for i in range(len(columns)) if all(r[i] is None or isinstance(r[i], float) for r in rows)]


@dataclass(frozen=True)
class _Collection:
    """A row of the study's list of collections."""

    name: str
    report: str | None  # collections/NAME/, None when it failed
    documents: object
    topics: object
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
        "collections": [
            {
                "name": o.name,
                **(
                    {"report": f"{study.folder(o.name)}/", "index_fingerprint": o.result.index.fingerprint}
                    if o.result is not None
                    else {"failed": o.failure.message, "exit_code": o.failure.exit_code}
                ),
            }
            for o in result.collections
        ],
        "tables": {t.name: f"{t.name}.csv" for t in result.tables},
        "versions": dict((first.versions or {}) if first is not None else {}),
        **(
            {"machine": first.platform["machine"]}
            if first is not None and (first.platform or {}).get("machine")
            else {}
        ),
    }


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
        for key, columns, rows in t.groups():
            if key is not None:
                w(f"### {md(key)}\n\n")
            numeric = _numeric(columns, rows)
            w("| " + " | ".join(md(c) for c in columns) + " |\n")
            w("|" + "".join("---:|" if i in numeric else "---|" for i in range(len(columns))) + "\n")
            for row in rows:
                w("| " + " | ".join(md(_cell(v)) for v in row) + " |\n")
            w("\n")
    if result.checks:
        w("## Expectations\n\n")
        for name, c in result.checks:
            w(f"- {md(name)}: {c}\n")
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
            [
                (key, list(columns), [[_cell(v) for v in row] for row in rows], _numeric(columns, rows))
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
                    _cell(v) if i in numeric else rf"\texttt{{{latex_escape(_cell(v))}}}" for i, v in enumerate(row)
                ]
                lines.append(" & ".join(cells) + r" \\")
            lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines) + "\n"
