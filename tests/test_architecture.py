"""ARCHITECTURE.md names every module, only modules that exist, and says of each what the module
says of itself (issue 38, item 7; issue 48, item 7).

The tree block of ARCHITECTURE.md is read by one rule: a line indented by two spaces opens an
entry; when it starts with ``folder/`` the entry's ``name.py`` and ``sub/name.py`` words are
modules of ``harness/folder/`` (``sub/name.py`` of ``harness/folder/sub/``), otherwise of
``harness/``; the lines indented deeper continue the entry. A package is named by its folder
(``fusion/`` names ``harness/fusion/__init__.py``). A path with a slash anywhere else in the page
(``cli/progress.py``, ``scripts/gen_docs.py``) must exist under ``harness/`` or the repository.
verbs/__init__.py's list names every verb module (``verbs.run``) and no other.

What the tree says of a module is its *phrase*: the parenthesis right after the module's name
(``svg.py (plots as inline SVG text)``, ``fusion/ (run fusion: several runs in, one run out)``;
spaces and line breaks may stand between). Every module the tree names has one, and each phrase
is a run of at least three whole words of the module's *opening*: its docstring's first sentence
(its first paragraph up to the first full stop followed by a space or a line break; for a
Java source, its first ``/** */`` comment's). Both sides are compared as plain text: markup
(``code``, `code`, *emphasis*, Sphinx roles as Sphinx shows them, Javadoc's {@link x} and {@code x},
HTML tags) dropped, whitespace and case folded. So a docstring that drifts from what the page
says, or a page that drifts from the docstring, fails here, and the fix is to make the two agree
on what the module is, on whichever side is wrong. A module named twice gives its phrase once;
a phrase after any name is checked.

Beyond the tree, a dotted ``harness.x.y`` in any docstring names something that exists: a module,
a name a module defines or imports, a member of a class it defines, one of the API's names the
package resolves (``harness.run``) or a Java class of package ``harness``.
"""

from __future__ import annotations

import ast
import functools
import re
import sys

from .conftest import REPO
from .sources import harness_modules, parsed, walked

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


@functools.cache
def _sources() -> frozenset[str]:
    """Every module and Java source under harness/."""
    return frozenset(
        _key(path.relative_to(PACKAGE).as_posix())
        for path in PACKAGE.rglob("*")
        if path.suffix in (".py", ".java") and "__pycache__" not in path.parts
    )


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


# ------------------------------------------------------------------ what the tree says of each module
MIN_WORDS = 3
OPENING_END = re.compile(r"(?<!\.)\.(?!\.)(?=\s|$)")  # a full stop (not an ellipsis's) before a space or the end


def _plain(text: str) -> str:
    """Text as the phrase rule compares it: markup dropped, whitespace and case folded."""
    text = re.sub(r"\{@(?:link|code|linkplain)\s+([^}]*)\}", r"\1", text)  # Javadoc's inline tags
    text = re.sub(r"</?\w+>", " ", text)  # HTML tags (Javadoc's <p>)
    text = re.sub(r":\w+:`~(?:[\w.]+\.)?(\w+)`", r"\1", text)  # Sphinx's :class:`~harness.x.Key` shows Key
    text = re.sub(r":\w+:`", "`", text)  # and :mod:`harness.x`, harness.x
    text = text.replace("`", "").replace("*", "")
    return " ".join(text.split()).lower()


def _docstring(path) -> str | None:
    """A module's docstring, or a Java source's first ``/** */`` comment (its leading stars dropped)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return ast.get_docstring(parsed(path))
    comment = re.search(r"/\*\*(.*?)\*/", text, re.S)
    return None if comment is None else re.sub(r"(?m)^\s*\*", "", comment.group(1))


def _opening(path) -> str | None:
    """The first sentence of a module's docstring, as written (None without a docstring)."""
    doc = _docstring(path)
    if not doc or not doc.strip():
        return None
    text = " ".join(re.split(r"\n\s*\n", doc.strip())[0].split())  # its first paragraph
    end = OPENING_END.search(text)
    return text if end is None else text[: end.end()]


def _path(module: str):
    """The file of a module's key (``fusion/`` is harness/fusion/__init__.py)."""
    return PACKAGE / (module + "__init__.py" if module.endswith("/") else module)


