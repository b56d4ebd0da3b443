"""Rendering only: an ExperimentResult in, report files out.

``write_report`` builds the whole report in a temporary sibling folder and swaps it into place
in one atomic step at the end, so a failure or a kill never leaves a half-written report (the
previous one stays intact); see :mod:`harness.folders`.
Markdown and CSV/JSON are written here; ``tables`` holds the values every format shows (rows,
significance marks, the provenance manifest), ``html`` the self-contained page with ``svg``
plots, ``latex`` the booktabs table.
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from harness.events import Emit, ignore
from harness.report.tables import (
    COMPARISON_FIELDS,
    audit,
    comparison_rows,
    eval_policy,
    fmt,
    fmt_d,
    fmt_p,
    provenance,
    significance_marks,
    stats_policy,
    summary_rows,
)

if TYPE_CHECKING:  # a type only: rendering imports nothing that runs an experiment
    from harness.experiment.result import ExperimentResult

__all__ = ["write_report", "render_markdown", "summary_rows", "REPORT_FILES"]

# What write_report writes (comparisons.* only with `compare:`, report.tex only with qrels).
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


def _md(text) -> str:
    """A Markdown table cell: pipes escaped, no line breaks."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(result: ExperimentResult, manifest: dict | None = None) -> str:
    cfg = result.config
    out = io.StringIO()
    w = out.write
    w(f"# {cfg.name}\n\n")
    stats = result.index.manifest.get("stats", {})
    w(
        f"Index `{result.index.path}` ({'reused' if result.index.reused else 'built'}; "
        f"{stats.get('documents', '?')} documents, {stats.get('unique_terms', '?')} unique terms; "
        f"stemmer {cfg.stemmer}, stopwords {'removed' if cfg.stopwords else 'kept'}). "
        f"{len(result.topics)} topics, depth {cfg.depth}.\n\n"
    )
    if result.warnings:
        w("## Warnings\n\n" + "".join(f"- {_md(m)}\n" for m in result.warnings) + "\n")
    if result.evaluations:
        marks = significance_marks(result)
        w("| run | " + " | ".join(cfg.measures) + " |\n")
        w("|---|" + "---:|" * len(cfg.measures) + "\n")
        for row in summary_rows(result):
            name = row["run"] + (f" ({marks.letters[row['run']]})" if marks.letters else "")
            w(
                f"| {_md(name)} | "
                + " | ".join(fmt(row[m]) + "".join(marks.cells.get((row["run"], m), ())) for m in cfg.measures)
                + " |\n"
            )
        w("\n")
        for sym, meaning in marks.legend:
            w(f"{sym}: {_md(meaning)}  \n")
        tuned = [t.run for t in result.comparisons.tuning] if result.comparisons is not None else []
        if tuned:
            w(
                f"{_md(', '.join(tuned))}: cross-validated, so out-of-fold: each topic is scored by the "
                "setting chosen on the other folds (see *Sweeps and tuning*).  \n"
            )
        if marks.legend or tuned:
            w("\n")
        if result.comparisons is not None:
            _markdown_comparisons(result, w)
        first = next(iter(result.evaluations.values()))
        w("## Conventions\n\n")
        for k, v in eval_policy(result).items():
            w(f"- {k}: {v}\n")
        if result.comparisons is not None:
            w(f"- statistics: {result.comparisons.policy}\n")
        w("\n## Coverage\n\n")
        w("| run | " + " | ".join(first.audit) + " |\n")
        w("|---|" + "---:|" * len(first.audit) + "\n")
        for name, ev in result.evaluations.items():
            w(f"| {_md(name)} | " + " | ".join(str(v) for v in ev.audit.values()) + " |\n")
        w("\n")
    else:
        w("No qrels in the config: runs only, no metrics.\n\n")
    w("## Runs\n\n| run | file | topics returned | seconds | reused |\n|---|---|---:|---:|---|\n")
    for r in result.runs:
        w(
            f"| {_md(r.name)} | runs/{_md(r.name)}.trec | {len(r.run.topics())} | {r.seconds:.2f} | {'yes' if r.reused else 'no'} |\n"
        )
    if result.checks:
        w("\n## Expectations\n\n")
        for c in result.checks:
            w(f"- {c}\n")
    if manifest is None:
        manifest = provenance(result)
    w("\n## Provenance\n\n")
    for k, v in _provenance_lines(manifest):
        w(f"- {k}: {_md(v)}\n")
    return out.getvalue()


