"""The house rules of ARCHITECTURE.md that a linter does not check: no private name imported
across modules, no registry of another module changed at import, no import cycle between modules
(import-linter checks the layers), no format name compared as a string outside the table of
formats, nor a run file's layout, a meta-analysis effect or where a run's ir_metadata goes
outside theirs. A module's length is no rule: a module holds one concept and is split along the seam
between two, however long it is (issue 48, item 6: a line limit made commits rewrap and fold code
to fit it)."""

from __future__ import annotations

import ast
import pathlib

from harness.formats.catalog import COLLECTION_FORMATS, TOPIC_FORMATS
from harness.policies import IR_METADATA, META_EFFECTS, RUN_FORMATS

from .conftest import REPO
from .sources import harness_modules, walked

PACKAGE = REPO / "harness"


def _imports(name: str, tree: ast.AST, lazy: bool):
    """(module imported, names) for every `from harness... import` (top level only unless lazy),
    and every harness module deferred with ``lazy.module("harness.x.y")``, as ``from harness.x
    import y``."""
    nodes = walked(tree) if lazy else tree.body
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("harness"):
            yield node.module, [a.name for a in node.names], node.lineno
    for target, _, line in _deferred(tree):
        parent, _, last = target.rpartition(".")
        yield parent, [last], line


def _deferred(tree: ast.AST):
    """(harness module, the global bound to it, line) for each ``NAME = lazy.module("harness...")``."""
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and ast.unparse(node.value.func) == "lazy.module"
            and isinstance(node.value.args[0], ast.Constant)
            and node.value.args[0].value.startswith("harness.")
        ):
            yield node.value.args[0].value, node.targets[0].id, node.lineno


def test_no_private_name_is_imported_acrossharness_modules():
    bad = [
        f"{path.relative_to(REPO)}:{line}: from {module} import {n}"
        for name, path, tree in harness_modules()
        for module, names, line in _imports(name, tree, lazy=True)
        for n in names
        if n.startswith("_") and not n.startswith("__")
    ]
    assert not bad, "\n".join(bad)


def test_no_private_attribute_of_another_module_is_used():
    bad = []
    for _, path, tree in harness_modules():
        imported = {a.asname or a.name for n in walked(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        imported |= {bound for _, bound, _ in _deferred(tree)}
        for node in walked(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name)
                and node.value.id in imported
                and node.value.id[:1].islower()  # a module, not a class reaching into itself
            ):
                bad.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value.id}.{node.attr}")
    assert not bad, "\n".join(bad)


def test_no_registry_of_another_module_is_changed_at_import():
    bad = []
    for _, path, tree in harness_modules():
        imported = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
        for node in tree.body:
            call = node.value if isinstance(node, ast.Expr) else None
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr in ("update", "append", "extend", "setdefault", "__setitem__")
                and isinstance(call.func.value, ast.Name)
                and call.func.value.id in imported
            ):
                bad.append(f"{path.relative_to(REPO)}:{node.lineno}: {call.func.value.id}.{call.func.attr}(...)")
    assert not bad, "\n".join(bad)


