"""Experiment configs: a strict YAML schema, checked in full before anything runs.

The schema is data: ``SCHEMA`` is a tree of :class:`Key` values (type, required or default,
allowed values, doc text). Validation walks it, and so does :func:`reference_markdown`, which
renders the config reference of the README, so the two cannot drift apart.

Validation reads the YAML node tree (so every problem can name its line), rejects duplicate and
unknown keys, resolves paths relative to the config file, checks that inputs exist, expands run
sweeps, and collects *every* problem into one :class:`~harness.errors.ConfigError`. It never
starts Java and never imports pyserini or jnius: Anserini's topic readers are listed from the
jar's entries with ``zipfile``.

    >>> cfg = load_config("configs/demo.yaml")                      # doctest: +SKIP
    >>> [str(r) for r in cfg.runs][:2]                              # doctest: +SKIP
    ['bm25(k1=0.9,b=0.4)', 'dirichlet(mu=500)']
"""

from __future__ import annotations

import difflib
import itertools
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .errors import ConfigError, ConfigProblem
from .similarity import MODELS, Similarity, format_number
from .stats import CORRECTIONS, FAMILIES, TESTS, StatsPolicy

__all__ = ["load_config", "Config", "CompareSpec", "reference_markdown", "SCHEMA", "Key",
           "LocatedProblem", "anserini_topic_readers", "ALL_PAIRS"]


# --------------------------------------------------------------------------------------------
# The schema


@dataclass(frozen=True)
class Key:
    """One config key. ``type`` selects its check (see ``_CHECKS``) and its reference row.

    Path keys: ``path_kind`` is "file", "dir" or None (either); ``must_exist`` says whether it
    must already exist. Sections (``type="section"``) hold their ``keys``; a section with a
    ``shorthand`` may also be written as a plain string, which then sets that one key. Numbers
    lie in [minimum, maximum], or in (minimum, maximum) when ``exclusive``. ``default_text``
    describes a default that depends on other keys (for the reference).
    """

    name: str
    type: str
    doc: str
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    exclusive: bool = False
    pattern: str | None = None
    path_kind: str | None = None
    must_exist: bool = False
    keys: tuple["Key", ...] = ()
    shorthand: str | None = None
    default_text: str | None = None

    def key(self, name: str) -> "Key | None":
        return next((k for k in self.keys if k.name == name), None)


DEFAULT_MEASURES = ("AP", "P@10", "nDCG@10", "RR", "R@1000")
TOPIC_FORMATS = ("tsv", "jsonl", "trec", "anserini:<Reader>")
ALL_PAIRS = "all-pairs"


def _registry(reg: dict[str, str]) -> str:
    return "; ".join(f"`{k}`: {v}" for k, v in reg.items())


