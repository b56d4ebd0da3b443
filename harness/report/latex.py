"""report.tex: a booktabs table of mean scores with significance markers, ready to \\input.

Needs ``\\usepackage{booktabs}`` in the document. The best mean of each measure is bold; markers
are those of :func:`harness.report.tables.significance_marks`; the caption states the statistics
policy; the provenance (config, inputs, versions, run hashes) is kept in comment lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.report.tables import audit, significance_marks, summary_rows

if TYPE_CHECKING:  # a type only: rendering imports nothing that runs an experiment
    from harness.experiment.result import ExperimentResult

__all__ = ["render_latex", "latex_escape"]

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
    body = "".join(_SYMBOLS.get(s, rf"\mathrm{{{latex_escape(s)}}}") for s in symbols)
    return f"$^{{{body}}}$"


def render_latex(result: ExperimentResult, manifest: dict) -> str:
    cfg = result.config
    marks = significance_marks(result)
    rows = summary_rows(result)
    best = {m: max((r[m] for r in rows if r[m] is not None), default=None) for m in cfg.measures}
    lines = [
        _comment(f"harness report: {cfg.name} (needs \\usepackage{{booktabs}})"),
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
        for name, a in audit(result).items()
    ]
    caption = (
        f"Mean scores of {latex_escape(cfg.name)} over {len(result.topics)} topics (depth {cfg.depth}). Best in bold."
    )
    if result.comparisons is not None:
        caption += " Statistics: " + latex_escape(str(result.comparisons.policy)) + "."
        for sym, meaning in marks.legend:
            caption += f" {_mark([sym])}: {latex_escape(meaning)}."
    lines += [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{caption}}}",
        rf"\label{{tab:{latex_escape(cfg.name)}}}",
        r"\begin{tabular}{l" + "r" * len(cfg.measures) + "}",
        r"\toprule",
        "Run & " + " & ".join(latex_escape(m) for m in cfg.measures) + r" \\",
        r"\midrule",
    ]
    for r in rows:
        name = latex_escape(r["run"]) + (f" ({marks.letters[r['run']]})" if marks.letters else "")
        cells = []
        for m in cfg.measures:
            v = r[m]
            text = "" if v is None else f"{v:.4f}"
            if v is not None and v == best[m]:
                text = rf"\textbf{{{text}}}"
            cells.append(text + _mark(marks.cells.get((r["run"], m), ())))
        lines.append(f"\\texttt{{{name}}} & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)