def test_no_import_cycle_betweenharness_modules():
    """Every import, lazy ones too: a cycle hidden in a function is still a cycle of meaning."""
    names = {name for name, _, _ in harness_modules()}
    graph: dict[str, set[str]] = {}
    for name, _, tree in harness_modules():
        deps = set()
        for module, imported, _ in _imports(name, tree, lazy=True):
            for n in imported:
                target = f"{module}.{n}" if f"{module}.{n}" in names else module
                if target in names and target != name and not name.startswith(target + "."):
                    deps.add(target)
        graph[name] = {d for d in deps if not d.startswith(name + ".")}
    # packages' __init__ re-exports are not cycles of meaning: drop edges into a package from inside it
    for name in graph:
        graph[name] = {d for d in graph[name] if not name.startswith(d + ".")}
    cycles, state = [], {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for d in sorted(graph.get(node, ())):
            if state.get(d) == 1:
                cycles.append(stack[stack.index(d) :] + [d])
            elif d not in state:
                visit(d, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_the_report_escapes_html_only_through_jinja2_and_markupsafe():
    """No hand-written HTML escaper in the report: pages go through Jinja2's autoescape, charts
    through markupsafe (Jinja2's own escaper). The standard library's ``html`` module, a local
    escaping helper or a template environment without autoescape would bring back a second way."""
    found = []
    for name, path, tree in harness_modules():
        if not name.startswith("harness.report"):
            continue
        for node in walked(tree):
            if isinstance(node, ast.Import) and any(a.name == "html" for a in node.names):
                found.append(f"{path.name}:{node.lineno} imports html")
            if isinstance(node, ast.FunctionDef) and node.name in ("_e", "_esc", "escape", "html_escape"):
                found.append(f"{path.name}:{node.lineno} defines {node.name}")
            if isinstance(node, ast.keyword) and node.arg == "autoescape":
                if not (isinstance(node.value, ast.Constant) and node.value.value is True):
                    found.append(f"{path.name}:{node.lineno} autoescape not True")
    assert not found, found
    html_py = (PACKAGE / "report" / "html.py").read_text(encoding="utf-8")
    assert "autoescape=True" in html_py


# Where a collection or topics format's name may stand as a string: the table of formats itself.
FORMATS_HOME = "harness/formats/catalog.py"
# Other vocabularies that share a word with a format's name ("trec"), by module and the expression
# compared (or, for a run file's layout, any expression ending in run_format): each with its own
# home, none a collection or topics format.
RUN_LAYOUT = "run_format"  # a run file's layout: policies.RUN_FORMATS, read by formats/run_files.py
OTHER_VOCABULARIES = {
    ("harness/cli/lab.py", "out.convention"): "the lab's metric convention (verbs/lab.py): lab or trec",
    ("harness/verbs/lab.py", "convention"): "the lab's metric convention: lab or trec",
    ("harness/config/sources.py", "self.format"): "a run file's layout (policies.RUN_FORMATS)",
    ("harness/experiment/sources.py", "spec.format"): "a run file's layout (policies.RUN_FORMATS)",
    ("harness/report/tables.py", "cfg.qrels_format"): "the qrels' source: a TREC file or irds:ID (formats/named.py)",
}


def _format_literal(node: ast.AST) -> bool:
    """A string literal that is a format's name (``"jsonl"``) or the start of a format's text with an
    argument (``"irds:"``, ``"anserini:TsvInt"``)."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return False
    formats = [*COLLECTION_FORMATS.values(), *TOPIC_FORMATS.values()]
    return any(node.value.startswith(f"{f.name}:") if f.argument else node.value == f.name for f in formats)


def _format_literals(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e for e in node.elts if _format_literal(e)]
    return [node] if _format_literal(node) else []


def format_names_compared(path, tree: ast.AST) -> list[str]:
    """Where ``tree`` compares a format's name as a string: ``fmt == "tsv"``, ``fmt in ("jsonl",
    "beir")``, ``fmt.startswith("irds:")``, a dict keyed by format names (a table beside the
    table), ``COLLECTION_FORMATS["tsv"]``. A run's model (``sim.model == "impact"``) is the
    model vocabulary's, not a format."""
    relative = path.relative_to(REPO).as_posix()
    found = []
    for node in walked(tree):
        hit = None
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            others = [ast.unparse(o) for o in operands if not _format_literals(o)]
            if any(map(_format_literals, operands)) and not any(
                o.endswith((".model", RUN_LAYOUT)) or (relative, o) in OTHER_VOCABULARIES for o in others
            ):
                hit = node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("startswith", "endswith", "removeprefix", "partition") and any(
                _format_literals(a) for a in node.args
            ):
                hit = node
        elif isinstance(node, ast.Dict):
            keys = [k for k in node.keys if k is not None]
            if len(keys) > 1 and all(_format_literal(k) for k in keys):
                hit = node
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith(
            ("COLLECTION_FORMATS", "TOPIC_FORMATS")
        ):
            if _format_literal(node.slice):
                hit = node
        if hit is not None:
            found.append(f"{relative}:{hit.lineno}: {ast.unparse(hit)[:100]}")
    return found


def test_no_format_name_is_compared_as_a_string_outside_the_table_of_formats():
    """A collection or topics format is a value of harness.formats.catalog: code asks it (``fmt.dense``,
    ``fmt.reads_without_java``), never compares its name, which would be a second list of formats
    waiting to drift from the table (issue 48, item 2)."""
    found = [
        hit
        for _, path, tree in harness_modules()
        if path.relative_to(REPO).as_posix() != FORMATS_HOME
        for hit in format_names_compared(path, tree)
    ]
    assert not found, "compare the format's attributes (harness.formats.catalog) instead:\n" + "\n".join(found)


def test_the_format_check_finds_what_it_looks_for(tmp_path):
    """The check above, on code that compares format names each way it looks for (so a check that
    finds nothing cannot pass unnoticed), and on code that asks the values."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "a = fmt == 'tsv'\n"
        "b = corpus.format not in ('jsonl', 'text-folder')\n"
        "c = text.startswith('irds:')\n"
        "d = {'jsonl': 'JsonCollection', 'trec': 'TrecCollection'}\n"
        "e = COLLECTION_FORMATS['beir']\n"
        "f = fmt.startswith('anserini:')\n"
    )
    good = tmp_path / "good.py"
    good.write_text(
        "a = fmt.dense\nb = sim.model == 'impact'\nc = {'vectors': 1, 'M': 2}\nd = LAYOUTS['tsv']\n"
        "e = read.run_format == 'trec'\nf = kind == 'irds'\ng = where.kind != 'anserini'\n"
    )
    relative = pathlib.Path(REPO / "harness" / "x.py")
    bad_hits = format_names_compared(relative, ast.parse(bad.read_text()))
    assert [h.split(":")[1] for h in bad_hits] == ["1", "2", "3", "4", "5", "6"]
    assert format_names_compared(relative, ast.parse(good.read_text())) == []


# Vocabularies of the ground floor whose names no module but their table's compares: (the names,
# the module that holds the table, what an expression naming one ends with, the names no other
# vocabulary uses, found compared to anything).
VOCABULARIES = {
    "a run file's layout": (
        set(RUN_FORMATS),
        "harness/policies.py",
        (RUN_LAYOUT, "spec.format"),  # ReadPolicy.run_format, --run-format, a FileRun's format
        set(RUN_FORMATS) - {f.name for f in [*COLLECTION_FORMATS.values(), *TOPIC_FORMATS.values()]},
    ),
    "a meta-analysis effect": (set(META_EFFECTS), "harness/policies.py", ("effect",), set()),
    "where a run's ir_metadata goes": (set(IR_METADATA), "harness/policies.py", ("ir_metadata",), set()),
}


def vocabulary_names_compared(path, tree: ast.AST, vocabulary: str) -> list[str]:
    """Where ``tree`` compares a name of ``vocabulary`` (a key of VOCABULARIES) as a string:
    ``read.run_format == "msmarco"``, ``spec.format != "trec"``, ``policy.effect in ("raw",)``,
    a dict keyed by its names (a table beside the table), ``RUN_FORMATS["msmarco"]``."""
    names, _, subjects, own = VOCABULARIES[vocabulary]
    relative = path.relative_to(REPO).as_posix()

    def literals(node: ast.AST) -> list[str]:
        items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return [e.value for e in items if isinstance(e, ast.Constant) and e.value in names]

    found = []
    for node in walked(tree):
        hit = False
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            said = [v for o in operands for v in literals(o)]
            others = [ast.unparse(o) for o in operands if not literals(o)]
            hit = bool(said) and (any(v in own for v in said) or any(o.endswith(subjects) for o in others))
        elif isinstance(node, ast.Dict):
            keys = [k for k in node.keys if k is not None]
            hit = len(keys) > 1 and all(literals(k) for k in keys)
        elif isinstance(node, ast.Subscript):
            hit = bool(literals(node.slice)) and ast.unparse(node.value).endswith(
                ("RUN_FORMATS", "META_EFFECTS", "IR_METADATA")
            )
        if hit:
            found.append(f"{relative}:{node.lineno}: {ast.unparse(node)[:100]}")
    return found


def test_no_run_layout_meta_effect_nor_ir_metadata_place_is_compared_as_a_string_outside_its_table():
    """A run file's layout is a value of policies.RUN_FORMATS (its ``suffix``, whether it is
    ``tagged``, has ``comments``, is the cache's; its reader and writer harness.formats.run_files'),
    a meta-analysis effect one of policies.META_EFFECTS (``standardized``, how the reports name it), where a
    run's ir_metadata goes one of policies.IR_METADATA (``beside``, ``inline``, ``written``): code
    asks the value, never compares the name (issue 48: one home per concept)."""
    found = [
        hit
        for vocabulary, (_, home, _, _) in VOCABULARIES.items()
        for _, path, tree in harness_modules()
        if path.relative_to(REPO).as_posix() != home
        for hit in vocabulary_names_compared(path, tree, vocabulary)
    ]
    assert not found, "ask the value (harness.policies.RUN_FORMATS, META_EFFECTS, IR_METADATA) instead:\n" + "\n".join(
        found
    )


def test_the_vocabulary_check_finds_what_it_looks_for():
    """The check above on code that compares each name each way it looks for (the old code did
    a, b, c, e and i), and on code that asks the values or compares a word of another vocabulary."""
    bad = (
        "a = read.run_format == 'msmarco'\n"
        "b = run_format != 'trec'\n"
        "c = spec.format != 'trec'\n"
        "d = fmt in ('msmarco',)\n"
        "e = policy.effect == 'raw'\n"
        "f = {'trec': read_run, 'msmarco': read_msmarco_run}\n"
        "g = RUN_FORMATS['msmarco']\n"
        "h = META_EFFECTS['standardized']\n"
        "i = ir_metadata != 'none'\n"
        "j = self.ir_metadata in ('yml', 'inline')\n"
    )
    good = (
        "a = read.layout.tagged\nb = cfg.qrels_format != 'trec'\nc = out.convention == 'trec'\n"
        "d = policy.meta_effect.standardized\ne = mode == 'raw'\nf = RUN_FORMATS[name]\n"
        "g = IR_METADATA[ir_metadata].beside\nh = norm != 'none'\n"
    )
    path = REPO / "harness" / "x.py"
    hits = {
        vocabulary: [h.split(":")[1] for h in vocabulary_names_compared(path, ast.parse(bad), vocabulary)]
        for vocabulary in VOCABULARIES
    }
    assert hits == {
        "a run file's layout": ["1", "2", "3", "4", "6", "7"],
        "a meta-analysis effect": ["5", "8"],
        "where a run's ir_metadata goes": ["9", "10"],
    }
    assert not any(vocabulary_names_compared(path, ast.parse(good), v) for v in VOCABULARIES)