SCHEMA = Key("", "section", "An experiment.", required=True, keys=(
    Key("name", "string", "Experiment name: the report's title.",
        required=True, pattern=r"[A-Za-z0-9_.-]+"),
    Key("collection", "section", "The documents to index.", required=True, keys=(
        Key("path", "path", "The collection: a file or a folder.", required=True, must_exist=True),
        Key("format", "choice", "How the documents are stored (text-folder: one document per "
            ".txt file, its id the path relative to `path`).", required=True,
            choices=("jsonl", "trec", "html", "text-folder")),
    )),
    Key("index", "section", "How the collection is indexed; the defaults follow Anserini.", keys=(
        Key("path", "path", "Where the index lives. By default `indexes/<collection name>-<fingerprint>` "
            "in the nearest `indexes/` folder above the config (or `$HARNESS_INDEXES`), so configs "
            "over the same corpus and options share one index.", path_kind="dir"),
        Key("stemmer", "choice", "Stemmer of the English analyzer.", default="porter",
            choices=("porter", "krovetz", "none")),
        Key("stopwords", "bool", "Remove English stopwords (Lucene's list, as Anserini does).",
            default=True),
        Key("threads", "int", "Threads for indexing and for searching (one JVM, one index reader; "
            "measured faster than one process per core, see README Performance).", minimum=1,
            default_text="the number of CPU cores"),
    )),
    Key("topics", "section", "The queries; a plain string is a path to a tsv file.", required=True,
        shorthand="path", keys=(
            Key("path", "path", "The topics file.", required=True, path_kind="file", must_exist=True),
            Key("format", "topic-format", "tsv is `qid<TAB>query`; `anserini:<Reader>` uses one of "
                "Anserini's topic readers (e.g. `anserini:TsvInt`, `anserini:Trec`).", default="tsv",
                choices=TOPIC_FORMATS),
        )),
    Key("qrels", "path", "Relevance judgments (TREC qrels). Without them only runs are written, "
        "and `measures` and `expect` are errors.", path_kind="file", must_exist=True),
    Key("runs", "runs", "The similarities to run: a list of `{model: {param: value}}`; a list of "
        "values is a sweep, several lists form a grid; `{}` or null means the defaults.",
        required=True),
    Key("depth", "int", "Documents retrieved per topic.", default=1000, minimum=1),
    Key("measures", "measures", "Measures to compute (canonical names of harness.metrics).",
        default=DEFAULT_MEASURES),
    Key("expect", "expect", "Expected scores, `{run: {measure: value}}`; a mismatch fails the "
        "experiment. Run names are canonicalised (`bm25(b=0.4,k1=0.9)` = `bm25(k1=0.9,b=0.4)`)."),
    Key("expect_tolerance", "number", "Largest allowed |actual - expected| (the default means "
        "agreement to 4 decimals).", default=0.00005, minimum=0),
    Key("evaluation", "section", "Policies that change numbers; all are echoed in the report.",
        keys=(
            Key("ties", "choice", "Order of equal scores: trec_eval re-sorts by score then doc id; "
                "as-ranked keeps the engine's order.", default="trec_eval",
                choices=("trec_eval", "as-ranked")),
            Key("missing_topics", "choice", "Judged topics a run has no results for: zero counts "
                "them as 0 (trec_eval -c); drop leaves them out of the mean.", default="zero",
                choices=("zero", "drop")),
        )),
    Key("compare", "section", "Significance tests between runs (needs qrels and two runs or "
        "more); without this key nothing is compared. The policy is written into every report.",
        keys=(
            Key("baseline", "baseline", "The run every other run is compared with: a run's name, a "
                f"list of names, or `{ALL_PAIRS}` (every pair once, the earlier run as baseline). "
                "Names are canonicalised like `expect`'s.", default_text="the first run"),
            Key("measures", "compare-measures", "Measures compared; the first one also drives "
                "cross-validation and the per-topic plots.", default_text="all of `measures`"),
            Key("test", "choice", "Paired test: " + _registry(TESTS) + ".", default="t",
                choices=tuple(TESTS)),
            Key("permutations", "int", "Resamples of the randomization test.", default=10_000,
                minimum=1),
            Key("bootstrap_samples", "int", "Resamples of the bootstrap test and of every "
                "confidence interval.", default=10_000, minimum=1),
            Key("ci_level", "number", "Level of the percentile bootstrap CI of each difference.",
                default=0.95, minimum=0, maximum=1, exclusive=True),
            Key("seed", "int", "Seed of every resampling (randomization, bootstrap, CI) and of the "
                "cross-validation folds: the same config gives the same p-values.", default=42,
                minimum=0),
            Key("correction", "choice", "Multiple-comparison correction: " + _registry(CORRECTIONS)
                + ".", default="holm", choices=tuple(CORRECTIONS)),
            Key("family", "choice", "The p-values corrected together: " + _registry(FAMILIES) + ".",
                default="per-measure", choices=tuple(FAMILIES)),
            Key("alpha", "number", "Significance level: a difference is significant when its "
                "corrected p < alpha.", default=0.05, minimum=0, maximum=1, exclusive=True),
            Key("cross_validation", "section", "Tune each swept model (a model with several "
                "settings) by k-fold cross-validation over topics on the first compared measure; "
                "the report gives each fold's chosen setting and the held-out score. Without this "
                "key nothing is tuned.", keys=(
                    Key("folds", "int", "Number of folds; topics are assigned by `seed`.",
                        default=5, minimum=2),
                )),
        )),
    Key("output", "path", "Folder for runs and reports (created if missing).", required=True,
        path_kind="dir"),
))


# --------------------------------------------------------------------------------------------
# The result


@dataclass(frozen=True)
class CompareSpec:
    """The validated `compare:` block. ``baselines`` is empty when ``all_pairs``."""

    baselines: tuple[str, ...]
    all_pairs: bool
    measures: tuple[str, ...]
    policy: StatsPolicy
    folds: int | None          # cross-validation folds; None: no cross-validation

    def pairs(self, runs) -> list[tuple[str, str]]:
        """(baseline, run) pairs over ``runs`` (canonical names, in config order). With several
        baselines, two baselines are compared once (the earlier one as the baseline), so no
        test enters the correction family twice."""
        from .stats import all_pairs, pairs_against

        if self.all_pairs:
            return all_pairs(runs)
        out: list[tuple[str, str]] = []
        for b, r in pairs_against(self.baselines, runs):
            if (r, b) not in out:
                out.append((b, r))
        return out


@dataclass(frozen=True)
class Config:
    """A validated experiment. Paths are absolute; names (runs, measures) are canonical."""

    source: Path
    name: str
    collection_path: Path
    collection_format: str
    index_path: Path | None
    stemmer: str
    stopwords: bool
    index_threads: int
    topics_path: Path
    topics_format: str
    qrels_path: Path | None
    runs: tuple[Similarity, ...]
    depth: int
    measures: tuple[str, ...]
    expect: dict[str, dict[str, float]]
    expect_tolerance: float
    ties: str
    missing_topics: str
    output: Path
    raw: dict = field(compare=False, repr=False)
    compare: CompareSpec | None = None

    @property
    def run_names(self) -> tuple[str, ...]:
        return tuple(str(r) for r in self.runs)


