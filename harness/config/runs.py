"""The `runs:` key checked: each entry a model (or preset) with its parameters, a list of values
being a sweep and several lists a grid; each setting a canonical Similarity. Entries that are
not searched (`file:`, `fuse:`) are checked by harness.config.sources."""

from __future__ import annotations

import itertools
import math
import unicodedata
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from harness.config.keys import Key, join_path
from harness.config.limits import MAX_RUNS
from harness.config.nodes import (
    INVALID,
    Ctx,
    expected,
    is_null,
    mapping_items,
    read_number,
    read_string,
    unknown_message,
)
from harness.config.sources import SOURCES, check_source, mark_incomplete, resolve_sources
from harness.specs.models import EXPANSIONS, MODEL_NAMES, MODELS, model_hint, model_params
from harness.specs.names import run_names
from harness.specs.params import ParamSpec
from harness.specs.similarity import Similarity

__all__ = ["check_runs", "fold"]


def _param_values(
    ctx: Ctx,
    owner: str,
    specs,
    pnode: MappingNode,
    mp: str,
    nested: tuple[str, ...] = (),
    left_out: dict | None = None,
    offer: str = "",
):
    """{param: [(value, sweep position)]} of a parameter mapping, and {nested key: (node, path)}
    for the keys in ``nested`` (the expansions inside a model's mapping). None when invalid.
    ``left_out``: {parameter: why} of the model's parameters that ``owner`` (a preset) does not
    take; ``offer``: what an unknown parameter's message adds (the expansions the model takes)."""
    values: dict[str, list[tuple[Any, str | None]]] = {}
    inner: dict[str, tuple[Node, str]] = {}
    ok = True
    for pname, pknode, pvnode in mapping_items(pnode):
        pp = join_path(mp, pname)
        if pname in nested:
            if inner:
                ctx.problem(pp, f"one query expansion per run (already {', '.join(inner)}); make two runs", pknode)
                ok = False
            inner[pname] = (pvnode, pp)
            continue
        spec = next((s for s in specs if s.name == pname), None)
        if spec is None:
            valid = [s.name for s in specs]
            msg = (left_out or {}).get(pname) or (
                unknown_message(f"{owner} parameter", pname, valid or ["none"]) + offer
            )
            ctx.problem(pp, msg, pknode)
            ok = False
            continue
        elems = list(enumerate(pvnode.value)) if isinstance(pvnode, SequenceNode) else [(None, pvnode)]
        if not elems:
            ctx.problem(pp, "an empty list sweeps nothing; give at least one value", pvnode)
            ok = False
        vals = []
        for j, vnode in elems:
            ep = pp if j is None else f"{pp}[{j}]"
            if spec.kind in ("number", "int"):
                v = read_number(ctx, vnode, ep)
            elif spec.kind == "choice":
                v = read_string(ctx, vnode, ep)
            else:
                v = ctx.value(vnode, ep)
            if v is not INVALID and (why := spec.check(v)):
                v = ctx.problem(ep, why, vnode)
            if v is INVALID:
                ok = False
            else:
                v = spec.coerce(v)
            vals.append((v, None if j is None else f"{pname}[{j}]"))
        values[pname] = vals
    return (values, inner) if ok else None


def _left_out(model: str, family: str, fixed: dict, spec: ParamSpec) -> str:
    """Why preset ``model`` does not take ``spec``, a parameter of its family (inl2's mu)."""
    assert spec.when is not None  # left out by a preset: a parameter of one choice only
    gov, allowed = spec.when
    return (
        f"applies only with {gov} {' or '.join(allowed)}, and {model} is Anserini's {family} with "
        f"{gov}: {fixed[gov]}; to set {spec.name}, use `{family}` with {gov}: {' or '.join(allowed)}"
    )


def _grid(values: dict[str, list[tuple[Any, str | None]]], specs):
    """Every combination of the given values, in the canonical parameter order:
    [({param: value}, [sweep positions])]."""
    order = [s.name for s in specs]
    names = sorted(values, key=order.index)
    out = []
    for combo in itertools.product(*(values[n] for n in names)):
        out.append(({n: v for n, (v, _) in zip(names, combo)}, [at for _, at in combo if at]))
    return out


MAX_NAME = 64


def fold(name: str) -> str:
    """A name as a file name on macOS or Windows sees it: case and Unicode normalisation ignored
    (``X.trec`` and ``x.trec`` are one file there)."""
    return unicodedata.normalize("NFC", name).casefold()


