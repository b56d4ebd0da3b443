"""A study: one config of several collections (`collections:`), read as one validated
:class:`~harness.config.Config` per collection.

Each entry of `collections` gives a collection's own keys (harness.config.schema.study:
`name`, `collection` or `index`, `topics`, `qrels`, `expect`); the config's other keys apply to
every collection. The entry's keys and the top-level ones make a config of that collection alone,
validated as any config is (:func:`harness.config.load.validate_tree`), so every collection's
Config is the one its own config would give; its `output` is ``OUTPUT/collections/NAME`` and its
`name` the entry's. All problems of all collections are reported at once, one per mistake:

- a problem at an entry's key names it in the entry: ``collections[de].topics: ...``;
- a problem at a shared key (`runs`, `measures`, `output`...) is reported once; where it holds
  for some collections only (``measures`` needs the qrels one of them lacks), it names them:
  ``measures (with collections[de]): ...``;
- the study's own mistakes: an entry that is no mapping, a missing, repeated or reserved name, a
  key of every collection given in an entry, and the top-level `collection`, `index`, `topics`,
  `qrels` or `expect` beside `collections` (one problem).

`compare.meta` (the meta-analysis across collections, policies.MetaPolicy) is the study's, not a
collection's: it is read here and taken out of the `compare:` each collection's config is
validated with, which is then the config of that collection alone (which refuses the key). With
`compare:` it is on by default in a study of two collections or more.

    >>> study = load_experiment("configs/study.yaml")           # doctest: +SKIP
    >>> list(study.collections)                                 # doctest: +SKIP
    ['demo', 'de', 'es', 'ja', 'zh']
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from harness.config.execution import Execution
from harness.config.keys import Key, join_path
from harness.config.load import CHECKS, TOP_KEYS, build_config, validate_tree
from harness.config.nodes import (
    INVALID,
    Ctx,
    check_keys,
    check_section,
    closest,
    expected,
    is_null,
    mapping_items,
    problem_order,
    read_string,
    suggest,
)
from harness.config.overrides import Override
from harness.config.schema import SCHEMA
from harness.config.schema.compare import COMPARE
from harness.config.schema.study import COLLECTIONS, COLLECTIONS_FOLDER, ENTRY_KEYS, STUDY_KEY, TABLE_COLUMNS
from harness.config.text import ConfigTree, open_config
from harness.config.validated import Config, LocatedProblem
from harness.errors import ConfigError
from harness.folders import Experiment
from harness.metrics.measures import Measure
from harness.policies import META_POOLED, MetaPolicy

__all__ = ["Study", "load_experiment", "is_study"]

# the keys an entry brings into its collection's config (`name` names the entry)
_OWN = tuple(k for k in ENTRY_KEYS if k != "name")
_TOP_LEVEL = {k.name for k in SCHEMA.keys} - {STUDY_KEY}
_meta_key = COMPARE.key("meta")
assert _meta_key is not None  # compare: holds the study's `meta` key (config.schema.compare)
_META: Key = _meta_key
_META_PATH = join_path(COMPARE.name, _META.name)


@dataclass(frozen=True)
class Study:
    """A validated study: each collection's Config by name, in the config's order, and what the
    study as a whole is (its name, config file and output folder, one folder it owns)."""

    source: Path
    name: str
    output: Path
    collections: dict[str, Config]
    measures: tuple[Measure, ...]  # the measures the collections evaluate (the tables' rows), in order
    execution: Execution = Execution()
    overrides: tuple[str, ...] = ()
    replace: bool = False
    meta: MetaPolicy | None = None  # the meta-analysis across collections (compare.meta); None: none
    raw: dict = field(default_factory=dict, compare=False, repr=False)
    text: str | None = field(default=None, compare=False, repr=False)  # the YAML, when in no file

    @property
    def experiment(self) -> Experiment:
        """What the marker of the output folder names as this experiment (harness.folders)."""
        return Experiment(self.name, None if self.text is not None else self.source)

    @property
    def measure_names(self) -> tuple[str, ...]:
        return tuple(str(m) for m in self.measures)

    def folder(self, name: str) -> str:
        """Where the collection ``name``'s report goes, relative to the output: collections/NAME."""
        return f"{COLLECTIONS_FOLDER}/{name}"


def is_study(config) -> bool:
    return isinstance(config, Study)


