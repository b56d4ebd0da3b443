"""report.tex: a booktabs table of mean scores with significance markers, ready to \\input.

Needs ``\\usepackage{booktabs}`` in the document. The best mean of each measure is bold; markers
are those of :func:`harness.report.tables.significance_marks`; the caption states the statistics
policy; the provenance (config, inputs, versions, run hashes) is kept in comment lines.
"""

from __future__ import annotations

from harness.report.tables import BETTER, WORSE, anova_cells, power_cells
from harness.report.view import ReportView

__all__ = ["render", "latex_escape"]

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}
_SYMBOLS = {"†": r"\dagger", "‡": r"\ddagger", "§": r"\S", "¶": r"\P"}
_WAYS = {BETTER: r"\uparrow", WORSE: r"\downarrow"}


def latex_escape(text: object) -> str:
    r"""Text safe in a LaTeX document.

    >>> latex_escape("bm25(k1=0.9,b=0.4) & 50% of_x")
    'bm25(k1=0.9,b=0.4) \\& 50\\% of\\_x'
    """
    return "".join(_SPECIAL.get(ch, ch) for ch in str(text))


def _comment(text: object) -> str:
    return "% " + str(text).replace("\n", " ")


def _mark(symbols) -> str:
    if not symbols:
        return ""
    body = ""
    for s in symbols:  # a baseline's symbol, then ▲ (better) or ▼ (worse): \uparrow, \downarrow
        base, way = (s[:-1], _WAYS[s[-1]]) if s[-1] in _WAYS else (s, "")
        body += _SYMBOLS.get(base, rf"\mathrm{{{latex_escape(base)}}}") + way
    return f"$^{{{body}}}$"


def render(view: ReportView) -> str:
    manifest = view.manifest
    lines = [
        _comment(f"harness report: {view.name} (needs \\usepackage{{booktabs}})"),
        _comment(f"config {manifest['config']['path']} sha256 {manifest['config']['sha256']}"),
        _comment(
            f"index {manifest['index']['fingerprint']}; topics {manifest['topics']['path']} "
            f"({manifest['topics']['count']}); qrels sha256 {(manifest['qrels'] or {}).get('sha256')}"
        ),
        _comment("versions " + ", ".join(f"{k} {v}" for k, v in manifest["versions"].items() if k != "java_home")),
        _comment("evaluation " + ", ".join(f"{k}={v}" for k, v in manifest["policy"].items())),
    ]
    lines += [
        _comment(f"run {r['name']} sha256 {r['sha256']} ({'reused' if r['reused'] else 'searched'})")
        for r in manifest["runs"]
    ]
    lines += [
        _comment(f"coverage {name}: " + ", ".join(f"{k}={v}" for k, v in a.items()))
        for name, a in view.coverage.items()
    ]
    caption = (
        f"Mean scores of {latex_escape(view.name)} over {view.facts.topics} topics (depth {view.facts.depth}). "
        "Best in bold."
    )
    if view.comparisons is not None:
        caption += " Statistics: " + latex_escape(str(view.comparisons.policy)) + "."
        for sym, meaning in view.marks.legend:
            caption += f" {_mark([sym])}: {latex_escape(meaning)}."
        if view.groups:
            best = "; ".join(f"{g.measure}: {', '.join(g.kept)}" for g in view.groups)
            caption += " " + latex_escape(f"Indistinguishable from the best, the best included: {best}.")
    lines += [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{caption}}}",
        rf"\label{{tab:{latex_escape(view.name)}}}",
        r"\begin{tabular}{l" + "r" * len(view.measures) + "}",
        r"\toprule",
        "Run & " + " & ".join(latex_escape(m) for m in view.measures) + r" \\",
        r"\midrule",
    ]
    for row in view.means:
        cells = [(rf"\textbf{{{c.text}}}" if c.best else c.text) + _mark(c.marks) for c in row.cells]
        lines.append(f"\\texttt{{{latex_escape(row.name)}}} & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    if view.anova:
        lines += _table(
            view,
            "anova",
            "Two-way ANOVA (system x topic) of each measure. " + view.notes["anova"],
            ["Measure", "Source", "df", "Sum of squares", "Mean square", "F", "p"],
            "llrrrrr",
            [anova_cells(row) for row in view.anova],
        )
    if view.power:
        lines += _table(
            view,
            "power",
            "Power and topic set size. " + view.notes["power"],
            ["Measure", "Baseline", "Run", "Topics", "sd", "Detectable difference", "Topics needed"],
            "lllrrrr",
            [power_cells(row) for row in view.power],
        )
    return "\n".join(lines)


def _table(view: ReportView, label: str, caption: str, head: list[str], align: str, rows: list[list[str]]) -> list[str]:
    """A booktabs table of text cells (escaped; run names in typewriter type, as the means')."""
    out = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{latex_escape(caption)}}}",
        rf"\label{{tab:{latex_escape(view.name)}-{label}}}",
        r"\begin{tabular}{" + align + "}",
        r"\toprule",
        " & ".join(head) + r" \\",
        r"\midrule",
    ]
    out += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in rows]
    return out + [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
