"""Rendering only: an ExperimentResult in, report files out, as ``{file name: text}``.

What the report shows is computed once, by :func:`harness.report.view.build_view`; each format
only lays that view out: :mod:`~harness.report.markdown` (summary.md), :mod:`~harness.report.data`
(CSV and JSON), :mod:`~harness.report.html` (report.html, Jinja2 templates with autoescape, and
``svg`` plots), :mod:`~harness.report.latex` (the booktabs table). ``tables`` holds the values
the view is made of (rows, significance marks, the provenance manifest). The run files, the
folder and its swap are publishing's, not rendering's (:mod:`harness.publish`): it places the
runs' files, then asks :func:`render` for the rest.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from harness.formats.ir_metadata import yml_name
from harness.policies import DEFAULT_IR_METADATA, IR_METADATA
from harness.report import data, html, latex, markdown
from harness.report.ir_metadata import documents as ir_metadata_documents
from harness.report.ir_metadata import to_yaml
from harness.report.tables import provenance, summary_rows
from harness.report.view import build_view

if TYPE_CHECKING:  # a type only: rendering imports nothing that runs an experiment
    from harness.experiment.result import ExperimentResult

__all__ = ["render", "run_metadata", "render_markdown", "summary_rows", "REPORT_FILES"]

# What a report folder holds (harness.publish.write_report: comparisons.* only with `compare:`,
# anova.csv and power.csv only with `compare.anova` (or a many-system test) and `compare.power`,
# report.tex only with qrels; runs/ holds each run's file and, by default, its ir_metadata:
# harness.report.ir_metadata).
REPORT_FILES = (
    "summary.md",
    "summary.csv",
    "summary.json",
    "per_topic.csv",
    "runs/",
    "manifest.json",
    "report.html",
    "report.tex",
    "comparisons.csv",
    "comparisons.json",
)


def render_markdown(result: ExperimentResult, manifest: dict | None = None) -> str:
    """summary.md's text (the manifest is made from the result when not given)."""
    return markdown.render(build_view(result, provenance(result) if manifest is None else manifest))


def run_metadata(result: ExperimentResult, verb: str = "run") -> dict[str, str]:
    """Each run's ir_metadata document as YAML, by run name (:mod:`harness.report.ir_metadata`):
    made from the result's provenance, which holds no run file's hash (no document holds one),
    so none is computed. ``verb``: the command that made the runs (``run`` or ``search``)."""
    manifest = provenance(result, dict.fromkeys(result.run_files(), ""))
    documents = ir_metadata_documents(result, manifest, {r.name: r.path for r in result.runs}, verb=verb)
    return {name: to_yaml(document) for name, document in documents.items()}


def render(
    result: ExperimentResult, ir_metadata: str = DEFAULT_IR_METADATA, hashes: dict[str, str] | None = None
) -> dict[str, str]:
    """Every file of the report but the runs' own, by its path in the report folder (see
    REPORT_FILES): with ``ir_metadata="yml"`` each run's ``runs/NAME.ir-metadata.yml`` too.
    ``hashes``: each run file's sha256 where the publisher computed it as it wrote the file
    (with the ir_metadata inline); any other run's is its file's, read from the run cache (the
    report's file is a link to it or a copy of it, placed before this is called)."""
    manifest = provenance(result, hashes or None)
    files = {}
    if IR_METADATA[ir_metadata].beside:
        names = result.run_files()
        documents = ir_metadata_documents(result, manifest, {r.name: r.path for r in result.runs})
        for r in result.runs:
            files[f"runs/{yml_name(names[r.name])}"] = to_yaml(documents[r.name])
    view = build_view(result, manifest)
    files |= {
        "summary.md": markdown.render(view),
        "summary.csv": data.summary_csv(view),
        "per_topic.csv": data.per_topic_csv(view),
        "summary.json": data.summary_json(view),
        "manifest.json": json.dumps(manifest, indent=2, default=str) + "\n",
        "report.html": html.render(view),
    }
    if view.evaluated:
        files["report.tex"] = latex.render(view)
    if view.comparisons is not None:
        files["comparisons.csv"] = data.comparisons_csv(view)
        files["comparisons.json"] = data.comparisons_json(view)
    if view.anova:
        files["anova.csv"] = data.anova_csv(view)
    if view.power:
        files["power.csv"] = data.power_csv(view)
    return files