def load_experiment(
    path: str | os.PathLike, *, text: str | None = None, overrides: Sequence[Override] = (), replace: bool = False
) -> Config | Study:
    """A validated config: a :class:`Config` of one collection, or a :class:`Study` when it has
    `collections:`; a ConfigError listing every problem otherwise (as load_config's, whose
    arguments these are)."""
    with open_config(path, text=text, overrides=overrides, keys=TOP_KEYS) as tree:
        study = next(((k, v) for k, v in tree.root.value if isinstance(k, ScalarNode) and k.value == STUDY_KEY), None)
        if study is not None:
            return _study(tree, study[0], study[1], overrides, replace)
        ctx, values = validate_tree(tree, tree.root, replace)
        if ctx.problems:
            problems = sorted(ctx.problems, key=problem_order)  # LocatedProblems (the key reads .where)
            raise ConfigError(tree.source, problems)
        return build_config(tree, ctx, values, tree.root, overrides, replace)


@dataclass
class _Entry:
    prefix: str  # collections[NAME], or collections[i] without a valid name
    name: str | None
    node: MappingNode
    # misspelt keys (`topic:`), reported here and passed on to the collection's validation, which
    # counts each as the key it is close to, given invalid: `topics` is then not said to be missing
    misspelt: list[tuple[Node, Node]] = field(default_factory=list)


def _study(tree: ConfigTree, key: Node, seq: Node, overrides: Sequence[Override], replace: bool) -> Study:
    ctx = Ctx(tree.source, tree.file.parent, tree.loader, CHECKS)  # the study's own problems
    check_keys(ctx, tree.root, "", {id(seq)})  # the top level's duplicates (each entry's: below)
    top = list(mapping_items(tree.root))
    alone = [(k, n) for k, n, _ in top if k in _OWN]
    if alone:
        given = ", ".join(f"`{k}`" for k, _ in alone)
        ctx.problem(
            alone[0][0],
            f"{given} {'is' if len(alone) == 1 else 'are'} given beside `{STUDY_KEY}`: a config is either one "
            f"collection (top-level {', '.join(f'`{k}`' for k in _OWN)}) or a study, whose entries each give "
            f"their own; move {given} into each entry of `{STUDY_KEY}`, or remove `{STUDY_KEY}`",
            alone[0][1],
        )
    entries = _entries(ctx, seq)
    shared = [(k, kn, v) for k, kn, v in top if k not in _OWN and k != STUDY_KEY]
    meta, shared = _meta(ctx, shared, entries)
    found: list[tuple[_Entry, Ctx, dict, MappingNode]] = []
    for entry in entries:
        # in the order a config of the collection alone is written: its name, its own keys, the rest
        own = [(kn, v) for k, kn, v in mapping_items(entry.node) if k in _OWN] + entry.misspelt
        pairs = [(kn, v) for k, kn, v in shared if k == "name"] + own
        pairs += [(kn, v) for k, kn, v in shared if k != "name"]
        root = MappingNode("tag:yaml.org,2002:map", pairs, entry.node.start_mark, entry.node.end_mark)
        entry_ctx, values = validate_tree(tree, root, replace)
        found.append((entry, entry_ctx, values, root))
    problems = ctx.problems + _merged(found) + _across(found)
    if problems or not found:
        if not problems:  # `collections: []`, reported by _entries; defensive
            problems = [LocatedProblem(STUDY_KEY, "names no collection", None)]
        ordered = sorted(_unique(problems), key=problem_order)  # LocatedProblems (the key reads .where)
        raise ConfigError(tree.source, ordered)
    configs: dict[str, Config] = {}
    for entry, entry_ctx, values, root in found:
        cfg = build_config(tree, entry_ctx, values, root, overrides, replace, where=f"{entry.prefix}.collection")
        assert entry.name is not None  # an entry without a valid name is a problem above
        raw = {
            **cfg.raw,
            "name": entry.name,
            "output": f"{cfg.raw.get('output', '')}/{COLLECTIONS_FOLDER}/{entry.name}",
        }
        configs[entry.name] = replace_config(cfg, entry.name, raw)
    first, values = next(iter(configs.values())), found[0][2]
    return Study(
        source=tree.file,
        name=values["name"],
        output=values["output"],
        collections=configs,
        measures=tuple(dict.fromkeys(m for c in configs.values() for m in c.measures)),
        execution=first.execution,
        overrides=first.overrides,
        replace=replace,
        meta=meta,
        raw=tree.loader.construct_document(tree.root),
        text=tree.text if tree.in_memory else None,
    )


