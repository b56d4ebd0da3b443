"""Plots as inline SVG text: no plotting library, no scripts, no external references.

Every text taken from data (run names, topic ids, query text) goes through ``markupsafe.escape``
(Jinja2's own escaper, quotes included), and every chart is returned as ``markupsafe.Markup``: a
``str`` that the report's templates insert as it is, without escaping it twice. The ``<svg>`` element has no
``xmlns``: inline SVG in HTML needs none (and the page stays free of URLs). There are no ``id``
attributes either (several plots share one page), so no gradients or markers by reference.

Axes are zoomed to the data (:func:`axis_range`) with round ticks (:func:`nice_ticks`); legends
are laid out from an estimate of the text's width (:func:`text_width`) so entries never overlap,
and a legend may be grouped in columns (one per model family). Chart kinds: :func:`line_chart`,
:func:`bar_chart` (per-topic differences), :func:`heatmap` (a two-parameter grid),
:func:`interval_chart` (differences with confidence intervals), :func:`scatter_chart` (one dot per
run: effectiveness against latency), :func:`forest_chart` (a meta-analysis: each collection's
effect and interval, then the pooled estimates).

    >>> svg = line_chart("t", "x", "y", [("a<b", [0, 1], [0.5, 0.25])])
    >>> svg.startswith("<svg") and "a&lt;b" in svg and "a<b" not in svg
    True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

__all__ = [
    "PALETTE",
    "Series",
    "line_chart",
    "bar_chart",
    "heatmap",
    "interval_chart",
    "scatter_chart",
    "forest_chart",
    "nice_ticks",
    "axis_range",
    "text_width",
    "shade",
]

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
BETTER, WORSE, NEUTRAL = "#009E73", "#D55E00", "#888888"
_FONT = 'font-family="sans-serif"'
# After the palette's colours are used up, lines repeat them with these dash patterns.
_DASHES = ("", "6 3", "2 3", "8 3 2 3")


@dataclass(frozen=True)
class Series:
    """One line of a :func:`line_chart`: ``name`` is the full name (tooltips), ``label`` the
    legend text (default: the name), ``group`` the legend column it is listed under; ``dash``
    an SVG dash pattern, begun ``dash_offset`` into it (the legend's sample begins at 0)."""

    name: str
    xs: Sequence[float]
    ys: Sequence[float]
    color: str = PALETTE[0]
    dash: str = ""
    width: float = 2.0
    label: str = ""
    group: str = ""
    markers: bool = True
    dash_offset: float = 0.0


def _style(i: int) -> tuple[str, str]:
    """(colour, dash pattern) of series i when the caller gives no styles."""
    return PALETTE[i % len(PALETTE)], _DASHES[(i // len(PALETTE)) % len(_DASHES)]


def _num(x: float) -> str:
    """A number in full precision for a data-* attribute (numpy scalars too): repr of the float."""
    return repr(float(x))


def shade(color: str, t: float) -> str:
    """``color`` mixed with white (t > 0) or black (t < 0) by |t|.

    >>> shade("#0072B2", 0.0), shade("#0072B2", 1.0), shade("#0072B2", -1.0)
    ('#0072b2', '#ffffff', '#000000')
    """
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    target = 255 if t > 0 else 0
    mixed = [round(c + (target - c) * abs(t)) for c in rgb]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def text_width(text: str, size: float = 11) -> float:
    """A generous estimate of the width of ``text`` in a sans-serif font of ``size`` px: wide
    enough for DejaVu Sans / Liberation Sans (Debian's defaults), so laid-out texts never overlap.

    >>> text_width("bm25(k1=0.9,b=0.4)") > text_width("b=0.4")
    True
    """
    narrow = sum(c in "il.,:;'|!()[]1 tfjr" for c in text)
    wide = sum(c in "mwMW@%" for c in text)
    return size * (0.64 * (len(text) - narrow - wide) + 0.36 * narrow + 0.92 * wide)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high]: the first is <= low, the last >= high.

    >>> nice_ticks(0.0, 1.0)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> nice_ticks(0.812, 0.831)
    [0.81, 0.815, 0.82, 0.825, 0.83, 0.835]
    """
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        high = low + 1.0
    raw = (high - low) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw * (1 - 1e-9))
    first = math.floor(low / step + 1e-9) * step
    ticks, k = [], 0
    while True:
        t = round(first + k * step, 12)
        ticks.append(t)
        if t >= high - step * 1e-9:
            return ticks
        k += 1


def axis_range(
    values: Sequence[float],
    bounds: tuple[float, float] | None = None,
    min_span: float = 0.0,
    pad: float = 0.06,
    include: Sequence[float] = (),
) -> tuple[float, float, list[float]]:
    """(low, high, ticks) of an axis zoomed to ``values``: the data's range plus ``pad`` of it on
    each side, at least ``min_span`` wide (so differences in the fourth decimal are not blown up to
    the plot's full height), kept inside ``bounds`` (a measure never drawn below 0 or above 1), and
    widened to round ticks. ``include`` values (0 for differences) are always inside.

    >>> axis_range([0.7857, 0.7886], bounds=(0, 1), min_span=0.02)[2]
    [0.775, 0.78, 0.785, 0.79, 0.795, 0.8]
    >>> axis_range([1.0, 1.0], bounds=(0, 1), min_span=0.02)[2]
    [0.98, 0.985, 0.99, 0.995, 1.0]
    """
    vals = [v for v in (*values, *include) if math.isfinite(v)] or [0.0, 1.0]
    lo, hi = min(vals), max(vals)
    span = hi - lo
    lo, hi = lo - span * pad, hi + span * pad
    if hi - lo < min_span:
        mid = (lo + hi) / 2
        lo, hi = mid - min_span / 2, mid + min_span / 2
    if hi - lo <= 0:
        lo, hi = lo - 0.5, hi + 0.5
    if bounds is not None:
        width = hi - lo
        if lo < bounds[0]:
            lo, hi = bounds[0], max(hi, min(bounds[1], bounds[0] + width))
        if hi > bounds[1]:
            lo, hi = min(lo, max(bounds[0], bounds[1] - width)), bounds[1]
    ticks = nice_ticks(lo, hi)
    if bounds is not None:  # a tick beyond a bound (1.05 for a measure) is never needed: clip it
        ticks = [t for t in ticks if bounds[0] - 1e-12 <= t <= bounds[1] + 1e-12]
        if ticks[0] > lo + 1e-12:
            ticks.insert(0, lo)
        if ticks[-1] < hi - 1e-12:
            ticks.append(hi)
    return min(lo, ticks[0]), max(hi, ticks[-1]), ticks


def _tick_text(v: float) -> str:
    """A tick label; values that round to zero print as "0", never "-0".

    >>> _tick_text(-1e-17), _tick_text(-0.0), _tick_text(0.25)
    ('0', '0', '0.25')
    """
    text = f"{v:.4g}"
    return "0" if abs(v) < 1e-12 or float(text) == 0 else text


class _Frame:
    """Plot area geometry and the axes, shared by the chart kinds."""

    def __init__(self, width: float, height: float, left=58, right=16, top=30, bottom=46, extra: float = 0):
        self.width, self.height = width, height + extra
        self.x0, self.x1 = left, width - right
        self.y0, self.y1 = height - bottom, top  # y0: bottom of the plot area

    def open(self, title: str, desc: str, kind: str) -> list[str]:
        # a long title is drawn smaller (down to 10 px), then cut; the <title> keeps it whole
        size = 13
        while size > 10 and text_width(title, size) * 1.08 > self.width - 8:
            size -= 1
        return [
            f'<svg class="chart {kind}" width="{self.width:.0f}" height="{self.height:.0f}" '
            f'viewBox="0 0 {self.width:.0f} {self.height:.0f}" role="img" aria-label="{escape(title)}">',
            f"<title>{escape(title)}</title><desc>{escape(desc)}</desc>",
            f'<text class="chart-title" x="{self.width / 2:.1f}" y="18" text-anchor="middle" font-size="{size}" '
            f'font-weight="bold" {_FONT}>{escape(_fit(title, (self.width - 8) / 1.08, size))}</text>',
        ]

    def y_axis(self, ticks: Sequence[float], ymap, label: str, lo: float, hi: float) -> list[str]:
        # data-y-min/max: the axis's value range, for tests and for readers of the markup
        out = [f'<g class="y-axis" data-y-min="{_num(lo)}" data-y-max="{_num(hi)}">']
        for t in ticks:
            y = ymap(t)
            out.append(f'<line x1="{self.x0}" y1="{y:.1f}" x2="{self.x1}" y2="{y:.1f}" stroke="#ddd"/>')
            out.append(
                f'<text class="tick" x="{self.x0 - 5}" y="{y + 4:.1f}" text-anchor="end" font-size="10" '
                f"{_FONT}>{escape(_tick_text(t))}</text>"
            )
        cy = (self.y0 + self.y1) / 2
        out.append(
            f'<text x="14" y="{cy:.1f}" text-anchor="middle" font-size="11" {_FONT} '
            f'transform="rotate(-90 14 {cy:.1f})">{escape(label)}</text>'
        )
        out.append(f'<line x1="{self.x0}" y1="{self.y0}" x2="{self.x0}" y2="{self.y1}" stroke="#333"/></g>')
        return out

    def x_label(self, label: str, dy: float = 32) -> str:
        return (
            f'<text x="{(self.x0 + self.x1) / 2:.1f}" y="{self.y0 + dy}" text-anchor="middle" '
            f'font-size="11" {_FONT}>{escape(label)}</text>'
        )


def _estimate_axis(f: _Frame, lo: float, hi: float, ticks, xmap) -> list[str]:
    """The x axis of a chart of estimates and their intervals (the interval and forest charts):
    a vertical grid line at each tick, darker at 0 (no difference), its value below the plot."""
    out = [f'<g class="x-axis" data-x-min="{_num(lo)}" data-x-max="{_num(hi)}">']
    for t in ticks:
        px = xmap(t)
        stroke = "#333" if t == 0 else "#ddd"
        out.append(f'<line x1="{px:.1f}" y1="{f.y1}" x2="{px:.1f}" y2="{f.y0}" stroke="{stroke}"/>')
        out.append(
            f'<text x="{px:.1f}" y="{f.y0 + 14}" text-anchor="middle" font-size="10" {_FONT}>{escape(_tick_text(t))}</text>'
        )
    out.append("</g>")
    return out


def _fit(text: str, width: float, size: float = 11) -> str:
    """``text`` cut with an ellipsis to fit ``width`` (the full text stays in a tooltip)."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text + "…"


@dataclass(frozen=True)
class _Entry:
    label: str
    title: str
    color: str
    dash: str
    width: float
    group: str


def _legend_layout(entries: Sequence[_Entry], width: float) -> tuple[list[tuple[float, float, _Entry | str]], float]:
    """Positions (x, baseline y relative to the legend's top, entry or group header) and the
    legend's height. Grouped entries: one column per group (its name on top), columns flowing left
    to right and wrapping onto a new band. Ungrouped: as many equal columns as the widest label
    allows, filled row by row."""
    row = 16
    swatch = 24
    gap = 14
    groups = list(dict.fromkeys(e.group for e in entries))
    placed: list[tuple[float, float, _Entry | str]] = []
    if groups == [""]:
        colw = min(max(swatch + text_width(e.label) for e in entries) + gap, width)
        cols = max(1, int(width // colw))
        for i, e in enumerate(entries):
            placed.append(((i % cols) * colw, row * (i // cols + 1), e))
        return placed, row * ((len(entries) + cols - 1) // cols) + 6
    x = band_top = band_h = 0.0
    for g in groups:
        members = [e for e in entries if e.group == g]
        colw = min(max(swatch + text_width(e.label) for e in members) + gap, width)
        # a long group is split into sub-columns (at most 5 rows each) where the width allows
        sub = max(1, min((len(members) + 4) // 5, int(width // colw)))
        rows = (len(members) + sub - 1) // sub
        blockw = max(colw * sub, text_width(g, 11) + gap)
        if x > 0 and x + blockw > width:
            x, band_top, band_h = 0.0, band_top + band_h + 4, 0.0
        placed.append((x, band_top + row, g))
        for k, e in enumerate(members):
            placed.append((x + colw * (k // rows), band_top + row * (k % rows + 2), e))
        band_h = max(band_h, row * (rows + 1))
        x += blockw
    return placed, band_top + band_h + 6


def _legend(placed, left: float, top: float, width: float) -> list[str]:
    out = ['<g class="legend">']
    for x, y, item in placed:
        px, py = left + x, top + y
        if isinstance(item, str):
            if item:
                out.append(
                    f'<text class="legend-group" x="{px:.1f}" y="{py:.1f}" font-size="11" font-weight="bold" '
                    f"{_FONT}>{escape(item)}</text>"
                )
            continue
        dash = f' stroke-dasharray="{item.dash}"' if item.dash else ""
        out.append(
            f'<g class="legend-entry"><title>{escape(item.title)}</title>'
            f'<line x1="{px:.1f}" y1="{py - 4:.1f}" x2="{px + 18:.1f}" y2="{py - 4:.1f}" stroke="{item.color}" '
            f'stroke-width="{item.width:g}"{dash}/>'
            f'<text x="{px + 24:.1f}" y="{py:.1f}" font-size="11" {_FONT}>'
            f"{escape(_fit(item.label, width - x - 24))}</text></g>"
        )
    out.append("</g>")
    return out


def line_chart(
    title: str,
    x_label: str,
    y_label: str,
    series: Sequence[Series | tuple[str, Sequence[float], Sequence[float]]],
    x_ticks: Sequence[tuple[float, str]] | None = None,
    references: Sequence[tuple[str, float] | tuple[str, float, str]] = (),
    width: int = 560,
    height: int = 340,
    y_range: tuple[float, float] | None = None,
    bounds: tuple[float, float] | None = None,
    min_span: float = 0.0,
) -> Markup:
    """Lines with markers; ``series`` are :class:`Series` or (name, xs, ys) tuples (styled from
    the palette). ``x_ticks`` are (x, label) pairs (default: nice ticks); ``references`` are (name,
    y) or (name, y, colour) drawn as dashed horizontal lines (grey by default). The y axis is zoomed to the data and the references
    (:func:`axis_range` with ``bounds`` and ``min_span``) unless ``y_range`` fixes it. A legend
    lists every series under the plot, grouped in columns by :attr:`Series.group`."""
    lines = [s if isinstance(s, Series) else Series(s[0], s[1], s[2], *_style(i)) for i, s in enumerate(series)]
    entries = [_Entry(s.label or s.name, s.name, s.color, s.dash, s.width, s.group) for s in lines]
    refs = [(r[0], r[1], r[2] if len(r) > 2 else "#555") for r in references]
    entries += [_Entry(name, f"{name}: {y:.4f}", color, "6 4", 1.5, "") for name, y, color in refs]
    if any(e.group for e in entries):  # ungrouped entries (the references) go into a column of their own
        entries = [_Entry(e.label, e.title, e.color, e.dash, e.width, e.group or "reference") for e in entries]
    placed, legend_h = _legend_layout(entries, width - 58 - 16) if entries else ([], 0)
    f = _Frame(width, height, extra=legend_h)
    xs_all = [x for s in lines for x in s.xs] or [0.0, 1.0]
    ys_all = [y for s in lines for y in s.ys] + [r[1] for r in refs]
    xlo, xhi = min(xs_all), max(xs_all)
    if x_ticks:
        xlo, xhi = min(xlo, min(t for t, _ in x_ticks)), max(xhi, max(t for t, _ in x_ticks))
    if xhi == xlo:
        xlo, xhi = xlo - 0.5, xhi + 0.5
    if y_range:  # a range fixed by the caller (panels sharing one scale), widened to round ticks
        ylo, yhi, yt = axis_range(list(y_range), bounds=bounds, pad=0.0)
    else:
        ylo, yhi, yt = axis_range(ys_all, bounds=bounds, min_span=min_span)
    xmap = lambda x: f.x0 + 10 + (x - xlo) / (xhi - xlo) * (f.x1 - f.x0 - 20)  # noqa: E731
    ymap = lambda y: f.y0 - (y - ylo) / (yhi - ylo) * (f.y0 - f.y1)  # noqa: E731
    out = f.open(title, f"{y_label} against {x_label}: " + "; ".join(e.title for e in entries), "line-chart")
    out += f.y_axis(yt, ymap, y_label, ylo, yhi)
    out.append(f'<line x1="{f.x0}" y1="{f.y0}" x2="{f.x1}" y2="{f.y0}" stroke="#333"/>')
    for x, text in x_ticks or [(t, _tick_text(t)) for t in nice_ticks(xlo, xhi) if xlo <= t <= xhi]:
        px = xmap(x)
        out.append(f'<line x1="{px:.1f}" y1="{f.y0}" x2="{px:.1f}" y2="{f.y0 + 4}" stroke="#333"/>')
        out.append(
            f'<text x="{px:.1f}" y="{f.y0 + 16}" text-anchor="middle" font-size="10" {_FONT}>{escape(text)}</text>'
        )
    out.append(f.x_label(x_label))
    for name, y, color in refs:
        py = ymap(y)
        out.append(
            f'<line class="reference" x1="{f.x0}" y1="{py:.1f}" x2="{f.x1}" y2="{py:.1f}" stroke="{color}" '
            f'stroke-width="1.5" stroke-dasharray="6 4"><title>{escape(name)}: {escape(f"{y:.4f}")}</title></line>'
        )
    x_names = dict(x_ticks or ())
    for s in lines:
        pts = [(xmap(x), ymap(y), x, y) for x, y in zip(s.xs, s.ys) if math.isfinite(y)]
        dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
        dash += f' stroke-dashoffset="{s.dash_offset:g}"' if s.dash and s.dash_offset else ""
        out.append(
            f'<polyline fill="none" stroke="{s.color}" stroke-width="{s.width:g}"{dash} points="'
            + " ".join(f"{px:.1f},{py:.1f}" for px, py, _, _ in pts)
            + f'"><title>{escape(s.name)}</title></polyline>'
        )
        if s.markers:
            for px, py, x, y in pts:
                out.append(
                    f'<circle cx="{px:.1f}" cy="{py:.1f}" r="2.6" fill="{s.color}">'
                    f"<title>{escape(s.name)}: {escape(x_names.get(x, _tick_text(x)))} → {escape(f'{y:.4f}')}</title></circle>"
                )
    out += _legend(placed, f.x0, f.y0 + 40, f.x1 - f.x0)
    out.append("</svg>")
    return Markup("\n".join(out))


def bar_chart(
    title: str,
    y_label: str,
    bars: Sequence[tuple[str, float, str]],
    width: int = 560,
    height: int = 260,
    x_label: str = "",
    symmetric: bool = False,
) -> Markup:
    """Vertical bars around 0, in the given order; ``bars`` are (label, value, tooltip). The y axis
    is this chart's own, zoomed to its values (``symmetric``: the same extent above and below 0, so
    gains and losses compare at a glance). Labels are drawn under the bars when they fit; every bar
    carries its tooltip as an SVG ``<title>``. Positive bars are green, negative ones orange-red."""
    f = _Frame(width, height)
    vals = [v for _, v, _ in bars if math.isfinite(v)] or [0.0]
    top = max(abs(v) for v in vals)
    if top == 0:
        lo, hi, yt = -1.0, 1.0, [-1.0, 0.0, 1.0]
    elif symmetric:
        yt = nice_ticks(0.0, top, count=3)
        yt = [-t for t in reversed(yt[1:])] + yt
        hi = max(yt[-1], top)  # the last tick may be a rounding error below the largest bar
        lo = -hi
    else:
        lo, hi, yt = axis_range(vals, include=[0.0], pad=0.0)
    ymap = lambda y: f.y0 - (y - lo) / (hi - lo) * (f.y0 - f.y1)  # noqa: E731
    out = f.open(title, f"{y_label}, one bar per topic ({len(bars)} topics)", "bar-chart")
    out += f.y_axis([] if top == 0 else yt, ymap, y_label, lo, hi)
    n = max(len(bars), 1)
    slot = (f.x1 - f.x0) / n
    gap = slot * 0.15 if slot > 3 else 0.0
    zero = ymap(0.0)
    for i, (_label, v, tip) in enumerate(bars):
        x = f.x0 + i * slot + gap / 2
        y_top, bottom = (ymap(v), zero) if v >= 0 else (zero, ymap(v))
        color = BETTER if v > 0 else (WORSE if v < 0 else "#999")
        h = max(bottom - y_top, 0.8 if v == 0 else 0.0)
        out.append(
            f'<rect class="bar" x="{x:.2f}" y="{y_top:.2f}" width="{max(slot - gap, 0.5):.2f}" height="{h:.2f}" '
            f'fill="{color}" data-value="{_num(v)}"><title>{escape(tip)}</title></rect>'
        )
    out.append(f'<line x1="{f.x0}" y1="{zero:.1f}" x2="{f.x1}" y2="{zero:.1f}" stroke="#333"/>')
    if top == 0:
        out.append(
            f'<text x="{(f.x0 + f.x1) / 2:.1f}" y="{zero - 8:.1f}" text-anchor="middle" font-size="11" '
            f'fill="#555" {_FONT}>no difference on any topic</text>'
        )
    if slot >= 14:
        for i, (label, _, _) in enumerate(bars):
            cx = f.x0 + (i + 0.5) * slot
            out.append(
                f'<text x="{cx:.1f}" y="{f.y0 + 14}" text-anchor="middle" font-size="9" {_FONT}>'
                f"{escape(_fit(label, slot, 9))}</text>"
            )
    out.append(f.x_label(x_label or f"topics, sorted by difference ({len(bars)}; hover a bar for its topic)"))
    out.append("</svg>")
    return Markup("\n".join(out))


def _ramp(t: float) -> str:
    """Sequential colour for t in [0, 1]: light (low) to dark blue (high), ColorBrewer Blues ends."""
    lo, hi = (239, 243, 255), (8, 69, 148)
    return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(lo, hi))


def heatmap(
    title: str,
    x_label: str,
    y_label: str,
    x_values: Sequence[str],
    y_values: Sequence[str],
    cells: dict[tuple[int, int], tuple[float, str]],
    measure: str,
    marks: dict[tuple[int, int], str] | None = None,
    cell: int = 76,
    notes: Sequence[str] = (),
) -> Markup:
    """A grid of cells, column i = ``x_values[i]``, row j = ``y_values[j]`` (top row first); ``cells``
    maps (i, j) to (value, tooltip); each cell is coloured by its value on this chart's own scale
    (light = lowest, dark = highest, the scale drawn beside) with the value printed in it to 4
    decimals. Missing cells are grey. ``marks`` adds a short text under a cell's value ("best",
    "baseline") and outlines it. ``notes`` are lines of text under the chart (related values)."""
    marks = marks or {}
    vals = [v for v, _ in cells.values() if math.isfinite(v)]
    vlo, vhi = (min(vals), max(vals)) if vals else (0.0, 1.0)
    left = 28 + max([text_width(v, 10) for v in y_values] + [0]) + 8
    gw, gh = cell * len(x_values), cell * 0.58 * len(y_values)
    ch = gh / max(len(y_values), 1)
    width = max([left + gw + 90, text_width(title, 13) + 20] + [text_width(n, 10) + 20 for n in notes])
    f = _Frame(width, 30 + gh + 46, left=left, right=width - left - gw, top=30, bottom=46, extra=14 * len(notes))
    out = f.open(title, f"{measure} for each {x_label} (columns) and {y_label} (rows)", "heatmap")
    out.append(f'<g class="cells" data-rows="{len(y_values)}" data-cols="{len(x_values)}">')
    for j in range(len(y_values)):
        for i in range(len(x_values)):
            x, y = f.x0 + i * cell, f.y1 + j * ch
            if (i, j) not in cells:
                out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell}" height="{ch:.1f}" fill="#e6e6e6"/>')
                continue
            v, tip = cells[(i, j)]
            t = 0.5 if vhi == vlo else (v - vlo) / (vhi - vlo)
            fill, ink = _ramp(0.1 + 0.8 * t), ("#fff" if t > 0.55 else "#111")
            mark = marks.get((i, j), "")
            edge = ' stroke="#D55E00" stroke-width="3"' if mark else ' stroke="#fff" stroke-width="1"'
            cy = y + ch / 2 + (0 if mark else 4)
            out.append(
                f'<g class="cell" data-col="{i}" data-row="{j}"><title>{escape(tip)}</title>'
                f'<rect x="{x + 1:.1f}" y="{y + 1:.1f}" width="{cell - 2}" height="{ch - 2:.1f}" fill="{fill}"{edge}/>'
                f'<text class="value" x="{x + cell / 2:.1f}" y="{cy:.1f}" text-anchor="middle" font-size="11" '
                f'fill="{ink}" {_FONT}>{v:.4f}</text>'
                + (
                    f'<text x="{x + cell / 2:.1f}" y="{cy + 12:.1f}" text-anchor="middle" font-size="9" '
                    f'fill="{ink}" {_FONT}>{escape(mark)}</text>'
                    if mark
                    else ""
                )
                + "</g>"
            )
    out.append("</g>")
    for i, label in enumerate(x_values):
        out.append(
            f'<text class="x-value" x="{f.x0 + (i + 0.5) * cell:.1f}" y="{f.y0 + 14}" text-anchor="middle" '
            f'font-size="10" {_FONT}>{escape(label)}</text>'
        )
    for j, label in enumerate(y_values):
        out.append(
            f'<text class="y-value" x="{f.x0 - 5:.1f}" y="{f.y1 + (j + 0.5) * ch + 4:.1f}" text-anchor="end" '
            f'font-size="10" {_FONT}>{escape(label)}</text>'
        )
    cy = (f.y0 + f.y1) / 2
    out.append(
        f'<text x="14" y="{cy:.1f}" text-anchor="middle" font-size="11" {_FONT} '
        f'transform="rotate(-90 14 {cy:.1f})">{escape(y_label)}</text>'
    )
    out.append(f.x_label(x_label))
    for k, note in enumerate(notes):
        out.append(f'<text class="note" x="10" y="{f.y0 + 50 + 14 * k}" font-size="10" {_FONT}>{escape(note)}</text>')
    # the colour scale: ten steps from the lowest to the highest value
    sx, steps = f.x1 + 14, 10
    sh = gh / steps
    out.append('<g class="scale">')
    for k in range(steps):
        t = 1 - (k + 0.5) / steps
        out.append(
            f'<rect x="{sx}" y="{f.y1 + k * sh:.1f}" width="12" height="{sh + 0.5:.1f}" fill="{_ramp(0.1 + 0.8 * t)}"/>'
        )
    for v, y in ((vhi, f.y1 + 8), (vlo, f.y0)):
        out.append(f'<text x="{sx + 16}" y="{y:.1f}" font-size="10" {_FONT}>{v:.4f}</text>')
    out.append("</g></svg>")
    return Markup("\n".join(out))


def interval_chart(
    title: str,
    x_label: str,
    rows: Sequence[tuple[str, float, float, float, str, str]],
    width: int = 640,
) -> Markup:
    """One row per comparison: (label, estimate, low, high, kind, tooltip); a dot at the estimate,
    a whisker from low to high, a vertical line at 0. ``kind`` "better" / "worse" draws a filled
    green / orange-red dot (significant), anything else a hollow grey one. The x axis is zoomed to
    the whiskers and always shows 0."""
    label_w = min(max([text_width(r[0], 11) for r in rows] + [40]) + 12, width - 300)
    row_h = 20
    f = _Frame(width, 30 + row_h * len(rows) + 46, left=label_w, right=20)
    vals = [v for r in rows for v in r[1:4] if math.isfinite(v)]
    lo, hi, ticks = axis_range(vals, include=[0.0], pad=0.04)
    xmap = lambda x: f.x0 + 8 + (x - lo) / (hi - lo) * (f.x1 - f.x0 - 16)  # noqa: E731
    out = f.open(title, f"{x_label}: {len(rows)} comparisons", "interval-chart")
    out += _estimate_axis(f, lo, hi, ticks, xmap)
    for k, (label, est, low, high, kind, tip) in enumerate(rows):
        y = f.y1 + (k + 0.5) * row_h
        color = {"better": BETTER, "worse": WORSE}.get(kind, NEUTRAL)
        fill = color if kind in ("better", "worse") else "#fff"
        out.append(
            f'<g class="interval" data-estimate="{_num(est)}" data-low="{_num(low)}" data-high="{_num(high)}" '
            f'data-kind="{escape(kind)}"><title>{escape(tip)}</title>'
            f'<text x="{f.x0 - 6:.1f}" y="{y + 4:.1f}" text-anchor="end" font-size="11" {_FONT}>'
            f"{escape(_fit(label, label_w - 12))}</text>"
            f'<line x1="{xmap(low):.1f}" y1="{y:.1f}" x2="{xmap(high):.1f}" y2="{y:.1f}" stroke="{color}" '
            f'stroke-width="2"/>'
            f'<circle cx="{xmap(est):.1f}" cy="{y:.1f}" r="4.5" fill="{fill}" stroke="{color}" stroke-width="2"/></g>'
        )
    out.append(f.x_label(x_label))
    out.append("</svg>")
    return Markup("\n".join(out))


def scatter_chart(
    title: str,
    x_label: str,
    y_label: str,
    points: Sequence[tuple[Series, str]],
    width: int = 560,
    height: int = 340,
    bounds: tuple[float, float] | None = None,
    min_span: float = 0.0,
) -> Markup:
    """One dot per point: ``points`` are (a :class:`Series` of one x and one y, its tooltip), its
    colour and legend label (grouped by :attr:`Series.group`) the series'. The y axis is zoomed to
    the data (:func:`axis_range` with ``bounds`` and ``min_span``); the x axis starts at 0, so that
    x values compare as ratios (a run twice as far right takes twice as long)."""
    dots = [(s, tip) for s, tip in points if s.xs and s.ys and math.isfinite(s.xs[0]) and math.isfinite(s.ys[0])]
    entries = [_Entry(s.label or s.name, tip, s.color, "", 6.0, s.group) for s, tip in dots]
    placed, legend_h = _legend_layout(entries, width - 58 - 16) if entries else ([], 0)
    f = _Frame(width, height, extra=legend_h)
    xlo, xhi, xt = axis_range([s.xs[0] for s, _ in dots], bounds=(0.0, math.inf), include=[0.0])
    ylo, yhi, yt = axis_range([s.ys[0] for s, _ in dots], bounds=bounds, min_span=min_span)
    xmap = lambda x: f.x0 + 10 + (x - xlo) / (xhi - xlo) * (f.x1 - f.x0 - 20)  # noqa: E731
    ymap = lambda y: f.y0 - (y - ylo) / (yhi - ylo) * (f.y0 - f.y1)  # noqa: E731
    out = f.open(title, f"{y_label} against {x_label}: " + "; ".join(e.title for e in entries), "scatter-chart")
    out += f.y_axis(yt, ymap, y_label, ylo, yhi)
    out.append(f'<g class="x-axis" data-x-min="{_num(xlo)}" data-x-max="{_num(xhi)}">')
    out.append(f'<line x1="{f.x0}" y1="{f.y0}" x2="{f.x1}" y2="{f.y0}" stroke="#333"/>')
    for t in xt:
        px = xmap(t)
        out.append(f'<line x1="{px:.1f}" y1="{f.y0}" x2="{px:.1f}" y2="{f.y0 + 4}" stroke="#333"/>')
        out.append(
            f'<text x="{px:.1f}" y="{f.y0 + 16}" text-anchor="middle" font-size="10" {_FONT}>{escape(_tick_text(t))}</text>'
        )
    out.append("</g>")
    out.append(f.x_label(x_label))
    for s, tip in dots:
        out.append(
            f'<circle class="point" cx="{xmap(s.xs[0]):.1f}" cy="{ymap(s.ys[0]):.1f}" r="5" fill="{s.color}" '
            f'stroke="#fff" data-x="{_num(s.xs[0])}" data-y="{_num(s.ys[0])}"><title>{escape(tip)}</title></circle>'
        )
    out += _legend(placed, f.x0, f.y0 + 40, f.x1 - f.x0)
    out.append("</svg>")
    return Markup("\n".join(out))


def forest_chart(
    title: str,
    x_label: str,
    rows: Sequence[tuple[str, float, float, float, float | None, str]],
    width: int = 640,
) -> Markup:
    """A forest plot: one row per study, then the pooled estimates. ``rows`` are (label, estimate,
    low, high, weight, tooltip): a study's (a collection's) ``weight`` is a positive number, drawn
    as a square of area proportional to it (the largest 12 px wide) on a whisker from low to high;
    a pooled estimate's is None, drawn as a diamond spanning its interval, widest at the estimate,
    below a rule. A vertical line at 0; each row's estimate and interval written at the right.
    The x axis is zoomed to the intervals and always shows 0."""
    texts = [f"{est:.4f} [{low:.4f}, {high:.4f}]" for _, est, low, high, _, _ in rows]
    # the pooled rows' labels are bold: wider by up to a quarter (DejaVu Sans Bold)
    label_w = min(max([text_width(r[0], 11) * (1.3 if r[4] is None else 1) for r in rows] + [40]) + 12, width / 3)
    right_w = max(text_width(t, 10) for t in texts) + 16 if texts else 20
    row_h, gap = 20, 8
    pooled = sum(r[4] is None for r in rows)
    f = _Frame(width, 30 + row_h * len(rows) + gap * (pooled > 0) + 46, left=label_w, right=right_w)
    vals = [v for r in rows for v in r[1:4] if math.isfinite(v)]
    lo, hi, ticks = axis_range(vals, include=[0.0], pad=0.04)
    xmap = lambda x: f.x0 + 8 + (x - lo) / (hi - lo) * (f.x1 - f.x0 - 16)  # noqa: E731
    heaviest = max((r[4] for r in rows if r[4] is not None), default=1.0)
    out = f.open(title, f"{x_label}: {len(rows) - pooled} studies, {pooled} pooled estimates", "forest-chart")
    out += _estimate_axis(f, lo, hi, ticks, xmap)
    y = f.y1
    for k, ((label, est, low, high, weight, tip), text) in enumerate(zip(rows, texts)):
        if weight is None and (k == 0 or rows[k - 1][4] is not None):  # the rule above the pooled rows
            y += gap
            out.append(f'<line x1="{f.x0}" y1="{y - gap / 2:.1f}" x2="{f.x1}" y2="{y - gap / 2:.1f}" stroke="#999"/>')
        cy = y + row_h / 2
        x, xl, xh = xmap(est), xmap(low), xmap(high)
        kind = "pooled" if weight is None else "study"
        bold = ' font-weight="bold"' if weight is None else ""
        extra = f' data-weight="{_num(weight)}"' if weight is not None else ""
        out.append(
            f'<g class="forest-row" data-kind="{kind}" data-label="{escape(label)}" data-estimate="{_num(est)}" '
            f'data-low="{_num(low)}" data-high="{_num(high)}"{extra}><title>{escape(tip)}</title>'
            f'<text x="{f.x0 - 6:.1f}" y="{cy + 4:.1f}" text-anchor="end" font-size="11"{bold} {_FONT}>'
            f"{escape(_fit(label, label_w - 12))}</text>"
        )
        if weight is None:
            out.append(
                f'<polygon points="{xl:.1f},{cy:.1f} {x:.1f},{cy - 6:.1f} {xh:.1f},{cy:.1f} {x:.1f},{cy + 6:.1f}" '
                f'fill="{PALETTE[0]}" stroke="{PALETTE[0]}"/>'
            )
        else:
            side = 4 + 8 * math.sqrt(max(weight, 0.0) / heaviest)
            out.append(
                f'<line x1="{xl:.1f}" y1="{cy:.1f}" x2="{xh:.1f}" y2="{cy:.1f}" stroke="#333" stroke-width="1.5"/>'
                f'<rect x="{x - side / 2:.1f}" y="{cy - side / 2:.1f}" width="{side:.1f}" height="{side:.1f}" '
                f'fill="#333"/>'
            )
        out.append(
            f'<text class="value" x="{f.x1 + 10:.1f}" y="{cy + 4:.1f}" font-size="10" {_FONT}>{escape(text)}</text></g>'
        )
        y += row_h
    out.append(f.x_label(x_label))
    out.append("</svg>")
    return Markup("\n".join(out))
