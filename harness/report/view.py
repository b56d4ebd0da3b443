"""What the report shows, computed once: :func:`build_view` turns an ExperimentResult (and its
provenance manifest) into a :class:`ReportView` of plain values, and every format (Markdown,
HTML, LaTeX, CSV, JSON) only lays that view out. So every format shows the same runs in the same
order, the same best mean, the same significance marks and the same sweep winners; none of them
computes anything of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.events import not_indexed
from harness.report.plots import PlotGroup, plot_groups
from harness.report.tables import (
    Marks,
    anova_note,
    anova_rows,
    audit,
    comparison_rows,
    eval_policy,
    fmt,
    groups_note,
    latency_state,
    many_system_notes,
    power_note,
    power_rows,
    shown_groups,
    significance_marks,
    stats_policy,
    summary_rows,
)

if TYPE_CHECKING:  # types only: rendering imports nothing that runs an experiment
    from harness.experiment.compare import Comparisons
    from harness.experiment.result import Check, ExperimentResult, ExplorerData
    from harness.metrics import Evaluation

__all__ = [
    "ReportView",
    "Facts",
    "MeanRow",
    "MeanCell",
    "SweepView",
    "SweepRow",
    "RunRow",
    "LatencyRow",
    "LATENCY_COLUMNS",
    "LATENCY_NOTE",
    "latency_cells",
    "latency_search",
    "build_view",
    "removed",
]


@dataclass(frozen=True)
class Facts:
    """The index, topics and runs in one line of the report's head."""

    index_path: str
    index_reused: bool
    documents: int | str  # "?" when the manifest does not say
    unique_terms: int | str
    stemmer: str
    stopwords: bool
    topics: int
    depth: int
    runs: int
    runs_reused: int
    language: str = "en"  # index.language: other than English, stemmer and stopwords do not apply
    not_indexed: str = ""  # what IndexCollection left out (harness.events.not_indexed), "" when nothing


@dataclass(frozen=True)
class MeanCell:
    text: str  # the mean, 4 decimals ("" without qrels)
    marks: tuple[str, ...]  # significance symbols or letters (harness.report.tables.Marks)
    best: bool  # the best mean of its measure (ties: every run that has it)


@dataclass(frozen=True)
class MeanRow:
    run: str  # the run's name
    name: str  # what the table calls the run: its name
    cells: tuple[MeanCell, ...]  # one per measure, in the config's order


@dataclass(frozen=True)
class SweepRow:
    measure: str
    best: str  # the setting with the highest mean (the first in config order on a tie)
    best_mean: float
    kept: tuple[str, ...]  # the settings not significantly different from it, best included
    total: int  # settings in the sweep


@dataclass(frozen=True)
class SweepView:
    model: str
    varying: tuple[str, ...]
    rows: tuple[SweepRow, ...]


@dataclass(frozen=True)
class RunRow:
    name: str
    file: str  # relative to the report folder
    topics_returned: int
    seconds: float
    reused: bool


@dataclass(frozen=True)
class LatencyRow:
    """A run's search times as the manifest has them (harness.engine.latency)."""

    name: str
    figures: dict | None  # the manifest's `latency`: queries, threads, qps, mean_ms, ...; None: none
    state: str  # harness.report.tables.latency_state: searched, reused, not searched, not recorded


# The latency table's columns after the run and its search (every format lays out the same cells).
LATENCY_COLUMNS = ("queries", "threads", "qps", "mean ms", "p50 ms", "p95 ms", "p99 ms", "index MB")
LATENCY_NOTE = (
    "Each query's search time, measured in the Java searcher on the thread that searched it: from "
    "the analysis of its text to its ranked, tie-adjusted hits (the Lucene search and, with "
    "expansion, the first search, the reranker and its second search inside); not the batch's "
    "wall time divided. qps: queries / the searcher's wall time for the batch on that many threads "
    "(under Dask each task searches on one thread and the tasks' walls are summed: one thread's "
    "rate). Percentiles: numpy's default (linear) method. A reused run shows the figures of the "
    "search that cached it, never its reading; runs from files, fusions and cross-validated runs "
    "were not searched."
)