def replace_config(cfg: Config, name: str, raw: dict) -> Config:
    """The Config of the collection ``name`` of a study: named after it, its report in
    ``OUTPUT/collections/NAME``."""
    return replace(cfg, name=name, output=cfg.output / COLLECTIONS_FOLDER / name, raw=raw)


def _entries(ctx: Ctx, seq: Node) -> list[_Entry]:
    """The entries of `collections` that can be validated, each named; the problems of the list,
    of each entry's name and of keys an entry may not give, recorded in ``ctx``."""
    if not isinstance(seq, SequenceNode):
        expected(ctx, STUDY_KEY, "a list of collections, each a mapping {name, collection, topics, qrels}", seq)
        return []
    if not seq.value:
        ctx.problem(STUDY_KEY, "an empty list names no collection; give one entry per collection", seq)
        return []
    out: list[_Entry] = []
    seen: dict[str, str] = {}  # name, lowercased -> where it was first given
    for i, node in enumerate(seq.value):
        if not isinstance(node, MappingNode):
            expected(ctx, f"{STUDY_KEY}[{i}]", "a mapping {name, collection, topics, qrels}", node)
            continue
        given = {k: (kn, v) for k, kn, v in mapping_items(node)}
        name = _name(ctx, i, node, given.get("name"), seen)
        entry = _Entry(f"{STUDY_KEY}[{name if name is not None else i}]", name, node)
        prefix = entry.prefix
        check_keys(ctx, node, prefix, set())  # an entry's duplicate keys, named in the entry
        for k, (kn, v) in given.items():
            if k in ENTRY_KEYS:
                continue
            if k in _TOP_LEVEL:
                ctx.problem(
                    join_path(prefix, k),
                    f"`{k}` applies to every collection of the study: give it once at the top level, beside "
                    f"`{STUDY_KEY}` (an entry gives {', '.join(ENTRY_KEYS)})",
                    kn,
                )
            else:
                hint = suggest(k, ENTRY_KEYS) or "."
                ctx.problem(join_path(prefix, k), f"unknown key {k!r}{hint} Valid: {', '.join(ENTRY_KEYS)}", kn)
                if closest(k, _OWN) is not None:
                    entry.misspelt.append((kn, v))
        out.append(entry)
    return out


def _name(ctx: Ctx, i: int, node: MappingNode, given, seen: dict[str, str]) -> str | None:
    """The entry's name, checked (pattern, reserved, unique ignoring case), or None (reported)."""
    p = f"{STUDY_KEY}[{i}].name"
    key = COLLECTIONS.key("name")
    assert key is not None and key.pattern is not None  # the entries' `name`, a key with a pattern
    if given is None:
        ctx.problem(p, f"required key is missing ({key.doc})", node)
        return None
    name = read_string(ctx, given[1], p)
    if name is INVALID:
        return None
    if not re.fullmatch(key.pattern, name):
        ctx.problem(
            p,
            f"must match {key.pattern} (got {name!r}): letters, digits, '_', '-' and '.' (not first), "
            "at most 64; it names a folder",
            given[1],
        )
        return None
    if name in TABLE_COLUMNS:
        ctx.problem(
            p, f"{name!r} is a column of collections.csv ({', '.join(TABLE_COLUMNS)}): choose another", given[1]
        )
        return None
    if name in META_POOLED:
        ctx.problem(
            p,
            f"{name!r} names the pooled rows of meta_analysis.csv ({', '.join(META_POOLED)}): choose another",
            given[1],
        )
        return None
    if name.lower() in seen:
        ctx.problem(p, f"{name!r} names another collection too ({seen[name.lower()]}); names are unique", given[1])
        return None
    seen[name.lower()] = f"{STUDY_KEY}[{i}]"
    return name


