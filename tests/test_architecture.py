"""ARCHITECTURE.md names every module, and only modules that exist (issue 38, item 7).

The tree block of ARCHITECTURE.md is read by one rule: a line indented by two spaces opens an
entry; when it starts with ``folder/`` the entry's ``name.py`` and ``sub/name.py`` words are
modules of ``harness/folder/`` (``sub/name.py`` of ``harness/folder/sub/``), otherwise of
``harness/``; the lines indented deeper continue the entry. A package is named by its folder
(``fusion/`` names ``harness/fusion/__init__.py``). A path with a slash anywhere else in the page
(``cli/progress.py``, ``scripts/gen_docs.py``) must exist under ``harness/`` or the repository.
verbs/__init__.py's list names every verb module (``verbs.run``) and no other.
"""

from __future__ import annotations

import ast
import re

from .conftest import REPO

PACKAGE = REPO / "harness"
PAGE = REPO / "ARCHITECTURE.md"
SOURCE = re.compile(r"(?<![\w./-])((?:[\w-]+/)*[\w-]+\.(?:py|java))\b")
PATH = re.compile(r"(?<![\w./-])((?:[\w-]+/)+[\w-]+\.(?:py|java))\b")


def _page() -> tuple[str, str]:
    """The page's code block that draws harness/, and the rest of the page."""
    text = PAGE.read_text(encoding="utf-8")
    tree = next(b for b in re.findall(r"^```\n(.*?)^```", text, re.M | re.S) if b.startswith("harness/"))
    return tree, text.replace(tree, "")


def _tree() -> list[str]:
    return _page()[0].splitlines()[1:]


def _entries() -> list[tuple[int, str, str]]:
    """(line number in the block, folder under harness/ or "", the entry's text)."""
    entries: list[tuple[int, str, list[str]]] = []
    for number, line in enumerate(_tree(), start=2):
        if re.match(r"  \S", line):
            head = line.split()[0]
            folder = head.removesuffix("/") if head.endswith("/") else ""
            entries.append((number, folder, [line]))
        elif line.strip():
            assert entries and line.startswith("   "), f"ARCHITECTURE.md tree, line {number}: {line!r}"
            entries[-1][2].append(line)
    return [(number, folder, "\n".join(lines)) for number, folder, lines in entries]


def _key(relative: str) -> str:
    """A module's key: its path under harness/, a package as its folder ("fusion/")."""
    if relative.endswith("/__init__.py"):
        return relative.removesuffix("__init__.py")
    return relative


def _sources() -> set[str]:
    """Every module and Java source under harness/."""
    return {
        _key(path.relative_to(PACKAGE).as_posix())
        for path in PACKAGE.rglob("*")
        if path.suffix in (".py", ".java") and "__pycache__" not in path.parts
    }


def _resolve(folder: str, word: str) -> str | None:
    """The module a tree entry's word names, or None for a path from the repository's root or a
    cross-reference to another folder's module (``verbs/fuse.py`` in cli/'s entry), which the
    page's other paths check."""
    if word.startswith(("tests/", "scripts/", "bench/", "harness/")):
        return None
    head = word.split("/")[0]
    if "/" in word and folder and not (PACKAGE / folder / head).is_dir() and (PACKAGE / head).is_dir():
        return None
    return _key(f"{folder}/{word}" if folder else word)


def _named() -> dict[str, int]:
    """Each module the tree names, with the block line that names it."""
    named: dict[str, int] = {}
    for number, folder, text in _entries():
        if folder:
            named.setdefault(f"{folder}/", number)
        for word in SOURCE.findall(text):
            if (module := _resolve(folder, word)) is not None:
                named.setdefault(module, number)
        for sub in re.findall(r"(?<![\w./-])(\w+)/(?![\w.])", text):
            if folder and (PACKAGE / folder / sub / "__init__.py").exists():
                named.setdefault(f"{folder}/{sub}/", number)
    return named


def test_architecture_names_every_module():
    missing = sorted(_sources() - set(_named()))
    assert not missing, (
        "modules ARCHITECTURE.md does not name (add each to the tree's entry of its folder):\n"
        + "\n".join(f"harness/{m}" for m in missing)
    )


def test_architecture_names_only_modules_that_exist():
    ghosts = [f"ARCHITECTURE.md tree, line {n}: harness/{m}" for m, n in _named().items() if m not in _sources()]
    assert not ghosts, "ARCHITECTURE.md names modules that do not exist:\n" + "\n".join(ghosts)


def test_every_path_the_architecture_page_gives_exists():
    text = _page()[1]
    ghosts = sorted({p for p in PATH.findall(text) if not (REPO / p).exists() and not (PACKAGE / p).exists()})
    assert not ghosts, (
        "ARCHITECTURE.md gives paths that exist neither under harness/ nor in the repository: " + ", ".join(ghosts)
    )


def test_verbs_package_lists_every_verb_module():
    doc = ast.get_docstring(ast.parse((PACKAGE / "verbs" / "__init__.py").read_text(encoding="utf-8"))) or ""
    listed = set(re.findall(r"``verbs\.(\w+)``", doc))
    modules = {p.stem for p in (PACKAGE / "verbs").glob("*.py") if p.name != "__init__.py"}
    assert listed == modules, (
        f"verbs/__init__.py lists {sorted(listed - modules)} that do not exist, misses {sorted(modules - listed)}"
    )


# The adapters' modules that are no verb's: the command line's parts and the API's conversions.
ADAPTER_PARTS = {"cli": {"flags", "failures", "notes", "progress"}, "api": {"frames"}}


def test_every_adapter_module_is_named_by_its_verb():
    """One word per verb in every layer: cli/X.py and api/X.py adapt verbs/X.py (issue 38, item 6)."""
    verbs = {p.stem for p in (PACKAGE / "verbs").glob("*.py")} - {"__init__"}
    strays = [
        f"harness/{layer}/{p.name}"
        for layer, parts in ADAPTER_PARTS.items()
        for p in sorted((PACKAGE / layer).glob("*.py"))
        if p.stem not in verbs | parts | {"__init__"}
    ]
    assert not strays, f"adapter modules named by no verb (verbs: {', '.join(sorted(verbs))}): {', '.join(strays)}"


def test_every_subcommand_is_registered_by_its_module_add_parser():
    """cli.COMMANDS holds every cli module with an add_parser and nothing else registers one."""
    import argparse

    from harness import cli

    with_parser = {
        p.stem for p in (PACKAGE / "cli").glob("*.py") if "\ndef add_parser(sub, make)" in p.read_text(encoding="utf-8")
    }
    assert {m.__name__.rpartition(".")[2] for m in cli.COMMANDS} == with_parser
    verbs = {p.stem for p in (PACKAGE / "verbs").glob("*.py")}
    assert with_parser <= verbs
    sub = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    registered = {name: parser.get_default("func").__module__ for name, parser in sub.choices.items()}
    assert set(registered.values()) == {m.__name__ for m in cli.COMMANDS}, registered
    source = (PACKAGE / "cli" / "__init__.py").read_text(encoding="utf-8")
    assert ".add_parser(" not in source.replace("module.add_parser(sub, command)", ""), "one registration loop"
