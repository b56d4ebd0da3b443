"""Plots as inline SVG text: no plotting library, no scripts, no external references.

Every text taken from data (run names, topic ids, query text) goes through ``html.escape`` with
quotes escaped, so the SVG can be placed inside an HTML page as is. The ``<svg>`` element has no
``xmlns``: inline SVG in HTML needs none (and the page stays free of URLs).

    >>> svg = line_chart("t", "x", "y", [("a<b", [0, 1], [0.5, 0.25])])
    >>> svg.startswith("<svg") and "a&lt;b" in svg and "a<b" not in svg
    True
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

__all__ = ["PALETTE", "line_chart", "bar_chart", "nice_ticks"]

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
_FONT = 'font-family="sans-serif"'
# After the palette's colours are used up, lines repeat them with these dash patterns.
_DASHES = ("", "6 3", "2 3", "8 3 2 3")


def _style(i: int) -> tuple[str, str]:
    """(colour, dash attribute) of series i."""
    dash = _DASHES[(i // len(PALETTE)) % len(_DASHES)]
    return PALETTE[i % len(PALETTE)], (f' stroke-dasharray="{dash}"' if dash else "")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high].

    >>> nice_ticks(0.0, 1.0)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    """
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        high = low + 1.0
    raw = (high - low) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(low / step + 1e-9) * step
    ticks, t = [], first
    while t <= high + step * 1e-9:
        ticks.append(round(t, 12))
        t += step
    if ticks[-1] < high - step * 1e-9:
        ticks.append(round(t, 12))
    return ticks


def _tick_text(v: float) -> str:
    """A tick label; values that round to zero print as "0", never "-0".

    >>> _tick_text(-1e-17), _tick_text(-0.0), _tick_text(0.25)
    ('0', '0', '0.25')
    """
    text = f"{v:.4g}"
    return "0" if abs(v) < 1e-12 or float(text) == 0 else text


class _Frame:
    """Plot area geometry and the axes, shared by both chart kinds."""

    def __init__(self, width: int, height: int, left: int = 58, right: int = 16, top: int = 30, bottom: int = 46):
        self.width, self.height = width, height
        self.x0, self.x1 = left, width - right
        self.y0, self.y1 = height - bottom, top  # y0: bottom of the plot area

    def open(self, title: str, desc: str) -> list[str]:
        return [
            f'<svg class="chart" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}" role="img" aria-label="{_e(title)}">',
            f"<title>{_e(title)}</title><desc>{_e(desc)}</desc>",
            f'<text x="{self.width / 2:.1f}" y="18" text-anchor="middle" font-size="13" '
            f'font-weight="bold" {_FONT}>{_e(title)}</text>',
        ]

    def y_axis(self, ticks: Sequence[float], ymap, label: str) -> list[str]:
        out = []
        for t in ticks:
            y = ymap(t)
            out.append(f'<line x1="{self.x0}" y1="{y:.1f}" x2="{self.x1}" y2="{y:.1f}" stroke="#ddd"/>')
            out.append(
                f'<text x="{self.x0 - 5}" y="{y + 4:.1f}" text-anchor="end" font-size="10" '
                f"{_FONT}>{_e(_tick_text(t))}</text>"
            )
        cy = (self.y0 + self.y1) / 2
        out.append(
            f'<text x="14" y="{cy:.1f}" text-anchor="middle" font-size="11" {_FONT} '
            f'transform="rotate(-90 14 {cy:.1f})">{_e(label)}</text>'
        )
        out.append(f'<line x1="{self.x0}" y1="{self.y0}" x2="{self.x0}" y2="{self.y1}" stroke="#333"/>')
        return out

    def x_label(self, label: str) -> str:
        return (
            f'<text x="{(self.x0 + self.x1) / 2:.1f}" y="{self.y0 + 32}" text-anchor="middle" '
            f'font-size="11" {_FONT}>{_e(label)}</text>'
        )