class LocatedProblem(ConfigProblem):
    """A ConfigProblem that also knows where it is: ``configs/x.yaml:12``."""

    __slots__ = ("where",)

    def __init__(self, path: str, message: str, where: str | None = None):
        super().__init__(path, message)
        self.where = where

    def __str__(self) -> str:
        return ": ".join(part for part in (self.where, self.path, self.message) if part)


# --------------------------------------------------------------------------------------------
# Anserini's topic readers, from the jar's entries (no JVM, no pyserini import)

from .topics import anserini_topic_readers  # noqa: E402  (reads the jar's entries; no JVM)


# --------------------------------------------------------------------------------------------
# Validation machinery

_INVALID = object()      # a value that failed its check (the problem is already recorded)
_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"
_MERGE = "tag:yaml.org,2002:merge"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_FLOAT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\Z")


def _join(path: str, key: str) -> str:
    if _IDENT.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"


def _suggest(word: str, valid) -> str:
    close = difflib.get_close_matches(word, list(valid), n=1, cutoff=0.6)
    if not close:
        lower = {v.lower(): v for v in valid}
        close = [lower[word.lower()]] if word.lower() in lower else []
    return f"; did you mean {close[0]!r}?" if close else ""


def _unknown(what: str, word: str, valid, hint: str | None = None) -> str:
    """'unknown key 'stemer'; did you mean 'stemmer'? Valid: path, stemmer, ...'"""
    hint = hint or _suggest(word, valid) or "."
    return f"unknown {what} {word!r}{hint} Valid: {', '.join(valid)}"


class _Ctx:
    def __init__(self, source: str, base: Path, loader: yaml.SafeLoader):
        self.source = source
        self.base = base
        self.loader = loader
        self.problems: list[LocatedProblem] = []
        self.present: set[str] = set()      # key paths given in the file
        self.nodes: dict[str, Node] = {}    # key path -> its value node, for later cross-checks

    def problem(self, path: str, message: str, node: Node | None = None) -> object:
        where = f"{self.source}:{node.start_mark.line + 1}" if node is not None else None
        self.problems.append(LocatedProblem(path, message, where))
        return _INVALID

    def value(self, node: Node, path: str | None = None) -> Any:
        """The Python value of a scalar node (mappings and lists are returned as nodes).
        An unreadable scalar (e.g. an unknown !!tag) is a problem at ``path``; None: not reported."""
        if not isinstance(node, ScalarNode):
            return node
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.YAMLError as e:
            if path is None:
                return _INVALID
            return self.problem(path, f"cannot read this value: {getattr(e, 'problem', e)}", node)


def _is_null(node: Node | None) -> bool:
    return node is None or (isinstance(node, ScalarNode) and node.tag == _NULL)


