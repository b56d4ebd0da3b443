"""Run entries the harness does not search: ``file: PATH`` (a run file the user brings: TREC, or
MS MARCO's ``qid<TAB>pid<TAB>rank`` with ``format: msmarco`` beside it) and
``fuse: {method, runs: [NAME, ...], ...}`` (a fusion of other entries of the same config,
computed by :mod:`harness.fusion`). Both are run identities (harness.specs.identity: FileRun,
FusedRun), like a Similarity: a canonical text (``file(runs/bm25.trec)``,
``fuse(rrf,rrf_k=60,depth=1000,k=1000:bm25+knn)``) that names them in manifests and ``expect``,
and a name (their ``name:``, else an automatic one) that tables, plots and files call them by.
They are never swept nor tuned, and never cached as searched runs: a file run is read again on
every run (the file is never written), a fused run is fused again from its parts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from harness.config.keys import Key, join_path
from harness.config.limits import MAX_DEPTH
from harness.config.nodes import INVALID, Ctx, check_section, expected, mapping_items, read_number, read_string
from harness.policies import (
    DEFAULT_ALPHA,
    DEFAULT_DEPTH,
    DEFAULT_FUSION_K,
    DEFAULT_RRF_K,
    DEFAULT_RUN_FORMAT,
    FUSION_METHODS,
    NORMALIZATIONS,
    RUN_FORMATS,
    FusionPolicy,
    fusion_methods_with,
)
from harness.specs.identity import FileRun, FusedRun
from harness.specs.similarity import Similarity

__all__ = [
    "FILE_KEY",
    "FILE_FORMAT_KEY",
    "FUSE_KEY",
    "SOURCES",
    "check_source",
    "resolve_sources",
    "mark_incomplete",
    "all_run_specs",
]

SOURCES = ("file", "fuse")  # the keys of a run entry that is not searched


def _for(option: str) -> str:
    """The methods that read ``option``, as a key's doc names them: "combsum, combmnz: "."""
    return ", ".join(fusion_methods_with(option)) + ": "


FUSE_KEY = Key(
    "fuse",
    "section",
    "A fusion of other runs of this config (harness.fusion; docs/experiments.md: *Hybrid runs*).",
    keys=(
        Key("method", "choice", "How the runs are fused.", default="rrf", choices=tuple(FUSION_METHODS)),
        Key("runs", "names", "The runs to fuse, at least two: their names or specs.", required=True),
        Key("rrf_k", "int", f"{_for('rrf_k')}each run adds 1 / (rrf_k + rank).", default=DEFAULT_RRF_K, minimum=0),
        Key("alpha", "number", f"{_for('alpha')}alpha * first + (1 - alpha) * second.", default=DEFAULT_ALPHA),
        Key(
            "depth",
            "int",
            "Rows per topic of each run that take part, in rank order.",
            default=DEFAULT_DEPTH,
            minimum=1,
            maximum=MAX_DEPTH,
        ),
        Key("k", "int", "Documents per topic kept.", default=DEFAULT_FUSION_K, minimum=1, maximum=MAX_DEPTH),
        Key(
            "norm",
            "choice",
            f"{_for('norm')}each run's normalisation.",
            default="none",
            choices=tuple(NORMALIZATIONS),
        ),
        Key("weights", "numbers", f"{_for('weights')}one weight per run (default: 1 each)."),
    ),
)
FILE_KEY = Key("file", "path", "A run file (TREC, or see `format`).", path_kind="file", must_exist=True)
FILE_FORMAT_KEY = Key(
    "format",
    "choice",
    "Beside `file:`, the run file's layout: "
    + "; ".join(f"{k}: {v.doc}" for k, v in RUN_FORMATS.items())
    + " (docs/semantics.md, MS MARCO runs).",
    default=DEFAULT_RUN_FORMAT,
    choices=tuple(RUN_FORMATS),
)


@dataclass
class _Pending:
    """A fuse entry before its parts are known: the part names as written."""

    options: dict
    parts: list[tuple[str, str, Node]]  # (text, path, node)
    path: str
    node: Node


def _names(ctx: Ctx, node: Node, path: str, numbers: bool = False) -> list | None:
    if not isinstance(node, SequenceNode):
        expected(ctx, path, "a list of numbers" if numbers else "a list of run names like [bm25, knn]", node)
        return None
    out = []
    for j, item in enumerate(node.value):
        p = f"{path}[{j}]"
        v = read_number(ctx, item, p) if numbers else read_string(ctx, item, p)
        if v is INVALID:
            return None
        out.append(float(v) if numbers else (v, p, item))
    return out


