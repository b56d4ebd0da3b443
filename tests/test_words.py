"""One word, one meaning (issue 48, item 5; ARCHITECTURE.md, *Words that mean one thing*). In
harness/, a name that says "label" is a relevance grade (qrels' fourth column, the judging page's
grades, the measures' ranked grades), or, in the modules that draw, the plain text of a chart, a
progress bar or a LaTeX table; never a run. What tables, plots and file names call a run is its
*name* (harness.specs.names), the canonical text of what it is its *spec*. The run names were
"labels" once, beside the grades in the same pipeline: engine/labels.py, `Config.labels`,
`run_file_labels`, `relabel`."""

from __future__ import annotations

import ast
import re

from .conftest import REPO
from .sources import harness_modules, walked

GRADE = "a relevance grade"
DRAWN = "the text a chart, a progress bar or a LaTeX table shows"
# where the word may stand, and in which sense; a folder's entry covers its modules
SENSES = {
    "harness/metrics/": GRADE,
    "harness/judge/": GRADE,
    "harness/formats/qrels.py": GRADE,
    "harness/eval_metrics.py": GRADE,
    "harness/api/frames.py": GRADE,  # a qrels frame's `label` column
    "harness/verbs/lab.py": GRADE,
    "harness/verbs/trec_eval.py": GRADE,
    "harness/experiment/explore.py": GRADE,
    "harness/experiment/result.py": GRADE,  # a hit's judgment in the topic explorer
    "harness/report/explorer.py": GRADE,
    "harness/report/svg.py": DRAWN,
    "harness/report/plots.py": DRAWN,  # a Series' legend text
    "harness/report/latex.py": DRAWN,  # \label{tab:...}
    "harness/report/study.py": DRAWN,
    "harness/cli/progress.py": DRAWN,
}


def _names(tree: ast.AST) -> set[str]:
    """Every name the module defines, binds or reads (variables, arguments, attributes, keywords,
    functions, classes, imports)."""
    out: set[str] = set()
    for n in walked(tree):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(n.name)
        elif isinstance(n, ast.keyword) and n.arg:
            out.add(n.arg)
        elif isinstance(n, ast.alias):
            out.update(n.name.split("."))
            out.add(n.asname or n.name)
        elif isinstance(n, ast.ImportFrom) and n.module:
            out.update(n.module.split("."))
    return out


def _saying_label() -> dict[str, list[str]]:
    """{module path: its names that say "label"}."""
    out = {}
    for _, path, tree in harness_modules():
        said = sorted(n for n in _names(tree) if re.search("label", n, re.I))
        if said:
            out[path.relative_to(REPO).as_posix()] = said
    return out


def test_label_is_a_relevance_grade_or_a_drawn_text_never_a_run():
    found = _saying_label()
    stray = {m: names for m, names in found.items() if not m.startswith(tuple(SENSES))}
    assert not stray, (
        f"{stray}: 'label' is a relevance grade in the harness (ARCHITECTURE.md, Words that mean one "
        "thing); a run's is its name (Config.names, Config.name_of, harness.specs.names), the canonical "
        "text of what it is its spec. A module that means a grade, or a chart's text, goes in SENSES."
    )
    # and the table stays true: every entry still uses the word
    assert not [k for k in SENSES if not any(m.startswith(k) for m in found)]


def test_the_check_sees_a_run_label():
    """The scan finds the word in every kind of name the old run labels had."""
    tree = ast.parse(
        "from harness.specs.labels import run_labels as rl\n"
        "def relabel(result, label=str):\n"
        "    labels = result.config.labels\n"
        "    return TunedLabel(x=label(labels), source_label=1)\n"
    )
    assert {n for n in _names(tree) if "label" in n.lower()} == {
        "labels",
        "run_labels",
        "relabel",
        "label",
        "TunedLabel",
        "source_label",
    }