def latency_search(row: LatencyRow) -> str:
    """The table's *search* cell: the row's state, and the batches when more than one."""
    batches = (row.figures or {}).get("batches", 1)
    return row.state + (f" ({batches} batches)" if batches > 1 else "")


def latency_cells(row: LatencyRow) -> list[str]:
    """The cells of :data:`LATENCY_COLUMNS` (empty without figures)."""
    f = row.figures
    if f is None:
        return [""] * len(LATENCY_COLUMNS)
    size = f.get("index_bytes")
    return [
        str(f["queries"]),
        str(f["threads"]),
        f"{f['qps']:.1f}",
        *(f"{f[k]:.2f}" for k in ("mean_ms", "p50_ms", "p95_ms", "p99_ms")),
        "" if size is None else f"{size / 1e6:.1f}",
    ]


@dataclass(frozen=True)
class ReportView:
    name: str
    facts: Facts
    warnings: tuple[str, ...]
    measures: tuple[str, ...]
    evaluated: bool  # False without qrels: runs only, no metrics
    summary: tuple[dict, ...]  # run -> means (None without qrels), grouped by family (summary.csv)
    means: tuple[MeanRow, ...]  # the same rows, formatted and marked
    marks: Marks
    tuned_runs: tuple[str, ...]  # the cross-validated runs (out-of-fold values)
    comparisons: Comparisons | None
    comparison_rows: tuple[dict, ...]
    row_kinds: tuple[str, ...]  # per comparison row: "better", "worse" (significant) or ""
    sweeps: tuple[SweepView, ...]
    # each measure's runs indistinguishable from the best (tables.shown_groups), as a sweep's rows
    groups: tuple[SweepRow, ...]
    anova: tuple[dict, ...]  # anova.csv's rows (tables.ANOVA_COLUMNS); empty when not asked for
    power: tuple[dict, ...]  # power.csv's rows (tables.POWER_FIELDS); empty when not asked for
    # "groups", "anova", "power": the sentence each table shown has under its heading; with a
    # many-system test, "comparisons" and "sweep" (tables.many_system_notes)
    notes: dict
    policy: dict  # the evaluation conventions
    stats_policy: dict | None
    coverage: dict  # run -> its audit counters
    evaluations: dict[str, Evaluation]  # by run (per-topic values; empty without qrels)
    runs: tuple[RunRow, ...]
    latency: tuple[LatencyRow, ...]  # one per run, in the runs' order
    checks: tuple[Check, ...]
    manifest: dict
    provenance: tuple[tuple[str, str], ...]  # the manifest's headline facts
    plots: tuple[PlotGroup, ...]  # headings, notes and charts (empty without qrels)
    explorer: ExplorerData | None  # gathered by harness.experiment.explore; None: not shown


