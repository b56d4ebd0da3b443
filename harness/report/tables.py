"""What every report shows, as plain values: summary and comparison rows, significance marks,
sweeps by parameter, and the provenance manifest. The renderers (Markdown, HTML, LaTeX, CSV,
JSON) only format these, so all formats show the same numbers."""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from harness.specs.identity import FileRun, FusedRun, RunSpec
from harness.stats.compare import COMPARISON_FIELDS

if TYPE_CHECKING:  # a type only: rendering imports nothing that runs an experiment
    from harness.experiment.result import ExperimentResult

__all__ = [
    "summary_rows",
    "comparison_rows",
    "COMPARISON_FIELDS",
    "Marks",
    "significance_marks",
    "significance",
    "BETTER",
    "WORSE",
    "provenance",
    "latency_state",
    "eval_policy",
    "stats_policy",
    "audit",
    "fmt",
    "fmt_d",
]

# Markers for "significantly different from baseline i"; LaTeX spellings in report/latex.py.
SYMBOLS = ("†", "‡", "§", "¶")


def fmt(x) -> str:
    return "" if x is None else f"{x:.4f}"


def fmt_d(d: float) -> str:
    return ("∞" if d > 0 else "-∞") if math.isinf(d) else f"{d:.3f}"


def summary_rows(result: ExperimentResult) -> list[dict]:
    """One row per run: its name, then each measure's mean (None without qrels). Runs are grouped
    by family (model and expansion: ``bm25``, ``bm25+rm3``, ``dfr``), families in the order they
    first appear in the config, runs in config order within a family."""
    rows = []
    order = list(dict.fromkeys(r.spec.family for r in result.runs))
    for r in sorted(result.runs, key=lambda r: order.index(r.spec.family)):
        ev = result.evaluations.get(r.name)
        row = {"run": r.name}
        for m in result.config.measure_names:
            row[m] = None if ev is None else ev.means[m]
        rows.append(row)
    return rows


def comparison_rows(result: ExperimentResult) -> list[dict]:
    """stats.Comparison records as dicts, in stats.compare's order (measures outer)."""
    c = result.comparisons
    return [] if c is None else [asdict(row) for row in c.rows]


# Appended to a baseline's symbol in the means tables: the direction of the significant difference.
BETTER, WORSE = "▲", "▼"


@dataclass(frozen=True)
class Marks:
    """Significance markers for the means table: ``cells[(run, measure)]`` is the list of
    symbols to attach; ``legend`` explains each symbol some cell carries, and no other. With baselines, a run's mean carries
    the baseline's symbol when it differs significantly from that baseline, followed by ▲ when the
    run is better (higher mean) and ▼ when it is worse; with all-pairs every run has a letter, and
    a mean carries the letters of the runs it is significantly better than."""

    legend: tuple[tuple[str, str], ...]
    cells: dict
    letters: dict  # run -> its letter (all-pairs only)


def significance_marks(result: ExperimentResult) -> Marks:
    c = result.comparisons
    if c is None:
        return Marks((), {}, {})
    alpha = f"corrected p < {c.policy.alpha:g}"
    cells: dict[tuple[str, str], list[str]] = {}
    if c.all_pairs:
        letters = {r.name: _letter(i) for i, r in enumerate(result.runs)}
        for row in c.rows:
            if row.reject and row.diff != 0:
                winner, loser = (row.run, row.baseline) if row.diff > 0 else (row.baseline, row.run)
                cells.setdefault((winner, row.measure), []).append(letters[loser])
        legend = tuple((letters[n], f"significantly better than {n} ({alpha})") for n in letters)
        return Marks(_used(legend, cells), {k: sorted(v) for k, v in cells.items()}, letters)
    symbol = {b: (SYMBOLS[i] if i < len(SYMBOLS) else f"b{i + 1}") for i, b in enumerate(c.baselines)}
    for row in c.rows:
        if row.reject:  # a significant difference of equal means (a rank test can give one): no direction
            way = BETTER if row.diff > 0 else WORSE if row.diff < 0 else ""
            cells.setdefault((row.run, row.measure), []).append(symbol[row.baseline] + way)
    legend = []
    for b, s in symbol.items():
        legend += [(s + BETTER, f"significantly better than {b} ({alpha})")]
        legend += [(s + WORSE, f"significantly worse than {b} ({alpha})")]
        legend += [(s, f"significantly different from {b}, with the same mean ({alpha})")]
    return Marks(_used(legend, cells), cells, {})


def _used(legend, cells: dict) -> tuple[tuple[str, str], ...]:
    """The legend's lines of the marks some cell carries: a line for a mark no mean has ("†▲:
    significantly better than bm25" when no run is) explains nothing and reads as a claim."""
    used = {mark for marks in cells.values() for mark in marks}
    return tuple((mark, text) for mark, text in legend if mark in used)


def significance(row) -> str:
    """The comparisons tables' *significant* cell of a stats.Comparison row: the direction of a
    significant difference in words, "" when it is not significant."""
    if not row.reject:
        return ""
    return f"{BETTER} better" if row.diff > 0 else f"{WORSE} worse" if row.diff < 0 else "equal means"


