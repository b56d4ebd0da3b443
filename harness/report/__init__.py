"""Rendering only: an ExperimentResult in, report files out.

``write_report`` builds the whole report in a temporary sibling folder and swaps it into place
in one atomic step at the end, so a failure or a kill never leaves a half-written report (the
previous one stays intact); see :mod:`harness.folders`.
What the report shows is computed once, by :func:`harness.report.view.build_view`; each format
only lays that view out: :mod:`~harness.report.markdown` (summary.md), :mod:`~harness.report.data`
(CSV and JSON), :mod:`~harness.report.html` (report.html, Jinja2 templates with autoescape, and
``svg`` plots), :mod:`~harness.report.latex` (the booktabs table). ``tables`` holds the values
the view is made of (rows, significance marks, the provenance manifest).
"""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from harness.config.paths import write_target_problems
from harness.errors import DataError
from harness.events import Emit, ignore
from harness.experiment.cache import place_text
from harness.folders import (
    OUTPUT_MARKER,
    check_writable,
    clean_interrupted,
    fsync_tree,
    locked,
    remove_tree,
    replace_folder,
    temp_sibling,
    write_marker,
)
from harness.formats.ir_metadata import copy_annotated, yml_name
from harness.policies import DEFAULT_IR_METADATA
from harness.report import data, html, latex, markdown
from harness.report.ir_metadata import documents as ir_metadata_documents
from harness.report.ir_metadata import to_yaml
from harness.report.tables import provenance, summary_rows
from harness.report.view import build_view

if TYPE_CHECKING:  # a type only: rendering imports nothing that runs an experiment
    from harness.experiment.result import ExperimentResult

__all__ = ["write_report", "write_files", "publish", "render_markdown", "summary_rows", "REPORT_FILES"]

# What write_report writes (comparisons.* only with `compare:`, anova.csv and power.csv only with
# `compare.anova` (or a many-system test) and `compare.power`, report.tex only with qrels; runs/
# holds each run's file and, by default, its ir_metadata: harness.report.ir_metadata).
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
    "anova.csv",
    "power.csv",
)


def render_markdown(result: ExperimentResult, manifest: dict | None = None) -> str:
    """summary.md's text (the manifest is made from the result when not given)."""
    return markdown.render(build_view(result, provenance(result) if manifest is None else manifest))


def write_report(
    result: ExperimentResult, out_dir: Path, on: Emit = ignore, ir_metadata: str = DEFAULT_IR_METADATA
) -> Path:
    """Write every report file (see REPORT_FILES) into ``out_dir``, replacing it atomically.
    ``ir_metadata`` (a key of policies.IR_METADATA): each run's ir_metadata beside it
    (``runs/NAME.ir-metadata.yml``), in it, or nowhere (:mod:`harness.report.ir_metadata`).
    The folder is published by :func:`publish`; its marker names the result's experiment
    (:attr:`harness.config.Config.experiment`)."""
    cfg = result.config
    return publish(out_dir, cfg.experiment, cfg.replace, lambda tmp: write_files(result, tmp, ir_metadata), on=on)


def publish(out_dir: Path, experiment, replace: bool, write: Callable[[Path], None], on: Emit = ignore) -> Path:
    """Make ``out_dir`` anew with what ``write(folder)`` puts in a new folder, replacing it
    atomically, and return it (resolved). ``experiment``: whose folder it is
    (:class:`harness.folders.Experiment`, recorded in the marker); ``replace`` (``--replace``):
    it may replace another experiment's folder.

    The folder is built complete in ``.<name>.writing-<pid>`` beside ``out_dir``, with the marker
    that lists its files, flushed to disk, and swapped with the previous folder in one step
    (:func:`harness.folders.replace_folder`), under the folder's lock. A folder the harness did
    not write, or (without ``--replace``) another experiment's, is never replaced (checked again
    here: the config check may be minutes old, and another experiment may have written since)."""
    out_dir = Path(out_dir).resolve()
    with locked(out_dir, on=on):
        clean_interrupted(out_dir, on)
        problems = write_target_problems({"output": out_dir}, {}, experiment=experiment, replace=replace)
        if problems:
            raise DataError(out_dir, "; ".join(m for _, m in problems))
        check_writable(out_dir.parent, tree=False)  # where the new report is built
        check_writable(out_dir)  # the previous report, removed once replaced
        tmp = temp_sibling(out_dir, "writing")
        remove_tree(tmp)
        try:
            tmp.mkdir(parents=True)
            write(tmp)
            written = [str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file() and p != tmp / OUTPUT_MARKER]
            write_marker(tmp, "report", written, experiment.record(out_dir))
            fsync_tree(tmp)
            previous = replace_folder(tmp, out_dir)
        except OSError as e:
            remove_tree(tmp)
            clean_interrupted(out_dir)
            if e.errno in (errno.ENOSPC, errno.EDQUOT):  # name the report, not a file of the hidden temp
                raise OSError(e.errno, f"{e.strerror}; the new report is removed", str(out_dir)) from e
            raise
        except BaseException:
            remove_tree(tmp)
            clean_interrupted(out_dir)  # cut between the two renames of the fallback: previous back
            raise
        if previous is not None:
            remove_tree(previous)
    return out_dir


def write_files(result: ExperimentResult, tmp: Path, ir_metadata: str = DEFAULT_IR_METADATA) -> None:
    """Every report file of ``result`` (REPORT_FILES) into the folder ``tmp`` (made if missing),
    not its marker: what :func:`write_report` publishes, and a study's ``collections/NAME``."""
    runs = tmp / "runs"
    runs.mkdir(parents=True)
    files = result.run_files()
    inline = ir_metadata == "inline"
    if not inline:  # the run cache's text hard-linked (each hit stored once), a user's file copied
        for r in result.runs:
            place_text(r.path, runs / files[r.name], r.run)
    # inline: each run file is written below, and hashed as it is (never the cache's text, left as it is)
    manifest = provenance(result, dict.fromkeys(files, "") if inline else None)
    if ir_metadata != "none":
        docs = ir_metadata_documents(result, manifest, {r.name: r.path for r in result.runs})
        for r, entry in zip(result.runs, manifest["runs"]):
            text = to_yaml(docs[r.name])
            if inline:
                entry["sha256"] = copy_annotated(r.path, runs / files[r.name], text)
            else:
                (runs / yml_name(files[r.name])).write_text(text, encoding="utf-8")
    view = build_view(result, manifest)
    files = {
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
    for name, text in files.items():
        (tmp / name).write_text(text, encoding="utf-8")
