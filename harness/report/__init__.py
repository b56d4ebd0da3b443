"""Rendering only: an ExperimentResult in, report files out.

``write_report`` builds the whole report in a temporary sibling folder and swaps it into place
at the end, so a failure never leaves a half-written report (the previous one stays intact).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
from pathlib import Path

from .. import lucene
from ..experiment import ExperimentResult

__all__ = ["write_report", "render_markdown", "summary_rows"]


def _fmt(x) -> str:
    return "" if x is None else f"{x:.4f}"


def summary_rows(result: ExperimentResult) -> list[dict]:
    """One row per run: its name, then each measure's mean (None without qrels)."""
    rows = []
    for r in result.runs:
        ev = result.evaluations.get(r.name)
        row = {"run": r.name}
        for m in result.config.measures:
            row[m] = None if ev is None else ev.means[m]
        rows.append(row)
    return rows


def _policy(result: ExperimentResult) -> dict:
    ev = next(iter(result.evaluations.values()), None)
    pol = {"ties": result.config.ties, "missing_topics": result.config.missing_topics}
    if ev is not None:
        pol = {k: (v if isinstance(v, (int, float, str, bool)) or v is None else str(v)) for k, v in vars(ev.policy).items()} if hasattr(ev.policy, "__dict__") else {"policy": str(ev.policy)}
    return pol


def _audit(result: ExperimentResult) -> dict:
    ev = next(iter(result.evaluations.values()), None)
    return {name: dict(e.audit) for name, e in result.evaluations.items()} if ev is not None else {}


def render_markdown(result: ExperimentResult) -> str:
    cfg = result.config
    out = io.StringIO()
    w = out.write
    w(f"# {cfg.name}\n\n")
    stats = result.index.manifest.get("stats", {})
    w(f"Index `{result.index.path}` ({'reused' if result.index.reused else 'built'}; "
      f"{stats.get('documents', '?')} documents, {stats.get('unique_terms', '?')} unique terms; "
      f"stemmer {cfg.stemmer}, stopwords {'removed' if cfg.stopwords else 'kept'}). "
      f"{len(result.topics)} topics, depth {cfg.depth}.\n\n")
    if result.evaluations:
        w("| run | " + " | ".join(cfg.measures) + " |\n")
        w("|---|" + "---:|" * len(cfg.measures) + "\n")
        for row in summary_rows(result):
            w(f"| {row['run']} | " + " | ".join(_fmt(row[m]) for m in cfg.measures) + " |\n")
        w("\n")
        first = next(iter(result.evaluations.values()))
        w("## Conventions\n\n")
        for k, v in _policy(result).items():
            w(f"- {k}: {v}\n")
        w("\n## Coverage\n\n")
        w("| run | " + " | ".join(first.audit) + " |\n")
        w("|---|" + "---:|" * len(first.audit) + "\n")
        for name, ev in result.evaluations.items():
            w(f"| {name} | " + " | ".join(str(v) for v in ev.audit.values()) + " |\n")
        w("\n")
    else:
        w("No qrels in the config: runs only, no metrics.\n\n")
    w("## Runs\n\n| run | file | topics returned | seconds | reused |\n|---|---|---:|---:|---|\n")
    for r in result.runs:
        w(f"| {r.name} | runs/{r.name}.trec | {len(r.run.topics())} | {r.seconds:.2f} | {'yes' if r.reused else 'no'} |\n")
    if result.checks:
        w("\n## Expectations\n\n")
        for c in result.checks:
            w(f"- {c}\n")
    return out.getvalue()


def _csv(rows: list[dict], fields: list[str]) -> str:
    buf = io.StringIO()
    wr = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    wr.writeheader()
    for row in rows:
        wr.writerow({k: ("" if v is None else (repr(v) if isinstance(v, float) else v)) for k, v in row.items()})
    return buf.getvalue()


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_report(result: ExperimentResult, out_dir: Path) -> Path:
    cfg = result.config
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_dir.parent / f".{out_dir.name}.writing-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        (tmp / "runs").mkdir(parents=True)
        for r in result.runs:
            shutil.copyfile(r.path, tmp / "runs" / f"{r.name}.trec")
        (tmp / "summary.md").write_text(render_markdown(result), encoding="utf-8")
        rows = summary_rows(result)
        (tmp / "summary.csv").write_text(_csv(rows, ["run", *cfg.measures]), encoding="utf-8")
        per_topic = []
        for name, ev in result.evaluations.items():
            for qid in ev.topics:
                per_topic.append({"run": name, "qid": qid, **{m: ev.per_topic[m].get(qid) for m in cfg.measures}})
        (tmp / "per_topic.csv").write_text(_csv(per_topic, ["run", "qid", *cfg.measures]), encoding="utf-8")
        summary = {
            "name": cfg.name,
            "measures": list(cfg.measures),
            "runs": rows,
            "policy": _policy(result),
            "coverage": _audit(result),
            "expectations": [
                {"run": c.run, "measure": c.measure, "expected": c.expected, "actual": c.actual,
                 "tolerance": c.tolerance, "ok": c.ok} for c in result.checks
            ],
        }
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        manifest = {
            "config": {"path": str(cfg.source), "sha256": _sha256(cfg.source), "parsed": cfg.raw},
            "versions": lucene.versions(),
            "index": {"path": str(result.index.path), "fingerprint": result.index.fingerprint,
                      "reused": result.index.reused, **{k: result.index.manifest.get(k) for k in ("stats", "counters", "options", "anserini_args")}},
            "topics": {"path": str(cfg.topics_path), "format": cfg.topics_format, "count": len(result.topics)},
            "qrels": None if cfg.qrels_path is None else {"path": str(cfg.qrels_path), "sha256": _sha256(cfg.qrels_path)},
            "runs": [
                {"name": r.name, "file": f"runs/{r.name}.trec", "sha256": _sha256(r.path), "reused": r.reused,
                 "seconds": round(r.seconds, 4), "topics_returned": len(r.run.topics()), "empty_topics": r.empty_topics}
                for r in result.runs
            ],
            "depth": cfg.depth,
            "policy": _policy(result),
            "timings_seconds": {k: round(v, 4) for k, v in result.timings.items()},
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str) + "\n", encoding="utf-8")
        if out_dir.exists():
            old = out_dir.parent / f".{out_dir.name}.old-{os.getpid()}"
            out_dir.rename(old)
            tmp.rename(out_dir)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out_dir