def check_source(
    ctx: Ctx, kind: str, node: Node, path: str, format_node: Node | None = None
) -> FileRun | _Pending | None:
    """The spec of a `file:` or `fuse:` entry's value (a fusion still naming its parts as written);
    ``format_node``: the `format:` beside a `file:`."""
    p = join_path(path, kind)
    if kind == "file":
        fmt = DEFAULT_RUN_FORMAT
        if format_node is not None:
            fmt = read_string(ctx, format_node, join_path(path, "format"))
            if fmt is INVALID:
                return None
            if fmt not in RUN_FORMATS:
                ctx.problem(
                    join_path(path, "format"),
                    f"must be one of {', '.join(RUN_FORMATS)} (got {fmt!r})",
                    format_node,
                )
                return None
        got = ctx.checks["path"](ctx, FILE_KEY, node, p)
        if got is INVALID:
            return None
        ctx.found.setdefault("run_files", {})[p] = got  # an input the output must not hold (config.paths)
        return FileRun(got, read_string(ctx, node, p), fmt)
    if format_node is not None:
        ctx.problem(join_path(path, "format"), "only a `file:` run has a format", format_node)
        return None
    if not isinstance(node, MappingNode):
        expected(ctx, p, "a mapping {method: rrf, runs: [NAME, NAME]}", node)
        return None
    # `runs` and `weights` are lists, which the section's scalar checks do not read: taken apart
    lists = {k: (kn, vn) for k, kn, vn in mapping_items(node) if k in ("runs", "weights")}
    rest = MappingNode(node.tag, [(k, v) for k, v in node.value if k.value not in lists], node.start_mark)
    placeholder = ScalarNode("tag:yaml.org,2002:str", "given", node.start_mark)
    if "runs" in lists:
        rest.value.append((lists["runs"][0], placeholder))
    problems = len(ctx.problems)
    options = check_section(ctx, Key("fuse", "section", FUSE_KEY.doc, keys=_SCALAR_KEYS), rest, p)
    parts = _names(ctx, lists["runs"][1], join_path(p, "runs")) if "runs" in lists else None
    weights = _names(ctx, lists["weights"][1], join_path(p, "weights"), True) if "weights" in lists else None
    if len(ctx.problems) > problems or parts is None or ("weights" in lists and weights is None):
        return None
    options.pop("runs", None)
    options["weights"] = tuple(weights) if weights is not None else None
    try:
        policy = FusionPolicy(**options)
    except ValueError as e:
        ctx.problem(p, str(e), node)
        return None
    problem = policy.runs_problem(len(parts))
    if problem is not None:
        key, message = problem
        ctx.problem(join_path(p, key), message, lists[key][1])
        return None
    return _Pending(options, parts, p, node)


# the fuse section without its lists; `runs` is checked for presence only (a placeholder string)
_SCALAR_KEYS = tuple(
    Key("runs", "string", k.doc, required=True) if k.name == "runs" else k for k in FUSE_KEY.keys if k.name != "weights"
)


def _auto_name(spec: FileRun | _Pending) -> str:
    if isinstance(spec, FileRun):
        name = Path(spec.written).name
        return name.rsplit(".", 1)[0] if "." in name[1:] else name
    return f"{spec.options['method']}({', '.join(t for t, _, _ in spec.parts)})"


def mark_incomplete(ctx: Ctx, names) -> None:
    """Some entry of `runs` was invalid (its problem is reported): the runs are not all known.
    Each of ``names`` (the `name:` of an entry) still names a run, so that `expect`,
    `compare.baseline` and `fuse.runs` naming it are no second error, and the checks that need
    every run (a run named that the config lacks, fewer than two runs to compare) are skipped."""
    by_name = ctx.found.setdefault("by_name", {})
    for name in names:
        by_name.setdefault(name, f"\0invalid:{name}")
    ctx.found["run_order"] = INVALID