def _describe(ctx: _Ctx, node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    v = ctx.value(node)
    if v is _INVALID:
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


def _items(node: MappingNode):
    """(key text, key node, value node) of a mapping; later duplicates and non-string keys are
    skipped here because ``_check_keys`` has already reported them."""
    seen = set()
    for k, v in node.value:
        if isinstance(k, ScalarNode) and k.tag != _MERGE and k.value not in seen:
            seen.add(k.value)
            yield k.value, k, v


def _check_keys(ctx: _Ctx, node: Node, path: str, visited: set[int]) -> None:
    """Reject duplicate keys, merge keys and non-scalar keys anywhere in the tree."""
    if id(node) in visited:      # an alias: checked once
        return
    visited.add(id(node))
    if isinstance(node, MappingNode):
        first: dict[str, int] = {}
        for k, v in node.value:
            if not isinstance(k, ScalarNode):
                ctx.problem(path, f"keys must be plain strings, got {_describe(ctx, k)}", k)
            elif k.tag == _MERGE:
                ctx.problem(path, "YAML merge keys (<<) are not supported; write the keys out", k)
            elif k.value in first:
                ctx.problem(_join(path, k.value), f"duplicate key {k.value!r} (first given at "
                            f"line {first[k.value]}); give each key once", k)
            else:
                first[k.value] = k.start_mark.line + 1
                _check_keys(ctx, v, _join(path, k.value), visited)
    elif isinstance(node, SequenceNode):
        for i, item in enumerate(node.value):
            _check_keys(ctx, item, f"{path}[{i}]", visited)


def _nested_homes(key: Key, name: str, prefix: str = "") -> list[str]:
    """Where ``name`` is a valid key deeper inside ``key`` (for 'did you mean index.threads?')."""
    homes = []
    for sub in key.keys:
        if sub.type == "section":
            here = _join(prefix, sub.name)
            if sub.key(name):
                homes.append(_join(here, name))
            homes += _nested_homes(sub, name, here)
    return homes


def _default(key: Key) -> Any:
    if key.type == "section":
        return {k.name: _default(k) for k in key.keys}
    return key.default


def _check(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    return _CHECKS[key.type](ctx, key, node, path)


def _check_section(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    names = [k.name for k in key.keys]
    if key.shorthand and isinstance(node, ScalarNode) and node.tag == _STR:
        node = MappingNode("tag:yaml.org,2002:map", [(ScalarNode(_STR, key.shorthand, node.start_mark,
                           node.end_mark), node)], node.start_mark, node.end_mark)
    if not isinstance(node, MappingNode):
        also = f" (or a string: the {key.shorthand})" if key.shorthand else ""
        return ctx.problem(path, f"expected a mapping with keys {', '.join(names)}{also}, "
                           f"got {_describe(ctx, node)}", node)
    given: dict[str, Node] = {}
    for name, knode, vnode in _items(node):
        if key.key(name) is None:
            hint = _suggest(name, names)
            homes = _nested_homes(key, name)
            if homes and not hint:
                hint = f"; did you mean {' or '.join(homes)}?"
            ctx.problem(_join(path, name), _unknown("key", name, names, hint), knode)
        else:
            given[name] = vnode
    out = {}
    for sub in key.keys:
        p = _join(path, sub.name)
        vnode = given.get(sub.name)
        if not _is_null(vnode):
            ctx.present.add(p)
            ctx.nodes[p] = vnode
            out[sub.name] = _check(ctx, sub, vnode, p)
        elif sub.required:
            got = " (got null)" if vnode is not None else ""
            out[sub.name] = ctx.problem(p, f"required key is missing{got} ({sub.doc})",
                                        vnode if vnode is not None else node)
        elif sub.type == "section":
            out[sub.name] = _check_section(ctx, sub, MappingNode("tag:yaml.org,2002:map", [],
                                           node.start_mark, node.end_mark), p)
        else:
            out[sub.name] = _default(sub)
    return out


def _expected(ctx: _Ctx, path: str, what: str, node: Node) -> object:
    hint = " (quote it)" if what == "a string" and isinstance(node, ScalarNode) else ""
    return ctx.problem(path, f"expected {what}, got {_describe(ctx, node)}{hint}", node)


def _string(ctx: _Ctx, node: Node, path: str) -> Any:
    v = ctx.value(node, path)
    if v is _INVALID:
        return v
    if not isinstance(v, str):
        return _expected(ctx, path, "a string", node)
    return v


def _check_string(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    v = _string(ctx, node, path)
    if v is not _INVALID and key.pattern and not re.fullmatch(key.pattern, v):
        return ctx.problem(path, f"must match {key.pattern} (got {v!r})", node)
    return v


def _check_choice(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    v = _string(ctx, node, path)
    if v is not _INVALID and v not in key.choices:
        return ctx.problem(path, f"must be one of {', '.join(key.choices)} (got {v!r})"
                           f"{_suggest(v, key.choices)}", node)
    return v


def _check_bool(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    v = ctx.value(node, path)
    if v is not _INVALID and not isinstance(v, bool):
        return _expected(ctx, path, "true or false", node)
    return v


def _number(ctx: _Ctx, node: Node, path: str, integer: bool = False) -> Any:
    v = ctx.value(node, path)
    if v is _INVALID:
        return v
    # PyYAML (YAML 1.1) reads 1e3 as a string; a plain, unquoted one is meant as a number.
    if not integer and isinstance(v, str) and node.style is None and _FLOAT.match(v):
        v = float(v)
    if isinstance(v, bool) or not isinstance(v, int if integer else (int, float)):
        return _expected(ctx, path, "an integer" if integer else "a number", node)
    if isinstance(v, float) and math.isnan(v):
        return ctx.problem(path, "must be a number (got nan)", node)
    return v


def _check_int(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    v = _number(ctx, node, path, integer=True)
    if v is not _INVALID and key.minimum is not None and v < key.minimum:
        return ctx.problem(path, f"must be an integer >= {format_number(key.minimum)} (got {v})", node)
    return v


def _range(key: Key) -> str:
    """'>= 0', '(0, 1)', '[0, 1]'."""
    if key.maximum is None:
        return f"{'>' if key.exclusive else '>='} {format_number(key.minimum)}"
    lo, hi = "([" [not key.exclusive], ")]" [not key.exclusive]
    return f"{lo}{format_number(key.minimum)}, {format_number(key.maximum)}{hi}"


def _check_number(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    v = _number(ctx, node, path)
    if v is _INVALID or key.minimum is None:
        return v if v is _INVALID else float(v)
    low, high = key.minimum, math.inf if key.maximum is None else key.maximum
    inside = low < v < high if key.exclusive else low <= v <= high
    if not inside:
        rng = _range(key)
        return ctx.problem(path, f"must be a number {'in ' if rng[0] in '([' else ''}{rng} (got {v!r})", node)
    return float(v)


def _check_path(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    v = _string(ctx, node, path)
    if v is _INVALID:
        return v
    if not v.strip():
        return ctx.problem(path, "must be a path (got an empty string)", node)
    p = (ctx.base / os.path.expanduser(v)).resolve()
    kind = {"file": "file", "dir": "folder"}.get(key.path_kind or "", "file or folder")
    if not p.exists():
        if key.must_exist:
            return ctx.problem(path, f"{kind} not found: {p} (paths are relative to the config "
                               f"file's folder, {ctx.base})", node)
    elif key.path_kind == "file" and not p.is_file():
        return ctx.problem(path, f"expected a file, but {p} is a folder", node)
    elif key.path_kind == "dir" and not p.is_dir():
        return ctx.problem(path, f"expected a folder, but {p} is a file", node)
    return p


def _check_topic_format(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    v = _string(ctx, node, path)
    if v is _INVALID or v in key.choices:
        return v
    if not v.startswith("anserini:"):
        return ctx.problem(path, f"must be one of {', '.join(key.choices)} (got {v!r})"
                           f"{_suggest(v, key.choices[:-1])}", node)
    reader = v.split(":", 1)[1].strip()
    reader = reader[: -len("TopicReader")] if reader.endswith("TopicReader") else reader
    readers = anserini_topic_readers()
    if readers is None:
        return ctx.problem(path, f"cannot check Anserini topic reader {reader!r}: no Anserini jar "
                           "found (is pyserini installed?); use tsv, jsonl or trec", node)
    if reader not in readers:
        return ctx.problem(path, _unknown("Anserini topic reader", reader, readers), node)
    return f"anserini:{reader}"


def _check_runs(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    example = "a list of runs like `- bm25: {k1: 0.9, b: 0.4}`"
    if not isinstance(node, SequenceNode):
        return _expected(ctx, path, example, node)
    if not node.value:
        return ctx.problem(path, f"must list at least one run ({example})", node)
    expanded: list[tuple[Similarity, str, Node]] = []
    for i, item in enumerate(node.value):
        p = f"{path}[{i}]"
        items = list(_items(item)) if isinstance(item, MappingNode) else []
        if len(items) != 1 or len(item.value) != 1:
            _expected(ctx, p, f"a one-key mapping {{model: {{param: value}}}} with model one of "
                      f"{', '.join(MODELS)}", item)
            continue
        model, knode, pnode = items[0]
        if model not in MODELS:
            ctx.problem(p, _unknown("model", model, MODELS), knode)
            continue
        specs = MODELS[model]
        mp = _join(p, model)
        values: dict[str, list[tuple[Any, str | None]]] = {}
        if not _is_null(pnode):
            if not isinstance(pnode, MappingNode):
                _expected(ctx, mp, f"a mapping of parameters ({', '.join(s.name for s in specs)}) "
                          "or null for the defaults", pnode)
                continue
            for pname, pknode, pvnode in _items(pnode):
                spec = next((s for s in specs if s.name == pname), None)
                pp = _join(mp, pname)
                if spec is None:
                    valid = [s.name for s in specs]
                    ctx.problem(pp, _unknown(f"{model} parameter", pname, valid), pknode)
                    values[pname] = [(_INVALID, None)]
                    continue
                elems = list(enumerate(pvnode.value)) if isinstance(pvnode, SequenceNode) else [(None, pvnode)]
                if not elems:
                    ctx.problem(pp, "an empty list sweeps nothing; give at least one value", pvnode)
                vals = []
                for j, vnode in elems:
                    ep = pp if j is None else f"{pp}[{j}]"
                    v = _number(ctx, vnode, ep)
                    if v is not _INVALID and (why := spec.check(v)):
                        v = ctx.problem(ep, why, vnode)
                    vals.append((v, None if j is None else f"{pname}[{j}]"))
                values[pname] = vals
        if any(v is _INVALID for vals in values.values() for v, _ in vals) or any(
            not vals for vals in values.values()
        ):
            continue
        grid = [values.get(s.name, [(s.default, None)]) for s in specs]
        for combo in itertools.product(*grid):
            sim = Similarity.of(model, {s.name: v for s, (v, _) in zip(specs, combo)})
            labels = [label for _, label in combo if label]
            expanded.append((sim, p + (f" ({', '.join(labels)})" if labels else ""), item))
    first: dict[Similarity, str] = {}
    for sim, origin, item in expanded:
        if sim in first:
            ctx.problem(origin.split(" ")[0], f"run {sim} is given twice: by {first[sim]} and by "
                        f"{origin}; remove one", item)
        else:
            first[sim] = origin
    return tuple(first)


def _parse_measure(text: str) -> str:
    from .metrics import parse_measure   # lazily: the config needs only the measure registry

    return str(parse_measure(text))


def _check_measures(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    if not isinstance(node, SequenceNode):
        return _expected(ctx, path, "a list of measure names like [AP, P@10, nDCG@10]", node)
    out: dict[str, str] = {}
    problems = len(ctx.problems)
    for i, item in enumerate(node.value):
        p = f"{path}[{i}]"
        text = _string(ctx, item, p)
        if text is _INVALID:
            continue
        try:
            name = _parse_measure(text)
        except ValueError as e:
            ctx.problem(p, str(e), item)
            continue
        if name in out:
            ctx.problem(p, f"{text!r} repeats {out[name]} (both are {name})", item)
        else:
            out[name] = p
    return tuple(out) if len(ctx.problems) == problems else _INVALID


def _check_baseline(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    """Returns [(canonical run or ALL_PAIRS, path, node)]; checked against the runs in _finish."""
    example = f'a run name like "bm25(k1=0.9,b=0.4)", a list of them, or {ALL_PAIRS}'
    items = [(path, node)] if isinstance(node, ScalarNode) else (
        [(f"{path}[{i}]", n) for i, n in enumerate(node.value)] if isinstance(node, SequenceNode) else None)
    if items is None:
        return _expected(ctx, path, example, node)
    if not items:
        return ctx.problem(path, f"an empty list names no baseline; give {example}", node)
    out, seen = [], {}
    for p, n in items:
        text = _string(ctx, n, p)
        if text is _INVALID:
            continue
        if text == ALL_PAIRS:
            if len(items) > 1:
                ctx.problem(p, f"{ALL_PAIRS} compares every pair already; give it alone, not in a list", n)
            else:
                out.append((ALL_PAIRS, p, n))
            continue
        try:
            run = str(Similarity.parse(text))
        except ValueError as e:
            ctx.problem(p, f"not a run name: {e} (or give {ALL_PAIRS})", n)
            continue
        if run in seen:
            ctx.problem(p, f"names the same run as {seen[run]} ({run})", n)
            continue
        seen[run] = p
        out.append((run, p, n))
    return out


def _check_expect(ctx: _Ctx, key: Key, node: Node, path: str) -> Any:
    """Returns [(canonical run, path, node, {canonical measure: (value, path, node)})]."""
    if not isinstance(node, MappingNode):
        return _expected(ctx, path, 'a mapping {run: {measure: value}} like '
                         '{"bm25(k1=0.9,b=0.4)": {AP: 0.2878}}', node)
    out = []
    seen: dict[str, str] = {}
    for run_text, knode, vnode in _items(node):
        rp = _join(path, run_text)
        try:
            run = str(Similarity.parse(run_text))
        except ValueError as e:
            ctx.problem(rp, f"not a run name: {e}", knode)
            continue
        if run in seen:
            ctx.problem(rp, f"names the same run as {seen[run]} ({run})", knode)
            continue
        seen[run] = rp
        if not isinstance(vnode, MappingNode):
            _expected(ctx, rp, "a mapping {measure: value}", vnode)
            continue
        measures: dict[str, tuple[float, str, Node]] = {}
        for m_text, mknode, mvnode in _items(vnode):
            mp = _join(rp, m_text)
            try:
                m = _parse_measure(m_text)
            except ValueError as e:
                ctx.problem(mp, str(e), mknode)
                continue
            if m in measures:
                ctx.problem(mp, f"names the same measure as {measures[m][1]} ({m})", mknode)
                continue
            v = _number(ctx, mvnode, mp)
            if v is not _INVALID:
                measures[m] = (float(v), mp, mknode)
        out.append((run, rp, knode, measures))
    return out


_CHECKS = {
    "section": _check_section,
    "string": _check_string,
    "choice": _check_choice,
    "bool": _check_bool,
    "int": _check_int,
    "number": _check_number,
    "path": _check_path,
    "topic-format": _check_topic_format,
    "runs": _check_runs,
    "measures": _check_measures,
    "expect": _check_expect,
    "baseline": _check_baseline,
    "compare-measures": _check_measures,
}


def _finish(ctx: _Ctx, v: dict) -> dict:
    """Checks across keys: qrels vs measures/expect, expect vs runs and measures."""
    if v["qrels"] is None:
        for k in ("measures", "expect"):
            if k in ctx.present:
                ctx.problem(k, f"needs qrels: without `qrels` only runs are written and nothing "
                            f"is measured; add `qrels: <path>` or remove `{k}`", ctx.nodes[k])
        measures: Any = ()
    elif "measures" in ctx.present:
        measures = v["measures"]
    else:
        measures = tuple(_parse_measure(m) for m in DEFAULT_MEASURES)
    expect: dict[str, dict[str, float]] = {}
    if v["qrels"] is not None and isinstance(v["expect"], list):
        runs = [str(r) for r in v["runs"]] if v["runs"] is not _INVALID else None
        for run, rp, knode, ms in v["expect"]:
            if runs is not None and run not in runs:
                ctx.problem(rp, f"no run {run} in this config; its runs are: {', '.join(runs)}", knode)
            for m, (value, mp, mknode) in ms.items():
                if measures is not _INVALID and m not in measures:
                    ctx.problem(mp, f"{m} is not computed; add it to `measures` (now: "
                                f"{', '.join(measures)})", mknode)
            expect[run] = {m: value for m, (value, _, _) in ms.items()}
    return {"measures": measures, "expect": expect, "compare": _finish_compare(ctx, v, measures)}


def _finish_compare(ctx: _Ctx, v: dict, measures: Any) -> CompareSpec | None:
    """The compare block against the runs and measures of the config."""
    if "compare" not in ctx.present:
        return None
    c = v["compare"]
    if c is _INVALID:
        return None
    ok = True
    if v["qrels"] is None:
        ctx.problem("compare", "needs qrels: runs are compared on their per-topic scores; add "
                    "`qrels: <path>` or remove `compare`", ctx.nodes["compare"])
        return None
    runs = [str(r) for r in v["runs"]] if v["runs"] is not _INVALID else None
    if runs is not None and len(runs) < 2:
        ctx.problem("compare", f"needs at least two runs to compare; the config has one ({runs[0]}): "
                    "add runs or a sweep, or remove `compare`", ctx.nodes["compare"])
        ok = False
    baselines: list[str] = []
    all_pairs = False
    if "compare.baseline" not in ctx.present:
        baselines = runs[:1] if runs else []
    elif c["baseline"] is _INVALID:
        ok = False
    else:
        for run, p, node in c["baseline"]:
            if run == ALL_PAIRS:
                all_pairs = True
            elif runs is not None and run not in runs:
                ctx.problem(p, f"no run {run} in this config; its runs are: {', '.join(runs)} "
                            f"(or give {ALL_PAIRS})", node)
                ok = False
            else:
                baselines.append(run)
    if "compare.measures" not in ctx.present:
        cmp_measures = measures
    else:
        cmp_measures = c["measures"]
        if cmp_measures is not _INVALID and measures is not _INVALID:
            for i, m in enumerate(cmp_measures):
                if m not in measures:
                    p = f"compare.measures[{i}]"
                    node = ctx.nodes["compare.measures"].value[i]
                    ctx.problem(p, f"{m} is not computed; add it to `measures` (now: "
                                f"{', '.join(measures)})", node)
                    ok = False
    folds = None
    if "compare.cross_validation" in ctx.present:
        folds = c["cross_validation"]["folds"]
        if runs is not None:
            models = [r.model for r in v["runs"]]
            if all(models.count(m) < 2 for m in models):
                ctx.problem("compare.cross_validation", "no model of `runs` has more than one "
                            "setting, so there is nothing to tune; sweep a parameter (e.g. "
                            "`dirichlet: {mu: [500, 1000, 2000]}`) or remove `cross_validation`",
                            ctx.nodes["compare.cross_validation"])
                ok = False
    if not ok or runs is None or any(x is _INVALID for x in (cmp_measures, folds)) or any(
        c[k] is _INVALID for k in ("test", "permutations", "bootstrap_samples", "ci_level", "seed",
                                   "correction", "family", "alpha")):
        return None
    policy = StatsPolicy(test=c["test"], correction=c["correction"], family=c["family"],
                         alpha=c["alpha"], permutations=c["permutations"],
                         bootstrap_samples=c["bootstrap_samples"], ci_level=c["ci_level"],
                         seed=c["seed"])
    return CompareSpec(tuple(baselines), all_pairs, tuple(cmp_measures), policy, folds)


# --------------------------------------------------------------------------------------------
# Loading


def load_config(path: str | os.PathLike) -> Config:
    """Read and validate an experiment config; raise ConfigError listing every problem."""
    source = str(path)
    file = Path(path).expanduser().resolve()

    def fail(message: str, line: int | None = None):
        where = f"{source}:{line}" if line else None
        raise ConfigError(source, [LocatedProblem("", message, where)])

    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        fail(f"config file not found: {file}")
    except (OSError, UnicodeDecodeError) as e:
        fail(f"cannot read the config file {file}: {e}")

    loader = yaml.SafeLoader(text)
    try:
        try:
            root = loader.get_single_node()
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            detail = " ".join(x for x in (e.context, e.problem) if x)
            fail(f"YAML syntax error: {detail}", mark.line + 1 if mark else None)
        top = ", ".join(k.name for k in SCHEMA.keys)
        if _is_null(root):
            fail(f"the config is empty; expected a mapping with keys {top}", 1)
        ctx = _Ctx(source, file.parent, loader)
        if not isinstance(root, MappingNode):
            fail(f"expected a mapping with keys {top} at the top level, got {_describe(ctx, root)}",
                 root.start_mark.line + 1)
        _check_keys(ctx, root, "", set())
        values = _check_section(ctx, SCHEMA, root, "")
        values.update(_finish(ctx, values))
        if ctx.problems:
            line = lambda p: int(p.where.rsplit(":", 1)[1]) if p.where else 0  # noqa: E731
            raise ConfigError(source, sorted(ctx.problems, key=line))
        try:
            raw = loader.construct_document(root)
        except yaml.YAMLError as e:   # defensive: every scalar was already constructed above
            fail(f"cannot read the YAML: {e}")
    finally:
        loader.dispose()

    v = values
    return Config(
        source=file,
        name=v["name"],
        collection_path=v["collection"]["path"],
        collection_format=v["collection"]["format"],
        index_path=v["index"]["path"],
        stemmer=v["index"]["stemmer"],
        stopwords=v["index"]["stopwords"],
        index_threads=v["index"]["threads"] or os.cpu_count() or 1,
        topics_path=v["topics"]["path"],
        topics_format=v["topics"]["format"],
        qrels_path=v["qrels"],
        runs=v["runs"],
        depth=v["depth"],
        measures=v["measures"],
        expect=v["expect"],
        expect_tolerance=v["expect_tolerance"],
        ties=v["evaluation"]["ties"],
        missing_topics=v["evaluation"]["missing_topics"],
        output=v["output"],
        raw=raw,
        compare=v["compare"],
    )


# --------------------------------------------------------------------------------------------
# The reference, generated from SCHEMA and similarity.MODELS

_TYPE_TEXT = {
    "section": "mapping",
    "string": "string",
    "choice": "string",
    "bool": "boolean",
    "int": "integer",
    "number": "number",
    "path": "path",
    "topic-format": "string",
    "runs": "list",
    "measures": "list of strings",
    "expect": "mapping",
    "baseline": "string or list",
    "compare-measures": "list of strings",
}


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def _allowed(key: Key) -> str:
    if key.choices:
        return " \\| ".join(f"`{c}`" for c in key.choices)
    if key.pattern:
        return f"`{_md(key.pattern)}`"
    if key.minimum is not None:
        return _md(_range(key))
    if key.type == "bool":
        return "`true` \\| `false`"
    if key.type == "path":
        kind = {"file": "a file", "dir": "a folder"}.get(key.path_kind or "", "a file or folder")
        return f"{kind}{', must exist' if key.must_exist else ''}; relative to the config file"
    if key.type == "section":
        return f"{key.shorthand} as a plain string, or the keys below" if key.shorthand else "the keys below"
    return {"runs": "see *Similarities*", "measures": "names known to `harness.metrics`",
            "expect": "runs of this config; measures in `measures`",
            "baseline": f"runs of this config, or `{ALL_PAIRS}`",
            "compare-measures": "measures in `measures`"}.get(key.type, "")


def _default_text(key: Key) -> str:
    if key.required:
        return "**required**"
    if key.default_text:
        return key.default_text
    d = key.default
    if key.type == "section":
        return "(defaults below)"
    if d is None:
        return "none"
    if isinstance(d, bool):
        return f"`{str(d).lower()}`"
    if isinstance(d, tuple):
        return f"`[{', '.join(d)}]`"
    if isinstance(d, float):
        return f"`{format(d, 'f').rstrip('0').rstrip('.')}`"
    return f"`{d}`"


def _rows(key: Key, prefix: str = ""):
    for sub in key.keys:
        name = _join(prefix, sub.name)
        yield (f"`{name}`", _TYPE_TEXT[sub.type], _default_text(sub), _allowed(sub), _md(sub.doc))
        if sub.type == "section":
            yield from _rows(sub, name)


def reference_markdown() -> str:
    """The config reference (Markdown), generated from SCHEMA and similarity.MODELS."""
    lines = [
        "## Config reference",
        "",
        "Every key of an experiment YAML. Unknown keys are errors; paths are relative to the "
        "config file. *(Generated by `harness.config.reference_markdown()`.)*",
        "",
        "| Key | Type | Default | Allowed | Description |",
        "|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in _rows(SCHEMA)]
    lines += [
        "",
        "### Similarities",
        "",
        "Each run is `{model: {parameter: value}}`; a list of values is a sweep, and several lists "
        "form a grid (all combinations, in the parameter order below).",
        "",
        "| Model | Parameter | Default | Allowed | Description |",
        "|---|---|---|---|---|",
    ]
    for model, specs in MODELS.items():
        for s in specs:
            lines.append(f"| `{model}` | `{s.name}` | `{format_number(s.default)}` | `{s.allowed()}` "
                         f"| {_md(s.doc)} |")
    return "\n".join(lines) + "\n"