def _letter(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


def eval_policy(result: ExperimentResult) -> dict:
    ev = next(iter(result.evaluations.values()), None)
    if ev is None:
        return {"ties": result.config.ties, "missing_topics": result.config.missing_topics}
    return {f.name: getattr(ev.policy, f.name) for f in fields(ev.policy)}


def stats_policy(result: ExperimentResult) -> dict | None:
    c = result.comparisons
    if c is None:
        return None
    spec = result.config.compare
    return {
        **asdict(c.policy),
        "text": str(c.policy),
        "baseline": "all-pairs" if c.all_pairs else list(c.baselines),
        "measures": list(c.measures),
        "cross_validation_folds": spec.folds if spec else None,
    }


def audit(result: ExperimentResult) -> dict:
    return {name: dict(e.audit) for name, e in result.evaluations.items()}


def _sha256(path: Path) -> str:
    # streamed: a run's text is 400 MB at MS MARCO's size (read whole, it added that to the peak)
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def provenance(result: ExperimentResult, hashes: dict[str, str] | None = None) -> dict:
    """The manifest: what produced these numbers (config, versions, machine, index, inputs, runs,
    policies). ``hashes``: each run's sha256 when the caller gives it (the file it writes), else
    the hash of the run's file."""
    cfg = result.config
    files = result.run_files()
    hashes = hashes or {}
    platform = result.platform or {}
    return {
        "config": {
            "path": str(cfg.source),
            "sha256": _sha256(cfg.source) if cfg.text is None else hashlib.sha256(cfg.text.encode()).hexdigest(),
            "parsed": cfg.raw,  # with the overrides applied
            **({"overrides": list(cfg.overrides)} if cfg.overrides else {}),
        },
        "versions": dict(result.versions or {}),  # gathered by the run verb
        # the machine and the harness's git checkout (harness.experiment.machine), when gathered and known
        **({"machine": platform["machine"]} if platform.get("machine") else {}),
        **({"checkout": platform["source"]} if platform.get("source") else {}),
        "index": {
            "path": str(result.index.path),
            "fingerprint": result.index.fingerprint,
            "reused": result.index.reused,
            **({"collection": result.index.manifest["collection"]} if result.index.manifest.get("collection") else {}),
            **{k: result.index.manifest.get(k) for k in ("stats", "counters", "options", "anserini_args")},
            **({"empty_ids": result.index.manifest["empty_ids"]} if result.index.manifest.get("empty_ids") else {}),
        },
        # a collection given without its format: the format read from its files, and how (said when it is)
        **(
            {
                "collection": {
                    "path": str(cfg.collection_path),
                    "format": cfg.collection_format,
                    "format_read_from_files": read_as,
                }
            }
            if (read_as := getattr(cfg, "collection_read_as", None))
            else {}
        ),
        "topics": {
            "path": str(cfg.topics_path),
            "format": cfg.topics_format,
            "sha256": _sha256(cfg.topics_path) if cfg.topics_path.is_file() else None,
            "count": len(result.topics),
            # a query's own document left out of its ranking (topics.remove_query): said when it is
            **({"remove_query": True} if getattr(cfg, "remove_query", False) else {}),
        },
        "qrels": None
        if cfg.qrels_path is None
        else {
            "path": str(cfg.qrels_path),
            "sha256": _sha256(cfg.qrels_path) if cfg.qrels_path.is_file() else None,
            # irds:ID: judgments read through ir_datasets from the folder `path` (a file's format, trec, goes unsaid)
            **({"format": cfg.qrels_format} if cfg.qrels_format != "trec" else {}),
        },
        "runs": [
            {
                "name": r.name,
                "spec": str(r.spec),  # the canonical name the label stands for
                "file": f"runs/{files[r.name]}",
                "sha256": hashes[r.name] if r.name in hashes else _sha256(r.path),
                "reused": r.reused,
                "seconds": round(r.seconds, 4),
                # what the searcher measured when it searched the run, a reused run's from the
                # cache (harness.engine.latency); null: not searched, or cached before it was kept
                "latency": None if getattr(r, "latency", None) is None else r.latency.figures(),
                "topics_returned": len(r.run.topics()),
                "empty_topics": r.empty_topics,
                # searched on the index with exact document lengths beside the experiment's
                **({"index": str(r.index)} if getattr(r, "index", None) is not None else {}),
                **_tuned_entry(result, r.name),
                **_source_entry(result, r.spec),
            }
            for r in result.runs
        ],
        "depth": cfg.depth,
        "policy": eval_policy(result),
        "stats_policy": stats_policy(result),
        "timings_seconds": {k: round(v, 4) for k, v in result.timings.items()},
    }


def latency_state(entry: dict) -> str:
    """What a run's latency figures (a manifest run entry's ``latency``) are, in words: "searched",
    "reused" (the figures of the search that cached the run, never its reading), "not searched"
    (a run from a file, a fusion, a cross-validated run) or "not recorded" (cached before the
    harness kept search times)."""
    if "source" in entry or "cross_validated" in entry:
        return "not searched"
    if entry.get("latency") is None:
        return "not recorded" if entry.get("reused") else "not searched"
    return "reused" if entry.get("reused") else "searched"


def _source_entry(result: ExperimentResult, spec: RunSpec) -> dict:
    """For a run from a file: the file (its sha256 is the run's); for a fused run: the fusion's
    parameters and its parts, by label (harness.config.sources)."""
    if isinstance(spec, FileRun):
        return {"source": {"file": str(spec.path)}}
    if isinstance(spec, FusedRun):
        fusion = {k: v for k, v in asdict(spec.policy).items() if v is not None}
        return {"source": {"fusion": {**fusion, "runs": [result.config.label(p) for p in spec.parts]}}}
    return {}


def _tuned_entry(result: ExperimentResult, name: str) -> dict:
    """For a cross-validated run: how it was made (which setting each fold chose)."""
    tuning = next((t for t in (result.comparisons.tuning if result.comparisons else ()) if t.run == name), None)
    if tuning is None:
        return {}
    return {
        "cross_validated": {
            "model": tuning.model,
            "measure": tuning.measure,
            "out_of_fold": True,
            "folds": [
                {"fold": f.index + 1, "chosen": f.chosen, "test_topics": list(f.test_topics)} for f in tuning.folds
            ],
        }
    }