def _balanced(text: str, start: int) -> str | None:
    """The text inside the parenthesis opening at ``text[start]``, nested ones included."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1 : i]
    return None


def _mentions() -> list[tuple[int, str, str | None]]:
    """(block line, module, its phrase or None) for every module name in the tree's entries."""
    found = []
    for number, folder, text in _entries():
        names = []
        if folder:
            names.append((f"{folder}/", re.match(r"\s*\S+", text).end()))
        names += [(_resolve(folder, m.group(1)), m.end()) for m in SOURCE.finditer(text)]
        for m in re.finditer(r"(?<![\w./-])(\w+)/(?![\w.])", text):
            if folder and (PACKAGE / folder / m.group(1) / "__init__.py").exists():
                names.append((f"{folder}/{m.group(1)}/", m.end()))
        for module, end in names:
            if module is None or module not in _sources():
                continue
            gap = re.match(r"\s*", text[end:]).end()
            phrase = _balanced(text, end + gap) if text[end + gap : end + gap + 1] == "(" else None
            found.append((number + text.count("\n", 0, end), module, phrase))
    return found


def _name(module: str) -> str:
    """How the tree writes a module in its folder's entry: ``svg.py``, ``executors/``."""
    return module.rstrip("/").rpartition("/")[2] + ("/" if module.endswith("/") else "")


def _phrase_problems() -> list[str]:
    """Every way the tree's phrases and the modules' openings disagree, each said with its fix."""
    problems, phrased, first = [], set(), {}
    for line, module, phrase in _mentions():
        first.setdefault(module, line)
        if phrase is None:
            continue
        phrased.add(module)
        where, given = f"ARCHITECTURE.md tree, line {line}", " ".join(phrase.split())
        file = f"harness/{_path(module).relative_to(PACKAGE).as_posix()}"
        opening = _opening(_path(module))
        if opening is None:
            problems.append(f"{where}: {file} has no docstring: open it with one whose first sentence says what it is")
        elif len(phrase.split()) < MIN_WORDS:
            problems.append(
                f"{where}: {_name(module)} ({given}) is too short: write {MIN_WORDS} or more words of {file}'s "
                f"first sentence in the parenthesis: {opening!r}"
            )
        elif not re.search(rf"(?<!\w){re.escape(_plain(phrase))}(?!\w)", _plain(opening)):
            problems.append(
                f"{where}: {_name(module)} ({given}) is not what {file} opens with: {opening!r}. Write words of "
                "that first sentence in the parenthesis, or make the module's first sentence say what the page "
                "says (whichever side is wrong)"
            )
    for module, line in sorted(first.items(), key=lambda item: item[1]):
        if module not in phrased:
            file = f"harness/{_path(module).relative_to(PACKAGE).as_posix()}"
            opening = _opening(_path(module))
            problems.append(
                f"ARCHITECTURE.md tree, line {line}: {_name(module)} has no phrase: write {_name(module)} (PHRASE) "
                f"where the tree names it, PHRASE being {MIN_WORDS} or more words of {file}'s first sentence: "
                + (repr(opening) if opening else f"{file} has none: open it with a docstring")
            )
    return problems


def test_architecture_says_of_each_module_what_its_docstring_opens_with():
    """Each module's phrase in the tree is words of its docstring's first sentence (see above)."""
    problems = _phrase_problems()
    assert not problems, "\n".join(problems)


