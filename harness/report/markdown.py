"""summary.md: the report as Markdown tables, laid out from a :class:`~harness.report.view.ReportView`.

Cells from data go through :func:`md` (pipes escaped, no line breaks), so a run name or a warning
can never break a table.
"""

from __future__ import annotations

import io

from harness.policies import format_p
from harness.report.tables import anova_cells, fmt_d, power_cells, significance
from harness.report.view import LATENCY_COLUMNS, LATENCY_NOTE, ReportView, latency_cells, latency_search

__all__ = ["render", "md"]


def md(text) -> str:
    """A Markdown table cell: pipes escaped, no line breaks."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(view: ReportView) -> str:
    out = io.StringIO()
    w = out.write
    f = view.facts
    w(f"# {view.name}\n\n")
    w(
        f"Index `{f.index_path}` ({'reused' if f.index_reused else 'built'}; "
        f"{f.documents} documents, {f.unique_terms} unique terms; "
        + (
            f"stemmer {f.stemmer}, stopwords {'removed' if f.stopwords else 'kept'}"
            if f.language == "en"
            else f"language {f.language}"
        )
        + (f"; {md(f.not_indexed)}). " if f.not_indexed else "). ")
        + f"{f.topics} topics, depth {f.depth}.\n\n"
    )
    if view.warnings:
        w("## Warnings\n\n" + "".join(f"- {md(m)}\n" for m in view.warnings) + "\n")
    if view.evaluated:
        _means(view, w)
        if view.comparisons is not None:
            _comparisons(view, w)
        w("## Conventions\n\n")
        for k, v in view.policy.items():
            w(f"- {k}: {v}\n")
        if view.comparisons is not None:
            w(f"- statistics: {view.comparisons.policy}\n")
        w("\n## Coverage\n\n")
        keys = list(next(iter(view.coverage.values())))
        w("| run | " + " | ".join(keys) + " |\n")
        w("|---|" + "---:|" * len(keys) + "\n")
        for name, counts in view.coverage.items():
            w(f"| {md(name)} | " + " | ".join(str(v) for v in counts.values()) + " |\n")
        w("\n")
    else:
        w("No qrels in the config: runs only, no metrics.\n\n")
    w("## Runs\n\n| run | file | topics returned | seconds | reused |\n|---|---|---:|---:|---|\n")
    for r in view.runs:
        w(f"| {md(r.name)} | {md(r.file)} | {r.topics_returned} | {r.seconds:.2f} | {'yes' if r.reused else 'no'} |\n")
    _latency(view, w)
    if view.checks:
        w("\n## Expectations\n\n")
        for c in view.checks:
            w(f"- {c}\n")
    w("\n## Provenance\n\n")
    for k, v in view.provenance:
        w(f"- {k}: {md(v)}\n")
    return out.getvalue()


def _latency(view: ReportView, w) -> None:
    w(f"\n## Latency\n\n{LATENCY_NOTE}\n\n| run | search | {' | '.join(LATENCY_COLUMNS)} |\n")
    w("|---|---|" + "---:|" * len(LATENCY_COLUMNS) + "\n")
    for r in view.latency:
        w(f"| {md(r.name)} | {latency_search(r)} | " + " | ".join(latency_cells(r)) + " |\n")


def _means(view: ReportView, w) -> None:
    w("| run | " + " | ".join(view.measures) + " |\n")
    w("|---|" + "---:|" * len(view.measures) + "\n")
    for row in view.means:
        w(f"| {md(row.name)} | " + " | ".join(c.text + "".join(c.marks) for c in row.cells) + " |\n")
    w("\n")
    for sym, meaning in view.marks.legend:
        w(f"{sym}: {md(meaning)}  \n")
    if view.tuned_runs:
        w(
            f"{md(', '.join(view.tuned_runs))}: cross-validated, so out-of-fold: each topic is scored by the "
            "setting chosen on the other folds (see *Sweeps and tuning*).  \n"
        )
    if view.marks.legend or view.tuned_runs:
        w("\n")


def _comparisons(view: ReportView, w) -> None:
    c = view.comparisons
    assert c is not None  # written only for a comparison
    level = f"{c.policy.ci_level * 100:g}%"
    w(
        f"## Comparisons\n\n{c.policy}. {len(c.topics)} topics, paired. "
        f"*significant*: the run is significantly better (▲) or worse (▼) than the baseline "
        f"(corrected p < {c.policy.alpha:g}); "
        "W/T/L: topics where the run wins, ties, loses against the baseline. The CI is each difference's own "
        "percentile bootstrap interval, not corrected for multiple comparisons."
        + (f" {view.notes['comparisons']}" if "comparisons" in view.notes else "")
        + "\n\n"
    )
    w(
        f"| measure | baseline | run | baseline mean | run mean | diff | {level} CI (uncorrected) | d | p | "
        "corrected p | significant | W/T/L |\n"
    )
    w("|---|---|---|---:|---:|---:|---|---:|---:|---:|---|---|\n")
    for r in c.rows:
        w(
            f"| {md(r.measure)} | {md(r.baseline)} | {md(r.run)} | {r.mean_baseline:.4f} | {r.mean_run:.4f} | "
            f"{r.diff:+.4f} | [{r.ci_low:+.4f}, {r.ci_high:+.4f}] | {fmt_d(r.effect_size)} | {format_p(r.p)} | "
            f"{format_p(r.p_corrected)} | {significance(r)} | {r.wins}/{r.ties}/{r.losses} |\n"
        )
    w("\n")
    _many(view, w)
    for sw in view.sweeps:
        w(f"### Sweep: {md(sw.model)} ({', '.join(sw.varying)})\n\n")
        how = view.notes.get(
            "sweep",
            "each tested against the best (two-sided; the best has the highest mean, so a significant difference "
            "means worse), corrected together",
        )
        w(
            f"Settings not significantly different from the best (by mean): {how}:\n\n"
            "| measure | best | not significantly different |\n|---|---|---|\n"
        )
        for row in sw.rows:
            w(f"| {md(row.measure)} | {md(row.best)} | {md(', '.join(row.kept))} |\n")
        w("\n")
    for t in c.tuning:
        w(f"### Cross-validated {md(t.model)} on {md(t.measure)} ({len(t.folds)} folds): run {md(t.run)}\n\n")
        w(
            "| fold | test topics | chosen on the other folds | train mean | held-out mean |\n|---:|---:|---|---:|---:|\n"
        )
        for f in t.folds:
            w(f"| {f.index + 1} | {len(f.test_topics)} | {md(f.chosen)} | {f.train_mean:.4f} | {f.test_mean:.4f} |\n")
        w(
            f"\nHeld-out {md(t.measure)}: **{t.heldout_mean:.4f}** (the best fixed setting on all topics, "
            f"{md(t.best_fixed)}, scores {t.best_fixed_mean:.4f} by tuning on the test topics). "
            f"The run {md(t.run)} answers each fold's topics with that fold's choice: its values in every "
            "table are out-of-fold (each topic scored by a setting chosen without it), and it is compared "
            "like any other run.\n\n"
        )


def _many(view: ReportView, w) -> None:
    """The groups, ANOVA and power tables, each when the report has it."""
    if view.groups:
        w(f"### Indistinguishable from the best\n\n{md(view.notes['groups'])}\n\n")
        w("| measure | best | mean | indistinguishable from the best |\n|---|---|---:|---|\n")
        for g in view.groups:
            w(
                f"| {md(g.measure)} | {md(g.best)} | {g.best_mean:.4f} | {md(', '.join(g.kept))} ({len(g.kept)} of {g.total}) |\n"
            )
        w("\n")
    if view.anova:
        w(f"### Two-way ANOVA (system x topic)\n\n{md(view.notes['anova'])}\n\n")
        w("| measure | source | df | sum of squares | mean square | F | p |\n|---|---|---:|---:|---:|---:|---:|\n")
        for row in view.anova:
            w("| " + " | ".join(md(c) for c in anova_cells(row)) + " |\n")
        w("\n")
    if view.power:
        w(f"### Power and topic set size\n\n{md(view.notes['power'])}\n\n")
        w(
            "| measure | baseline | run | topics | sd | detectable difference | topics needed |\n"
            "|---|---|---|---:|---:|---:|---:|\n"
        )
        for row in view.power:
            w("| " + " | ".join(md(c) for c in power_cells(row)) + " |\n")
        w("\n")