def _provenance_lines(manifest: dict) -> list[tuple[str, str]]:
    """The manifest's headline facts, for the human-readable reports (the JSON has it all)."""
    v = manifest["versions"]
    lines = [
        ("config", f"{manifest['config']['path']} (sha256 {manifest['config']['sha256']})"),
        ("versions", ", ".join(f"{k} {val}" for k, val in v.items() if k != "java_home")),
        (
            "index",
            f"{manifest['index']['path']} (fingerprint {manifest['index']['fingerprint']}, "
            f"{'reused' if manifest['index']['reused'] else 'built'})",
        ),
        (
            "topics",
            f"{manifest['topics']['path']} ({manifest['topics']['format']}, {manifest['topics']['count']} topics)",
        ),
    ]
    if manifest["qrels"]:
        lines.append(("qrels", f"{manifest['qrels']['path']} (sha256 {manifest['qrels']['sha256']})"))
    for r in manifest["runs"]:
        made = (
            "reused" if r["reused"] else "assembled from the folds' choices" if "cross_validated" in r else "searched"
        )
        spec = f"{r['spec']}; " if r.get("spec", r["name"]) != r["name"] else ""
        lines.append((f"run {r['name']}", f"{spec}sha256 {r['sha256']} ({made})"))
    return lines


def _markdown_comparisons(result: ExperimentResult, w) -> None:
    c = result.comparisons
    level = f"{c.policy.ci_level * 100:g}%"
    w(
        f"## Comparisons\n\n{c.policy}. {len(c.topics)} topics, paired. "
        f"† marks a significant difference (corrected p < {c.policy.alpha:g}); "
        "W/T/L: topics where the run wins, ties, loses against the baseline. The CI is each difference's own "
        "percentile bootstrap interval, not corrected for multiple comparisons.\n\n"
    )
    w(
        f"| measure | baseline | run | baseline mean | run mean | diff | {level} CI (uncorrected) | d | p | "
        "corrected p | | W/T/L |\n"
    )
    w("|---|---|---|---:|---:|---:|---|---:|---:|---:|---|---|\n")
    for r in c.rows:
        w(
            f"| {_md(r.measure)} | {_md(r.baseline)} | {_md(r.run)} | {r.mean_baseline:.4f} | {r.mean_run:.4f} | "
            f"{r.diff:+.4f} | [{r.ci_low:+.4f}, {r.ci_high:+.4f}] | {fmt_d(r.effect_size)} | {fmt_p(r.p)} | "
            f"{fmt_p(r.p_corrected)} | {'†' if r.reject else ''} | {r.wins}/{r.ties}/{r.losses} |\n"
        )
    w("\n")
    for sw in c.sweeps:
        w(f"### Sweep: {_md(sw.model)} ({', '.join(sw.varying)})\n\n")
        w(
            "Settings not significantly different from the best (by mean): each tested against the best "
            "(two-sided; the best has the highest mean, so a significant difference means worse), "
            "corrected together:\n\n| measure | best | not significantly different |\n|---|---|---|\n"
        )
        for m, keep in sw.not_worse.items():
            best = max(sw.runs, key=lambda n: result.evaluations[n].means[m])
            w(f"| {_md(m)} | {_md(best)} | {_md(', '.join(keep))} |\n")
        w("\n")
    for t in c.tuning:
        w(f"### Cross-validated {_md(t.model)} on {_md(t.measure)} ({len(t.folds)} folds): run {_md(t.run)}\n\n")
        w(
            "| fold | test topics | chosen on the other folds | train mean | held-out mean |\n|---:|---:|---|---:|---:|\n"
        )
        for f in t.folds:
            w(f"| {f.index + 1} | {len(f.test_topics)} | {_md(f.chosen)} | {f.train_mean:.4f} | {f.test_mean:.4f} |\n")
        w(
            f"\nHeld-out {_md(t.measure)}: **{t.heldout_mean:.4f}** (the best fixed setting on all topics, "
            f"{_md(t.best_fixed)}, scores {t.best_fixed_mean:.4f} by tuning on the test topics). "
            f"The run {_md(t.run)} answers each fold's topics with that fold's choice: its values in every "
            "table are out-of-fold (each topic scored by a setting chosen without it), and it is compared "
            "like any other run.\n\n"
        )


def _csv(rows: list[dict], fields: list[str]) -> str:
    buf = io.StringIO()
    wr = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    wr.writeheader()
    for row in rows:
        wr.writerow({k: ("" if v is None else (repr(v) if isinstance(v, float) else v)) for k, v in row.items()})
    return buf.getvalue()


def _json_number(x):
    """Strict JSON: infinite or undefined numbers (a constant-difference effect size) become null."""
    return x if not isinstance(x, float) or math.isfinite(x) else None


