"""The harness's own source as syntax trees, parsed once per test process for the tests that read
it (test_structure, test_imports, test_architecture, test_specs, test_words): a parse of every
module of harness/ costs about 0.3 s of CPU and a walk of all their nodes about 0.1 s; these
tests did each a dozen times. The trees are only read, never changed."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from .conftest import REPO

PACKAGE = REPO / "harness"


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The syntax tree of the Python file ``path``."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def harness_modules() -> tuple[tuple[str, Path, ast.Module], ...]:
    """(dotted name, path, syntax tree) of every module of the harness package, by path."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        out.append((name, path, parsed(path)))
    return tuple(out)


@functools.cache
def walked(tree: ast.AST) -> tuple[ast.AST, ...]:
    """Every node of ``tree``, in :func:`ast.walk`'s order."""
    return tuple(ast.walk(tree))
