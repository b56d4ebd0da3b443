"""The validation machinery: walks the YAML node tree (so every problem can name its line) along
``SCHEMA``, checks the generic kinds of value (sections, strings, choices, booleans, numbers,
paths), rejects duplicate and unknown keys with a did-you-mean, and records every problem in a
context instead of stopping at the first."""

from __future__ import annotations

import difflib
import math
import os
import re
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from harness.config.keys import Key, join_path, range_text
from harness.config.overrides import OVERRIDE_NAMES, OverrideMark
from harness.config.validated import LocatedProblem
from harness.errors import DataError
from harness.formats.hygiene import regular_file, windows_path_hint
from harness.formats.named import is_named, split
from harness.specs.params import format_number

# --------------------------------------------------------------------------------------------
# Validation machinery

INVALID = object()  # a value that failed its check (the problem is already recorded)
_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_MERGE = "tag:yaml.org,2002:merge"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_HUGE = object()
_MAX_BITS = 13_000  # about 3,900 decimal digits, below Python's 4,300-digit limit on int <-> str
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_FLOAT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\Z")


def closest(word: str, valid) -> str | None:
    """The one of ``valid`` that ``word`` is most likely a misspelling of, or None."""
    close = difflib.get_close_matches(word, list(valid), n=1, cutoff=0.6)
    if not close:
        lower = {v.lower(): v for v in valid}
        close = [lower[word.lower()]] if word.lower() in lower else []
    return close[0] if close else None


def suggest(word: str, valid) -> str:
    close = closest(word, valid)
    return f"; did you mean {close!r}?" if close else ""


def unknown_message(what: str, word: str, valid, hint: str | None = None) -> str:
    """'unknown key 'stemer'; did you mean 'stemmer'? Valid: path, stemmer, ...'"""
    hint = hint or suggest(word, valid) or "."
    return f"unknown {what} {word!r}{hint} Valid: {', '.join(valid)}"


class Ctx:
    """One validation: where problems are recorded, and ``checks``, the check of each Key.type
    (the toolkit's BASE_CHECKS plus the config's own kinds of value, given by the caller)."""

    def __init__(self, source: str, base: Path, loader: yaml.SafeLoader, checks: dict | None = None):
        self.checks = BASE_CHECKS if checks is None else checks
        self.source = source
        self.base = base
        self.loader = loader
        self.problems: list[LocatedProblem] = []
        self.present: set[str] = set()  # key paths given in the file
        self.nodes: dict[str, Node] = {}  # key path -> its value node, for later cross-checks
        self.found: dict = {}  # what one check leaves for a later one (the runs' given names)

    def problem(self, path: str, message: str, node: Node | None = None) -> object:
        where: str | None
        if node is not None and isinstance(node.start_mark, OverrideMark):
            where = node.start_mark.given  # a key given by --set (harness.config.overrides)
        else:
            where = f"{self.source}:{node.start_mark.line + 1}" if node is not None else None
        self.problems.append(LocatedProblem(path, message, where))
        return INVALID

    def value(self, node: Node, path: str | None = None) -> Any:
        """The Python value of a scalar node (mappings and lists are returned as nodes).
        An unreadable scalar (e.g. an unknown !!tag) is a problem at ``path``; None: not reported."""
        if not isinstance(node, ScalarNode):
            return node
        try:
            v = self.loader.construct_object(node, deep=True)
        except yaml.YAMLError as e:
            if path is None:
                return INVALID
            return self.problem(path, f"cannot read this value: {getattr(e, 'problem', e)}", node)
        except ValueError:  # Python reads no decimal integer of over 4,300 digits (int_max_str_digits)
            v = _HUGE
        # nor prints one (0b111... is read whatever its length): no value of a config is that large
        if v is _HUGE or (isinstance(v, int) and v.bit_length() > _MAX_BITS):
            why = "an integer thousands of digits long; no key takes one"
            return INVALID if path is None else self.problem(path, why, node)
        return v


def is_null(node: Node | None) -> bool:
    return node is None or (isinstance(node, ScalarNode) and node.tag == _NULL)


