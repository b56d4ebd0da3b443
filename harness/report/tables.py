"""What every report shows, as plain values: summary and comparison rows, significance marks,
sweeps by parameter, and the provenance manifest. The renderers (Markdown, HTML, LaTeX, CSV,
JSON) only format these, so all formats show the same numbers."""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from harness.policies import MANY_SYSTEM_TESTS, format_p
from harness.specs.identity import FileRun, FusedRun, RunSpec
from harness.stats.anova import ANOVA_FIELDS
from harness.stats.compare import COMPARISON_FIELDS
from harness.stats.power import POWER_FIELDS

if TYPE_CHECKING:  # a type only: rendering imports nothing that runs an experiment
    from harness.experiment.result import ExperimentResult

__all__ = [
    "summary_rows",
    "comparison_rows",
    "COMPARISON_FIELDS",
    "ANOVA_COLUMNS",
    "POWER_FIELDS",
    "anova_rows",
    "anova_cells",
    "power_rows",
    "power_cells",
    "ANOVA_DESIGN",
    "groups_note",
    "many_system_notes",
    "anova_note",
    "power_note",
    "shown_groups",
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
        row: dict[str, str | float | None] = {"run": r.name}
        for m in result.config.measure_names:
            row[m] = None if ev is None else ev.means[m]
        rows.append(row)
    return rows


def comparison_rows(result: ExperimentResult) -> list[dict]:
    """stats.Comparison records as dicts, in stats.compare's order (measures outer)."""
    c = result.comparisons
    return [] if c is None else [asdict(row) for row in c.rows]


# ANOVA rows (anova.csv, the reports): the measure, then the table's columns (stats.AnovaRow).
ANOVA_COLUMNS = ("measure", *ANOVA_FIELDS)


def anova_rows(result: ExperimentResult) -> list[dict]:
    """Each compared measure's two-way ANOVA (`compare.anova`), its system, topic and residual
    rows, measures in the compare's order; [] when not asked for."""
    c = result.comparisons
    if c is None:
        return []
    return [{"measure": m, **asdict(row)} for m, table in c.anova.items() for row in table.rows]


def power_rows(result: ExperimentResult) -> list[dict]:
    """The power rows (`compare.power`, stats.PowerRow as dicts); [] when not asked for."""
    c = result.comparisons
    return [] if c is None else [asdict(row) for row in c.power]


def anova_cells(row: dict) -> list[str]:
    """An ANOVA row as every report writes it: measure, source, df, sum of squares, mean square,
    F (2 decimals) and p (policies.format_p); the residual's F and p blank."""
    blank = math.isnan(row["F"])
    return [
        row["measure"],
        row["source"],
        str(row["df"]),
        f"{row['sum_sq']:.4f}",
        f"{row['mean_sq']:.4f}",
        "" if blank else f"{row['F']:.2f}",
        "" if blank else format_p(row["p"]),
    ]


def groups_note(result: ExperimentResult) -> str:
    """The sentence under the heading of the groups table."""
    c = result.comparisons
    assert c is not None  # a groups table is of a comparison
    p = "p" if c.policy.test in MANY_SYSTEM_TESTS else "corrected p"
    return (
        f"On each measure, the runs not significantly different from the best (the highest mean; {p} >= "
        f"{c.policy.alpha:g} against it), the best included. The letters beside the means are a compact letter "
        "display (Piepho 2004): two means of a measure share a letter exactly when they are not significantly "
        "different."
    )


def anova_note(result: ExperimentResult) -> str:
    """The sentence under the heading of the ANOVA table."""
    c = result.comparisons
    assert c is not None  # an ANOVA table is of a comparison
    runs = len(next(iter(c.anova.values())).systems)
    return (
        f"Each compared measure's scores as score = mean + system + topic + error over the {runs} runs and "
        f"{len(c.topics)} topics, one score per cell (statsmodels' anova_lm of score ~ C(system) + C(topic)). "
        "A small p of system says that some runs differ; which ones, the tests of the pairs say."
    )


def power_note(result: ExperimentResult) -> str:
    """The sentence under the heading of the power table."""
    c, compare = result.comparisons, result.config.compare
    assert c is not None and compare is not None and compare.power is not None  # a power table was asked for
    pw = compare.power
    anova = (
        f" The {ANOVA_DESIGN} rows: Sakai's ANOVA-based topic set size design over every compared run, sd the "
        "square root of the within-system variance, the detectable difference the smallest range of the runs' "
        f"means (best minus worst) detected, and the topics needed for a range of {pw.difference:g}."
        if any(r.run is None for r in c.power)
        else ""
    )
    return (
        f"The paired t-test at alpha = {c.policy.alpha:g} with power {pw.power:g}, from the standard deviation "
        "(sd) of each comparison's per-topic differences: the detectable difference is the smallest mean "
        "difference these topics detect with that power; the topics needed, how many would detect a "
        f"difference of {pw.difference:g}.{anova}"
    )


def many_system_notes(result: ExperimentResult) -> dict[str, str]:
    """With a many-system test, what the comparisons and the sweeps say of how they were tested
    ("comparisons": a sentence; "sweep": how a sweep's settings were kept); {} otherwise."""
    c = result.comparisons
    if c is None or c.policy.test not in MANY_SYSTEM_TESTS:
        return {}
    runs = len({n for pair in c.pairs for n in pair})
    return {
        "comparisons": f"Each p is family-wise over every pair of the {runs} runs already, so the corrected p repeats it.",
        "sweep": f"the settings tested together, every pair at once, each kept when its p against the best is >= "
        f"{c.policy.alpha:g}",
    }


# What the power tables call the ANOVA design's row (baseline and run None in power.csv)
ANOVA_DESIGN = "all runs (ANOVA design)"


def power_cells(row: dict) -> list[str]:
    """A power row as every report writes it: measure, baseline, run (the ANOVA design's: its
    words), topics, sd, detectable difference, topics needed."""
    return [
        row["measure"],
        row["baseline"] or "",
        row["run"] or ANOVA_DESIGN,
        str(row["topics"]),
        f"{row['sd']:.4f}",
        f"{row['detectable_difference']:.4f}",
        f"{row['topics_needed']:,}",
    ]


def shown_groups(result: ExperimentResult) -> tuple:
    """The groupings the report shows (stats.Grouping, one per compared measure): with a
    many-system test, always; with every pair compared (`baseline: all-pairs`) by a paired test,
    when some pair differs (else every run shares one letter, which says nothing); else none."""
    c = result.comparisons
    if c is None or not c.groups:
        return ()
    many = c.policy.test in MANY_SYSTEM_TESTS
    if many or (c.all_pairs and any(g.differs for g in c.groups)):
        return tuple(c.groups)
    return ()


# Appended to a baseline's symbol in the means tables: the direction of the significant difference.
BETTER, WORSE = "▲", "▼"


@dataclass(frozen=True)
class Marks:
    """Significance markers for the means table: ``cells[(run, measure)]`` is the list of
    symbols to attach; ``legend`` explains each symbol some cell carries, and no other. With baselines, a run's mean carries
    the baseline's symbol when it differs significantly from that baseline, followed by ▲ when the
    run is better (higher mean) and ▼ when it is worse; when every pair is tested (`baseline:
    all-pairs`, a many-system test) a mean carries its run's letters of the compact letter display
    of its measure (:func:`shown_groups`): two means of a measure share a letter exactly when they
    are not significantly different."""

    legend: tuple[tuple[str, str], ...]
    cells: dict


def significance_marks(result: ExperimentResult) -> Marks:
    c = result.comparisons
    if c is None:
        return Marks((), {})
    alpha = f"corrected p < {c.policy.alpha:g}"
    cells: dict[tuple[str, str], list[str]] = {}
    groups = shown_groups(result)
    if groups:
        for g in groups:
            for run, letters in zip(g.runs, g.letters or ()):
                cells[(run, g.measure)] = [letters]
        too_many = [g.measure for g in groups if g.letters is None]
        p = "p" if c.policy.test in MANY_SYSTEM_TESTS else "corrected p"
        text = (
            f"two means of a measure that share a letter are not significantly different ({p} >= {c.policy.alpha:g}); "
            "the best mean's letters start with a"
        )
        if too_many:  # stats.grouping.MAX_COLUMNS: no display could be read
            text += f"; no letters for {', '.join(too_many)}: its differences need too many letters to be read"
        return Marks((("a, b, ...", text),), cells)
    if c.all_pairs:  # nothing differs: every run would share one letter
        return Marks((), {})
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
    return Marks(_used(legend, cells), cells)


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
        # said when asked for (`compare.anova`, `compare.power`)
        **({"anova": True} if c.anova else {}),
        **({"power": asdict(spec.power)} if spec is not None and spec.power is not None else {}),
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
                "spec": str(r.spec),  # the spec the name stands for
                "file": f"runs/{files[r.name]}",
                "sha256": hashes[r.name] if r.name in hashes else _sha256(r.path),
                "reused": r.reused,
                "seconds": round(r.seconds, 4),
                # what the searcher measured when it searched the run, a reused run's from the
                # cache (harness.engine.latency); null: not searched, or cached before it was kept
                "latency": None if r.latency is None else r.latency.figures(),
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
    parameters and its parts, by name (harness.config.sources)."""
    if isinstance(spec, FileRun):
        return {"source": {"file": str(spec.path)}}
    if isinstance(spec, FusedRun):
        fusion = {k: v for k, v in asdict(spec.policy).items() if v is not None}
        return {"source": {"fusion": {**fusion, "runs": [result.config.name_of(p) for p in spec.parts]}}}
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