def _given_name(ctx: Ctx, node: Node, path: str) -> str | None:
    """A run's `name:`: what tables, plots and file names call it (checked for what a file name
    and a table cell can hold: not empty, '.', '..' or hidden, no path separator, no control
    character such as NUL)."""
    v = read_string(ctx, node, path)
    if v is INVALID:
        return None
    why = (
        "must not be empty"
        if not v.strip()
        else f"must be at most {MAX_NAME} characters (got {len(v)})"
        if len(v) > MAX_NAME
        else "must not contain '/' or '\\' (it names the run's file)"
        if "/" in v or "\\" in v
        else "must not contain control characters"
        if any(ord(c) < 32 or ord(c) == 127 for c in v)
        else "must not start or end with a space"
        if v != v.strip()
        else "must not start with '.' (it names the run's file, which would be hidden: '.', '..', '.x')"
        if v.startswith(".")
        else None
    )
    if why:
        ctx.problem(path, f"{why} (got {v!r})", node)
        return None
    return v


def check_runs(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    example = "a list of runs like `- bm25: {k1: 0.9, b: 0.4}`"
    if not isinstance(node, SequenceNode):
        return expected(ctx, path, example, node)
    if not node.value:
        return ctx.problem(path, f"must list at least one run ({example})", node)
    names = MODEL_NAMES  # an alias (Anserini's qld) is read as its model
    problems = len(ctx.problems)  # more after the entries: one was invalid, the runs are not all known
    expanded: list[tuple[Similarity, str, Node]] = []
    # every entry in config order, for the file and fuse entries (harness.config.sources)
    entries: list[tuple[str, Any, str, Node, str | None]] = []
    given_names: dict[str, tuple[str, Node]] = {}
    total = 0  # runs so far
    for i, item in enumerate(node.value):
        p = f"{path}[{i}]"
        items = list(mapping_items(item)) if isinstance(item, MappingNode) else []
        if isinstance(item, ScalarNode) and item.tag == "tag:yaml.org,2002:str":
            # a model's bare name (`- bm25`) is `- bm25: {}`, that model with its defaults
            if item.value not in names:
                ctx.problem(p, unknown_message("model", item.value, names, model_hint(item.value)), item)
                continue
            items = [(item.value, item, None)]
        given_name = None
        # `format:` beside `file:` (harness.config.sources), taken out before the entry's shape is checked
        fmt = next((x for x in items if x[0] == "format"), None)
        if fmt is not None and any(x[0] in SOURCES for x in items):
            items = [x for x in items if x[0] != "format"]
        named = [x for x in items if x[0] == "name"]
        if named and len(items) == 2:
            items = [x for x in items if x[0] != "name"]
            given_name = _given_name(ctx, named[0][2], join_path(p, "name"))
            other = next((g for g in given_names if given_name is not None and fold(g) == fold(given_name)), None)
            if other is not None and given_name is not None:
                first_path = given_names[other][0]
                same = (
                    ""
                    if other == given_name
                    else f" as {repr(other) if other.lower() == given_name.lower() else ascii(other)}: "
                    "on macOS and Windows they name one file"
                )
                ctx.problem(
                    join_path(p, "name"),
                    f"{given_name!r} is also the name of {first_path}{same}; names are unique",
                    item,
                )
                given_name = None
            elif given_name is not None:
                given_names[given_name] = (p, named[0][2])
        if len(items) != 1:
            expected(
                ctx,
                p,
                f"a mapping {{model: {{param: value}}}} (and optionally `name: NAME`) with model one of "
                f"{', '.join(names)}, or a run from elsewhere: {', '.join(f'`{s}:`' for s in SOURCES)}",
                item,
            )
            continue
        model, knode, pnode = items[0]
        if model in SOURCES:
            entries.append(
                ("source", check_source(ctx, model, pnode, p, None if fmt is None else fmt[2]), p, item, given_name)
            )
            continue
        entries.append(("search", [], p, item, given_name))
        if model not in names:
            ctx.problem(p, unknown_message("model", model, names, model_hint(model)), knode)
            continue
        family, fixed, specs, left_out = model_params(model)
        mp = join_path(p, model)
        if fixed and isinstance(pnode, MappingNode):
            clash = [(n, kn) for n, kn, _ in mapping_items(pnode) if n in fixed]
            for n, kn in clash:
                ctx.problem(
                    join_path(mp, n),
                    f"{model} is Anserini's {family} with {', '.join(f'{k}: {v}' for k, v in fixed.items())}; "
                    f"to choose {n}, use `{family}`",
                    kn,
                )
            if clash:
                continue
        given: dict[str, list] = {}
        inner: dict[str, tuple[Node, str]] = {}
        if not is_null(pnode):
            offer = "" if MODELS[family].no_expansion else f" (or one query expansion: {', '.join(EXPANSIONS)})"
            if not isinstance(pnode, MappingNode):
                takes = ", ".join(s.name for s in specs) or "none"
                expected(ctx, mp, f"a mapping of parameters ({takes}){offer} or null for the defaults", pnode)
                continue
            why = {s.name: _left_out(model, family, fixed, s) for s in left_out}
            got = _param_values(ctx, model, specs, pnode, mp, tuple(EXPANSIONS), why, offer)
            if got is None:
                continue
            given, inner = got
        expansion, egiven = None, {}
        if inner:
            expansion, (enode, ep) = next(iter(inner.items()))
            if not is_null(enode):
                if not isinstance(enode, MappingNode):
                    expected(ctx, ep, f"a mapping of {expansion} parameters or null for the defaults", enode)
                    continue
                got = _param_values(ctx, expansion, EXPANSIONS[expansion].params, enode, ep)
                if got is None:
                    continue
                egiven = got[0]
        # counted before the grid is expanded: lists of a few hundred values each would make
        # billions of runs, which validate would fill the memory with
        size = math.prod(len(v) for v in given.values()) * math.prod(len(v) for v in egiven.values())
        if total + size > MAX_RUNS:
            sizes = " x ".join(f"{len(v):,}" for v in [*given.values(), *egiven.values()] if len(v) > 1)
            ctx.problem(
                mp,
                f"this grid is {sizes} = {size:,} runs; a config may have at most {MAX_RUNS:,} runs in all"
                f"{f' ({total:,} before this entry)' if total else ''}: sweep fewer values",
                item,
            )
            continue
        total += size
        reported: set[str] = set()
        for params, positions in _grid(given, specs):
            # A parameter that applies only with another's choice (dfr c with h1/h2): name it.
            choices = {s.name: params.get(s.name, fixed.get(s.name, s.default)) for s in MODELS[family].params}
            bad = [s for s in specs if s.name in params and not s.applies(choices)]
            for s in bad:
                pp = join_path(mp, s.name)
                if pp not in reported:
                    reported.add(pp)
                    assert s.when is not None  # only such a parameter does not apply
                    gov = s.when[0]
                    ctx.problem(
                        pp,
                        f"applies only with {gov} {' or '.join(s.when[1])} (got {gov}: {choices[gov]}); "
                        "for several choices, write one run per choice",
                        item,
                    )
            if bad:
                continue
            for eparams, epositions in _grid(egiven, EXPANSIONS[expansion].params if expansion else ()):
                try:
                    sim = Similarity.of(model, params, expansion, eparams)
                except ValueError as e:
                    if mp not in reported:
                        reported.add(mp)
                        ctx.problem(mp, str(e), item)
                    continue
                all_positions = positions + [f"{expansion}.{x}" for x in epositions]
                expanded.append((sim, p + (f" ({', '.join(all_positions)})" if all_positions else ""), item))
                entries[-1][1].append(str(sim))
                if given_name is not None:
                    ctx.found.setdefault("run_names", {})[sim] = given_name
    first: dict[Similarity, str] = {}
    for sim, origin, item in expanded:
        if sim in first:
            ctx.problem(
                origin.split(" ")[0], f"run {sim} is given twice: by {first[sim]} and by {origin}; remove one", item
            )
        else:
            first[sim] = origin
    runs = tuple(first)
    # the names of the configured runs, so that `expect:` and `compare.baseline` may give runs by them
    searched_names = run_names(runs, ctx.found.get("run_names", {}))
    # A given name that is the automatic name of a run without one (`name: bm25` on a dirichlet run beside a
    # bm25 run) would leave one of them "bm25 #2", and `expect`/`baseline` would mean the other.
    auto = run_names([r for r in runs if r not in ctx.found.get("run_names", {})])
    autos = {fold(name): spec for spec, name in auto.items()}
    for name, (p, name_node) in given_names.items():
        if fold(name) in autos:
            ctx.problem(
                join_path(p, "name"),
                f"{name!r} is also the automatic name of {autos[fold(name)]}, a run without a name; "
                "choose another name, or name that run too",
                name_node,
            )
    ctx.found["by_name"] = {name: spec for spec, name in searched_names.items()}
    incomplete = len(ctx.problems) > problems
    if any(kind == "source" for kind, *_ in entries):
        resolve_sources(ctx, entries, searched_names, given_names, incomplete)
    if incomplete:
        mark_incomplete(ctx, given_names)
    return runs