def describe(ctx: Ctx, node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    v = ctx.value(node)
    if v is INVALID:
        return f"{node.tag} {node.value!r}"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"the boolean {str(v).lower()}"
    if isinstance(v, int):
        return f"the integer {v}"
    if isinstance(v, float):
        return f"the number {v!r}"
    if isinstance(v, str):
        return f"the string {v!r}"
    return f"{type(v).__name__} {node.value!r}"


def mapping_items(node: MappingNode):
    """(key text, key node, value node) of a mapping; later duplicates and non-string keys are
    skipped here because ``check_keys`` has already reported them."""
    seen = set()
    for k, v in node.value:
        if isinstance(k, ScalarNode) and k.tag != _MERGE and k.value not in seen:
            seen.add(k.value)
            yield k.value, k, v


def check_keys(ctx: Ctx, node: Node, path: str, visited: set[int]) -> None:
    """Reject duplicate keys, merge keys and non-scalar keys anywhere in the tree."""
    if id(node) in visited:  # an alias: checked once
        return
    visited.add(id(node))
    if isinstance(node, MappingNode):
        first: dict[str, int] = {}
        for k, v in node.value:
            if not isinstance(k, ScalarNode):
                ctx.problem(path, f"keys must be plain strings, got {describe(ctx, k)}", k)
            elif k.tag == _MERGE:
                ctx.problem(path, "YAML merge keys (<<) are not supported; write the keys out", k)
            elif k.value in first:
                ctx.problem(
                    join_path(path, k.value),
                    f"duplicate key {k.value!r} (first given at line {first[k.value]}); give each key once",
                    k,
                )
            else:
                first[k.value] = k.start_mark.line + 1
                check_keys(ctx, v, join_path(path, k.value), visited)
    elif isinstance(node, SequenceNode):
        for i, item in enumerate(node.value):
            check_keys(ctx, item, f"{path}[{i}]", visited)


def _nested_homes(key: Key, name: str, prefix: str = "") -> list[str]:
    """Where ``name`` is a valid key deeper inside ``key`` (for 'did you mean index.threads?')."""
    homes = []
    for sub in key.keys:
        if sub.type == "section":
            here = join_path(prefix, sub.name)
            if sub.key(name):
                homes.append(join_path(here, name))
            homes += _nested_homes(sub, name, here)
    return homes


def _default(key: Key) -> Any:
    if key.type == "section":
        return {k.name: _default(k) for k in key.keys}
    return key.default


def _check(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    return ctx.checks[key.type](ctx, key, node, path)


def check_section(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    names = [k.name for k in key.keys]
    if key.shorthand and isinstance(node, ScalarNode) and node.tag == _STR:
        name = key.shorthand
        if is_named(node.value) and key.key(split(node.value)[0]) is not None:
            # `topics: irds:ID` is `topics: {irds: ID}`: data named as the command line names it
            name, text = split(node.value)
            node = ScalarNode(_STR, text, node.start_mark, node.end_mark)
        node = MappingNode(
            "tag:yaml.org,2002:map",
            [(ScalarNode(_STR, name, node.start_mark, node.end_mark), node)],
            node.start_mark,
            node.end_mark,
        )
    if key.switch and isinstance(node, ScalarNode) and node.tag == _BOOL:
        if not ctx.value(node, path):  # `power: false`: off
            return None
        node = MappingNode("tag:yaml.org,2002:map", [], node.start_mark, node.end_mark)  # `power: true`: defaults
    if not isinstance(node, MappingNode):
        also = f" (or a string: the {key.shorthand})" if key.shorthand else ""
        also += " (or true: its defaults; false: off)" if key.switch else ""
        return ctx.problem(
            path, f"expected a mapping with keys {', '.join(names)}{also}, got {describe(ctx, node)}", node
        )
    given: dict[str, Node] = {}
    # A misspelt key stands for the key it is close to (`qrel:` for `qrels`): that key counts as
    # given with an invalid value, so that nothing that needs it reports its absence again.
    misspelt: dict[str, Node] = {}
    for name, knode, vnode in mapping_items(node):
        if key.key(name) is None:
            meant = closest(name, names)
            hint = f"; did you mean {meant!r}?" if meant else ""
            homes = _nested_homes(key, name)
            if homes and not hint:
                hint = f"; did you mean {' or '.join(homes)}?"
            ctx.problem(join_path(path, name), unknown_message("key", name, names, hint), knode)
            if meant is not None:
                misspelt.setdefault(meant, vnode)
        else:
            given[name] = vnode
    out = {}
    for sub in key.keys:
        p = join_path(path, sub.name)
        vnode = given.get(sub.name)
        if vnode is None and sub.name in misspelt:
            ctx.present.add(p)
            ctx.nodes[p] = misspelt[sub.name]
            out[sub.name] = INVALID
        elif vnode is not None and not is_null(vnode):
            ctx.present.add(p)
            ctx.nodes[p] = vnode
            out[sub.name] = _check(ctx, sub, vnode, p)
        elif sub.required:
            got = " (got null)" if vnode is not None else ""
            out[sub.name] = ctx.problem(
                p, f"required key is missing{got} ({sub.doc})", vnode if vnode is not None else node
            )
        elif sub.type == "section" and any(k.required for k in sub.keys):
            out[sub.name] = None  # an optional section that, when given, needs keys: absent
        elif sub.type == "section":
            # A section written but left empty (`compare:` or `cross_validation: null`) is there
            # with its defaults, like `{}`: the user asked for it. Absent, it takes its defaults too,
            # but a section that switches something on (compare, cross_validation) stays off.
            if vnode is not None:
                ctx.present.add(p)
                ctx.nodes[p] = vnode
            empty = MappingNode("tag:yaml.org,2002:map", [], (vnode or node).start_mark, (vnode or node).end_mark)
            out[sub.name] = check_section(ctx, sub, empty, p)
        else:
            out[sub.name] = _default(sub)
    return out


def problem_order(p: LocatedProblem) -> int:
    """Problems in the order of the file's lines (one without a line first), an override's
    (``--set``, named as given) after them."""
    if not p.where:
        return 0
    if p.where.startswith(OVERRIDE_NAMES):
        return 1 << 62
    line = p.where.rsplit(":", 1)[-1]
    return int(line) if line.isdigit() else 0


def expected(ctx: Ctx, path: str, what: str, node: Node) -> object:
    hint = " (quote it)" if what == "a string" and isinstance(node, ScalarNode) else ""
    return ctx.problem(path, f"expected {what}, got {describe(ctx, node)}{hint}", node)


def read_string(ctx: Ctx, node: Node, path: str) -> Any:
    v = ctx.value(node, path)
    if v is INVALID:
        return v
    if not isinstance(v, str):
        return expected(ctx, path, "a string", node)
    return v


def _check_string(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    v = read_string(ctx, node, path)
    if v is not INVALID and key.pattern and not re.fullmatch(key.pattern, v):
        return ctx.problem(path, f"must match {key.pattern} (got {v!r})", node)
    return v


def _check_strings(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    """A list of non-empty strings."""
    if not isinstance(node, SequenceNode):
        return expected(ctx, path, "a list of strings", node)
    out = []
    for i, item in enumerate(node.value):
        v = read_string(ctx, item, f"{path}[{i}]")
        if v is not INVALID and not v.strip():
            v = ctx.problem(f"{path}[{i}]", "must be a non-empty string", item)
        out.append(v)
    return INVALID if INVALID in out else out


def _check_choice(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    v = read_string(ctx, node, path)
    if v is not INVALID and v not in key.choices:
        return ctx.problem(path, f"must be one of {', '.join(key.choices)} (got {v!r}){suggest(v, key.choices)}", node)
    return v


def _check_bool(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    v = ctx.value(node, path)
    if v is not INVALID and not isinstance(v, bool):
        return expected(ctx, path, "true or false", node)
    return v


def read_number(ctx: Ctx, node: Node, path: str, integer: bool = False) -> Any:
    v = ctx.value(node, path)
    if v is INVALID:
        return v
    # PyYAML (YAML 1.1) reads 1e3 as a string; a plain, unquoted one is meant as a number.
    if not integer and isinstance(v, str) and isinstance(node, ScalarNode) and node.style is None and _FLOAT.match(v):
        v = float(v)
    if isinstance(v, bool) or not isinstance(v, int if integer else (int, float)):
        return expected(ctx, path, "an integer" if integer else "a number", node)
    if isinstance(v, float) and not math.isfinite(v):
        return ctx.problem(path, f"must be a finite number (got {v})", node)
    return v


def _check_int(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    v = read_number(ctx, node, path, integer=True)
    if v is not INVALID and key.minimum is not None and v < key.minimum:
        return ctx.problem(path, f"must be an integer >= {format_number(key.minimum)} (got {v})", node)
    if v is not INVALID and key.maximum is not None and v > key.maximum:
        return ctx.problem(path, f"must be an integer <= {key.maximum:,} (got {v:,})", node)
    return v


def _check_number(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    v = read_number(ctx, node, path)
    if v is INVALID or key.minimum is None:
        return v if v is INVALID else float(v)
    low, high = key.minimum, math.inf if key.maximum is None else key.maximum
    inside = low < v < high if key.exclusive else low <= v <= high
    if not inside:
        rng = range_text(key)
        return ctx.problem(path, f"must be a number {'in ' if rng[0] in '([' else ''}{rng} (got {v!r})", node)
    return float(v)


def _check_path(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    v = read_string(ctx, node, path)
    if v is INVALID:
        return v
    if not v.strip():
        return ctx.problem(path, "must be a path (got an empty string)", node)
    # NUL cannot be in a path at all (Python raised "embedded null byte"); a line break or another
    # control character is a slip (`output: |` keeps the newline), not a name to create
    if _CONTROL.search(v):
        return ctx.problem(path, f"must be a path without control characters or line breaks (got {v!r})", node)
    # a path given by --set is relative to the current folder, one in the file to the file's
    given = isinstance(node.start_mark, OverrideMark)
    base = node.start_mark.base if isinstance(node.start_mark, OverrideMark) else ctx.base
    try:
        p = (base / os.path.expanduser(v)).resolve()
    except (RuntimeError, OSError):  # RuntimeError: Python < 3.13's "Symlink loop from ..."
        return ctx.problem(path, f"{base / v} is a symlink loop (a link that points back to itself)", node)
    kind = {"file": "file", "dir": "folder"}.get(key.path_kind or "", "file or folder")
    try:
        exists = p.exists()
    except OSError as e:  # ENAMETOOLONG...: the error named no key
        return ctx.problem(path, f"cannot use {p}: {e.strerror or e}", node)
    if exists and not p.is_file() and not p.is_dir():
        return ctx.problem(path, f"expected a regular file, but {p} {_special(p)}", node)
    if not exists:
        if key.must_exist:
            return ctx.problem(
                path,
                f"{kind} not found: {p} "
                + (
                    f"(a path given on the command line is relative to the current folder, {base})"
                    if given
                    else f"(paths are relative to the config file's folder, {base})"
                )
                + windows_path_hint(v),
                node,
            )
    elif key.path_kind == "file" and not p.is_file():
        return ctx.problem(path, f"expected a file, but {p} is a folder", node)
    elif key.path_kind == "dir" and not p.is_dir():
        return ctx.problem(path, f"expected a folder, but {p} is a file", node)
    return p


def _special(p: Path) -> str:
    """'is a FIFO (named pipe)', 'is a character device'... (never opens it)."""
    try:
        regular_file(p)
    except DataError as e:
        return str(e).split(": ", 1)[1].split(", not a regular", 1)[0]
    return "is not a regular file"


# Checks by Key.type; harness.config.load adds the checks of the config's own kinds of value
# in the table it gives each Ctx.
BASE_CHECKS: dict = {
    "section": check_section,
    "string": _check_string,
    "strings": _check_strings,
    "choice": _check_choice,
    "bool": _check_bool,
    "int": _check_int,
    "number": _check_number,
    "path": _check_path,
}
