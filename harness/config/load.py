"""Experiment configs: a strict YAML schema, checked in full before anything runs.

The schema is data: ``SCHEMA`` is a tree of :class:`Key` values (type, required or default,
allowed values, doc text). Validation walks it, and so does :func:`reference_markdown`, which
renders the config reference of docs/config.md, so the two cannot drift apart.

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

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from harness.config.beir import beir_fields, check_beir, check_fields
from harness.config.cluster import check_scheduler, finish_execution
from harness.config.compare import check_baseline, finish_compare
from harness.config.datasets import resolve_named
from harness.config.dense import check_dense, dense_fields
from harness.config.execution import Execution
from harness.config.existing import finish_existing_index
from harness.config.impact import check_impact
from harness.config.keys import Key, join_path
from harness.config.layouts import check_layouts
from harness.config.limits import threads_for_machine
from harness.config.nodes import (
    BASE_CHECKS,
    INVALID,
    Ctx,
    check_keys,
    check_section,
    expected,
    mapping_items,
    problem_order,
    read_number,
    read_string,
    suggest,
    unknown_message,
)
from harness.config.overrides import Override
from harness.config.paths import write_target_problems
from harness.config.run_names import TunedName, resolve_tuned, tuned_runs, unique_run
from harness.config.runs import check_runs
from harness.config.schema import SCHEMA
from harness.config.schema.study import STUDY_KEY
from harness.config.sources import all_run_specs
from harness.config.text import ConfigTree, open_config
from harness.config.validated import Config, LocatedProblem
from harness.engine.topics import anserini_topic_readers
from harness.errors import ConfigError, warn
from harness.folders import Experiment
from harness.formats.catalog import TOPIC_FORMATS, collection_format, topic_format
from harness.metrics import parse_measure
from harness.metrics.measures import Measure
from harness.policies import (
    DEFAULT_LANGUAGE,
    DEFAULT_MEASURES,
    LANGUAGES,
    OKISH_FACTOR,
)
from harness.specs.identity import Tuned
from harness.specs.names import run_names
from harness.specs.sweeps import sweeps

__all__ = ["load_config", "validate_tree", "build_config", "CHECKS", "TOP_KEYS"]

# the top-level keys, for the messages of a config that is not a mapping
TOP_KEYS = ", ".join(k.name for k in SCHEMA.keys)


def _check_topic_format(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    """A topics format of harness.formats.catalog, by name; ``anserini:<Reader>`` names a reader
    of the Anserini jar (checked against it: its entries are read, Java is not started)."""
    v = read_string(ctx, node, path)
    if v is INVALID:
        return v
    fmt = topic_format(v)
    if fmt is None or not fmt.written:
        names = [c for c in key.choices if c in TOPIC_FORMATS]
        return ctx.problem(path, f"must be one of {', '.join(key.choices)} (got {v!r}){suggest(v, names)}", node)
    if not fmt.names_reader:
        return fmt
    reader = fmt.arg.strip()
    reader = reader[: -len("TopicReader")] if reader.endswith("TopicReader") else reader
    readers = anserini_topic_readers()
    if readers is None:
        return ctx.problem(
            path,
            f"cannot check Anserini topic reader {reader!r}: no Anserini jar "
            "found (is pyserini installed?); use tsv, jsonl or trec",
            node,
        )
    if reader not in readers:
        return ctx.problem(path, unknown_message("Anserini topic reader", reader, readers), node)
    return fmt.of(reader)


def _check_collection_format(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    """A collection format of harness.formats.catalog, by one of the names a config may write."""
    v = BASE_CHECKS["choice"](ctx, key, node, path)
    return v if v is INVALID else collection_format(v)


def _check_measures(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    """The measures (Measure values), each once; INVALID when one is not a measure."""
    if not isinstance(node, SequenceNode):
        return expected(ctx, path, "a list of measure names like [AP, P@10, nDCG@10]", node)
    out: dict[Measure, str] = {}
    problems = len(ctx.problems)
    for i, item in enumerate(node.value):
        p = f"{path}[{i}]"
        text = read_string(ctx, item, p)
        if text is INVALID:
            continue
        try:
            measure = parse_measure(text)
        except ValueError as e:
            ctx.problem(p, str(e), item)
            continue
        if measure in out:
            ctx.problem(p, f"{text!r} repeats {out[measure]} (both are {measure})", item)
        else:
            out[measure] = p
    return tuple(out) if len(ctx.problems) == problems else INVALID


def _check_expect(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    """Returns [(canonical run, path, node, {Measure: (value, path, node)})]."""
    if not isinstance(node, MappingNode):
        return expected(ctx, path, 'a mapping {run: {measure: value}} like {"bm25(k1=0.9,b=0.4)": {AP: 0.2878}}', node)
    out = []
    seen: dict[str | TunedName, str] = {}
    for run_text, knode, vnode in mapping_items(node):
        rp = join_path(path, run_text)
        run = unique_run(ctx, run_text, rp, knode, seen)
        if run is None:
            continue
        if not isinstance(vnode, MappingNode):
            expected(ctx, rp, "a mapping {measure: value}", vnode)
            continue
        measures: dict[Measure, tuple[float, str, Node]] = {}
        for m_text, mknode, mvnode in mapping_items(vnode):
            mp = join_path(rp, m_text)
            try:
                m = parse_measure(m_text)
            except ValueError as e:
                ctx.problem(mp, str(e), mknode)
                continue
            if m in measures:
                ctx.problem(mp, f"names the same measure as {measures[m][1]} ({m})", mknode)
                continue
            v = read_number(ctx, mvnode, mp)
            if v is not INVALID:
                measures[m] = (float(v), mp, mknode)
        out.append((run, rp, knode, measures))
    return out


CHECKS = {
    **BASE_CHECKS,
    "scheduler": check_scheduler,
    "topic-format": _check_topic_format,
    "collection-format": _check_collection_format,
    "fields": check_fields,
    "runs": check_runs,
    "measures": _check_measures,
    "expect": _check_expect,
    "baseline": check_baseline,
    "compare-measures": _check_measures,
}


def _finish(ctx: Ctx, v: dict) -> dict:
    """Checks across keys: qrels vs measures/expect, expect vs runs and measures."""
    if v["qrels"] is None:
        for k in ("measures", "expect"):
            if k in ctx.present:
                ctx.problem(
                    k,
                    f"needs qrels: without `qrels` only runs are written and nothing "
                    f"is measured; add `qrels: <path>` or remove `{k}`",
                    ctx.nodes[k],
                )
        measures: Any = ()
    elif "measures" in ctx.present:
        measures = v["measures"]
    else:
        measures = tuple(parse_measure(m) for m in DEFAULT_MEASURES)
    expect: dict[str, dict[Measure, float]] = {}
    tuned = tuned_runs(v, measures) if "compare.cross_validation" in ctx.present else []
    if v["qrels"] is not None and isinstance(v["expect"], list):
        runs = None if (names := all_run_specs(ctx, v)) is None else names + [str(t) for t in tuned]
        for run, rp, knode, ms in v["expect"]:
            run = resolve_tuned(run, tuned)
            if runs is not None and run not in runs:
                ctx.problem(rp, f"no run {run} in this config; its runs are: {', '.join(runs)}", knode)
            for m, (_value, mp, mknode) in ms.items():
                if measures is not INVALID and m not in measures:
                    now = ", ".join(map(str, measures))
                    ctx.problem(mp, f"{m} is not computed; add it to `measures` (now: {now})", mknode)
            expect[run] = {m: value for m, (value, _, _) in ms.items()}
    okish = v["expect_okish_tolerance"]
    if okish not in (None, INVALID) and v["expect_tolerance"] is not INVALID and okish < v["expect_tolerance"]:
        ctx.problem(
            "expect_okish_tolerance",
            f"must be at least expect_tolerance ({v['expect_tolerance']:g}; got {okish:g}): a value within "
            "expect_tolerance is OK, one between the two OK-ish, one beyond both fails",
            ctx.nodes["expect_okish_tolerance"],
        )
    finish_existing_index(ctx, v)
    for check in (check_dense, check_beir, check_impact):  # a dense, BEIR, impact experiment's keys together
        check(ctx, v)
    lang = v["index"]["language"] if v["index"] is not INVALID else DEFAULT_LANGUAGE
    for key in ("stemmer", "stopwords") if lang in LANGUAGES and lang != DEFAULT_LANGUAGE else ():
        if f"index.{key}" in ctx.present:
            ctx.problem(
                f"index.{key}",
                f"applies to English alone: Anserini analyses {lang} with {LANGUAGES[lang].rsplit('.', 1)[1]} "
                f"and ignores {key}; remove it (or set index.language: en)",
                ctx.nodes[f"index.{key}"],
            )
    if v["runs"] is not INVALID:
        canonical = set(all_run_specs(ctx, v) or ())
        for sim, name in ctx.found.get("run_names", {}).items():
            if name in canonical and name != str(sim):
                ctx.problem(
                    "runs", f"the name {name!r} is another run's spec: choose another name", ctx.nodes.get("runs")
                )
    return {
        "measures": measures,
        "expect": expect,
        "compare": finish_compare(ctx, v, measures, tuned),
        "execution": finish_execution(ctx, v["execution"]),
    }


def _check_write_targets(ctx: Ctx, v: dict, file: Path, in_memory: bool, replace: bool) -> None:
    """The output and index folders against the inputs, home, root and checkouts, and the output
    against another experiment's (``replace``: --replace) (config/paths.py)."""
    targets = {"output": v["output"]}
    existing = None  # without `collection`, index.path is an index built elsewhere: an input
    if isinstance(v["index"], dict) and v["index"]["path"] not in (None, INVALID):
        if v["collection"] is None:
            existing = v["index"]["path"]
        else:
            targets["index.path"] = v["index"]["path"]
    targets = {k: p for k, p in targets.items() if isinstance(p, Path)}
    inputs = {"config file": file}
    if isinstance(existing, Path):
        inputs["existing index"] = existing
    for name, p in (
        ("collection", v["collection"]["path"] if isinstance(v["collection"], dict) else None),
        ("topics", v["topics"]["path"] if isinstance(v["topics"], dict) else None),
        ("qrels", v["qrels"]),
    ):
        if isinstance(p, Path):
            inputs[name] = p
    inputs.update((f"run file of {key}", p) for key, p in ctx.found.get("run_files", {}).items())
    experiment = Experiment(v["name"], None if in_memory else file) if isinstance(v["name"], str) else None
    problems = write_target_problems(targets, inputs, {"index.path": "index"}, experiment=experiment, replace=replace)
    for key, message in problems:
        ctx.problem(key, message, ctx.nodes.get(key))