def line_chart(
    title: str,
    x_label: str,
    y_label: str,
    series: Sequence[tuple[str, Sequence[float], Sequence[float]]],
    x_ticks: Sequence[tuple[float, str]] | None = None,
    references: Sequence[tuple[str, float]] = (),
    width: int = 560,
    height: int = 340,
    y_range: tuple[float, float] | None = None,
) -> str:
    """Lines with markers; ``series`` are (name, xs, ys). ``x_ticks`` are (x, label) pairs
    (default: nice ticks); ``references`` are (name, y) drawn as dashed horizontal lines. A legend
    lists every series under the plot."""
    names = [s[0] for s in series] + [r[0] for r in references]
    cols = 2 if width >= 500 else 1
    rows = (len(names) + cols - 1) // cols
    f = _Frame(width, height + 16 * rows, bottom=50 + 16 * rows)
    xs_all = [x for _, xs, _ in series for x in xs] or [0.0, 1.0]
    ys_all = [y for _, _, ys in series for y in ys if math.isfinite(y)] + [y for _, y in references]
    xlo, xhi = min(xs_all), max(xs_all)
    if x_ticks:
        xlo, xhi = min(xlo, min(t for t, _ in x_ticks)), max(xhi, max(t for t, _ in x_ticks))
    if xhi == xlo:
        xlo, xhi = xlo - 0.5, xhi + 0.5
    if y_range:
        ylo, yhi = y_range
    else:
        ylo, yhi = (min(ys_all), max(ys_all)) if ys_all else (0.0, 1.0)
        pad = (yhi - ylo) * 0.08 or 0.05
        ylo, yhi = ylo - pad, yhi + pad
    yt = [t for t in nice_ticks(ylo, yhi)]
    ylo, yhi = min(ylo, yt[0]), max(yhi, yt[-1])
    xmap = lambda x: f.x0 + 10 + (x - xlo) / (xhi - xlo) * (f.x1 - f.x0 - 20)  # noqa: E731
    ymap = lambda y: f.y0 - (y - ylo) / (yhi - ylo) * (f.y0 - f.y1)  # noqa: E731
    out = f.open(title, f"{y_label} against {x_label}: " + "; ".join(names))
    out += f.y_axis(yt, ymap, y_label)
    out.append(f'<line x1="{f.x0}" y1="{f.y0}" x2="{f.x1}" y2="{f.y0}" stroke="#333"/>')
    for x, text in x_ticks or [(t, _tick_text(t)) for t in nice_ticks(xlo, xhi) if xlo <= t <= xhi]:
        px = xmap(x)
        out.append(f'<line x1="{px:.1f}" y1="{f.y0}" x2="{px:.1f}" y2="{f.y0 + 4}" stroke="#333"/>')
        out.append(f'<text x="{px:.1f}" y="{f.y0 + 16}" text-anchor="middle" font-size="10" {_FONT}>{_e(text)}</text>')
    out.append(f.x_label(x_label))
    for name, y in references:
        py = ymap(y)
        out.append(
            f'<line x1="{f.x0}" y1="{py:.1f}" x2="{f.x1}" y2="{py:.1f}" stroke="#555" '
            f'stroke-width="1.5" stroke-dasharray="6 4"><title>{_e(name)}: {_e(f"{y:.4f}")}</title></line>'
        )
    for i, (name, xs, ys) in enumerate(series):
        color, dash = _style(i)
        pts = [(xmap(x), ymap(y), x, y) for x, y in zip(xs, ys) if math.isfinite(y)]
        out.append(
            f'<polyline fill="none" stroke="{color}" stroke-width="2"{dash} points="'
            + " ".join(f"{px:.1f},{py:.1f}" for px, py, _, _ in pts)
            + '"/>'
        )
        for px, py, x, y in pts:
            out.append(
                f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{color}">'
                f"<title>{_e(name)}: {_e(_tick_text(x))} → {_e(f'{y:.4f}')}</title></circle>"
            )
    ly = f.y0 + 54
    for i, name in enumerate(names):
        color, dash = _style(i) if i < len(series) else ("#555", ' stroke-dasharray="6 4"')
        lx = f.x0 + (i % cols) * (f.x1 - f.x0) / cols
        y = ly + 16 * (i // cols)
        out.append(
            f'<line x1="{lx:.1f}" y1="{y - 4}" x2="{lx + 18:.1f}" y2="{y - 4}" stroke="{color}" '
            f'stroke-width="2"{dash}/>'
        )
        out.append(f'<text x="{lx + 24:.1f}" y="{y}" font-size="11" {_FONT}>{_e(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def bar_chart(
    title: str,
    y_label: str,
    bars: Sequence[tuple[str, float, str]],
    width: int = 560,
    height: int = 260,
    x_label: str = "",
) -> str:
    """Vertical bars around 0, in the given order; ``bars`` are (label, value, tooltip). Labels are
    drawn under the bars when they fit; every bar carries its tooltip as an SVG ``<title>``."""
    f = _Frame(width, height)
    vals = [v for _, v, _ in bars] or [0.0]
    lo, hi = min(0.0, min(vals)), max(0.0, max(vals))
    if hi == lo:
        lo, hi = -0.05, 0.05
    yt = nice_ticks(lo, hi)
    lo, hi = min(lo, yt[0]), max(hi, yt[-1])
    ymap = lambda y: f.y0 - (y - lo) / (hi - lo) * (f.y0 - f.y1)  # noqa: E731
    out = f.open(title, f"{y_label}, one bar per topic ({len(bars)} topics)")
    out += f.y_axis(yt, ymap, y_label)
    n = max(len(bars), 1)
    slot = (f.x1 - f.x0) / n
    gap = slot * 0.15 if slot > 3 else 0.0
    zero = ymap(0.0)
    for i, (_label, v, tip) in enumerate(bars):
        x = f.x0 + i * slot + gap / 2
        top, bottom = (ymap(v), zero) if v >= 0 else (zero, ymap(v))
        color = "#009E73" if v > 0 else ("#D55E00" if v < 0 else "#999")
        h = max(bottom - top, 0.8 if v == 0 else 0.0)
        out.append(
            f'<rect x="{x:.2f}" y="{top:.2f}" width="{max(slot - gap, 0.5):.2f}" height="{h:.2f}" '
            f'fill="{color}"><title>{_e(tip)}</title></rect>'
        )
    out.append(f'<line x1="{f.x0}" y1="{zero:.1f}" x2="{f.x1}" y2="{zero:.1f}" stroke="#333"/>')
    if slot >= 14:
        for i, (label, _, _) in enumerate(bars):
            cx = f.x0 + (i + 0.5) * slot
            out.append(
                f'<text x="{cx:.1f}" y="{f.y0 + 14}" text-anchor="middle" font-size="9" {_FONT}>{_e(label)}</text>'
            )
    out.append(f.x_label(x_label or f"topics, sorted by difference ({len(bars)}; hover a bar for its topic)"))
    out.append("</svg>")
    return "\n".join(out)