def build_view(result: ExperimentResult, manifest: dict) -> ReportView:
    cfg = result.config
    files = result.run_files()
    stats = result.index.manifest.get("stats", {})
    facts = Facts(
        index_path=str(result.index.path),
        index_reused=result.index.reused,
        documents=stats.get("documents", "?"),
        unique_terms=stats.get("unique_terms", "?"),
        stemmer=cfg.stemmer,
        stopwords=cfg.stopwords,
        language=cfg.language,
        topics=len(result.topics),
        depth=cfg.depth,
        runs=len(result.runs),
        runs_reused=sum(r.reused for r in result.runs),
        not_indexed=not_indexed(result.index.manifest),
    )
    rows = summary_rows(result)
    marks = significance_marks(result)
    best = {m: max((r[m] for r in rows if r[m] is not None), default=None) for m in cfg.measure_names}
    means = tuple(
        MeanRow(
            run=r["run"],
            name=r["run"],
            cells=tuple(
                MeanCell(
                    fmt(r[m]),
                    tuple(marks.cells.get((r["run"], m), ())),
                    r[m] is not None and r[m] == best[m],
                )
                for m in cfg.measure_names
            ),
        )
        for r in rows
    )
    c = result.comparisons
    return ReportView(
        name=cfg.name,
        facts=facts,
        warnings=tuple(result.warnings),
        measures=cfg.measure_names,
        evaluated=bool(result.evaluations),
        summary=tuple(rows),
        means=means,
        marks=marks,
        tuned_runs=tuple(t.run for t in c.tuning) if c is not None else (),
        comparisons=c,
        comparison_rows=tuple(comparison_rows(result)),
        row_kinds=tuple((("better" if r.diff > 0 else "worse") if r.reject else "") for r in c.rows)
        if c is not None
        else (),
        sweeps=_sweeps(result),
        groups=tuple(
            SweepRow(g.measure, g.best, result.evaluations[g.best].means[g.measure], g.indistinguishable, len(g.runs))
            for g in shown_groups(result)
        ),
        anova=tuple(anova_rows(result)),
        power=tuple(power_rows(result)),
        notes=many_system_notes(result)
        | {
            k: note(result)
            for k, note, shown in (
                ("groups", groups_note, shown_groups(result)),
                ("anova", anova_note, c is not None and c.anova),
                ("power", power_note, c is not None and c.power),
            )
            if shown
        },
        policy=eval_policy(result),
        stats_policy=stats_policy(result),
        coverage=audit(result),
        evaluations=result.evaluations,
        runs=tuple(
            RunRow(r.name, f"runs/{files[r.name]}", len(r.run.topics()), r.seconds, r.reused) for r in result.runs
        ),
        latency=tuple(LatencyRow(e["name"], e.get("latency"), latency_state(e)) for e in manifest["runs"]),
        checks=tuple(result.checks),
        manifest=manifest,
        provenance=tuple(provenance_lines(manifest)),
        plots=tuple(plot_groups(result)) if result.evaluations else (),
        explorer=result.explorer,
    )


def _sweeps(result: ExperimentResult) -> tuple[SweepView, ...]:
    c = result.comparisons
    if c is None:
        return ()
    out = []
    for sw in c.sweeps:
        rows = []
        for m, keep in sw.not_worse.items():
            best = max(sw.runs, key=lambda n: result.evaluations[n].means[m])
            rows.append(SweepRow(m, best, result.evaluations[best].means[m], tuple(keep), len(sw.runs)))
        out.append(SweepView(sw.model, tuple(sw.varying), tuple(rows)))
    return tuple(out)


def removed(manifest: dict) -> str:
    """What the topics line adds when each query's own document was left out of its ranking
    (topics.remove_query), and nothing otherwise."""
    return ", each query's own document left out of its ranking" if manifest["topics"].get("remove_query") else ""


def provenance_lines(manifest: dict) -> list[tuple[str, str]]:
    """The manifest's headline facts, for the human-readable reports (the JSON has it all)."""
    v = manifest["versions"]
    lines = [
        ("config", f"{manifest['config']['path']} (sha256 {manifest['config']['sha256']})"),
        *(
            [("overrides", " ".join(manifest["config"]["overrides"]))]  # --set, --output: what varied the file
            if manifest["config"].get("overrides")
            else []
        ),
        ("versions", ", ".join(f"{k} {val}" for k, val in v.items() if k != "java_home")),
        (
            "index",
            f"{manifest['index']['path']} (fingerprint {manifest['index']['fingerprint']}, "
            f"{'reused' if manifest['index']['reused'] else 'built'})",
        ),
        (
            "topics",
            f"{manifest['topics']['path']} ({manifest['topics']['format']}, {manifest['topics']['count']} topics"
            f"{removed(manifest)})",
        ),
    ]
    if manifest["qrels"]:
        lines.append(("qrels", f"{manifest['qrels']['path']} (sha256 {manifest['qrels']['sha256']})"))
    for r in manifest["runs"]:
        source = r.get("source", {})
        made = (
            f"read from {source['file']}"
            if "file" in source
            else f"{source['fusion']['method']} fusion of {', '.join(source['fusion']['runs'])}"
            if "fusion" in source
            else "reused"
            if r["reused"]
            else "assembled from the folds' choices"
            if "cross_validated" in r
            else "searched"
        )
        spec = f"{r['spec']}; " if r.get("spec", r["name"]) != r["name"] else ""
        on = f"on {r['index']} (exact document lengths); " if r.get("index") else ""
        lines.append((f"run {r['name']}", f"{spec}{on}sha256 {r['sha256']} ({made})"))
    return lines