# --------------------------------------------------------------------------------------------
# Loading


def validate_tree(tree: ConfigTree, root: MappingNode, replace: bool = False) -> tuple[Ctx, dict]:
    """Validate ``root`` (``tree.root``, or a tree made from it: a study's collection,
    harness.config.study) along ``SCHEMA``; every problem is recorded in the returned Ctx, the
    values are valid where none is."""
    ctx = Ctx(tree.source, tree.file.parent, tree.loader, CHECKS)
    check_keys(ctx, root, "", set())
    values = check_section(ctx, SCHEMA, root, "")
    resolve_named(ctx, values)  # pyserini:, irds: and prebuilt: names -> paths and formats
    check_layouts(ctx, values)  # the collection's format read from its files, formats against files
    values.update(_finish(ctx, values))
    _check_write_targets(ctx, values, tree.file, tree.in_memory, replace)
    return ctx, values


def build_config(
    tree: ConfigTree,
    ctx: Ctx,
    v: dict,
    root: MappingNode,
    overrides: Sequence[Override] = (),
    replace: bool = False,
    where: str = "collection",
) -> Config:
    """The Config of a tree :func:`validate_tree` found sound (``ctx``, ``v``: what it gave).
    ``where``: how the warning of a collection format read from its files names the key."""
    try:
        raw = tree.loader.construct_document(root)
    except yaml.YAMLError as e:  # defensive: every scalar was already constructed above
        raise ConfigError(tree.source, [LocatedProblem("", f"cannot read the YAML: {e}")]) from None
    read_as = ctx.found.get("collection_read_as")  # (path as given, format, how it was read, the mapping to write)
    if read_as is not None:
        given, fmt, how, mapping = read_as
        warn(f"{tree.source}: {where}: {given} read as format {fmt} ({how}); write {mapping} to say so in the config")
    spec = v["compare"]
    tuned = (
        [Tuned(family, str(spec.measures[0]), spec.folds, spec.policy.seed) for family, _, _ in sweeps(v["runs"])]
        if spec is not None and spec.folds is not None
        else []
    )
    tolerance = v["expect_tolerance"]
    return Config(
        names={**run_names(v["runs"], ctx.found.get("run_names", {}), tuned), **ctx.found.get("source_names", {})},
        sources=ctx.found.get("sources", ()),
        order=tuple(ctx.found.get("run_order", ())),
        source=tree.file,
        name=v["name"],
        collection_path=v["collection"]["path"] if v["collection"] else None,
        collection_format=v["collection"]["format"] if v["collection"] else None,
        collection_read_as=read_as[2] if read_as is not None else None,
        index_path=v["index"]["path"],
        stemmer=v["index"]["stemmer"],
        stopwords=v["index"]["stopwords"],
        language=v["index"]["language"],
        **dense_fields(v),
        **beir_fields(v, ctx.found.get("qrels_format", "trec")),
        index_threads=threads_for_machine(v["index"]["threads"]),
        topics_path=v["topics"]["path"],
        topics_format=v["topics"]["format"],
        qrels_path=v["qrels"],
        qrels_format=ctx.found["qrels_format"],
        runs=v["runs"],
        depth=v["depth"],
        measures=v["measures"],
        expect=v["expect"],
        expect_tolerance=tolerance,
        expect_okish_tolerance=okish
        if (okish := v["expect_okish_tolerance"]) is not None
        else OKISH_FACTOR * tolerance,
        ties=v["evaluation"]["ties"],
        missing_topics=v["evaluation"]["missing_topics"],
        output=v["output"],
        raw=raw,
        compare=v["compare"],
        explorer_depth=v["report"]["explorer_depth"],
        explorer_topics=v["report"]["explorer_topics"],
        text=tree.text if tree.in_memory else None,
        execution=v["execution"] or Execution(),
        overrides=tuple(dict.fromkeys(o.given for o in overrides)),  # --scheduler X sets three keys: named once
        replace=replace,
        ir_metadata=_given(v["ir_metadata"]),
    )


