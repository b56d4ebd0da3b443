"""The plots of report.html, chosen and styled from an ExperimentResult (:mod:`svg` draws them).

What a reader sees, and why:

* **Colours by model family.** Every run of one model (the similarity's model name, e.g. ``bm25``,
  ``dirichlet``; a cross-validated run ``dirichlet(cv:AP,...)`` belongs to ``dirichlet``, one of
  ``bm25+rm3`` to ``bm25``) shares one hue; its settings get shades of it, dark to light in config
  order (and dash patterns too beyond three settings); the cross-validated run is the family's darkest, thickest line. Legends
  list one column per family, each entry showing its setting only. New models get the next
  hue with no change here.
* **Precision-recall.** One chart with up to :data:`SINGLE_CHART_RUNS` runs; beyond that one panel
  per family (single-run families share an "other runs" panel), every panel with the baseline drawn
  as a grey dashed curve, and all panels on the same y scale so they compare.
* **Identical curves stay visible.** Runs with the same curve (two names of one run file, settings
  that rank alike) would draw one line exactly over the other, and a run would seem missing. The
  first keeps its line; each later one is dashed, its dashes offset so that every line of the
  group shows in turn along the curve (:func:`_show_identical`), and its legend entry says
  "identical to" the first. Dashes rather than a shifted line: an offset would draw precision
  values the run does not have.
* **Axes zoomed to the data.** Means and precision are drawn between round ticks just around the
  data, never beyond [0, 1], and at least :data:`MIN_SPAN` tall so a difference in the fourth
  decimal is not blown up to the plot's height.
* **Sweeps.** A one-parameter sweep is a line, with the baseline and the family's cross-validated
  run as dashed reference lines; a sweep of two parameters (a grid) is a heatmap of the means with
  the values printed in the cells, the best cell and the baseline outlined; a third varying
  parameter gives one heatmap per value of it.
* **Differences.** Per compared measure, every comparison as a dot (mean difference) with its
  bootstrap CI; a filled green or orange-red dot is significant after the p-values' correction
  (the same rows as the tables' green and red rows). The CIs are each comparison's own,
  *uncorrected* (as the tables' CI column says), so a whisker may miss 0 for a difference the
  corrected test does not call significant; the chart's title says so. Then one panel per pair
  with the per-topic differences of the first compared measure, each on its own scale,
  symmetric around 0.
* **Effectiveness against latency.** One dot per run with search times (harness.engine.latency):
  the config's first measure against the mean per-query search time, in the family colours; the
  x axis starts at 0, so distances compare as ratios. A reused run's dot is the search that cached
  it; runs never searched (files, fusions, cross-validated runs) have no dot. Drawn from two runs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from itertools import product
from typing import TYPE_CHECKING

from markupsafe import Markup

from harness.experiment.result import RECALL_LEVELS
from harness.policies import format_p
from harness.report.svg import (
    PALETTE,
    Series,
    axis_range,
    bar_chart,
    heatmap,
    interval_chart,
    line_chart,
    scatter_chart,
    shade,
    text_width,
)
from harness.specs.identity import RunSpec, Tuned
from harness.specs.params import format_value
from harness.specs.similarity import Similarity
from harness.specs.sweeps import sweeps as sweeps_of
from harness.stats import CORRECTIONS

if TYPE_CHECKING:  # a type only: rendering imports nothing that runs an experiment
    from harness.experiment.result import ExperimentResult

__all__ = [
    "plot_groups",
    "PlotGroup",
    "sweep_heatmaps",
    "run_models",
    "run_styles",
    "MAX_DIFF_PLOTS",
    "MAX_TOPIC_BARS",
    "MAX_INTERVAL_ROWS",
    "SINGLE_CHART_RUNS",
    "MIN_SPAN",
]

# Per-pair difference plots drawn at most (all-pairs over a large sweep would draw hundreds).
MAX_DIFF_PLOTS = 24
# Bars of one per-topic difference chart at most: beyond, a bar stands for consecutive topics of the
# sorted order (7,000 topics drew 7,000 bars with their texts in every panel: megabytes).
MAX_TOPIC_BARS = 300
MAX_TOPIC_BARS_IN_ALL = 2400  # over every per-topic panel of the page
# Rows of one confidence-interval chart at most.
MAX_INTERVAL_ROWS = 60
# Precision-recall curves drawn in one chart; more are split by model family.
SINGLE_CHART_RUNS = 8
# The smallest y span of a plot of means (measures lie in [0, 1]).
MIN_SPAN = 0.02
# Heatmaps of one sweep at most (one per setting of the parameters beyond the first two).
MAX_HEATMAPS = 12
# Family hues: the palette without its yellow (too light for thin lines on white).
_HUES = tuple(c for c in PALETTE if c != "#F0E442")
_DASHES = ("", "6 3", "2 3", "8 3 2 3")


def run_models(result: ExperimentResult) -> dict[str, str]:
    """Run name -> its model (the spec's: a similarity's model name, a cross-validated run's
    family's, ``file`` or ``fuse``)."""
    return {r.name: r.spec.model for r in result.runs}


def _setting(name: str, spec: RunSpec) -> str:
    """What a legend calls a run among its model's: its name after the model's ("k1=0.9
    b=0.4" of "bm25 k1=0.9 b=0.4"); for a name that is the model's alone, or the spec's
    text, the spec's parameters ("k1=0.9, b=0.4"); any other name whole.

    >>> _setting("bm25", Similarity.parse("bm25")), _setting("bm25 k1=1.2", Similarity.parse("bm25(k1=1.2)"))
    ('k1=0.9, b=0.4', 'k1=1.2')
    """
    if name.startswith(spec.model + " "):  # an automatic name: "bm25 k1=0.9 b=0.4"
        return name[len(spec.model) + 1 :]
    if name not in (spec.model, str(spec)):
        return name
    if isinstance(spec, Similarity) and spec.expansion is None:
        return ", ".join(f"{k}={format_value(v)}" for k, v in spec.values) or spec.model
    return str(spec)  # more than its model's parameters (an expansion's, a file's, a fusion's)


def _baseline(result: ExperimentResult) -> str | None:
    c = result.comparisons
    return c.baselines[0] if c is not None and c.baselines else None


def run_styles(result: ExperimentResult) -> dict[str, Series]:
    """Run name -> a :class:`Series` template (no data) with its colour, dash, width, legend label
    and group (the family), as described in the module's docstring."""
    models = run_models(result)
    specs = {r.name: r.spec for r in result.runs}
    tuned = {t.run for t in result.comparisons.tuning} if result.comparisons is not None else set()
    base = _baseline(result)
    styles = {}
    for k, model in enumerate(dict.fromkeys(models.values())):
        hue = _HUES[k % len(_HUES)]
        members = [n for n, m in models.items() if m == model]
        settings = [n for n in members if n not in tuned]
        for i, name in enumerate(settings):
            t = 0.0 if len(settings) == 1 else -0.4 + 0.85 * i / (len(settings) - 1)
            dash = _DASHES[i % len(_DASHES)] if len(settings) > 3 else ""
            label = _setting(name, specs[name]) + (" (baseline)" if name == base else "")
            styles[name] = Series(name, (), (), shade(hue, t), dash, 2.0, label, model)
        for name in members:
            spec = specs[name]
            if name in tuned and isinstance(spec, Tuned):
                label = f"cross-validated ({spec.measure}, {spec.folds} folds)"
                styles[name] = Series(name, (), (), shade(hue, -0.55), "", 3.5, label, model)
    return styles


def _styled(style: Series, xs, ys, **changes) -> Series:
    return dataclasses.replace(style, xs=list(xs), ys=list(ys), **changes)


# The dash of an identical curve (_show_identical), px: long enough to see each line's colour.
_IDENTICAL_DASH = 7


def _show_identical(series: list[Series]) -> list[Series]:
    """``series`` with each one whose points equal an earlier one's made visible over it: of n
    identical lines, the first stays as it is and the k-th later one (k = 1..n-1) is dashed with
    dashes of :data:`_IDENTICAL_DASH` px every n of them, offset by k dashes, so the n colours take
    turns along the curve; its legend label adds "(identical to FIRST)"."""
    groups: dict[tuple, list[int]] = {}
    for i, s in enumerate(series):
        groups.setdefault((tuple(s.xs), tuple(s.ys)), []).append(i)
    out = list(series)
    for members in groups.values():
        n, first = len(members), series[members[0]]
        for k, i in enumerate(members[1:], start=1):
            s = series[i]
            out[i] = dataclasses.replace(
                s,
                dash=f"{_IDENTICAL_DASH} {_IDENTICAL_DASH * (n - 1)}",
                dash_offset=_IDENTICAL_DASH * (n - k),  # drawn over [k, k+1) dashes of every n
                label=f"{s.label or s.name} (identical to {first.name})",
            )
    return out


def _pr_plots(result: ExperimentResult) -> list[Markup]:
    styles = run_styles(result)
    curves = result.pr_curves
    xs = list(RECALL_LEVELS)
    ticks = [(x, f"{x:.1f}") for x in RECALL_LEVELS]
    lo, hi, _ = axis_range([y for c in curves.values() for y in c], bounds=(0.0, 1.0), min_span=MIN_SPAN)

    def chart(title, series, width, height):  # every PR chart shares its axes and their range
        return line_chart(
            title,
            "recall",
            "precision",
            series,
            x_ticks=ticks,
            y_range=(lo, hi),
            bounds=(0.0, 1.0),
            width=width,
            height=height,
        )

    if len(curves) <= SINGLE_CHART_RUNS:
        grouped = len(set(run_models(result).values())) < len(curves)
        series = [
            _styled(styles[n], xs, c, **({} if grouped else {"label": n, "group": ""})) for n, c in curves.items()
        ]
        return [chart("Interpolated precision at recall", _show_identical(series), 640, 380)]
    models = run_models(result)
    panels: dict[str, list[str]] = {}
    for name, model in models.items():
        if name in curves:
            panels.setdefault(model, []).append(name)
    others = [n for names in panels.values() if len(names) == 1 for n in names]
    panels = {m: names for m, names in panels.items() if len(names) > 1}
    if others:
        panels["other runs"] = others
    base = _baseline(result)
    out = []
    for model, names in panels.items():
        series = [_styled(styles[n], xs, curves[n]) for n in names]
        if model == "other runs":
            series = [_styled(s, s.xs, s.ys, group="", label=s.name) for s in series]
        if base is not None and base not in names and base in curves:
            series.append(
                Series(f"{base} (baseline)", xs, curves[base], "#555", "6 4", 1.5, f"{base} (baseline)", "", False)
            )
        title = f"Interpolated precision at recall: {model} ({len(names)} runs)"
        out.append(chart(title, _show_identical(series), 580, 330))
    return out


def _swept(r, p: str):
    """A run's value of a swept setting (``rm3.fb_terms`` for an expansion's); "-" where the
    parameter does not apply to it (dfr's c beside a run with normalization h3)."""
    return r.settings.get(p, "-")


def _order(v) -> tuple:
    """Numbers in order, then named choices and "-" in text order."""
    return (True, str(v), 0.0) if isinstance(v, str) else (False, "", float(v))


def _sweep_plots(result: ExperimentResult, measures: list[str], flat: list[str] | None = None) -> list[Markup]:
    """Measure against parameter. A one-parameter sweep whose means are all equal (to the 4
    decimals shown) is not drawn: a flat line carries nothing, and ``flat`` gets a sentence saying
    so; one of two settings is drawn small (two points make a slope, not a curve)."""
    flat = [] if flat is None else flat
    base = _baseline(result)
    styles = run_styles(result)
    models = run_models(result)
    tuned = {t.model: t.run for t in result.comparisons.tuning} if result.comparisons is not None else {}
    out = []
    names = {r.name for r in result.runs}

    def name_of(spec: str) -> str:  # the config's runs are specs; the result's runs may go by names
        return spec if spec in names else result.config.name_of(spec)

    for m in measures:
        means = {n: ev.means[m] for n, ev in result.evaluations.items()}
        for model, group, varying in sweeps_of(result.config.runs):
            if not varying:
                continue
            if len(varying) == 1:
                xp = varying[0]
                pts = sorted(((_swept(r, xp), means[name_of(str(r))]) for r in group), key=lambda pt: _order(pt[0]))
                if len({f"{y:.4f}" for _, y in pts}) == 1:
                    flat.append(f"{m}: every {model} setting of {xp} scores {pts[0][1]:.4f}")
                    continue
                small = len(pts) <= 2
                line = _styled(
                    styles[name_of(str(group[0]))],
                    range(len(pts)),
                    [y for _, y in pts],
                    name=model,
                    label=model,
                    group="",
                )
                refs: list[tuple[str, float] | tuple[str, float, str]] = (
                    [(f"{base} (baseline)", means[base])] if base is not None and models.get(base) != model else []
                )
                if model in tuned and tuned[model] in means:
                    cv = styles[tuned[model]]
                    refs.append((cv.label, means[tuned[model]], cv.color))
                out.append(
                    line_chart(
                        f"{m}: {model} by {xp}",
                        xp,
                        m,
                        [line],
                        x_ticks=[(i, format_value(x)) for i, (x, _) in enumerate(pts)],
                        references=refs,
                        width=300 if small else 420,
                        height=200 if small else 260,
                        bounds=(0.0, 1.0),
                        min_span=MIN_SPAN,
                    )
                )
                continue
            notes = [f"baseline {base}: {means[base]:.4f}"] if base is not None and models.get(base) != model else []
            if model in tuned and tuned[model] in means:
                notes.append(f"{tuned[model]}: {means[tuned[model]]:.4f} (cross-validated: out-of-fold)")
            out += sweep_heatmaps(m, model, group, varying, means, base, notes, name=lambda r: name_of(str(r)))
    return out


def sweep_heatmaps(
    m: str, model: str, group, varying, means: dict, base: str | None, notes: list[str], name=str
) -> list[Markup]:
    """Heatmaps of measure ``m`` over the first two ``varying`` parameters of ``group`` (the runs of
    ``model``), one per combination of the others' values (at most :data:`MAX_HEATMAPS`); ``means``
    maps run names (``name(run)``) to means; the best cell and ``base`` are outlined; ``notes`` go
    under each."""
    xp, yp, rest = varying[0], varying[1], varying[2:]
    xv = sorted({_swept(r, xp) for r in group}, key=_order)
    yv = sorted({_swept(r, yp) for r in group}, key=_order)
    out = []
    for fixed in list(product(*(sorted({_swept(r, p) for r in group}, key=_order) for p in rest)))[:MAX_HEATMAPS]:
        runs = [r for r in group if all(_swept(r, p) == v for p, v in zip(rest, fixed))]
        cells = {
            (xv.index(_swept(r, xp)), yv.index(_swept(r, yp))): (means[name(r)], f"{name(r)}: {m} {means[name(r)]:.4f}")
            for r in runs
        }
        if not cells:
            continue
        best = max(runs, key=lambda r: means[name(r)])
        marks = {}
        for r in runs:
            tags = (["best"] if means[name(r)] == means[name(best)] else []) + (["baseline"] if name(r) == base else [])
            if tags:
                marks[(xv.index(_swept(r, xp)), yv.index(_swept(r, yp)))] = ", ".join(tags)
        extra = "".join(f", {p}={format_value(v)}" for p, v in zip(rest, fixed))
        out.append(
            heatmap(
                f"{m}: {model}, {xp} × {yp}{extra}",
                xp,
                yp,
                [format_value(v) for v in xv],
                [format_value(v) for v in yv],
                cells,
                m,
                marks,
                notes=notes,
            )
        )
    return out


def _interval_plots(result: ExperimentResult) -> list[Markup]:
    c = result.comparisons
    assert c is not None  # drawn only for a comparison (plot_groups)
    level = f"{c.policy.ci_level * 100:g}%"
    several = c.all_pairs or len(c.baselines) > 1
    out = []
    for m in c.measures:
        rows = []
        for r in (r for r in c.rows if r.measure == m):
            kind = _kind(r)
            label = f"{r.run} − {r.baseline}" if several else r.run
            tip = (
                f"{r.run} − {r.baseline}: {r.diff:+.4f}, {level} CI [{r.ci_low:+.4f}, {r.ci_high:+.4f}] (uncorrected), "
                f"p={format_p(r.p)}, corrected p={format_p(r.p_corrected)}{' (significant)' if r.reject else ''}"
            )
            rows.append((label, r.diff, r.ci_low, r.ci_high, kind, tip))
        if not rows:
            continue
        against = "" if several else f"run − {c.baselines[0]}, "
        widest = max(text_width(r[0]) for r in rows)
        out.append(
            interval_chart(
                f"{m}: {against}mean difference and {level} CI (uncorrected)",
                f"difference in {m}" + (" (run − baseline of each row)" if several else ""),
                rows[:MAX_INTERVAL_ROWS],
                width=round(min(1100, max(700, widest + 440))),
            )
        )
    return out


def _latency_plot(result: ExperimentResult) -> list[Markup]:
    """The config's first measure against each run's mean search time (ms), one dot per run
    with times; nothing under two such runs."""
    m = result.config.measure_names[0]  # as evaluations key their means
    styles = run_styles(result)
    points = []
    for r in result.runs:
        f = None if r.latency is None else r.latency.figures()
        if f is None or r.name not in result.evaluations:
            continue
        y = result.evaluations[r.name].means[m]
        tip = (
            f"{r.name}: {m} {y:.4f}; mean {f['mean_ms']:.2f} ms a query (p95 {f['p95_ms']:.2f} ms), "
            f"{f['qps']:.1f} queries/s on {f['threads']} thread{'s' if f['threads'] > 1 else ''}"
            + (" (reused: the search that cached it)" if r.reused else "")
        )
        points.append((_styled(styles[r.name], [f["mean_ms"]], [y]), tip))
    if len(points) < 2:
        return []
    title = f"{m} against mean search time per query"
    return [scatter_chart(title, "mean search time per query (ms)", m, points, bounds=(0.0, 1.0), min_span=MIN_SPAN)]


def _kind(row) -> str:
    """A comparison's dot in the interval charts: "better" or "worse" (significant, filled green or
    orange-red), "ns" (hollow grey)."""
    return ("better" if row.diff > 0 else "worse" if row.diff < 0 else "ns") if row.reject else "ns"


def _dots_legend(c) -> str:
    """What the interval charts' dots mean, saying only the kinds of dot drawn (as the means
    tables' legends: a "green better" for a chart without a green dot reads as a claim)."""
    kinds = {_kind(r) for r in c.rows}
    after = f"after the p-values' {CORRECTIONS[c.policy.correction]} (corrected p < {c.policy.alpha:g})"
    filled = [text for kind, text in (("better", "green better"), ("worse", "orange-red worse")) if kind in kinds]
    if not filled:
        return f"No difference is significant {after}: every dot is hollow grey."
    return f"Filled dots are significant {after}: {', '.join(filled)}" + (
        "; hollow grey dots are not." if "ns" in kinds else "."
    )


def _topic_plots(result: ExperimentResult) -> list[Markup]:
    c = result.comparisons
    assert c is not None  # drawn only for a comparison (plot_groups)
    m = c.measures[0]
    text = dict(result.topics)
    out = []
    pairs = c.pairs[:MAX_DIFF_PLOTS]
    most = topic_bars(len(c.topics), len(pairs))
    for base, run in pairs:
        b, r = result.evaluations[base].per_topic[m], result.evaluations[run].per_topic[m]
        diffs = sorted(((r[q] - b[q], q) for q in c.topics), key=lambda x: -x[0])
        if len(diffs) <= most:
            bars = [
                (q, d, f"topic {q}: {_short(text.get(q, ''))} | {run} {r[q]:.4f} vs {base} {b[q]:.4f} ({d:+.4f})")
                for d, q in diffs
            ]
        else:  # consecutive topics of the sorted order share a bar: their mean difference
            bars = []
            for k in range(most):
                lo, hi = k * len(diffs) // most, (k + 1) * len(diffs) // most
                part = [d for d, _ in diffs[lo:hi]]
                mean = sum(part) / len(part)
                tip = f"topics {lo + 1}–{hi} of {len(diffs)} by difference: {part[-1]:+.4f} to {part[0]:+.4f}, mean {mean:+.4f}"
                bars.append((f"{lo + 1}–{hi}", mean, tip))
        row = c.row(m, base, run)
        note = f" (p={format_p(row.p_corrected)} corrected{', significant' if row.reject else ''})" if row else ""
        out.append(bar_chart(f"{run} − {base}{note}", f"Δ {m}", bars, width=580, height=240, symmetric=True))
    return out


def topic_bars(topics: int, panels: int) -> int:
    """Bars of each per-topic panel: every topic, up to :data:`MAX_TOPIC_BARS` and
    :data:`MAX_TOPIC_BARS_IN_ALL` over all panels (at least 60 each)."""
    return min(topics, MAX_TOPIC_BARS, max(60, MAX_TOPIC_BARS_IN_ALL // max(panels, 1)))


def _short(text: str, most: int = 80) -> str:
    """A topic's text in a tooltip: at most ``most`` characters."""
    return text if len(text) <= most else text[: most - 1] + "…"


@dataclass(frozen=True)
class PlotGroup:
    """One group of charts of the Plots section: a heading (text), notes (markup) and the charts."""

    heading: str
    notes: tuple[Markup, ...]
    charts: tuple[Markup, ...]


def plot_groups(result: ExperimentResult) -> list[PlotGroup]:
    """The Plots section: precision-recall, measure against parameter, differences with CIs,
    per-topic differences, effectiveness against latency (each only when there is something to
    draw)."""
    cfg = result.config
    c = result.comparisons
    groups = [PlotGroup("Interpolated precision-recall (11 points, mean over topics)", (), tuple(_pr_plots(result)))]
    measures = list(c.measures) if c is not None else list(cfg.measure_names)
    flat: list[str] = []
    sweeps = _sweep_plots(result, measures, flat)
    # all-pairs compares each run with every later one: the later run minus the earlier, as the tables
    pair = "later − earlier run in config order" if c is not None and c.all_pairs else "run − baseline"
    if sweeps or flat:
        notes = [Markup("Not drawn, flat: {}.").format("; ".join(flat))] if flat else []
        groups.append(PlotGroup("Measure against parameter", tuple(notes), tuple(sweeps)))
    if c is not None and c.rows:
        notes = [
            Markup(
                "Dot: the mean difference ({}); whisker: its {}% percentile bootstrap CI on its own, <em>not</em> "
                "corrected for multiple comparisons. {} An uncorrected whisker may miss 0 for a difference that "
                "is not significant after correction."
            ).format(pair, f"{c.policy.ci_level * 100:g}", _dots_legend(c))
        ]
        if any(sum(r.measure == m for r in c.rows) > MAX_INTERVAL_ROWS for m in c.measures):
            notes.append(Markup("The first {} comparisons of each measure.").format(MAX_INTERVAL_ROWS))
        heading = f"Differences {'between runs' if c.all_pairs else 'against the baseline'}, with CIs"
        groups.append(PlotGroup(heading, tuple(notes), tuple(_interval_plots(result))))
    if c is not None and c.pairs:
        notes = [
            Markup("Each panel has its own scale, symmetric around 0: read the tick labels before comparing panels.")
        ]
        if len(c.pairs) > MAX_DIFF_PLOTS:
            notes.append(Markup("The first {} of {} pairs.").format(MAX_DIFF_PLOTS, len(c.pairs)))
        most = topic_bars(len(c.topics), min(len(c.pairs), MAX_DIFF_PLOTS))
        if len(c.topics) > most:
            notes.append(
                Markup(
                    "{} topics: each of the {} bars of a panel stands for consecutive topics in the sorted order "
                    "(their mean difference; hover for the range). Each topic's values are in "
                    "<code>per_topic.csv</code>."
                ).format(len(c.topics), most)
            )
        heading = f"Per-topic difference in {c.measures[0]} ({pair})"
        groups.append(PlotGroup(heading, tuple(notes), tuple(_topic_plots(result))))
    if cfg.measures and (latency := _latency_plot(result)):
        note = Markup(
            "Each dot a run: its {} against its mean search time per query, as the Java searcher measured it "
            "(see <em>Latency</em>; a reused run's from the search that cached it). Runs not searched (files, "
            "fusions, cross-validated runs) or cached without search times have no dot."
        ).format(cfg.measures[0])
        groups.append(PlotGroup("Effectiveness against latency", (note,), tuple(latency)))
    return groups