def test_the_phrase_rule_fails_on_each_drift(tmp_path, monkeypatch):
    """The rule above on a small package and page: a phrase the module's opening says passes (markup,
    case and line breaks aside); a drifted docstring, a phrase of two words, a module named without
    a phrase and a module without a docstring each fail with the fix."""
    package = tmp_path / "harness"
    (package / "fusion" / "java").mkdir(parents=True)
    modules = {
        "__init__.py": '"""harness: a Lucene-backed retrieval experiment harness."""\n',
        "lazy.py": "x = 1\n",
        "fusion/__init__.py": '"""Run fusion: several runs in, one run out.\n\nMore."""\n',
        "fusion/rrf.py": '"""rrf, reciprocal rank fusion (:mod:`~harness.fusion.norms`), as ``pyserini`` does it."""\n',
        "fusion/sums.py": '"""The sums of each document. Rescored rows summed."""\n',
        "fusion/order.py": '"""The fused run\'s orders: topics as pyserini orders them."""\n',
        "fusion/rows.py": '"""Where each row of a run stands in its topic."""\n',
        "fusion/norms.py": '"""The normalisations of combsum and combmnz."""\n',
        "fusion/java/Fuse.java": "/**\n * Fusion in {@code Java}, for\n * tests.\n *\n * <p>More.\n */\nclass Fuse {}\n",
    }
    for name, text in modules.items():
        (package / name).write_text(text)
    page = tmp_path / "ARCHITECTURE.md"
    page.write_text(
        "# A\n\n```\nharness/\n"
        "  __init__.py (a Lucene-backed retrieval experiment harness)\n"
        "  fusion/       (RUN FUSION: several runs in,\n"
        "                one run out) rrf.py (reciprocal rank fusion (norms), as `pyserini`\n"
        "                does it), sums.py (rescored rows summed), order.py (the fused run's\n"
        "                orders), rows.py, norms.py (the normalisations), java/Fuse.java (fusion in\n"
        "                Java, for tests)\n"
        "  lazy.py (the one way)\n```\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    monkeypatch.setattr(sys.modules[__name__], "PAGE", page)
    _sources.cache_clear()
    try:
        problems = _phrase_problems()
    finally:
        _sources.cache_clear()
    assert problems == [
        "ARCHITECTURE.md tree, line 5: sums.py (rescored rows summed) is not what harness/fusion/sums.py opens "
        "with: 'The sums of each document.'. Write words of that first sentence in the parenthesis, or make the "
        "module's first sentence say what the page says (whichever side is wrong)",
        "ARCHITECTURE.md tree, line 6: norms.py (the normalisations) is too short: write 3 or more words of "
        "harness/fusion/norms.py's first sentence in the parenthesis: 'The normalisations of combsum and combmnz.'",
        "ARCHITECTURE.md tree, line 8: harness/lazy.py has no docstring: open it with one whose first sentence "
        "says what it is",
        "ARCHITECTURE.md tree, line 6: rows.py has no phrase: write rows.py (PHRASE) where the tree names it, "
        "PHRASE being 3 or more words of harness/fusion/rows.py's first sentence: 'Where each row of a run "
        "stands in its topic.'",
    ], problems


# ------------------------------------------------------------------ the names docstrings give
HARNESS_NAME = re.compile(r"(?<![\w.])harness(?:\.\w+)+")
JAVA = PACKAGE / "engine" / "java"


@functools.cache
def _defined(path) -> dict[str, set[str]]:
    """The names a module defines or imports at its top, each class's with its members."""
    names: dict[str, set[str]] = {}
    for node in parsed(path).body:
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.add(item.target.id)
                elif isinstance(item, ast.Assign):
                    members |= {t.id for t in item.targets if isinstance(t, ast.Name)}
            names[node.name] = members
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = set()
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id: set() for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.ImportFrom, ast.Import)):
            names |= {(a.asname or a.name).partition(".")[0]: {"*"} for a in node.names}
    return names


@functools.cache
def _door() -> frozenset[str]:
    """The Python API's names the package resolves on first read (harness/__init__.py's tuples)."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    return frozenset(
        element.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple)
        for element in node.value.elts
        if isinstance(element, ast.Constant)
    )


def _exists(name: str) -> bool:
    """Whether a dotted ``harness.`` name a docstring gives is a module, a name a module defines or
    imports, a member of a class it defines, the API's name (``harness.run``) or one of the Java
    classes (package ``harness``)."""
    parts = name.split(".")[1:]
    if len(parts) == 1 and parts[0] in _door():
        return True
    if parts and (JAVA / f"{parts[0]}.java").is_file():  # harness.VectorLines, harness.Documents.raws
        return len(parts) == 1 or re.search(rf"\b{parts[1]}\b", (JAVA / f"{parts[0]}.java").read_text()) is not None
    for cut in range(len(parts), -1, -1):
        folder = PACKAGE.joinpath(*parts[:cut])
        module = folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")
        if module.is_file():
            break
    else:
        return False
    rest = parts[cut:]
    if not rest:
        return True
    defined = _defined(module)
    if rest[0] not in defined:
        return False
    members = defined[rest[0]]
    return len(rest) == 1 or "*" in members or (rest[1] in members and len(rest) == 2)


def test_every_harness_name_a_docstring_gives_exists():
    """A docstring that names ``harness.x.y`` (a module, a function, a class or its method) names
    one that exists: a module moved or a function renamed without its mentions fails here, as
    ``harness.engine.corpus.JSON_STRING_LIMIT`` and ``harness.runs.read_run`` did (issue 48, item 7)."""
    ghosts = []
    for _, path, tree in harness_modules():
        for node in walked(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                for name in HARNESS_NAME.findall(ast.get_docstring(node) or ""):
                    if not _exists(name):
                        where = f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 1)}"
                        ghosts.append(f"{where}: {name}")
    assert not ghosts, "docstrings name what does not exist (name where it lives now):\n" + "\n".join(ghosts)