def _meta(ctx: Ctx, shared: list, entries: list[_Entry]) -> tuple[MetaPolicy | None, list]:
    """The study's meta-analysis (None: none; its problems recorded in ``ctx``), and the shared
    keys with `compare.meta` taken out of `compare:`, as each collection's config gets them."""
    compare = next((v for k, _, v in shared if k == COMPARE.name), None)
    on = len(entries) >= 2  # the default: on in a study of two collections or more, with `compare:`
    if compare is None or not isinstance(compare, MappingNode):  # absent, `compare:` or a mistake of its own
        return (MetaPolicy() if compare is not None and is_null(compare) and on else None), shared
    given = [(k, v) for k, v in compare.value if isinstance(k, ScalarNode) and k.value == _META.name]
    rest = [(k, v) for k, v in compare.value if not (isinstance(k, ScalarNode) and k.value == _META.name)]
    alone = MappingNode(compare.tag, rest, compare.start_mark, compare.end_mark, compare.flow_style)
    shared = [(k, kn, alone if v is compare else v) for k, kn, v in shared]
    if not given:
        return (MetaPolicy() if on else None), shared
    node = given[0][1]  # a second `meta:` is a duplicate key, reported by check_keys
    if is_null(node):  # `meta:` written and left empty: on, with its defaults
        node = MappingNode("tag:yaml.org,2002:map", [], node.start_mark, node.end_mark)
    value = check_section(ctx, _META, node, _META_PATH)
    if value is None or value is INVALID or INVALID in value.values():  # `meta: false`, or reported
        return None, shared
    if not on:
        ctx.problem(
            _META_PATH,
            f"a meta-analysis combines each comparison over two collections or more, and this study has "
            f"{len(entries)}: add a collection to `{STUDY_KEY}`, or remove `meta`",
            given[0][1],
        )
        return None, shared
    return MetaPolicy(**value), shared


def _merged(found) -> list[LocatedProblem]:
    """Each collection's problems, those at its own keys named in its entry, those at shared keys
    once (naming the collections where only some have it)."""
    out: list[LocatedProblem] = []
    shared: dict[tuple, list[str]] = {}
    for entry, entry_ctx, _, _ in found:
        misspelt = {k.value for k, _ in entry.misspelt}
        line = f"{entry_ctx.source}:{entry.node.start_mark.line + 1}"
        for p in entry_ctx.problems:
            root = re.split(r"[.\[]", p.path, maxsplit=1)[0]
            if root in misspelt:  # reported with the entry's keys (_entries)
                continue
            if root in _OWN:  # a problem the checks could place nowhere: at the entry
                out.append(LocatedProblem(f"{entry.prefix}.{p.path}", p.message, p.where or line))
            else:
                shared.setdefault((p.path, p.message, p.where), []).append(entry.prefix)
    for (path, message, where), prefixes in shared.items():
        prefixes = list(dict.fromkeys(prefixes))
        if len(prefixes) < len(found):
            path = f"{path} (with {', '.join(prefixes)})" if path else f"with {', '.join(prefixes)}"
        out.append(LocatedProblem(path, message, where))
    return out


def _across(found) -> list[LocatedProblem]:
    """What no one collection's config can see: run files (one collection's topics each) and two
    collections building an index in one folder."""
    out: list[LocatedProblem] = []
    for key in dict.fromkeys(k for _, c, _, _ in found for k in c.found.get("run_files", {})):
        node = found[0][1].nodes.get("runs")
        out.append(
            _problem(
                found[0][1],
                key,
                "a run read from a file answers one collection's topics, and the runs of a study are every "
                "collection's: remove the `file:` entry (or give that collection a config of its own)",
                node,
            )
        )
    built: dict[Path, str] = {}
    for entry, c, v, _ in found:
        index = v.get("index")
        if not isinstance(index, dict) or not isinstance(index.get("path"), Path) or v.get("collection") is None:
            continue
        path = index["path"]
        if path in built:
            out.append(
                _problem(
                    c,
                    f"{entry.prefix}.index.path",
                    f"{path} is also the index of {built[path]}: each collection's index needs its own folder "
                    "(leave `index.path` out: indexes are named by their collection and options)",
                    c.nodes.get("index.path"),
                )
            )
        else:
            built[path] = entry.prefix
    return out


def _problem(ctx: Ctx, path: str, message: str, node: Node | None) -> LocatedProblem:
    ctx.problem(path, message, node)
    return ctx.problems.pop()


def _unique(problems: list[LocatedProblem]) -> list[LocatedProblem]:
    """Each problem once (an entry's key met by the entry's checks and by its collection's)."""
    seen: set[tuple] = set()
    out = []
    for p in problems:
        key = (p.path, p.message, p.where)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