def _comparisons_json(result: ExperimentResult, manifest: dict) -> dict:
    c = result.comparisons
    return {
        "policy": stats_policy(result),
        "topics": list(c.topics),
        "pairs": [list(p) for p in c.pairs],
        "comparisons": [{k: _json_number(v) for k, v in row.items()} for row in comparison_rows(result)],
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
        "coverage": audit(result),
        "provenance": {
            "config_sha256": manifest["config"]["sha256"],
            "qrels_sha256": (manifest["qrels"] or {}).get("sha256"),
            "index_fingerprint": manifest["index"]["fingerprint"],
            "runs": {r["name"]: r["sha256"] for r in manifest["runs"]},
        },
    }


def write_report(result: ExperimentResult, out_dir: Path, on: Emit = ignore) -> Path:
    """Write every report file (see REPORT_FILES) into ``out_dir``, replacing it atomically.

    The report is built complete in ``.<name>.writing-<pid>`` beside ``out_dir``, with the marker
    that lists its files, flushed to disk, and swapped with the previous folder in one step
    (:func:`harness.folders.replace_folder`), under the folder's lock. A folder the harness did
    not write is never replaced (checked again here: the config check may be minutes old)."""
    from harness.config.paths import write_target_problems
    from harness.errors import DataError
    from harness.folders import clean_interrupted, locked, remove_tree, replace_folder, temp_sibling

    out_dir = Path(out_dir).resolve()
    with locked(out_dir, on=on):
        clean_interrupted(out_dir, on)
        problems = write_target_problems({"output": out_dir}, {})
        if problems:
            raise DataError(out_dir, "; ".join(m for _, m in problems))
        tmp = temp_sibling(out_dir, "writing")
        remove_tree(tmp)
        try:
            _write_files(result, tmp)
            previous = replace_folder(tmp, out_dir)
        except BaseException:
            remove_tree(tmp)
            clean_interrupted(out_dir)  # cut between the two renames of the fallback: previous back
            raise
        if previous is not None:
            remove_tree(previous)
    return out_dir


def _write_files(result: ExperimentResult, tmp: Path) -> None:
    from harness.folders import OUTPUT_MARKER, fsync_tree, write_marker
    from harness.report.html import render_html
    from harness.report.latex import render_latex

    cfg = result.config
    (tmp / "runs").mkdir(parents=True)
    for r in result.runs:
        shutil.copyfile(r.path, tmp / "runs" / f"{r.name}.trec")
    manifest = provenance(result)
    (tmp / "summary.md").write_text(render_markdown(result, manifest), encoding="utf-8")
    rows = summary_rows(result)
    (tmp / "summary.csv").write_text(_csv(rows, ["run", *cfg.measures]), encoding="utf-8")
    per_topic = []
    for name, ev in result.evaluations.items():
        for qid in ev.topics:
            per_topic.append({"run": name, "qid": qid, **{m: ev.per_topic[m].get(qid) for m in cfg.measures}})
    (tmp / "per_topic.csv").write_text(_csv(per_topic, ["run", "qid", *cfg.measures]), encoding="utf-8")
    specs = {r.name: str(r.similarity) for r in result.runs}
    summary = {
        "name": cfg.name,
        "measures": list(cfg.measures),
        # each run by its label, with the canonical spec it stands for
        "runs": [{"run": row["run"], "spec": specs.get(row["run"], row["run"]), **row} for row in rows],
        "policy": eval_policy(result),
        "stats_policy": stats_policy(result),
        "coverage": audit(result),
        "warnings": list(result.warnings),
        "expectations": [
            {
                "run": c.run,
                "measure": c.measure,
                "expected": c.expected,
                "actual": c.actual,
                "tolerance": c.tolerance,
                "ok": c.ok,
            }
            for c in result.checks
        ],
    }
    (tmp / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str) + "\n", encoding="utf-8")
    (tmp / "report.html").write_text(render_html(result, manifest), encoding="utf-8")
    if result.evaluations:
        (tmp / "report.tex").write_text(render_latex(result, manifest), encoding="utf-8")
    if result.comparisons is not None:
        (tmp / "comparisons.csv").write_text(_csv(comparison_rows(result), list(COMPARISON_FIELDS)), encoding="utf-8")
        (tmp / "comparisons.json").write_text(
            json.dumps(_comparisons_json(result, manifest), indent=2, allow_nan=False) + "\n", encoding="utf-8"
        )
    files = [str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file() and p.name != OUTPUT_MARKER]
    write_marker(tmp, "report", files)
    fsync_tree(tmp)