def load_config(
    path: str | os.PathLike, *, text: str | None = None, overrides: Sequence[Override] = (), replace: bool = False
) -> Config:
    """Read and validate an experiment config of one collection; raise ConfigError listing every
    problem. (A study, a config with `collections:`, is read by
    :func:`harness.config.study.load_experiment`, which validates each collection as this does.)

    ``text``: the config's YAML when it is in no file (the Python API's dicts and strings);
    ``path`` then only names it and places it: relative paths resolve against its folder.
    ``overrides``: keys replaced before validation (:mod:`harness.config.overrides`).
    ``replace`` (``--replace``): the output may be a folder another experiment wrote
    (:func:`harness.config.paths.write_target_problems`); kept in ``Config.replace`` for the
    check at write time."""
    with open_config(path, text=text, overrides=overrides, keys=TOP_KEYS) as tree:
        if any(k.value == STUDY_KEY for k, _ in tree.root.value if isinstance(k, ScalarNode)):
            raise ConfigError(
                tree.source,
                [
                    LocatedProblem(
                        STUDY_KEY, "a study of several collections: read it with harness.config.load_experiment"
                    )
                ],
            )
        ctx, values = validate_tree(tree, tree.root, replace)
        if ctx.problems:
            problems = sorted(ctx.problems, key=problem_order)  # LocatedProblems (the key reads .where)
            raise ConfigError(tree.source, problems)
        return build_config(tree, ctx, values, tree.root, overrides, replace)


def _given(section: dict) -> dict:
    """A section's keys that were given, nested sections alike (an empty one left out)."""
    out = {}
    for k, val in section.items():
        val = _given(val) if isinstance(val, dict) else val
        if val not in (None, {}):
            out[k] = val
    return out