def resolve_sources(
    ctx: Ctx,
    entries: list,
    searched_names: dict[str, str],
    named: dict[str, tuple[str, Node]],
    incomplete: bool = False,
) -> None:
    """Name the file and fuse entries, resolve each fusion's parts and check them (an unknown
    name, a run fused with itself, a cycle); record in ``ctx.found``: ``sources`` (the specs,
    each after its parts), ``source_names`` (spec -> name), ``by_name`` (name -> spec, for
    every run) and ``run_order`` (every run's spec, in config order).

    ``entries``: [(kind, value, path, node, name)] in config order, kind "search" (value: the
    entry's canonical names) or "source"; ``searched_names``: the searched runs' {spec: name};
    ``named``: every `name:` given, {name: (path, node)} of its first entry; ``incomplete``: a
    searched entry was invalid, so a part that names no run may name that one (not reported)."""
    taken = {name: spec for spec, name in searched_names.items()}
    taken.update((spec, spec) for spec in searched_names)
    source_name: dict[int, str] = {}
    for i, (kind, value, path, node, given) in enumerate(entries):
        if kind != "source" or value is None:
            continue
        name = given if given is not None else _auto_name(value)
        if name in taken or (given is None and name in named):
            why = "is another run's name" if given is None else "is also another run's name"
            fix = "give this entry a `name:`" if given is None else "choose another name"
            ctx.problem(path if given is None else join_path(path, "name"), f"the name {name!r} {why}: {fix}", node)
            entries[i] = (kind, None, path, node, given)
            continue
        taken[name] = ""  # its spec once known
        source_name[i] = name
    by_name = {source_name[i]: i for i in source_name}
    # the fusions' parts: entry indexes of sources, or searched specs
    parts: dict[int, list] = {}
    for i, (kind, value, path, node, _) in enumerate(entries):
        if not isinstance(value, _Pending):
            continue
        got: list[int | str] = []
        seen = set()
        for text, p, pnode in value.parts:
            target = by_name.get(text, taken.get(text) or _spelling(text, searched_names))
            if target is None and incomplete:
                pass  # perhaps the invalid entry, whose problem is reported: this fusion is invalid too
            elif target is None or target == "":
                known = ", ".join(
                    name
                    for j, (k, v, *_) in enumerate(entries)
                    for name in ([searched_names[spec] for spec in v] if k == "search" else [source_name.get(j)])
                    if name is not None
                )
                ctx.problem(p, f"no run {text!r} in this config; its runs are: {known}", pnode)
            elif target == i:
                ctx.problem(p, f"a fusion cannot fuse itself ({text!r} is this entry)", pnode)
            elif target in seen:
                ctx.problem(p, f"{text!r} is fused twice; name each run once", pnode)
            else:
                seen.add(target)
                got.append(target)
                continue
            entries[i] = (kind, None, path, node, entries[i][4])  # a part that is no run: invalid
            break
        else:
            parts[i] = got
    specs = _in_order(ctx, entries, parts)
    if specs is None:
        # an invalid entry: its name still gives it (no second error where `expect` or
        # `compare.baseline` names it), and the checks that need every run are skipped
        names = {given for kind, _, _, _, given in entries if kind == "source" and given is not None}
        mark_incomplete(ctx, set(source_name.values()) | names)
        return
    source_specs = {i: specs[i] for i in source_name if i in specs}
    ctx.found["sources"] = tuple(specs[i] for i in specs if i in source_specs)
    ctx.found["source_names"] = {str(specs[i]): source_name[i] for i in source_specs}
    ctx.found["by_name"] = {
        **ctx.found.get("by_name", {}),
        **{source_name[i]: str(specs[i]) for i in source_specs},
        **{str(specs[i]): str(specs[i]) for i in source_specs},
    }
    order: list[str] = []
    for i, (kind, value, *_rest) in enumerate(entries):
        order.extend(value if kind == "search" else [str(specs[i])] if i in specs else [])
    ctx.found["run_order"] = list(dict.fromkeys(order))


def _spelling(text: str, searched: dict[str, str]) -> str | None:
    """The canonical spec of a searched run given by any spelling of its spec, else None."""
    try:
        spec = str(Similarity.parse(text))
    except ValueError:
        return None
    return spec if spec in searched else None


def _in_order(ctx: Ctx, entries: list, parts: dict[int, list]) -> dict[int, Any] | None:
    """{entry index: spec} with every fusion after its parts (insertion order); a cycle is a
    problem naming it. None when any source entry was invalid."""
    if any(kind == "source" and value is None for kind, value, *_ in entries):
        return None
    specs: dict[int, Any] = {i: v for i, (kind, v, *_) in enumerate(entries) if isinstance(v, FileRun)}
    state: dict[int, str] = {}

    def visit(i: int, trail: list[int]) -> bool:
        if i in specs:
            return True
        if state.get(i) == "open":
            loop = trail[trail.index(i) :] + [i]
            _, _, path, node, _ = entries[trail[trail.index(i)]]
            names = " -> ".join(entries[j][2] for j in loop)
            ctx.problem(f"{path}.fuse.runs", f"the fusions form a cycle: {names}", node)
            return False
        state[i] = "open"
        for t in parts[i]:
            if isinstance(t, int) and not visit(t, trail + [i]):
                return False
        pending = entries[i][1]
        fused = tuple(t if isinstance(t, str) else str(specs[t]) for t in parts[i])
        specs[i] = FusedRun(FusionPolicy(**pending.options), fused)
        return True

    for i in parts:
        if not visit(i, []):
            return None
    return specs


def all_run_specs(ctx: Ctx, v: dict) -> list[str] | None:
    """Every run's spec in config order (searched, file and fused runs); None when `runs` is invalid."""
    if v["runs"] is INVALID or ctx.found.get("run_order") is INVALID:
        return None
    return list(ctx.found.get("run_order") or [str(r) for r in v["runs"]])
